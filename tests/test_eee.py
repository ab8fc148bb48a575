"""The EEE reader: lenient on everything EVALCARDS.md section 1 allows, strict on the two
things that make a file unusable, and complete on the real corpus."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from reasonboard.sources.eee import bound, discover, parse_record, read_eee

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
CORPUS = SHARED / "eee-2026-02"


def write(path: Path, document) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(document if isinstance(document, str) else json.dumps(document), encoding="utf-8")
    return path


def minimal(**extra):
    return {"evaluation_results": [{"evaluation_name": "X", "score_details": {"score": 0.5}}], **extra}


def test_reads_a_full_record(tmp_path):
    write(tmp_path / "eee/c/dev/m/1.json", {
        "schema_version": "0.3.0", "evaluation_id": "c/dev_m/1",
        "source_metadata": {"source_organization_name": "Lab", "evaluator_relationship": "first_party",
                            "source_type": "evaluation_run"},
        "eval_library": {"name": "inspect_ai", "version": "0.3.1"},
        "model_info": {"id": "Dev/M", "name": "M", "additional_details": {"agent_name": "scaffold-a"}},
        "evaluation_results": [{
            "evaluation_name": "Split A",
            "source_data": {"dataset_name": "Bench", "source_type": "url", "url": ["https://x"]},
            "metric_config": {"metric_id": "acc", "metric_unit": "percent", "min_score": 0, "max_score": 100},
            "score_details": {"score": 71.5, "details": {"sub": {"score": 3, "tab": "t"}}},
            "generation_config": {"generation_args": {"temperature": 0, "max_tokens": 512},
                                  "additional_details": {"agent_scaffold": "s"}},
        }],
    })
    read = read_eee(tmp_path / "eee", base=tmp_path)
    assert read.problems == ()
    (record,) = read.records
    assert record.path == "eee/c/dev/m/1.json"
    assert (record.model_id, record.organization, record.relationship) == ("Dev/M", "Lab", "first_party")
    assert (record.eval_library_name, record.eval_library_version) == ("inspect_ai", "0.3.1")
    assert record.model_details == {"agent_name": "scaffold-a"}
    (result,) = record.results
    assert (result.dataset_name, result.evaluation_name, result.metric_id, result.metric_unit) == (
        "Bench", "Split A", "acc", "percent")
    assert (result.min_score, result.max_score, result.score) == (0.0, 100.0, 71.5)
    assert result.generation_args == {"temperature": 0, "max_tokens": 512}
    assert result.generation_details == {"agent_scaffold": "s"}


def test_missing_optional_blocks_and_unknown_keys_are_tolerated(tmp_path):
    write(tmp_path / "a.json", minimal(surprise={"x": 1}, model_info="not an object"))
    (record,) = read_eee(tmp_path).records
    assert record.model_id is None and record.organization is None and record.eval_library_name is None
    (result,) = record.results
    assert result.dataset_name is None and result.generation_args == {} and result.min_score is None


@pytest.mark.parametrize("value, expected", [
    (0, 0.0), (1.5, 1.5), ("Infinity", math.inf), ("-Infinity", -math.inf), ("infinity", math.inf),
    (None, None), ("", None), ("n/a", None), (True, None), ({"x": 1}, None), ("NaN", None),
])
def test_bounds(value, expected):
    assert bound(value) == expected


def test_string_bounds_in_a_record(tmp_path):
    doc = minimal()
    doc["evaluation_results"][0]["metric_config"] = {"min_score": "-Infinity", "max_score": "Infinity"}
    write(tmp_path / "a.json", doc)
    (result,) = read_eee(tmp_path).records[0].results
    assert (result.min_score, result.max_score) == (-math.inf, math.inf)


def test_old_source_data_forms_and_string_details(tmp_path):
    doc = minimal()
    doc["evaluation_results"][0]["source_data"] = ["https://only-a-url"]
    doc["evaluation_results"][0]["generation_config"] = {"additional_details": "temperature=0.5"}
    doc["source_metadata"] = {"eval_library": {"name": "helm"}}
    write(tmp_path / "a.json", doc)
    (record,) = read_eee(tmp_path).records
    assert record.eval_library_name == "helm"
    assert record.results[0].dataset_name is None
    assert record.results[0].generation_details == {}


def test_unusable_files_are_reported_by_path_and_reason(tmp_path):
    write(tmp_path / "eee/good.json", minimal())
    write(tmp_path / "eee/broken.json", '{"evaluation_results": [')
    write(tmp_path / "eee/no_results.json", {"schema_version": "0.2.0"})
    write(tmp_path / "eee/results_not_list.json", {"evaluation_results": {"a": 1}})
    write(tmp_path / "eee/array.json", [1, 2])
    read = read_eee(tmp_path / "eee", base=tmp_path)
    assert [r.path for r in read.records] == ["eee/good.json"]
    reasons = dict(read.problems)
    assert list(reasons) == ["eee/array.json", "eee/broken.json", "eee/no_results.json", "eee/results_not_list.json"]
    assert reasons["eee/broken.json"].startswith("not valid JSON")
    assert "line 1" in reasons["eee/broken.json"]
    assert "evaluation_results" in reasons["eee/no_results.json"]
    assert "evaluation_results" in reasons["eee/results_not_list.json"]
    assert "not a JSON object" in reasons["eee/array.json"]


def test_a_directory_named_json_is_not_a_record(tmp_path):
    write(tmp_path / "dev/model.json/inner.json", minimal())
    write(tmp_path / "dev/other.json", minimal())
    assert [p.relative_to(tmp_path).as_posix() for p in discover(tmp_path)] == [
        "dev/model.json/inner.json", "dev/other.json"]
    read = read_eee(tmp_path)
    assert read.problems == () and len(read.records) == 2


def test_missing_directory_is_empty(tmp_path):
    read = read_eee(tmp_path / "nowhere")
    assert read.records == () and read.problems == ()


def test_non_object_entries_become_scoreless_results():
    record = parse_record({"evaluation_results": ["junk", {"evaluation_name": "x", "score_details": {"score": 1}}]}, "p")
    assert [r.score for r in record.results] == [None, 1]
    assert [r.index for r in record.results] == [0, 1]


@pytest.mark.skipif(not CORPUS.is_dir(), reason=f"real EEE corpus not found at {CORPUS}")
def test_real_corpus_reads_completely():
    read = read_eee(CORPUS)
    assert read.problems == ()
    assert len(read.records) == 5320
    assert sum(len(r.results) for r in read.records) == 35586
    # The five reward-bench directories named *.json hold records of their own.
    nested = [r for r in read.records if ".json/" in r.path]
    assert len(nested) == 5
