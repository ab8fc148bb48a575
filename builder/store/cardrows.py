"""Benchmark cards as the PointsDB's four card tables (EVALCARDS.md section 2): which
benchmark keys each card answers to, and its completeness items and risks as rows."""

from __future__ import annotations

from typing import Any, Iterable

import numpy as np

from ..sources.cards import CardRecord
from .cardfields import card_is_agentic, card_items, card_risks
from .keys import Aliases, key


def card_keys(record: CardRecord, aliases: Aliases) -> tuple[list[str], str]:
    """(every benchmark key the card answers to, its home key).

    Section 2: the key of `benchmark_details.name`, the key of the file stem, and their
    config aliases. The home key, used when no reported benchmark matches, is the stem's:
    the Auto-BenchmarkCards pipeline names files after the benchmark's short name
    ("IFEval"), while `name` may be long ("Instruction-Following Eval (IFEval)").
    """
    details = record.card.get("benchmark_details")
    name = details.get("name") if isinstance(details, dict) else None
    raw = [key(record.stem), key(name) if isinstance(name, str) else ""]
    keys = [k for k in dict.fromkeys([*raw, *(aliases.benchmark(k) for k in raw if k)]) if k]
    home = next((aliases.benchmark(k) for k in raw if k), "")
    return keys, home


CARD_TABLES = {
    "cards": ("card_id", "source_path", "name", "stem", "home_key", "agentic"),
    "card_keys": ("card_id", "key"),
    "card_fields": ("card_id", "position", "field", "sub_item", "level", "text"),
    "card_risks": ("card_id", "position", "category", "description", "url"),
}
_CARD_TYPES = {"card_id": np.int32, "position": np.int32, "level": np.uint8, "agentic": bool}


def card_tables(records: Iterable[CardRecord], aliases: Aliases) -> tuple[dict[str, dict[str, Any]], list[tuple[str, str]]]:
    """Columns for the four card tables, and card problems: a card with no usable key, or
    one describing the same benchmark as an earlier card (the earlier file wins)."""
    rows: dict[str, list[tuple[Any, ...]]] = {table: [] for table in CARD_TABLES}
    problems: list[tuple[str, str]] = []
    claimed: dict[str, str] = {}
    for record in records:
        keys, home = card_keys(record, aliases)
        if not keys:
            problems.append((record.path, "benchmark card names no benchmark (benchmark_details.name or file name)"))
            continue
        clash = next((k for k in keys if k in claimed), None)
        if clash is not None:
            problems.append((record.path, f"describes benchmark '{clash}' like {claimed[clash]}, which is used instead"))
            continue
        claimed.update({k: record.path for k in keys})
        card_id = len(rows["cards"])
        details = record.card.get("benchmark_details")
        name = details.get("name") if isinstance(details, dict) else None
        name = name.strip() if isinstance(name, str) and name.strip() else None
        rows["cards"].append((card_id, record.path, name, record.stem, home, card_is_agentic(record)))
        rows["card_keys"].extend((card_id, k) for k in keys)
        rows["card_fields"].extend((card_id, i.position, i.field, i.sub_item, i.level, i.text)
                                   for i in card_items(record))
        rows["card_risks"].extend((card_id, r.position, r.category, r.description, r.url)
                                  for r in card_risks(record))
    tables = {}
    for table, names in CARD_TABLES.items():
        columns = list(zip(*rows[table])) if rows[table] else [()] * len(names)
        tables[table] = {name: np.asarray(values, dtype=_CARD_TYPES[name]) if name in _CARD_TYPES else list(values)
                         for name, values in zip(names, columns)}
    return tables, problems
