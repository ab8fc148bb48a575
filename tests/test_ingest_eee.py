"""Every Eval Ever instance-level JSONL into trials and points, against a plain reading.

Expected counters come from the lines themselves (`json`), read in this file.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from reasonboard.ingest import IngestOptions, run_ingest
from reasonboard.sources.harness import detect, eee
from reasonboard.sources.trials import ReadOptions, UnreadableInput

ROOT = Path(__file__).parent / "data" / "per-instance" / "eee" / "every_eval_ever"
LEVEL = ROOT / "instance_level_data"
HELM_CONVERTED = ROOT / "None"
DEMO = ROOT / "tests" / "data" / "skill_reference_conversion" / "data" / "demo-source" / "demo-org" / "demo-model"


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def ingest(tmp_path: Path, *paths: Path, **kw):
    return run_ingest(IngestOptions(paths=paths, data_dir=tmp_path / "data", **kw))


def test_instance_files_recognised_and_aggregates_are_not_inputs():
    assert detect(LEVEL / "GAIA_openai_azure_gpt-4.1-mini-2025-04-14_1770463617.jsonl")[0] == "eee"
    aggregate = ROOT / "data" / "GAIA" / "openai" / "gpt-4.1-mini-2025-04-14" / "e474c960-b3d0-40da-b8ef-5adf65196a91.json"
    assert detect(aggregate) is None
    assert eee.is_aggregate(aggregate)


@pytest.mark.parametrize("path", sorted(p for p in ROOT.rglob("*.jsonl")), ids=lambda p: p.parent.name + "/" + p.name[:30])
def test_counters_match_a_plain_reading(tmp_path, path):
    rows = lines(path)
    result = ingest(tmp_path, path)
    [point] = result.points
    assert point.model == rows[0]["model_id"]
    assert point.base_task == rows[0]["evaluation_name"]
    assert point.total == len(rows)
    assert point.correct == sum(r["evaluation"]["is_correct"] for r in rows)
    assert point.truncated == 0  # no stop reason in these files says the limit was hit
    assert point.tokens == sum(r["token_usage"]["output_tokens"] for r in rows)


def test_options_and_guess_from_input_choices(tmp_path):
    """hellaswag converted from HELM: 4 choices per sample, so guess = 10 x 1/4."""
    path = HELM_CONVERTED / "hellaswag" / "eleutherai" / "pythia-1b-v0" / "None_samples.jsonl"
    assert {len(r["input"]["choices"]) for r in lines(path)} == {4}
    [point] = ingest(tmp_path, path).points
    assert point.guess == pytest.approx(10 / 4)


def test_references_copied_into_choices_are_write_in(tmp_path):
    """narrativeqa (a generation task): the converter put the two reference answers into
    `input.choices`. They are not answer options: no guessing chance."""
    path = HELM_CONVERTED / "narrativeqa" / "openai" / "gpt2" / "None_samples.jsonl"
    rows = lines(path)
    assert all(sorted(r["input"]["choices"]) == sorted(r["input"]["reference"]) for r in rows)
    [point] = ingest(tmp_path, path).points
    assert point.guess == 0


def test_aggregate_found_through_detailed_evaluation_results(tmp_path):
    """GAIA: the aggregate under data/ names this file and records temperature 0.5."""
    path = LEVEL / "GAIA_openai_azure_gpt-4.1-mini-2025-04-14_1770463617.jsonl"
    record = eee.find_aggregate(path)
    assert record is not None
    assert record["detailed_evaluation_results"]["file_path"].endswith(path.name)
    assert record["evaluation_results"][0]["generation_config"]["generation_args"]["temperature"] == 0.5
    result = ingest(tmp_path, path)
    [point] = result.points
    assert point.sampler == "t0.5"
    [evaluation] = result.evaluations
    assert evaluation.harness == {"inspect_ai"}


def test_aggregate_beside_the_file_gives_the_limit_and_implicit_truncation(tmp_path):
    """HELM narrativeqa (gpt2) ran with max_tokens 100; one answer is exactly 100 tokens
    with no stop reason: truncated once the aggregate record is beside the file."""
    src = HELM_CONVERTED / "narrativeqa" / "openai" / "gpt2" / "None_samples.jsonl"
    aggregate = ROOT / "data" / "narrativeqa" / "openai" / "gpt2" / "96a7ea61-8869-4dd0-9164-756519a26ac0.json"
    shutil.copy(src, tmp_path / "run_samples.jsonl")
    shutil.copy(aggregate, tmp_path / "run.json")
    rows = lines(src)
    assert sum(r["token_usage"]["output_tokens"] >= 100 for r in rows) == 1
    assert all(not (r.get("metadata") or {}).get("stop_reason") for r in rows)
    result = ingest(tmp_path, tmp_path / "run_samples.jsonl")
    [point] = result.points
    assert point.sampler == "greedy-100"
    assert point.truncated == 1
    assert point.correct == 0
    assert result.evaluations[0].harness == {"helm"}



def test_truncation_is_observed_only_with_stop_reasons_or_a_known_limit(tmp_path):
    """The same narrativeqa file without its aggregate record (as the EEE repository stores
    it, under `None/`, which no record names): no stop reasons and no limit, so its "0
    truncated" was counted by nobody and the evaluation says truncation was not observed.
    With the record beside it (the limit known), and for a file with stop reasons, it was."""
    src = HELM_CONVERTED / "narrativeqa" / "openai" / "gpt2" / "None_samples.jsonl"
    aggregate = ROOT / "data" / "narrativeqa" / "openai" / "gpt2" / "96a7ea61-8869-4dd0-9164-756519a26ac0.json"
    alone = ingest(tmp_path / "alone", src)
    assert [e.truncation_observed for e in alone.evaluations] == [False]
    shutil.copy(src, tmp_path / "run_samples.jsonl")
    shutil.copy(aggregate, tmp_path / "run.json")
    beside = ingest(tmp_path / "beside", tmp_path / "run_samples.jsonl")
    assert [e.truncation_observed for e in beside.evaluations] == [True]
    stopped = sorted(LEVEL.glob("pubmed_qa_*.jsonl"))[0]
    assert all((r.get("metadata") or {}).get("stop_reason") for r in lines(stopped))
    assert [e.truncation_observed for e in ingest(tmp_path / "stopped", stopped).evaluations] == [True]
    entries = json.loads((tmp_path / "alone" / "data" / "evals.json").read_text(encoding="utf-8"))
    assert [e["observed"] for e in entries] == [{"truncation": False, "tokens": True}]
    # Away from its record (no limit): stop reasons of "unknown" say nothing (Inspect writes
    # them), and a first line that errored says nothing of what the others record.
    rows = lines(stopped)
    silent, errored = tmp_path / "silent.jsonl", tmp_path / "errored.jsonl"
    silent.write_text("".join(json.dumps(dict(r, metadata={**(r.get("metadata") or {}), "stop_reason": "unknown"}))
                              + "\n" for r in rows), encoding="utf-8")
    first = {k: v for k, v in rows[0].items() if k != "metadata"} | {"error": "rate limited"}
    errored.write_text("".join(json.dumps(r) + "\n" for r in [first, *rows[1:]]), encoding="utf-8")
    assert [e.truncation_observed for e in ingest(tmp_path / "s", silent).evaluations] == [False]
    assert [e.truncation_observed for e in ingest(tmp_path / "e", errored).evaluations] == [True]

def test_multiple_choice_answer_cap_is_never_truncation(tmp_path):
    """HELM mmlu converted: max_tokens 1 (an answer letter) and 1 output token per answer."""
    src = HELM_CONVERTED / "mmlu" / "openai" / "gpt2" / "None_samples.jsonl"
    aggregate = ROOT / "data" / "mmlu" / "openai" / "gpt2" / "7b2767f8-9266-486e-8e49-6177930bc258.json"
    shutil.copy(src, tmp_path / "run_samples.jsonl")
    shutil.copy(aggregate, tmp_path / "run.json")
    assert {r["token_usage"]["output_tokens"] for r in lines(src)} == {1}
    [point] = ingest(tmp_path, tmp_path / "run_samples.jsonl").points
    assert point.sampler == "greedy-1"
    assert point.truncated == 0
    assert point.correct == sum(r["evaluation"]["is_correct"] for r in lines(src))


def test_duplicate_runs_later_file_wins_once(tmp_path):
    """The same ai2_arc run converted twice (two file names, the same three samples)."""
    first = LEVEL / "ai2_arc_ollama_qwen2.5:0.5b_1761001924.jsonl"
    second = LEVEL / "ai2_arc_ollama_qwen2.5:0.5b_2e4e64ca-5622-42d3-9ef1-0f4e4475cdf7.Format.jsonl"
    assert [r["sample_id"] for r in lines(first)] == [r["sample_id"] for r in lines(second)]
    result = ingest(tmp_path, first, second)
    [point] = result.points
    assert point.total == 3
    assert result.replaced == 3


def test_schema_030_lists_and_metadata_params(tmp_path):
    """The 0.3.0 demo: reference and output as lists; metadata.subject as a difficulty key."""
    path = DEMO / "f3a1c0de-4b2e-4c1a-9f6d-1b7e5a2c8d40_samples.jsonl"
    [row] = lines(path)
    assert row["schema_version"] == "0.3.0" and isinstance(row["output"]["raw"], list)
    [point] = ingest(tmp_path, path, read=ReadOptions(params=("subject",))).points
    assert (point.total, point.correct, point.tokens) == (1, 1, 5)
    assert json.loads(point.params) == {"subject": "arithmetic"}


def test_sample_ids_int_or_string(tmp_path):
    ints = LEVEL / "ai2_arc_anthropic_claude-sonnet-4-0_3386284e-669c-440a-a7f0-90993d81873d.Format.jsonl"
    strings = LEVEL / "pubmed_qa_openai_azure_gpt-4o-mini-2024-07-18_1751553870.jsonl"
    assert isinstance(lines(ints)[0]["sample_id"], int) and isinstance(lines(strings)[0]["sample_id"], str)
    [run] = eee.read(ints, ReadOptions())
    assert [t.sample_id for t in run.trials] == [str(r["sample_id"]) for r in lines(ints)]


def test_errored_lines_left_out(tmp_path):
    rows = lines(LEVEL / "ai2_arc_ollama_qwen2.5:0.5b_1761001924.jsonl")
    rows[1]["error"] = "provider timeout"
    path = tmp_path / "errored.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    result = ingest(tmp_path, path)
    [point] = result.points
    assert point.total == 2
    assert result.counts["errors"] == 1


def test_a_broken_line_names_the_line(tmp_path):
    rows = (LEVEL / "ai2_arc_ollama_qwen2.5:0.5b_1761001924.jsonl").read_text(encoding="utf-8").splitlines()
    path = tmp_path / "broken.jsonl"
    path.write_text(rows[0] + "\n" + rows[1][:50] + "\n", encoding="utf-8")
    with pytest.raises(UnreadableInput, match="line 2"):
        [run] = eee.read(path, ReadOptions())
        list(run.trials)
    result = ingest(tmp_path, path)
    assert result.points == []
    assert [(p.name, "line 2" in r) for p, r in result.skipped_files] == [("broken.jsonl", True)]


def test_a_file_saved_with_a_byte_order_mark_and_crlf_reads_alike(tmp_path):
    """An instance file saved by a Windows editor (a UTF-8 byte order mark, CRLF line ends)
    gives the same point; before, the mark made it "no harness output found"."""
    source = LEVEL / "GAIA_openai_azure_gpt-4.1-mini-2025-04-14_1770463617.jsonl"
    saved = tmp_path / "in" / source.name
    saved.parent.mkdir()
    saved.write_bytes(b"\xef\xbb\xbf" + source.read_bytes().replace(b"\n", b"\r\n"))
    assert detect(saved)[0] == "eee"
    [plain] = ingest(tmp_path / "a", source).points
    [windows] = ingest(tmp_path / "b", saved).points
    assert (windows.total, windows.correct, windows.tokens) == (plain.total, plain.correct, plain.tokens)
