"""Inspect AI logs into trials and points, against a second, plain reading of the real logs.

Every expected counter is computed in this file from the log itself (`zipfile` + `json`,
or by hand from the values quoted in a comment), never by echoing the importer. Each trap
of `tests/data/per-instance/README` that concerns Inspect has its own test.
"""

from __future__ import annotations

import json
import struct
import zipfile
from pathlib import Path

import pytest
import zstandard
from reasonboard.ingest import IngestOptions, run_ingest
from reasonboard.sources.harness import detect, inspect
from reasonboard.sources.trials import ReadOptions, UnreadableInput

ROOT = Path(__file__).parent / "data" / "per-instance" / "inspect"
SET = ROOT / "inspect_ai" / "log-sets" / "set"
SHORT = ROOT / "every_eval_ever" / "tests" / "data" / "inspect" / "inspect_shortened"
TESTS = ROOT / "inspect_ai" / "tests"


# -- a second, plain reading of a log ---------------------------------------------------------


def plain_samples(path: Path) -> list[dict]:
    """Every sample of a log, read with the standard library (and zstandard for method 93)."""
    if path.suffix == ".json":
        return json.loads(path.read_text(encoding="utf-8")).get("samples") or []
    out = []
    with zipfile.ZipFile(path) as z:
        for info in z.infolist():
            if info.filename.startswith("samples/"):
                out.append(json.loads(_plain_member(path, z, info)))
    return out


