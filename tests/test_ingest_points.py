"""Summing trials into points, the writer, the `ingest` command and the pages it feeds.

Counters are worked by hand in the comments; the end-to-end test ingests the whole copied
per-instance tree, builds the site and reads the built pages.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import build_site
from helpers_site import page
from reasonboard.cli import main
from reasonboard.errors import InputError
from reasonboard.ingest import IngestOptions, run_ingest
from reasonboard.sources.trials import Trial
from reasonboard.store.trialfiles import trials_file_name
from reasonboard.store.trials import TrialStore
from reasonboard.vocabulary import MODES

DATA = Path(__file__).parent / "data" / "per-instance"
SET = DATA / "inspect" / "inspect_ai" / "log-sets" / "set"
SHORT = DATA / "inspect" / "every_eval_ever" / "tests" / "data" / "inspect" / "inspect_shortened"


def trial(sample: str, score: float, truncated: bool = False, options: int | None = None,
          tokens: int | None = None, params: str = "{}", epoch: int = 1) -> Trial:
    return Trial(sample_id=sample, epoch=epoch, params=params, score=score, truncated=truncated,
                 options=options, tokens=tokens)


# -- summing (INGEST.md section 2) ---------------------------------------------------------------


def test_counters_of_one_point_by_hand():
    store = TrialStore()
    run = store.add_run(0, "m", "default", "greedy", "task", "acc")
    store.add_trials(run, [
        trial("1", 1.0, options=4, tokens=10),                  # correct, guess 1/4
        trial("2", 1.0, truncated=True, options=4, tokens=100),  # truncated: not correct, no guess
        trial("3", 0.0, options=4),                             # wrong, guess 1/4, tokens not recorded
        trial("4", 0.5, tokens=5),                              # partial credit: not correct; write-in
        trial("1", 1.0, options=4, tokens=7, epoch=2),          # a second epoch is a second trial
    ])
    summed = store.sum()
    [p] = summed.points
    assert (p.total, p.correct, p.truncated, p.tokens, p.partial) == (5, 2, 1, 122, 1)
    assert p.guess == pytest.approx(0.75)
    assert summed.replaced == 0 and summed.no_credit == []


def test_duplicates_later_input_wins_and_params_split_points():
    store = TrialStore()
    early = store.add_run(0, "m", "t", "s", "task", "acc")
    late = store.add_run(1, "m", "t", "s", "task", "acc")
    store.add_trials(early, [trial("a", 1.0), trial("b", 1.0), trial("c", 1.0, params='{"level":"2"}')])
    store.add_trials(late, [trial("a", 0.0)])  # the later input says "a" was wrong
    summed = store.sum()
    by_params = {p.params: p for p in summed.points}
    assert (by_params["{}"].total, by_params["{}"].correct) == (2, 1)
    assert (by_params['{"level":"2"}'].total, by_params['{"level":"2"}'].correct) == (1, 1)
    assert summed.replaced == 1


def test_values_outside_unit_range_skip_the_task_with_an_example():
    store = TrialStore()
    mae = store.add_run(0, "m", "t", "s", "regression", "mae")
    store.add_trials(mae, [trial("1", 0.0), trial("2", 312.5), trial("3", 1.0)])
    ok = store.add_run(1, "m", "t", "s", "fine", "acc")
    store.add_trials(ok, [trial("1", 1.0)])
    summed = store.sum()
    assert [p.base_task for p in summed.points] == ["fine"]
    [skip] = summed.no_credit
    assert (skip.task, skip.metric, skip.example, skip.trials) == ("regression", "mae", 312.5, 3)
    assert "regression" in skip.message and "mae" in skip.message and "312.5" in skip.message


def test_a_run_skipped_half_way_leaves_no_trials():
    store = TrialStore()
    run = store.add_run(0, "m", "t", "s", "task", "acc")
    store.add_trials(run, [trial("1", 1.0)])
    store.skip_run(run)
    assert store.sum().points == []


def test_batches_larger_than_one_flush(monkeypatch):
    import reasonboard.store.trials as trials_module

    monkeypatch.setattr(trials_module, "BATCH", 7)
    store = TrialStore()
    run = store.add_run(0, "m", "t", "s", "task", "acc")
    assert store.add_trials(run, (trial(str(i), float(i % 3 == 0), options=2) for i in range(50))) == 50
    [p] = store.sum().points
    assert (p.total, p.correct) == (50, 17)  # 0, 3, ..., 48
    assert p.guess == pytest.approx(25.0)


# -- the writer ----------------------------------------------------------------------------------


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_reingest_gives_byte_identical_files(tmp_path):
    options = IngestOptions(paths=(SET, SHORT / "math.json"), data_dir=tmp_path / "data")
    run_ingest(options)
    first = _files(tmp_path / "data")
    again = run_ingest(options)
    assert _files(tmp_path / "data") == first
    assert len([n for n in first if n.startswith("trials/")]) == 4 and not any(n.startswith("points/") for n in first)
    name = trials_file_name("openai/gpt-5", "default", "default")
    assert f"trials/{name}" in first
    assert again.summary() == run_ingest(options).summary()


def test_evals_json_keeps_what_the_user_wrote(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    user = [
        {"model": "other/model", "template": "x", "sampler": "y", "label": "Untouched", "groups": ["g"]},
        {"model": "openai/gpt-5", "template": "default", "sampler": "default", "label": "GPT-5 (publisher)",
         "hf_id": "openai/gpt-5", "generation_args": {"reasoning_effort": "high"}},
    ]
    (data / "evals.json").write_text(json.dumps(user), encoding="utf-8")
    run_ingest(IngestOptions(paths=(SET,), data_dir=data, organization="OpenAI-evals", relationship="third_party"))
    entries = json.loads((data / "evals.json").read_text(encoding="utf-8"))
    assert entries[0] == user[0]
    gpt5 = entries[1]
    assert gpt5["label"] == "GPT-5 (publisher)" and gpt5["hf_id"] == "openai/gpt-5"
    assert gpt5["generation_args"]["reasoning_effort"] == "high"
    assert gpt5["observed"] == {"truncation": True, "tokens": True}
    assert gpt5["harness"].startswith("inspect_ai 0.3.128")
    assert (gpt5["organization"], gpt5["relationship"]) == ("OpenAI-evals", "third_party")
    added = [e["model"] for e in entries[2:]]
    assert added == ["anthropic/claude-sonnet-4-20250514", "google/gemini-2.5-pro"]
    assert all(e["label"] == e["model"] for e in entries[2:])


def test_evals_json_keeps_its_file_mode(tmp_path):
    """The merged evals.json keeps the mode of the user's file, and a new one gets the
    umask's usual mode: the temporary file it is written through is private (0600), and the
    rename carried that over, so a shared project's evals.json became unreadable to others."""
    data = tmp_path / "data"
    data.mkdir()
    evals = data / "evals.json"
    evals.write_text("[]\n", encoding="utf-8")
    evals.chmod(0o664)
    run_ingest(IngestOptions(paths=(SHORT / "piqa.json",), data_dir=data))
    assert json.loads(evals.read_text(encoding="utf-8")) and evals.stat().st_mode & 0o777 == 0o664
    fresh = tmp_path / "fresh"
    old = os.umask(0o022)
    try:
        run_ingest(IngestOptions(paths=(SHORT / "piqa.json",), data_dir=fresh))
    finally:
        os.umask(old)
    assert (fresh / "evals.json").stat().st_mode & 0o777 == 0o644


