"""Regenerate the example score-change report in docs/guide/pr-report.md.

The example must be a real report, not a hand-written one. This script builds the
default data as the base, and a copy with the kind of edits a data pull request makes as the
head: one model re-scored after a grading fix (a large drop), one re-evaluated after a fix
(a large gain), one re-run with a few more correct
answers (a move inside its interval), one model added, one removed, one benchmark card given
a field it lacked, one evaluation's missing `max_tokens` reported. Then it renders the report
exactly as `reasonboard diff base-site head-site` would and rewrites the page between
`<!-- diff-example:start -->` and `<!-- diff-example:end -->`.

    python scripts/example_report.py           # rewrite the page
    python scripts/example_report.py --check   # exit 1 when the page is out of date
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from reasonboard.diff.command import load_build  # noqa: E402
from reasonboard.diff.compare import compare  # noqa: E402
from reasonboard.diff.markdown import render_markdown  # noqa: E402
from reasonboard.diff.samples import paired_changes  # noqa: E402

START = "<!-- diff-example:start -->"
END = "<!-- diff-example:end -->"
ADDED_MODEL = "wren-9b-instruct"
ADDED_LABEL = "Wren 9B Instruct"


@dataclass(frozen=True)
class Edit:
    """One change made to the head copy, described for the page."""

    text: str


def build(data: Path, out: Path, cache: Path) -> None:
    """`reasonboard build --data DATA --out OUT`, run from the repository root like CI does."""
    from click.testing import CliRunner
    from reasonboard.cli import main

    result = CliRunner().invoke(main, ["build", "--data", str(data), "--out", str(out), "--cache", str(cache),
                                       "--quiet"])
    if result.exit_code != 0:
        raise SystemExit(f"build of {data} failed:\n{result.output}")


def trials_file(data: Path, model: str) -> Path:
    """The trials file of `model`'s one evaluation; found by content, not by naming convention."""
    import duckdb

    for path in sorted((data / "trials").glob("*.parquet")):
        found = duckdb.sql(f"SELECT DISTINCT model FROM read_parquet('{path.as_posix()}')").fetchall()
        if found == [(model,)]:
            return path
    raise SystemExit(f"no trials file for {model} in {data}")


def rewrite_trials(path: Path, changes: str, where: str, target: Path | None = None) -> int:
    """Rewrite a trials file (or write it to `target`) with `changes`, a `REPLACE` list of
    columns, applied to the rows `where` holds; returns how many rows it changed. The rows
    keep the file's order and columns (SAMPLES.md section 1)."""
    import duckdb
    from reasonboard.store.trialfiles import write_trials

    con = duckdb.connect()
    source = f"read_parquet('{path.as_posix()}')"
    (changed,) = con.execute(f"SELECT count(*) FROM {source} WHERE {where}").fetchone() or (0,)
    out = target or path
    temporary = out.with_name(out.name + ".tmp")
    edited = ", ".join(f"CASE WHEN {where} THEN {expr} ELSE {name} END AS {name}"
                       for name, expr in (part.split("=", 1) for part in changes.split(";")))
    tiers = "tiers" in {row[0] for row in con.execute(f"DESCRIBE SELECT * FROM {source}").fetchall()}
    write_trials(con, f"(SELECT * REPLACE ({edited}) FROM {source})", [], temporary, with_tiers=tiers, ordered=True)
    con.close()
    temporary.replace(out)
    return int(changed)


