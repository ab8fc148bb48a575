"""Reading `evals.json`: the evaluations' metadata, checked entry by entry.

Every problem is an `InputError` naming the file, the entry and the line an editor shows
(`entry_lines` finds where each entry of the list starts); the store inserts what this
returns (`store.ingest.ingest_evals`).
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

from ..errors import InputError, did_you_mean, shown
from ..names import clean
from ..vocabulary import RELATIONSHIPS
from .limits import MAX_NAME_CHARS, load_json, too_long
from .text import read_text

EVAL_KEYS = {
    "model", "template", "sampler", "label", "groups", "hf_id", "organization",
    "relationship", "generation_args", "harness", "simulated", "observed", "harness_scores", "likelihood_tasks",
    "price_in", "price_out", "price_source", "price_date",
}

#: Prices (PRODUCT.md, "Cost"): US dollars per million input (prompt) and output tokens.
PRICE_KEYS = ("price_in", "price_out")
#: A price above this (USD per million tokens) is taken for a typing slip, not a price.
MAX_PRICE = 100_000


#: What `observed` may say (INGEST.md section 6): whether the harness recorded these at all.
OBSERVED_KEYS = ("truncation", "tokens")


def read_evals(path: Path) -> list[dict[str, Any]]:
    """Parse and check `evals.json`: a list of objects, one per (model, template, sampler)."""
    text = read_text(path)
    try:
        raw = load_json(text, path)
    except json.JSONDecodeError as exc:
        raise InputError(path, f"invalid JSON ({exc.msg}, column {exc.colno})", line=exc.lineno) from None
    if isinstance(raw, dict) and isinstance(raw.get("evaluations"), list):
        raw = raw["evaluations"]
    if not isinstance(raw, list):
        raise InputError(path, "must be a JSON list of evaluation objects")

    def bad(i: int, problem: str) -> InputError:
        line = _entry_line(text, i)
        return InputError(path, f"entry {i}: {problem}", line=line) if line else InputError(path, problem, row=i)

    seen: dict[tuple[str, str, str], int] = {}
    entries = []
    for i, entry in enumerate(raw, start=1):
        if not isinstance(entry, dict):
            raise bad(i, "entry must be an object")
        unknown = sorted(set(entry) - EVAL_KEYS)
        if unknown:
            raise bad(i, f"unknown key '{unknown[0]}'{did_you_mean(unknown[0], EVAL_KEYS - set(entry))} "
                         f"(known: {', '.join(sorted(EVAL_KEYS))})")
        for key in ("model", "template", "sampler"):
            if not isinstance(entry.get(key), str) or not entry[key].strip():
                raise bad(i, f"'{key}' must be a non-empty string")
            if len(entry[key]) > MAX_NAME_CHARS:
                raise bad(i, too_long(key, len(entry[key]), MAX_NAME_CHARS))
        # Names as the points' (names.py): in NFC, without control or bidirectional characters.
        entry = {**entry, **{k: clean(entry[k]).strip() for k in ("model", "template", "sampler")}}
        ident = (entry["model"], entry["template"], entry["sampler"])
        if ident in seen:
            first = _entry_line(text, seen[ident])
            where = f"line {first}" if first else f"entry {seen[ident]}"
            raise bad(i, f"evaluation {'/'.join(ident)} is listed twice (first at {where}): keep one of them")
        seen[ident] = i
        rel = entry.get("relationship")
        if rel is not None and rel not in RELATIONSHIPS:
            raise bad(i, f"'relationship' must be one of {', '.join(RELATIONSHIPS)} (got {shown(rel)})")
        gen = entry.get("generation_args", {})
        if not isinstance(gen, dict):
            raise bad(i, "'generation_args' must be an object")
        groups = entry.get("groups", [])
        if not isinstance(groups, list) or not all(isinstance(g, str) for g in groups):
            raise bad(i, "'groups' must be a list of strings")
        for key in ("label", "hf_id", "organization", "harness"):
            if entry.get(key) is not None and not isinstance(entry[key], str):
                raise bad(i, f"'{key}' must be a string (got {shown(entry[key])})")
            if entry.get(key) is not None:
                entry[key] = clean(entry[key])
        groups = [clean(g) for g in groups]
        if not isinstance(entry.get("simulated", False), bool):
            raise bad(i, "'simulated' must be true or false")
        observed = entry.get("observed", {})
        if not isinstance(observed, dict) or any(k not in OBSERVED_KEYS or not isinstance(v, bool)
                                                 for k, v in observed.items()):
            raise bad(i, "'observed' must be an object of true/false under 'truncation' and 'tokens'")
        likelihood = entry.get("likelihood_tasks", [])
        if not isinstance(likelihood, list) or not all(isinstance(t, str) for t in likelihood):
            raise bad(i, "'likelihood_tasks' must be a list of task names (the tasks scored by log-likelihood, "
                         f"which sample nothing; got {shown(likelihood)})")
        problem = _price_problem(entry)
        if problem:
            raise bad(i, problem)
        scores = entry.get("harness_scores", {})
        if not isinstance(scores, dict) or not all(
                isinstance(v, dict) and isinstance(v.get("metric"), str) and _is_number(v.get("value"))
                for v in scores.values()):
            raise bad(i, "'harness_scores' must map each task to {\"metric\": name, \"value\": number}, "
                         "the harness's own headline figure")
        entries.append({**entry, "generation_args": gen, "groups": groups, "harness_scores": scores,
                        "likelihood_tasks": sorted({clean(t).strip() for t in likelihood} - {""})})
    return entries


def _price_problem(entry: dict[str, Any]) -> str | None:
    """What is wrong with an entry's price fields, if anything."""
    import datetime

    for key in PRICE_KEYS:
        value = entry.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))
                                  or not math.isfinite(value) or not 0 <= value <= MAX_PRICE):
            return (f"'{key}' must be a price in US dollars per million tokens, a number from 0 to {MAX_PRICE:,} "
                    f"(got {value!r})")
    source = entry.get("price_source")
    if source is not None and (not isinstance(source, str) or not source.strip()):
        return "'price_source' must be a non-empty string: where the price was read (a URL or a price list)"
    date = entry.get("price_date")
    if date is not None:
        try:
            if not isinstance(date, str) or not re.fullmatch(r"\d{4}-\d{2}-\d{2}", date):
                raise ValueError
            datetime.date.fromisoformat(date)
        except ValueError:
            return f"'price_date' must be the date the price was read, YYYY-MM-DD (got {date!r})"
    return None


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


_SPACE = re.compile(r"[ \t\n\r]*")


def _skip_space(text: str, pos: int) -> int:
    match = _SPACE.match(text, pos)
    return match.end() if match else pos


def entry_lines(text: str) -> list[int]:
    """The editor line where each entry of a top-level JSON list starts (one pass); empty
    when the document is not a plain list (the `{"evaluations": [...]}` form) or not JSON."""
    decoder = json.JSONDecoder()
    pos = _skip_space(text, 0)
    if not text.startswith("[", pos):
        return []
    lines: list[int] = []
    line, counted = 1, 0
    pos += 1
    try:
        while True:
            pos = _skip_space(text, pos)
            if text.startswith("]", pos) or pos >= len(text):
                return lines
            line += text.count("\n", counted, pos)
            counted = pos
            lines.append(line)
            _, pos = decoder.raw_decode(text, pos)
            pos = _skip_space(text, pos) + 1  # past the comma
    except json.JSONDecodeError:
        return []


def _entry_line(text: str, index: int) -> int | None:
    lines = entry_lines(text)
    return lines[index - 1] if index <= len(lines) else None
