"""Minimum evidence, shared items, partial credit and the published per-sample outcomes
(SAMPLES.md sections 3-5), each against a plain reading written here: the rule applied by hand
to crafted points, the trials files read row by row, and the built pages read as text.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import build_site
from helpers_points import ingest_rows, parquet_rows, point
from helpers_site import page
from reasonboard.cli import main
from reasonboard.config import SiteConfig
from reasonboard.ingest import IngestOptions, run_ingest
from reasonboard.sampleoutputs import SAMPLE_COLUMNS as COLUMNS
from reasonboard.stats.bands import load_bands
from reasonboard.stats.leaderboard import compute_leaderboard
from reasonboard.store.trialfiles import trials_file_name

ROOT = Path(__file__).resolve().parents[1]
BANDS = load_bands(ROOT / "content" / "bands.toml")
INSPECT = Path(__file__).parent / "data" / "per-instance" / "inspect"
SET = INSPECT / "inspect_ai" / "log-sets" / "set"
ONE = INSPECT / "inspect_ai" / "eval-set1"
MINI = INSPECT / "inspect_ai" / "examples" / "scanner" / "logs" / "2025-09-23T08-09-58-04-00_popularity_DN2wbX2ZvACsBpjwptzBRo.eval"
SHORT = INSPECT / "every_eval_ever" / "tests" / "data" / "inspect" / "inspect_shortened"


def rows(path: Path) -> list[dict]:
    return parquet_rows(path)


# -- status (section 4) on crafted points ----------------------------------------------------

#: (model, {task: (total, samples or None)}); correct is half of total.
CRAFTED = [
    ("ample", {"a": (40, None), "b": (60, 30)}),
    ("short", {"a": (40, None), "b": (60, 5)}),       # 5 samples x 12 epochs on b
    ("tiny", {"a": (10, None), "b": (30, None)}),     # 10 trials, no samples column: 10 samples on a
    ("gap", {"a": (40, None)}),                       # b missing
    ("both", {"a": (8, None)}),                       # short and missing: incomplete
]


def plain_status(tasks: dict, all_tasks: list[str], minimum: int) -> tuple[str, list[str]]:
    missing = [t for t in all_tasks if t not in tasks]
    short = [t for t in all_tasks if t in tasks and (tasks[t][1] or tasks[t][0]) < minimum]
    if missing:
        return "incomplete", short
    return ("preliminary", short) if short else ("ranked", [])


@pytest.fixture(scope="module")
def crafted(tmp_path_factory):
    points = []
    for model, tasks in CRAFTED:
        for task, (total, samples) in tasks.items():
            extra = {"samples": samples if samples is not None else ""}
            points.append(point(model=model, base_task=task, params={}, total=total, correct=total // 2, **extra))
    with ingest_rows(tmp_path_factory.mktemp("crafted"), points) as db:
        return compute_leaderboard(db, SiteConfig(bootstrap=500), BANDS)


def test_status_by_hand(crafted):
    by_model = {m.model: m for m in crafted.leaderboard.models}
    for model, tasks in CRAFTED:
        status, short = plain_status(tasks, ["a", "b"], 20)
        m = by_model[model]
        assert (m.status, list(m.preliminary_tasks)) == (status, short), model
        assert (m.rank is None) == (status != "ranked")
        if status == "preliminary":
            assert m.band is None
        for task, t in m.tasks.items():
            total, samples = tasks[task]
            assert t.samples == (samples or total) and t.preliminary == ((samples or total) < 20)


def test_unranked_rows_come_after_the_ranked_preliminary_before_incomplete(crafted):
    statuses = [m.status for m in crafted.leaderboard.models]
    assert statuses == sorted(statuses, key=["ranked", "preliminary", "incomplete"].index)
    assert statuses.count("ranked") == 1


def test_a_task_lists_preliminary_results_after_the_others(crafted):
    ranking = crafted.task_rankings["b"]
    names = [m.model for m in ranking.rows]
    short = {model for model, tasks in CRAFTED if "b" in tasks and (tasks["b"][1] or tasks["b"][0]) < 20}
    assert short == {"short"}
    assert set(names[:ranking.ranked]) == {"ample", "tiny"} and set(names[ranking.ranked:]) == short
    assert ranking.rank_best[ranking.ranked:] == (0,) and ranking.tied_next[ranking.ranked:] == (None,)


# -- real logs: shared items, a preliminary row, the pages -------------------------------------


@pytest.fixture(scope="module")
def popularity(tmp_path_factory):
    base = tmp_path_factory.mktemp("popularity")
    data = base / "data"
    run_ingest(IngestOptions(paths=(SET, MINI), data_dir=data))
    run_ingest(IngestOptions(paths=(ONE,), data_dir=data, model="openai/gpt-5 (one sample)"))
    return data, build_site(data, base / "site", base / "cache")


def test_shared_items_by_hand(popularity):
    data, built = popularity
    answered = {}
    for path in (data / "trials").glob("*.parquet"):
        for r in rows(path):
            answered.setdefault(r["model"], set()).add((r["params"], r["sample_id"]))
    union = set().union(*answered.values())
    ranking = built.results.task_rankings["popularity"]
    assert ranking.items == len(union)
    for m in ranking.rows:
        assert m.tasks["popularity"].items == len(answered[m.model])
    text = page(built.out, "tasks/popularity.html").text
    for items in answered.values():
        assert f"{len(items)} of {len(union)}" in text
    same = len({frozenset(v) for v in answered.values()}) == 1
    assert ("did not all answer the same items" in text) == (not same)


def test_one_sample_is_preliminary_everywhere(popularity):
    _, built = popularity
    board = {m["model"]: m for m in built.leaderboard["models"]}
    single = board["openai/gpt-5 (one sample)"]
    assert (single["status"], single["preliminary_tasks"], single["rank"], single["band"]) == (
        "preliminary", ["popularity"], None, None)
    assert [m["status"] for m in built.leaderboard["models"]][-1] == "preliminary"
    task = page(built.out, "tasks/popularity.html")
    assert "Preliminary results" in task.text and "preliminary: 1 sample, fewer than 20" in task.text
    index = page(built.out, "index.html").text
    assert "Preliminary: fewer than 20 samples on a task" in index
    assert "fewer than 20 samples on popularity" in index
    slug = next(e.slug for e in built.results.evaluations.values() if e.model == "openai/gpt-5 (one sample)")
    model = page(built.out, f"models/{slug}.html")
    band_cell = model.by_id("task-results").find("tbody").find("tr").find_all("td")[1]
    assert band_cell.text == "preliminary: 1 sample, fewer than 20"


def test_samples_files_are_the_trials_without_the_evaluation(popularity):
    data, built = popularity
    for e in built.results.evaluations.values():
        published = built.out / "data" / "samples" / f"{e.slug}.parquet"
        source = rows(data / "trials" / trials_file_name(e.model, e.template, e.sampler))
        got = rows(published)
        assert got == [{c: r[c] for c in COLUMNS} for r in source]
        assert "model" not in got[0] and "text" not in " ".join(got[0])
        model_page = (built.out / "models" / f"{e.slug}.html").read_text(encoding="utf-8")
        assert f'samples/{e.slug}.parquet" download' in model_page


def test_samples_are_private_on_request(tmp_path, popularity):
    data, _ = popularity
    config = tmp_path / "site.toml"
    config.write_text("publish_samples = false\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["build", "--data", str(data), "--out", str(tmp_path / "site"),
                                       "--cache", str(tmp_path / "cache"), "--config", str(config), "--quiet"])
    assert result.exit_code == 0, result.output
    assert not (tmp_path / "site" / "data" / "samples").exists()
    assert not any("download" in p.read_text(encoding="utf-8") for p in (tmp_path / "site" / "models").glob("*.html"))


# -- partial credit (INGEST.md section 3) -------------------------------------------------------


def test_partial_credit_counts_and_the_harness_figure(tmp_path):
    data = tmp_path / "data"
    result = run_ingest(IngestOptions(paths=(SHORT / "drop.json", SHORT / "lingoly.json"), data_dir=data))
    partial_by_hand = {}
    for path in (data / "trials").glob("*.parquet"):
        for r in rows(path):
            partial_by_hand[r["base_task"]] = partial_by_hand.get(r["base_task"], 0) + (0 < r["credit"] < 1)
    assert sum(partial_by_hand.values()) == sum(p.partial for p in result.points) > 0
    entries = json.loads((data / "evals.json").read_text(encoding="utf-8"))
    # drop's log records the mean F1 of its scorer; lingoly's records no accuracy or mean.
    scores = {task: v for e in entries for task, v in e.get("harness_scores", {}).items()}
    assert set(scores) == {"drop"} and scores["drop"]["metric"] == "mean"
    built = build_site(data, tmp_path / "site", tmp_path / "cache")
    tasks = {task: (m, t) for m in built.leaderboard["models"] for task, t in m["tasks"].items()}
    for task, count in partial_by_hand.items():
        assert tasks[task][1]["partial"] == count
    for task, (m, t) in tasks.items():
        text = page(built.out, f"models/{m['slug']}.html").text
        parts = [f"{partial_by_hand[task]} of {t['total']} trials partially correct, counted as not correct"] * bool(
            partial_by_hand[task])
        if task in scores:
            parts.append(f"the harness reports {100 * scores[task]['value']:.1f}% ({scores[task]['metric']})")
        assert parts and f"{task}: {'; '.join(parts)}" in text


#: The harness's own test log of gpt-4o-mini on popularity: 10 of MINI's 100 samples, 80 % accurate.
MINI_TEN = INSPECT / "inspect_ai" / "tests" / "scorer" / "logs" / "2025-02-11T15-18-04-05-00_popularity_mj7khqpMM4GBCfVQozKgzB.eval"


def test_a_harness_figure_is_kept_only_where_it_describes_the_result(tmp_path):
    """Two logs of one evaluation and task make one result over both: neither log's own
    headline (63 % of 100, 80 % of 10) is that result's, so none is printed beside it. A
    later ingest of one log replaces the task's trials, and its figure describes them."""
    data = tmp_path / "data"

    def figures() -> dict:
        entries = json.loads((data / "evals.json").read_text(encoding="utf-8"))
        return {task: v["value"] for e in entries for task, v in e.get("harness_scores", {}).items()}

    run_ingest(IngestOptions(paths=(MINI,), data_dir=data))
    assert figures() == {"popularity": 0.63}
    run_ingest(IngestOptions(paths=(MINI, MINI_TEN), data_dir=data))
    assert figures() == {}
    built = build_site(data, tmp_path / "site", tmp_path / "cache")
    (m,) = built.leaderboard["models"]
    assert "the harness reports" not in page(built.out, f"models/{m['slug']}.html").text
    run_ingest(IngestOptions(paths=(MINI_TEN,), data_dir=data))
    assert figures() == {"popularity": 0.8}
    assert len(rows(next((data / "trials").glob("*.parquet")))) == 10
    # The 100-sample log read after the 10-sample one (a later path wins a trial): it
    # replaces every trial of the other, so the result is its own and so is the figure.
    (tmp_path / "logs").mkdir()
    shutil.copy(MINI_TEN, tmp_path / "logs" / "a.eval")
    shutil.copy(MINI, tmp_path / "logs" / "b.eval")
    run_ingest(IngestOptions(paths=(tmp_path / "logs",), data_dir=data))
    assert figures() == {"popularity": 0.63}

def test_ingest_warns_about_an_input_with_few_samples(tmp_path):
    result = CliRunner().invoke(main, ["ingest", str(SHORT / "piqa.json"), str(SET), "--data", str(tmp_path / "d")])
    assert result.exit_code == 0, result.output
    warnings = [line for line in result.output.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1 and "piqa.json: task piqa has 5 samples, fewer than 20 (min_samples)" in warnings[0]
