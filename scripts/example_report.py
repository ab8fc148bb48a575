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
import csv
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


def read_points(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        return list(reader.fieldnames or []), list(reader)


def write_points(path: Path, columns: list[str], rows: list[dict[str, str]]) -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


def points_file(data: Path, model: str) -> Path:
    """The demo writes one CSV per model name; find it by content, not by naming convention."""
    for path in sorted((data / "points").glob("*.csv")):
        _, rows = read_points(path)
        if rows and rows[0]["model"] == model:
            return path
    raise SystemExit(f"no points file for {model} in {data}")


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

    # A large drop: a leading model re-scored after a grading fix halved its correct answers
    # on one task.
    task = sorted(dropped["tasks"])[0]
    path = points_file(data, dropped["model"])
    columns, rows = read_points(path)
    for row in rows:
        if row["base_task"] == task:
            row["correct"] = str(int(row["correct"]) // 2)
    write_points(path, columns, rows)
    edits.append(Edit(f"{dropped['label']} re-scored on {task} after a grading fix that halved its correct "
                      "answers"))

    # A large gain: a weak model re-evaluated on its two worst tasks, every answer right.
    worst = sorted(improved["tasks"], key=lambda t: (improved["tasks"][t]["estimate"], t))[:2]
    path = points_file(data, improved["model"])
    columns, rows = read_points(path)
    for row in rows:
        if row["base_task"] in worst:
            row["correct"] = str(int(row["total"]) - int(row["truncated"]))
    write_points(path, columns, rows)
    edits.append(Edit(f"{improved['label']} re-evaluated on {' and '.join(worst)} after a fix, every answer "
                      "correct"))

    # A move inside the interval: one more correct answer on a few points of one task.
    task = sorted(nudged["tasks"])[0]
    path = points_file(data, nudged["model"])
    columns, rows = read_points(path)
    changed = 0
    for row in rows:
        if row["base_task"] == task and changed < 3 and int(row["correct"]) < int(row["total"]) - int(row["truncated"]):
            row["correct"] = str(int(row["correct"]) + 1)
            changed += 1
    write_points(path, columns, rows)
    edits.append(Edit(f"{nudged['label']} given {changed} more correct answers on {task}"))

    # An added model (a copy of another model's points under a new name) and a removed one.
    source = ranked[1]
    columns, rows = read_points(points_file(data, source["model"]))
    for row in rows:
        row["model"] = ADDED_MODEL
        row["correct"] = str(max(int(row["correct"]) - 2, 0))
    write_points(data / "points" / f"{ADDED_MODEL}.csv", columns, rows)
    entry = dict(names[source["model"]][0], model=ADDED_MODEL, label=ADDED_LABEL, hf_id=f"demo-wren/{ADDED_MODEL}")
    points_file(data, removed["model"]).unlink()
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
    report = compare(base.leaderboard, head.leaderboard, base.signals, head.signals,
                     base_name="base-site", head_name="head-site")
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
