"""evals.json and the points must describe the same evaluations (issue 15, item 1).

An entry joins its points by the exact (model, template, sampler). A case typo used to
detach the entry silently: the evaluation was published under its raw id and its
reproducibility badge listed every generation argument as left out, though the user had
written them. Every disagreement is now a warning that names the entry's line with a "did
you mean", repeated while the inputs stay the same, and `--strict` makes it an error.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers_site import parse
from reasonboard.cli import main
from reasonboard.config import SiteConfig
from reasonboard.demo import write_demo
from reasonboard.store.cache import open_store
from reasonboard.store.trialfiles import trials_file_name

MODEL = "halyard-4b-think"
TYPO = "Halyard-4b-think"


@pytest.fixture(scope="module")
def demo_data(tmp_path_factory) -> Path:
    data = tmp_path_factory.mktemp("demo") / "data"
    write_demo(data, models=3, seed=0)
    return data


def copy_data(demo_data: Path, tmp_path: Path) -> Path:
    data = tmp_path / "data"
    (data / "trials").mkdir(parents=True)
    for path in (demo_data / "trials").iterdir():
        (data / "trials" / path.name).write_bytes(path.read_bytes())
    (data / "evals.json").write_bytes((demo_data / "evals.json").read_bytes())
    return data


def edit_evals(data: Path, change) -> list[dict]:
    entries = json.loads((data / "evals.json").read_text(encoding="utf-8"))
    change(entries)
    (data / "evals.json").write_text(json.dumps(entries, indent=2), encoding="utf-8")
    return entries


def entry_start_line(data: Path, model: str) -> int:
    """A second reading: the line of the `{` that opens the entry naming `model`."""
    lines = (data / "evals.json").read_text(encoding="utf-8").split("\n")
    at = next(i for i, line in enumerate(lines) if line.strip() == f'"model": "{model}",')
    while lines[at].strip() != "{":
        at -= 1
    return at + 1


def store_warnings(data: Path, tmp_path: Path) -> list[str]:
    db, report = open_store(data, tmp_path / "cache", None, SiteConfig())
    db.close()
    return report.warnings


def rename_model(entries: list[dict], old: str, new: str) -> None:
    for e in entries:
        if e["model"] == old:
            e["model"] = new


def test_matching_inputs_give_no_warning(demo_data, tmp_path):
    assert store_warnings(copy_data(demo_data, tmp_path), tmp_path) == []


def test_a_case_typo_names_the_entry_and_the_evaluation_it_meant(demo_data, tmp_path):
    data = copy_data(demo_data, tmp_path)
    edit_evals(data, lambda entries: rename_model(entries, MODEL, TYPO))
    warnings = store_warnings(data, tmp_path)
    line = entry_start_line(data, TYPO)
    assert len(warnings) == 1, warnings  # one mistake, one warning (not one per side)
    assert warnings[0].startswith(f"{data / 'evals.json'}, line {line}: entry 1 ({TYPO} / zerocot / t0.6-16k) "
                                  "matches no points")
    name = trials_file_name(MODEL, "zerocot", "t0.6-16k")
    assert f"did you mean {MODEL} / zerocot / t0.6-16k (points in trials/{name})?" in warnings[0]
    assert "no generation arguments" in warnings[0]


def test_an_entry_without_points_and_an_evaluation_without_an_entry_are_both_named(demo_data, tmp_path):
    data = copy_data(demo_data, tmp_path)

    def change(entries: list[dict]) -> None:
        entries[:] = [e for e in entries if e["model"] != "thistle-32b-instruct"]
        entries.append({"model": "aurora-70b", "template": "zerocot", "sampler": "greedy-8k"})

    edit_evals(data, change)
    warnings = store_warnings(data, tmp_path)
    line = entry_start_line(data, "aurora-70b")
    assert warnings == [
        f"{data / 'evals.json'}, line {line}: entry 4 (aurora-70b / zerocot / greedy-8k) matches no points; "
        "nothing of it is published",
        f"{data / 'evals.json'}: evaluation thistle-32b-instruct / zerocot / greedy-8k (points in "
        f"trials/{trials_file_name('thistle-32b-instruct', 'zerocot', 'greedy-8k')}) has no entry in evals.json, "
        "so it is published under its raw id with no generation arguments",
    ]


def test_did_you_mean_prefers_a_case_match_then_the_closest_name():
    from reasonboard.store.consistency import did_you_mean

    candidates = [("aurora-7b", "zerocot", "greedy"), ("aurora-70b", "zerocot", "greedy")]
    assert did_you_mean(("Aurora-70B", "zerocot", "greedy"), candidates) == candidates[1]
    assert did_you_mean(("aurora-70b-", "zerocot", "greedy"), candidates) == candidates[1]
    assert did_you_mean(("zephyr", "cot", "t1"), candidates) is None


def page_text(out: Path, model: str) -> str:
    pages = sorted(p for p in (out / "models").rglob("*.html") if model in p.name)
    assert pages, f"no model page for {model}"
    return " ".join(parse(p.read_text(encoding="utf-8")).text for p in pages)


def build(data: Path, tmp_path: Path, *extra: str):
    return CliRunner().invoke(main, ["build", "--data", str(data), "--out", str(tmp_path / "site"),
                                     "--cache", str(tmp_path / "cache"), "--quiet", *extra])


def test_the_build_warns_every_time_and_the_suggested_fix_restores_the_badge(demo_data, tmp_path):
    data = copy_data(demo_data, tmp_path)
    edit_evals(data, lambda entries: rename_model(entries, MODEL, TYPO))
    first = build(data, tmp_path)
    assert first.exit_code == 0, first.output
    warning = re.search(r"^  warning: (.*evals\.json, line \d+: entry 1 .*)$", first.output, re.M)
    assert warning and f"did you mean {MODEL}" in warning.group(1)
    # What the typo does to the published page: no entry, so every generation argument is
    # counted as missing. The warning says exactly this.
    assert "leave out max_tokens, temperature" in page_text(tmp_path / "site", MODEL)
    again = build(data, tmp_path)
    assert "is up to date" in again.output and warning.group(0) in again.output

    edit_evals(data, lambda entries: rename_model(entries, TYPO, MODEL))  # the fix the warning suggests
    fixed = build(data, tmp_path)
    assert fixed.exit_code == 0 and "warning" not in fixed.output, fixed.output
    assert "leave out max_tokens" not in page_text(tmp_path / "site", MODEL)


def test_strict_makes_a_mismatch_an_error_and_writes_nothing(demo_data, tmp_path):
    data = copy_data(demo_data, tmp_path)
    edit_evals(data, lambda entries: rename_model(entries, MODEL, TYPO))
    result = build(data, tmp_path, "--strict")
    assert result.exit_code == 2
    line = entry_start_line(data, TYPO)
    assert f"error: {data / 'evals.json'}, line {line}: entry 1 ({TYPO} / zerocot / t0.6-16k) matches no points" \
        in result.output
    assert "Traceback" not in result.output and not (tmp_path / "site").exists()