def edit_head(data: Path, leaderboard: dict) -> list[Edit]:
    """Apply the example pull request to the head copy `data`; models are picked by rank."""
    evals = json.loads((data / "evals.json").read_text(encoding="utf-8"))
    names = {}
    for e in evals:
        names.setdefault(e["model"], []).append(e)
    ranked = [m for m in leaderboard["models"] if m["rank"] is not None and len(names.get(m["model"], ())) == 1]
    ranked.sort(key=lambda m: m["rank"])
    dropped, source, nudged = ranked[1], ranked[2], ranked[len(ranked) // 2]
    improved, removed = ranked[(3 * len(ranked)) // 4], ranked[-1]
    edits = []

    # A large drop: a leading model re-scored after a grading fix that took away about half of
    # its correct answers on one task (those whose item id ends in a character of the epoch's parity).
    task = sorted(dropped["tasks"])[0]
    halve = f"base_task = '{task}' AND correct AND (ascii(right(sample_id, 1)) + epoch) % 2 = 0"
    rewrite_trials(trials_file(data, dropped["model"]), "correct=false;credit=0.0", halve)
    edits.append(Edit(f"{dropped['label']} re-scored on {task} after a grading fix that took away about half "
                      "of its correct answers"))

    # A large gain: a weak model re-evaluated on its two worst tasks, every completed answer right.
    worst = sorted(improved["tasks"], key=lambda t: (improved["tasks"][t]["estimate"], t))[:2]
    listed = ", ".join(f"'{t}'" for t in worst)
    rewrite_trials(trials_file(data, improved["model"]), "correct=true;credit=1.0",
                   f"base_task IN ({listed}) AND NOT truncated")
    edits.append(Edit(f"{improved['label']} re-evaluated on {' and '.join(worst)} after a fix, every completed "
                      "answer correct"))

    # A move inside the interval: three wrong answers of one task regraded as right.
    task = sorted(nudged["tasks"])[0]
    few = (f"base_task = '{task}' AND NOT correct AND NOT truncated AND (params, sample_id, epoch) IN "
           f"(SELECT (params, sample_id, epoch) FROM read_parquet('{trials_file(data, nudged['model']).as_posix()}') "
           f"WHERE base_task = '{task}' AND NOT correct AND NOT truncated ORDER BY params, sample_id, epoch LIMIT 3)")
    changed = rewrite_trials(trials_file(data, nudged["model"]), "correct=true;credit=1.0", few)
    edits.append(Edit(f"{nudged['label']} given {changed} more correct answers on {task}"))

    # An added model (a copy of another model's trials under a new name, a few answers
    # fewer right) and a removed one.
    from reasonboard.store.trialfiles import trials_file_name

    entry = dict(names[source["model"]][0], model=ADDED_MODEL, label=ADDED_LABEL, hf_id=f"demo-wren/{ADDED_MODEL}")
    rewrite_trials(trials_file(data, source["model"]), f"model='{ADDED_MODEL}'", "true",
                   data / "trials" / trials_file_name(ADDED_MODEL, entry["template"], entry["sampler"]))
    rewrite_trials(data / "trials" / trials_file_name(ADDED_MODEL, entry["template"], entry["sampler"]),
                   "correct=false;credit=0.0", "correct AND (ascii(right(sample_id, 1)) + epoch) % 10 = 0")
    trials_file(data, removed["model"]).unlink()
    evals = [e for e in evals if e["model"] != removed["model"]] + [entry]
    edits.append(Edit(f"{ADDED_LABEL} added (simulated) and {removed['label']} removed"))

    # A closed reproducibility gap: an evaluation that did not report max_tokens now does.
    for e in evals:
        if e["model"] not in (improved["model"], removed["model"]) and "max_tokens" not in e.get("generation_args", {}):
            e["generation_args"] = dict(e.get("generation_args", {}), max_tokens=8192)
            edits.append(Edit(f"{e['label']} now reports `max_tokens`"))
            break
    (data / "evals.json").write_text(json.dumps(evals, indent=2, sort_keys=True) + "\n", encoding="utf-8")

    # A card gains a field: the lifecycle status the Evaluation Card schema reserves.
    for card_path in sorted((data / "cards").glob("*.json")):
        card = json.loads(card_path.read_text(encoding="utf-8"))
        evalcards = card["benchmark_card"].setdefault("evalcards", {})
        if not evalcards.get("lifecycle_status"):
            evalcards["lifecycle_status"] = "active"
            card_path.write_text(json.dumps(card, indent=2) + "\n", encoding="utf-8")
            name = card["benchmark_card"].get("benchmark_details", {}).get("name", card_path.stem)
            edits.append(Edit(f"the {name} benchmark card given a `lifecycle_status`"))
            break
    return edits


def demote_headings(markdown: str) -> str:
    """The report's `##` headline sits under the page's own `##` section, one level down."""
    return "\n".join("#" + line if line.startswith("#") else line for line in markdown.splitlines())


def generate() -> str:
    with tempfile.TemporaryDirectory(prefix="readme-report-") as tmp_name:
        tmp = Path(tmp_name)
        build(ROOT / "data", tmp / "base-site", tmp / "cache-base")
        base = load_build(tmp / "base-site")
        shutil.copytree(ROOT / "data", tmp / "head-data")
        edits = edit_head(tmp / "head-data", base.leaderboard)
        build(tmp / "head-data", tmp / "head-site", tmp / "cache-head")
        head = load_build(tmp / "head-site")
        # As `reasonboard diff` does: paired tests on the items both builds' published
        # per-sample outcomes share, where they share enough.
        paired = paired_changes(base.samples, head.samples, base.leaderboard, head.leaderboard)
    report = compare(base.leaderboard, head.leaderboard, base.signals, head.signals,
                     base_name="base-site", head_name="head-site", paired=paired)
    lines = [
        START,
        "<!-- Generated by scripts/example_report.py from the default data; do not edit by hand. -->",
        "",
        "The report below compares a build of the default data with a build of a copy in which:",
        "",
        *[f"* {edit.text}" for edit in edits],
        "",
        demote_headings(render_markdown(report)),
        END,
    ]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when the page is out of date")
    args = parser.parse_args()
    readme = ROOT / "docs" / "guide" / "pr-report.md"
    text = readme.read_text(encoding="utf-8")
    if START not in text or END not in text:
        raise SystemExit(f"{readme} lacks the markers {START} ... {END}")
    before, rest = text.split(START, 1)
    _, after = rest.split(END, 1)
    updated = before + generate() + after
    if args.check:
        if updated != text:
            print(f"{readme}: the example report is out of date; run python scripts/example_report.py")
            return 1
        return 0
    readme.write_text(updated, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
