"""The lighteval reader against lighteval 0.13's own details Parquet (a dummy model: the shape
of real output, not a real evaluation) and small Parquet files written here with DuckDB.
Expected values come from a plain DuckDB query of the file in the test, or by hand."""

from __future__ import annotations

import json
import types
from pathlib import Path

import duckdb
import pytest
from reasonboard.sources.harness import lighteval
from reasonboard.sources.trials import ReadOptions

SMOKE = (Path(__file__).parent / "data" / "per-instance" / "lighteval" / "every_eval_ever"
         / "evaleval__every_eval_ever" / "tests" / "data" / "lighteval_smoke")
STAMP = "2026-08-10T17-22-11.385681"
DETAILS = SMOKE / "details" / "eee-smoke" / "dummy-model" / STAMP
ANLI = DETAILS / f"details_anli:r1|0_{STAMP}.parquet"
SQUAD = DETAILS / f"details_squad_v2|0_{STAMP}.parquet"


def query(sql: str, *parameters):
    with duckdb.connect() as con:
        return con.execute(sql, list(parameters)).fetchall()


def one_run(path: Path, **options):
    (run,) = list(lighteval.read(path, ReadOptions(**options)))
    return run


def test_detects_details_parquet_only(tmp_path):
    assert lighteval.detect(ANLI) and lighteval.detect(SQUAD)
    assert not lighteval.detect(SMOKE / "results" / "eee-smoke" / "dummy-model" / f"results_{STAMP}.json")
    assert not lighteval.detect(DETAILS)
    other = tmp_path / "other.parquet"
    with duckdb.connect() as con:
        con.sql("SELECT 1 AS a, 'x' AS b").write_parquet(str(other))
    assert not lighteval.detect(other)
    fake = tmp_path / "fake.parquet"
    fake.write_bytes(b"PAR1 not really PAR1")
    assert not lighteval.detect(fake)