def test_strict_writes_nothing_when_an_input_is_skipped(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    (data / "evals.json").write_text("[]\n", encoding="utf-8")
    cancelled = DATA / "inspect" / "inspect_ai" / "tests" / "analysis" / "test_logs" / "2025-05-12T20-28-13-04-00_popularity.json"
    with pytest.raises(InputError, match="cancelled"):
        run_ingest(IngestOptions(paths=(SET, cancelled), data_dir=data, strict=True))
    assert _files(data) == {"evals.json": b"[]\n"}
    run_ingest(IngestOptions(paths=(SET, cancelled), data_dir=data))  # without --strict: the rest is written
    assert len(_files(data)) == 4


# -- the command -------------------------------------------------------------------------------


def test_cli_prints_a_line_per_input_and_the_summary(tmp_path):
    runner = CliRunner()
    result = runner.invoke(main, ["ingest", str(SET), str(SHORT / "ifeval.json"), "--data", str(tmp_path / "d")])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    # Each line names the evaluation (model / template / sampler), the task and samples × epochs.
    assert sum(line.startswith("inspect ") and " / default / default, popularity: 100 samples × 1 epoch  (" in line
               for line in lines) == 3
    assert any("ifeval: skipped:" in line for line in lines)
    assert "ingested 3 evaluations, 3 (evaluation, task) pairs, 3 points, 300 trials" in result.output
    assert "skipped 1 tasks:" in result.output
    strict = runner.invoke(main, ["ingest", str(SHORT / "ifeval.json"), "--data", str(tmp_path / "e"), "--strict"])
    assert strict.exit_code == 2
    assert "Traceback" not in strict.output and "Nothing was written." in strict.output
    assert not (tmp_path / "e").exists()


def test_cli_overrides_name_the_evaluation(tmp_path):
    runner = CliRunner()
    result = runner.invoke(main, ["ingest", str(SHORT / "piqa.json"), "--data", str(tmp_path / "d"),
                                  "--model", "qwen-7b", "--template", "0shot", "--sampler", "greedy-2k"])
    assert result.exit_code == 0, result.output
    [entry] = json.loads((tmp_path / "d" / "evals.json").read_text(encoding="utf-8"))
    assert (entry["model"], entry["template"], entry["sampler"]) == ("qwen-7b", "0shot", "greedy-2k")


# -- end to end: the whole tree, then a build ------------------------------------------------------


@pytest.fixture(scope="module")
def ingested_site(tmp_path_factory):
    base = tmp_path_factory.mktemp("ingest-e2e")
    result = CliRunner().invoke(main, ["ingest", str(DATA), "--data", str(base / "data")])
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    built = build_site(base / "data", base / "site", base / "cache")
    return base, built, result.output


def test_every_ingested_evaluation_is_on_the_leaderboard(ingested_site):
    base, built, _ = ingested_site
    entries = json.loads((base / "data" / "evals.json").read_text(encoding="utf-8"))
    board = json.loads((built.out / "data" / "leaderboard.json").read_text(encoding="utf-8"))
    on_board = {m["id"] for m in board["models"]}
    assert entries and {f"{e['model']}|{e['template']}|{e['sampler']}" for e in entries} == on_board
    index = (built.out / "index.html").read_text(encoding="utf-8")
    assert "google/gemini-2.5-pro" in index and "openai/gpt-4" in index


def _model_page(built, model_id: str):
    board = json.loads((built.out / "data" / "leaderboard.json").read_text(encoding="utf-8"))
    slug = next(m["slug"] for m in board["models"] if m["id"] == model_id)
    return page(built.out, f"models/{slug}.html")


def test_pages_say_when_truncation_and_tokens_were_not_recorded(ingested_site):
    base, built, _ = ingested_site
    entries = json.loads((base / "data" / "evals.json").read_text(encoding="utf-8"))
    lm_eval = [e for e in entries if e["harness"].startswith("lm-evaluation-harness")]
    seeing = [e for e in entries if e["model"] == "openai/gpt-4"]
    assert lm_eval and all(e["observed"] == {"truncation": False, "tokens": False} for e in lm_eval)
    # Inspect records both, except where no trial of a (mock) model reported any usage.
    inspect_logs = [e for e in entries if e["harness"].startswith("inspect_ai")]
    assert all(e["observed"]["truncation"] for e in inspect_logs)
    assert {e["model"] for e in inspect_logs if not e["observed"]["tokens"]} == {"hardcoded/hardcoded", "mockllm/model"}
    blind = [e for e in lm_eval if e["model"] == "meta-llama/Meta-Llama-3-8B-Instruct"]
    e = blind[0]
    text = _model_page(built, f"{e['model']}|{e['template']}|{e['sampler']}").text
    # Its C_P and C_I differ (C_P multiplies by the completion factor even with nothing
    # truncated), so the page does not say they are equal.
    (asdiv,) = next(m for m in built.results.leaderboard.models
                    if m.id == f"{e['model']}|{e['template']}|{e['sampler']}").tasks.values()
    assert round(asdiv.modes[MODES.index("C_P")][0], 3) != round(asdiv.modes[MODES.index("C_I")][0], 3)
    assert "truncation not recorded by lm-evaluation-harness: no trial counted as truncated" in text
    assert "C_P equals C_I" not in text
    assert "tokens not recorded by lm-evaluation-harness" in text
    assert "Truncated: 0.0%" not in text
    seen = _model_page(built, f"{seeing[0]['model']}|{seeing[0]['template']}|{seeing[0]['sampler']}").text
    assert "Truncated: 0.0% of trials" in seen and "not recorded" not in seen
    task = page(built.out, "tasks/asdiv.html").text
    assert "truncation not recorded by lm-evaluation-harness: no trial counted as truncated" in task


def test_progress_bar_only_on_a_terminal_after_a_second():
    import io

    from reasonboard.progress import DelayedBar

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    piped = io.StringIO()
    bar = DelayedBar("ingesting", piped)
    bar.start -= 5
    bar.update(1, 2, Path("a.eval"))
    assert piped.getvalue() == ""
    quick, slow = Terminal(), Terminal()
    DelayedBar("ingesting", quick).update(1, 2, Path("a.eval"))  # under a second: nothing
    assert quick.getvalue() == ""
    bar = DelayedBar("ingesting", slow)
    bar.start -= 5
    bar.update(1, 2, Path("a.eval"))
    assert "1/2 a.eval" in slow.getvalue()
    bar.close()
    assert slow.getvalue().endswith("\r\x1b[K")