def _plain_member(path: Path, z: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytes:
    if info.compress_type != 93:
        return z.read(info)
    raw = path.read_bytes()
    name_len, extra_len = struct.unpack("<HH", raw[info.header_offset + 26:info.header_offset + 30])
    start = info.header_offset + 30 + name_len + extra_len
    return zstandard.ZstdDecompressor().decompressobj().decompress(raw[start:start + info.compress_size])


def plain_tokens(sample: dict) -> int:
    usage = sample["output"]["usage"]
    out, reasoning = usage.get("output_tokens") or 0, usage.get("reasoning_tokens") or 0
    return out + reasoning if reasoning > out else out


def ingest(tmp_path: Path, *paths: Path, **kw) -> object:
    return run_ingest(IngestOptions(paths=paths, data_dir=tmp_path / "data", **kw))


def points_of(result, model: str | None = None, task: str | None = None) -> list:
    return [p for p in result.points if (model is None or p.model == model) and (task is None or p.base_task == task)]


# -- recognition ------------------------------------------------------------------------------


def test_logs_recognised_by_content():
    assert detect(SET / "2025-09-15T15-02-26-04-00_popularity_L8g2GLGDDfsiXvdJ8LyZNJ.eval")[0] == "inspect"
    assert detect(SHORT / "math.json")[0] == "inspect"
    assert detect(ROOT.parent / "README.md") is None


# -- the three frontier models on the same 100 samples -------------------------------------------------


@pytest.mark.parametrize("name, model", [
    ("2025-09-15T15-02-26-04-00_popularity_L8g2GLGDDfsiXvdJ8LyZNJ.eval", "openai/gpt-5"),
    ("2025-09-15T15-02-26-04-00_popularity_LthYhadZHuQjsMYHHKRep2.eval", "anthropic/claude-sonnet-4-20250514"),
    ("2025-09-15T15-02-26-04-00_popularity_eF3BogZE3jzpiWBjjDWbik.eval", "google/gemini-2.5-pro"),
])
def test_popularity_counters_match_a_plain_reading(tmp_path, name, model):
    path = SET / name
    samples = plain_samples(path)
    assert len(samples) == 100
    # No stop reason in these logs says the limit was hit, and no limit is configured.
    assert {c["stop_reason"] for s in samples for c in s["output"]["choices"]} <= {"stop", "unknown", None}
    result = ingest(tmp_path, path)
    [point] = points_of(result)
    assert (point.model, point.template, point.sampler, point.base_task) == (model, "default", "default", "popularity")
    assert point.total == 100
    assert point.correct == sum(s["scores"]["match"]["value"] == "C" for s in samples)
    assert point.truncated == 0
    assert point.guess == 0  # write-in answers: no choices
    assert point.tokens == sum(plain_tokens(s) for s in samples)


def test_reasoning_tokens_added_only_when_reported_apart(tmp_path):
    """gemini-2.5-pro reports reasoning apart (larger than the output), gpt-5 inside it."""
    gemini = plain_samples(SET / "2025-09-15T15-02-26-04-00_popularity_eF3BogZE3jzpiWBjjDWbik.eval")
    gpt5 = plain_samples(SET / "2025-09-15T15-02-26-04-00_popularity_L8g2GLGDDfsiXvdJ8LyZNJ.eval")
    assert any(s["output"]["usage"].get("reasoning_tokens", 0) > s["output"]["usage"]["output_tokens"] for s in gemini)
    assert all(s["output"]["usage"].get("reasoning_tokens", 0) <= s["output"]["usage"]["output_tokens"] for s in gpt5)
    result = ingest(tmp_path, SET)
    by_model = {p.model: p for p in result.points}
    assert by_model["google/gemini-2.5-pro"].tokens == sum(
        s["output"]["usage"]["output_tokens"] + s["output"]["usage"].get("reasoning_tokens", 0) for s in gemini)
    assert by_model["openai/gpt-5"].tokens == sum(s["output"]["usage"]["output_tokens"] for s in gpt5)


# -- the traps ---------------------------------------------------------------------------------


def test_implicit_truncation_at_the_providers_limit(tmp_path):
    """gpqa_diamond (Inspect's hf provider): stop_reason "unknown" everywhere; one sample
    stops at exactly 2048 tokens, the max_tokens of its model call: truncated, not correct."""
    samples = plain_samples(SHORT / "gpqa-diamond.json")
    assert {s["output"]["choices"][0]["stop_reason"] for s in samples} == {"unknown"}
    limits = [[e["config"]["max_tokens"] for e in s["events"] if e.get("event") == "model"][-1] for s in samples]
    hit = [s for s, lim in zip(samples, limits) if s["output"]["usage"]["output_tokens"] >= lim]
    assert len(hit) == 1 and hit[0]["output"]["usage"]["output_tokens"] == 2048
    [point] = points_of(ingest(tmp_path, SHORT / "gpqa-diamond.json"))
    assert point.truncated == 1
    assert point.total == 5
    assert point.correct == sum(s["scores"]["choice"]["value"] == "C" for s in samples if s is not hit[0])
    assert point.guess == pytest.approx(4 * 0.25)  # 4 choices each, the truncated one left out


def test_partial_credit_counts_as_not_correct(tmp_path):
    """sad_stages_oversight: values I, I, I, 0.5, C; lingoly: 0.571, 0.714, 0, 0, 1."""
    result = ingest(tmp_path, SHORT / "sad-stages-oversight.json", SHORT / "lingoly.json")
    sad, = points_of(result, task="sad_stages_oversight")
    lingoly, = points_of(result, task="lingoly")
    assert (sad.total, sad.correct, sad.partial) == (5, 1, 1)
    assert (lingoly.total, lingoly.correct, lingoly.partial) == (5, 1, 2)
    assert "3 trials with partial credit counted as not correct" in result.summary()


def test_several_scorers_the_primary_one_or_scorer(tmp_path):
    """math: three scorers that disagree; the first of results.scores is the primary."""
    samples = plain_samples(SHORT / "math.json")
    first = json.loads((SHORT / "math.json").read_text())["results"]["scores"][0]["name"]
    assert first == "expression_equivalance"
    points = points_of(ingest(tmp_path, SHORT / "math.json"))
    assert {p.model for p in points} == {"hf/Qwen/Qwen2.5-7B-Instruct"}
    assert sum(p.correct for p in points) == sum(s["scores"][first]["value"] == "C" for s in samples) == 1
    other = "expression_exact_match_sympy"
    by_other = ingest(tmp_path / "b", SHORT / "math.json", read=ReadOptions(scorer=other))
    assert sum(p.correct for p in by_other.points) == sum(s["scores"][other]["value"] == "C" for s in samples) == 0


def test_a_scorer_the_log_does_not_have_skips_the_task_naming_its_scorers(tmp_path):
    """`--scorer` with a name no sample was scored with: the task is skipped, naming the
    scorers the samples have (as lm-eval and lighteval inputs do); before, every sample was
    counted "unscored" and the task vanished without a word."""
    result = ingest(tmp_path, SHORT / "math.json", read=ReadOptions(scorer="nosuch"))
    assert not result.points and result.counts["unscored"] == 0
    [skipped] = result.skipped_tasks
    assert skipped.startswith("math: no scorer nosuch (the samples have: expression_equivalance, ")
    assert "pick one with --scorer" in skipped


def test_a_sample_without_the_named_scorer_is_unscored_not_the_task(tmp_path):
    """One sample of a log without the scorer `--scorer` names is counted unscored; the
    others keep the task (only a scorer no sample has skips it)."""
    log = json.loads((SHORT / "math.json").read_text())
    chosen = "expression_exact_match_sympy"
    del log["samples"][3]["scores"][chosen]
    (tmp_path / "math.json").write_text(json.dumps(log))
    result = ingest(tmp_path / "data", tmp_path / "math.json", read=ReadOptions(scorer=chosen))
    assert not result.skipped_tasks
    assert sum(p.total for p in result.points) == 4 and result.counts["unscored"] == 1


def test_difficulty_params_from_metadata(tmp_path):
    """math records metadata.level ("Level 3", ...); one point per level, trials split by it."""
    samples = plain_samples(SHORT / "math.json")
    levels = sorted({s["metadata"]["level"] for s in samples})
    result = ingest(tmp_path, SHORT / "math.json")
    assert sorted(json.loads(p.params)["level"] for p in result.points) == levels
    assert sum(p.total for p in result.points) == 5
    none = ingest(tmp_path / "b", SHORT / "math.json", read=ReadOptions(params=()))
    assert [p.params for p in none.points] == ["{}"]


def test_dict_values_without_a_main_key_skip_the_task(tmp_path):
    result = ingest(tmp_path, SHORT / "ifeval.json")
    assert result.points == []
    assert len(result.skipped_tasks) == 1
    assert "ifeval" in result.skipped_tasks[0] and "--scorer" in result.skipped_tasks[0]
    chosen = ingest(tmp_path / "b", SHORT / "ifeval.json", read=ReadOptions(scorer="prompt_level_strict"))
    samples = plain_samples(SHORT / "ifeval.json")
    [point] = chosen.points
    expected = [s["scores"]["instruction_following"]["value"]["prompt_level_strict"] for s in samples]
    assert point.total == 5
    # The sample that ran to the 2048-token limit is truncated, so not correct even if true.
    assert point.correct == sum(v and s["output"]["usage"]["output_tokens"] < 2048 for v, s in zip(expected, samples))


def test_epochs_are_trials(tmp_path):
    """log_streaming.eval: 2 samples x 2 epochs = 4 trials in one point."""
    path = TESTS / "log" / "test_eval_log" / "log_streaming.eval"
    samples = plain_samples(path)
    assert sorted((s["id"], s["epoch"]) for s in samples) == [(1, 1), (1, 2), (2, 1), (2, 2)]
    [point] = points_of(ingest(tmp_path, path))
    assert point.total == 4
    assert point.correct == sum(s["scores"]["match"]["value"] == "C" for s in samples) == 3


def test_same_run_as_eval_and_json_is_one_trial(tmp_path):
    folder = TESTS / "log" / "test_eval_log"
    result = ingest(tmp_path, folder / "log_formats.eval", folder / "log_formats.json")
    [point] = points_of(result, model="ollama/llama3.1")
    assert point.total == 1
    assert result.replaced == 1
    assert "replaced trials (the same trial in a later input): 1" in result.summary()


def test_cancelled_and_errored_logs_skipped_unless_partial(tmp_path):
    cancelled = TESTS / "analysis" / "test_logs" / "2025-05-12T20-28-13-04-00_popularity.json"
    errored = TESTS / "test_eval_set" / "2024-08-29T15-11-18+00-00_popularity_5EAmX6wjMFqea6WY7XHzZp.json"
    result = ingest(tmp_path, cancelled, errored)
    assert result.points == []
    reasons = {p.name: r for p, r in result.skipped_files}
    assert "'cancelled'" in reasons[cancelled.name] and "--partial" in reasons[cancelled.name]
    assert "'error'" in reasons[errored.name]
    partial = ingest(tmp_path / "b", cancelled, read=ReadOptions(partial=True))
    samples = plain_samples(cancelled)
    [point] = partial.points
    assert point.total == len(samples) == 3
    assert point.correct == sum(s["scores"]["match"]["value"] == "C" for s in samples) == 2


def test_errored_and_unscored_samples_are_left_out_and_counted(tmp_path):
    errored = ROOT / "every_eval_ever" / "tests" / "data" / "inspect" / "data_cvebench_empty_choices.json"
    unscored = TESTS / "scorer" / "logs" / "2025-02-11T15-17-00-05-00_popularity_dPiJifoWeEQBrfWsAopzWr.eval"
    assert all(s.get("error") for s in plain_samples(errored))
    assert all(not s.get("scores") for s in plain_samples(unscored))
    result = ingest(tmp_path, errored, unscored)
    assert result.points == []
    assert result.counts["errors"] == 1
    assert result.counts["unscored"] == 10
    assert "1 with errors, 10 unscored" in result.summary()


def test_zstd_compressed_members_are_read(tmp_path):
    path = TESTS / "_helpers" / "fixtures" / "postfix" / "retry-2-then-success.eval"
    with zipfile.ZipFile(path) as z:
        assert {i.compress_type for i in z.infolist()} == {93}
    [run] = list(inspect.read(path, ReadOptions()))
    assert run.evaluation.model == "mockllm/fake"
    assert list(run.trials) == []
    assert run.counts["unscored"] == len(plain_samples(path)) == 1


def test_options_and_guess_from_choices(tmp_path):
    """mmlu_pro: 10 options on four samples, 9 on one; guess = sum of 1/options."""
    samples = plain_samples(SHORT / "mmlu-pro.json")
    [point] = points_of(ingest(tmp_path, SHORT / "mmlu-pro.json"))
    assert sorted(len(s["choices"]) for s in samples) == [9, 10, 10, 10, 10]
    assert point.truncated == 0
    assert point.guess == pytest.approx(1 / 9 + 4 / 10)


def test_generation_settings_name_the_sampler(tmp_path):
    """lingoly: temperature 0.001 and max_tokens 12000 in the plan's config."""
    config = json.loads((SHORT / "lingoly.json").read_text())["plan"]["config"]
    assert (config["temperature"], config["max_tokens"]) == (0.001, 12000)
    [point] = points_of(ingest(tmp_path, SHORT / "lingoly.json"))
    assert point.sampler == "t0.001-12000"


def test_corrupt_eval_is_named_with_its_reason(tmp_path):
    good = (SET / "2025-09-15T15-02-26-04-00_popularity_L8g2GLGDDfsiXvdJ8LyZNJ.eval").read_bytes()
    bad = tmp_path / "cut.eval"
    bad.write_bytes(good[: len(good) // 2])
    with pytest.raises(UnreadableInput, match=r"not a readable \.eval archive"):
        list(inspect.read(bad, ReadOptions()))
    result = ingest(tmp_path, bad, SHORT / "piqa.json")
    assert [(p.name, "not a readable .eval archive" in r) for p, r in result.skipped_files] == [("cut.eval", True)]
    assert len(result.points) == 1  # the good input is still ingested


@pytest.mark.parametrize("change, problem", [
    ({"epoch": -3}, "the epoch must be a whole number from 1 to 2,147,483,647 (got -3)"),
    # Beyond the trials file's 32-bit epoch: was an OverflowError traceback.
    ({"epoch": 3_000_000_000}, "(got 3000000000)"),
    ({"output": {"usage": {"input_tokens": 3, "output_tokens": -5, "total_tokens": -2}}},
     "output tokens must be from 0 to 1,000,000,000,000 (got -5)"),
])
def test_a_trial_the_build_would_refuse_skips_its_log(tmp_path, change, problem):
    """A log whose trial breaks a trials file's rule (epoch at least 1 and 32-bit, tokens not
    negative) is skipped, naming the sample and the value; before, ingest wrote a trials file
    that the next build refused (or crashed), and said nothing."""
    source = TESTS / "log" / "test_eval_log" / "log_streaming.eval"
    bad = tmp_path / "bad.eval"
    with zipfile.ZipFile(source) as z, zipfile.ZipFile(bad, "w", zipfile.ZIP_DEFLATED) as out:
        for info in z.infolist():
            data = _plain_member(source, z, info)
            if info.filename == "samples/1_epoch_1.json":
                data = json.dumps({**json.loads(data), **change}).encode("utf-8")
            out.writestr(info.filename, data)
    result = ingest(tmp_path, bad, SHORT / "piqa.json")
    [(path, reason)] = result.skipped_files
    assert path.name == "bad.eval" and reason.startswith("a trial out of range: sample '1', epoch ")
    assert problem in reason
    assert len(result.points) == 1  # the good input is still ingested


def test_a_json_log_saved_with_a_byte_order_mark_reads_alike(tmp_path):
    """A `.json` log with a UTF-8 byte order mark first (a Windows editor's save): the same
    point; before, it was not recognised as a log at all."""
    marked = tmp_path / "in" / "piqa.json"
    marked.parent.mkdir()
    marked.write_bytes(b"\xef\xbb\xbf" + (SHORT / "piqa.json").read_bytes())
    assert detect(marked)[0] == "inspect"
    [plain] = points_of(ingest(tmp_path / "a", SHORT / "piqa.json"))
    [saved] = points_of(ingest(tmp_path / "b", marked))
    assert (saved.total, saved.correct, saved.tokens) == (plain.total, plain.correct, plain.tokens)