def test_a_damaged_details_file_is_skipped_with_its_reason(tmp_path):
    """A details file cut short (no Parquet footer) under lighteval's own name is lighteval's:
    ingest skips it, naming it and why; before, it was ignored unnamed ("no harness output
    found" for its folder)."""
    from reasonboard.ingest import IngestOptions, run_ingest

    cut = tmp_path / "run" / ANLI.name
    cut.parent.mkdir()
    data = ANLI.read_bytes()
    cut.write_bytes(data[: len(data) // 2])
    assert lighteval.detect(cut)
    result = run_ingest(IngestOptions(paths=(cut.parent,), data_dir=tmp_path / "data"))
    [(path, reason)] = result.skipped_files
    assert path == cut and reason.startswith("cannot be read as lighteval details")


def test_loglikelihood_task_options_are_the_choices():
    rows = query("SELECT doc.id, metric.acc, len(doc.choices) FROM read_parquet(?)", str(ANLI))
    run = one_run(ANLI)
    got = list(run.trials)
    ev = run.evaluation
    assert (ev.model, ev.template, ev.sampler, ev.task, ev.metric, ev.harness) == (
        "eee-smoke/dummy-model", "0shot", "greedy", "anli:r1", "acc", "lighteval")
    assert (ev.truncation_observed, ev.tokens_observed) == (False, False)
    assert [(t.sample_id, t.score, t.options) for t in got] == [(i, float(acc), n) for i, acc, n in rows]
    assert [t.options for t in got] == [3, 3]
    assert {(t.truncated, t.tokens, t.epoch, t.params) for t in got} == {(False, None, 1, "{}")}


def test_generative_task_reads_em_and_its_gold_answers_are_not_options():
    rows = query("SELECT doc.id, metric.em, len(doc.choices) FROM read_parquet(?)", str(SQUAD))
    assert {n for _, _, n in rows} == {1}          # one gold answer in `choices`
    run = one_run(SQUAD)
    got = list(run.trials)
    assert run.evaluation.metric == "em"
    assert run.evaluation.sampler == "greedy-200"  # temperature 0; the task's generation_size 200
    assert [(t.sample_id, t.score, t.options) for t in got] == [(i, float(em), None) for i, em, _ in rows]


# -- hand-written files --------------------------------------------------------------------

TIME = "2025-01-01T00-00-00.000000"


def write_details(root: Path, task: str, rows: list[tuple[str, str, str]]) -> Path:
    """rows: SQL struct literals (doc, metric, model_response), written as lighteval does."""
    path = root / "details" / "org" / "model" / TIME / f"details_{task}_{TIME}.parquet"
    path.parent.mkdir(parents=True)
    select = " UNION ALL ".join(f"SELECT {d} AS doc, {m} AS metric, {r} AS model_response" for d, m, r in rows)
    with duckdb.connect() as con:
        con.sql(select).write_parquet(str(path))
    return path


def doc(i: int, level: int, task: str = "mathx|4") -> str:
    return (f"{{'id': '{i}', 'task_name': '{task}', 'choices': ['gold'], "
            f"'sampling_methods': ['GENERATIVE'], 'generation_size': 32, 'specific': {{'level': '{level}'}}}}")


def test_first_binary_metric_tokens_truncation_and_params(tmp_path):
    path = write_details(tmp_path, "mathx|4", [
        (doc(1, 1), "{'f1': 0.5, 'hit': true}", "{'output_tokens': [range(31)]}"),
        (doc(2, 5), "{'f1': 1.0, 'hit': false}", "{'output_tokens': [range(32)]}"),
        (doc(3, 5), "{'f1': 0.0, 'hit': NULL}", "{'output_tokens': [range(2)]}"),
    ])
    assert lighteval.detect(path)
    run = one_run(path)
    assert isinstance(run.trials, types.GeneratorType)
    ev = run.evaluation
    # no results file: the model from the details/<model>/<time>/ folders; no temperature recorded
    assert (ev.model, ev.template, ev.task, ev.metric, ev.sampler) == (
        "org/model", "4shot", "mathx", "hit", "default-32")
    assert (ev.truncation_observed, ev.tokens_observed) == (True, True)
    got = list(run.trials)
    assert [(t.sample_id, t.score, t.tokens, t.truncated, t.options) for t in got] == [
        ("1", 1.0, 31, False, None),
        ("2", 0.0, 32, True, None),              # 32 tokens at the task's 32-token limit
    ]
    assert [json.loads(t.params) for t in got] == [{"level": "1"}, {"level": "5"}]
    assert run.counts["unscored"] == 1


def test_a_limit_of_16_tokens_or_fewer_is_an_answer_cap(tmp_path):
    short = doc(1, 1, "cap|0").replace("'generation_size': 32", "'generation_size': 4")
    path = write_details(tmp_path, "cap|0", [(short, "{'acc': 1}", "{'output_tokens': [range(4)]}")])
    (trial,) = list(one_run(path).trials)
    assert (trial.tokens, trial.truncated) == (4, False)


def test_acc_then_exact_match_then_em(tmp_path):
    path = write_details(tmp_path, "pref|0", [
        (doc(1, 1, "pref|0"), "{'em': 0, 'exact_match': 0, 'acc': 1}", "{'output_tokens': [[1]]}"),
        (doc(2, 1, "pref|0"), "{'em': 1, 'exact_match': 1, 'acc': 0}", "{'output_tokens': [[1]]}"),
    ])
    run = one_run(path)
    assert run.evaluation.metric == "acc" and [t.score for t in run.trials] == [1.0, 0.0]


def test_scorer_and_regression_metrics(tmp_path):
    path = write_details(tmp_path, "reg|0", [
        (doc(1, 1, "reg|0"), "{'mae': 3.25, 'f1': 0.5}", "{'output_tokens': [[1]]}"),
        (doc(2, 1, "reg|0"), "{'mae': 0.0, 'f1': 1.0}", "{'output_tokens': [[1]]}"),
    ])
    run = one_run(path)
    assert run.skip is not None
    assert run.skip.startswith("reg: ") and "mae" in run.skip and "3.25" in run.skip
    assert list(run.trials) == []
    chosen = one_run(path, scorer="f1")
    assert chosen.skip is None and [t.score for t in chosen.trials] == [0.5, 1.0]
    assert "no per-sample metric nope" in one_run(path, scorer="nope").skip


@pytest.mark.parametrize("name,expected", [
    ("anli:r1|0", ("anli:r1", 0)), ("lighteval|arc:challenge|25", ("arc:challenge", 25)), ("plain", ("plain", None)),
])
def test_task_names(name, expected):
    assert lighteval._split_task(name) == expected
