"""The lm-evaluation-harness reader against real sample files (0.4.8-0.4.13 and a 2024 git
build) and small hand-written ones. Expected values come from a plain `json` reading of the
files in the test, or by hand, never from the reader."""

from __future__ import annotations

import json
import shutil
import types
from collections import Counter
from pathlib import Path

import pytest
from reasonboard.sources.harness import lmeval
from reasonboard.sources.trials import ReadOptions, UnreadableInput

DATA = Path(__file__).parent / "data" / "per-instance" / "lm-eval"
NEGOTIATION = DATA / "lm-evaluation-harness/outputs/qwen3-8b/negotiationtom/Qwen__Qwen3-8B"
STAMP = "2026-07-08T18-15-33.115417"
BELIEF = NEGOTIATION / f"samples_negotiationtom_belief_{STAMP}.jsonl"
INTENTION = NEGOTIATION / f"samples_negotiationtom_intention_{STAMP}.jsonl"
ASDIV_DIR = DATA / "lm-evaluation-harness/results/asdiv/meta-llama__Meta-Llama-3-8B-Instruct"
ASDIV_STAMP = "2024-08-21T03-44-09.494230"
ASDIV = ASDIV_DIR / f"samples_asdiv_{ASDIV_STAMP}.jsonl"
MATH = DATA / "every_eval_ever/samples_math_perturbed_full_2026-01-21T03-44-18.458309.jsonl"
POLYMER = DATA / ("lm-evaluation-harness/results/tgpred.json/gpt-4o-mini/"
                  "samples_polymer_tg_prediction_2025-06-30T19-40-09.461247.jsonl")


def plain(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def one_run(path: Path, **options):
    (run,) = list(lmeval.read(path, ReadOptions(**options)))
    return run


def trials(path: Path, **options):
    run = one_run(path, **options)
    return run, list(run.trials)


# -- recognising the format -------------------------------------------------------------


def test_detects_samples_files_by_content_not_name(tmp_path):
    for path in (BELIEF, ASDIV, MATH, POLYMER):
        assert lmeval.detect(path), path
    renamed = tmp_path / "whatever.txt"
    shutil.copy(ASDIV, renamed)
    assert lmeval.detect(renamed)
    assert not lmeval.detect(NEGOTIATION / f"results_{STAMP}.json")
    assert not lmeval.detect(NEGOTIATION)
    eee_line = tmp_path / "eee.jsonl"
    eee_line.write_text(json.dumps({"sample_id": "1", "evaluation": {"is_correct": True}}) + "\n")
    assert not lmeval.detect(eee_line)


# -- real files --------------------------------------------------------------------------


def test_multiple_choice_task_with_chat_template():
    """negotiationtom_belief: `acc`, options = the loglikelihood requests of each sample."""
    samples = plain(BELIEF)
    run, got = trials(BELIEF)
    ev = run.evaluation
    assert (ev.model, ev.template, ev.sampler, ev.task, ev.metric) == (
        "Qwen/Qwen3-8B", "0shot-chat", "default", "negotiationtom_belief", "acc")
    assert (ev.harness, ev.harness_version) == ("lm-evaluation-harness", "0.4.13.dev0")
    assert (ev.truncation_observed, ev.tokens_observed) == (False, False)
    assert run.skip is None
    assert [t.sample_id for t in got] == [str(s["doc_id"]) for s in samples]
    assert sum(t.score >= 1 for t in got) == sum(s["acc"] == 1 for s in samples) == 9  # results: acc 0.45
    assert [t.options for t in got] == [len(s["arguments"]) for s in samples] == [4] * 20
    assert {(t.truncated, t.tokens, t.epoch, t.params) for t in got} == {(False, None, 1, "{}")}


def test_generation_task_takes_exact_match_not_the_f1_pairs():
    """negotiationtom_intention records micro_f1/macro_f1 as [gold, pred] pairs: not scores."""
    samples = plain(INTENTION)
    assert isinstance(samples[0]["micro_f1"], list)
    run, got = trials(INTENTION)
    assert run.evaluation.metric == "exact_match"
    assert run.evaluation.sampler == "greedy-48"         # generation_kwargs: max_gen_toks 48, temperature 0
    assert run.evaluation.generation_args["max_gen_toks"] == 48
    assert sum(t.score >= 1 for t in got) == sum(s["exact_match"] == 1 for s in samples) == 4
    assert {t.options for t in got} == {None}


def test_old_layout_without_filter_and_metrics_keys():
    """asdiv (2024 git build): no `filter`/`metrics`; `acc` is an int; 8 shots, chat template."""
    samples = plain(ASDIV)
    assert "filter" not in samples[0] and "metrics" not in samples[0]
    run, got = trials(ASDIV)
    ev = run.evaluation
    assert (ev.model, ev.template, ev.sampler, ev.metric, ev.harness_version) == (
        "meta-llama/Meta-Llama-3-8B-Instruct", "8shot-chat", "default", "acc", "git 59170e85")
    assert len(got) == 50                                 # --limit 50
    assert sum(t.score >= 1 for t in got) == 46           # results: acc 0.92 of 50
    assert {t.options for t in got} == {None}             # a loglikelihood task, not multiple_choice


def test_json_lines_saved_with_json_suffix_and_the_042_array_read_alike(tmp_path):
    shutil.copy(ASDIV_DIR / f"results_{ASDIV_STAMP}.json", tmp_path)
    lines = tmp_path / f"samples_asdiv_{ASDIV_STAMP}.json"
    shutil.copy(ASDIV, lines)
    expected = [(t.sample_id, t.score) for t in trials(ASDIV)[1]]
    assert lmeval.detect(lines)
    assert [(t.sample_id, t.score) for t in trials(lines)[1]] == expected

    array_dir = tmp_path / "array"
    array_dir.mkdir()
    shutil.copy(ASDIV_DIR / f"results_{ASDIV_STAMP}.json", array_dir)
    array = array_dir / f"samples_asdiv_{ASDIV_STAMP}.json"
    array.write_text(json.dumps(plain(ASDIV), indent=2), encoding="utf-8")
    assert lmeval.detect(array)
    assert [(t.sample_id, t.score) for t in trials(array)[1]] == expected


def test_params_from_doc_keys_and_model_from_results():
    """math_perturbed: `doc.level` is the difficulty; no chat template (null) -> plain 0shot."""
    samples = plain(MATH)
    run, got = trials(MATH)
    ev = run.evaluation
    assert ev.model == "RylanSchaeffer/mem_Qwen3-93M_minerva_math_rep_0_sbst_1.0000_epch_1_ot_1"
    assert (ev.template, ev.sampler, ev.metric) == ("0shot", "greedy-512", "exact_match")
    assert Counter(json.loads(t.params)["level"] for t in got) == Counter(s["doc"]["level"] for s in samples)
    assert {t.params for t in trials(MATH, params=("type",))[1]} == {
        json.dumps({"type": s["doc"]["type"]}, separators=(",", ":")) for s in samples}
    assert sum(t.score for t in got) == 0


def test_regression_metric_is_skipped_with_task_metric_and_example():
    samples = plain(POLYMER)
    assert samples[0]["metrics"] == ["mae"] and samples[0]["mae"] == float("inf")
    run = one_run(POLYMER)
    assert run.evaluation.model == "gpt-4o-mini"
    assert run.evaluation.template == "0shot-chat"        # API model: chat_template "" means applied
    assert run.evaluation.sampler == "greedy-10"          # generation_kwargs max_tokens 10
    assert run.skip is not None
    assert "polymer_tg_prediction" in run.skip and "mae" in run.skip and "inf" in run.skip
    assert list(run.trials) == []


def test_model_falls_back_to_pretrained_of_model_args(tmp_path):
    results = json.loads((ASDIV_DIR / f"results_{ASDIV_STAMP}.json").read_text())
    del results["model_name"]
    (tmp_path / f"results_{ASDIV_STAMP}.json").write_text(json.dumps(results))
    shutil.copy(ASDIV, tmp_path)
    assert one_run(tmp_path / ASDIV.name).evaluation.model == "meta-llama/Meta-Llama-3-8B-Instruct"


# -- hand-written files --------------------------------------------------------------------

STAMP_X = "2025-01-02T03-04-05.000006"


def write_run(directory: Path, task: str, samples: list[dict], *, output_type="generate_until",
              n_shot=3, chat=None, generation_kwargs=None) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    config = {"task": task, "output_type": output_type}
    if generation_kwargs is not None:
        config["generation_kwargs"] = generation_kwargs
    results = {"results": {task: {}}, "configs": {task: config}, "n-shot": {task: n_shot},
               "config": {"model_args": "pretrained=org/model-7b,dtype=bfloat16"},
               "chat_template": chat, "lm_eval_version": "0.4.9"}
    (directory / f"results_{STAMP_X}.json").write_text(json.dumps(results))
    path = directory / f"samples_{task}_{STAMP_X}.jsonl"
    path.write_text("".join(json.dumps(s) + "\n" for s in samples))
    return path


def sample(doc_id, **metrics):
    return {"doc_id": doc_id, "doc": {"q": doc_id}, "target": "x", "arguments": {}, "resps": [],
            "filtered_resps": [], "filter": "none", "metrics": list(metrics), **metrics}


def test_first_all_binary_metric_when_neither_acc_nor_exact_match(tmp_path):
    path = write_run(tmp_path, "t", [
        sample(0, f1=["a", "b"], partial=0.5, hit=1, later=0),
        sample(1, f1=["a", "a"], partial=1.0, hit=0, later=1),
        sample(2, f1=["b", "b"], partial=0.0, hit=1, later=1),
    ], generation_kwargs={"temperature": 0.7, "max_gen_toks": 2048})
    run, got = trials(path)
    ev = run.evaluation
    assert (ev.metric, ev.model, ev.template, ev.sampler) == ("hit", "org/model-7b", "3shot", "t0.7-2k")
    assert [t.score for t in got] == [1.0, 0.0, 1.0]


def test_acc_comes_before_exact_match(tmp_path):
    path = write_run(tmp_path, "both", [sample(0, exact_match=0, acc=1), sample(1, exact_match=1, acc=0)])
    run, got = trials(path)
    assert run.evaluation.metric == "acc" and [t.score for t in got] == [1, 0]


def test_scorer_option_picks_a_metric_and_a_filter(tmp_path):
    strict = [dict(sample(i, exact_match=v), filter="strict-match") for i, v in enumerate([1, 0, 0])]
    flexible = [dict(sample(i, exact_match=v), filter="flexible-extract") for i, v in enumerate([1, 1, 0])]
    path = write_run(tmp_path, "gsm", strict + flexible)
    assert [t.score for t in trials(path)[1]] == [1, 0, 0]                  # the first filter
    got = trials(path, scorer="exact_match,flexible-extract")[1]
    assert [(t.sample_id, t.score) for t in got] == [("0", 1), ("1", 1), ("2", 0)]
    assert "no per-sample metric nope" in one_run(path, scorer="nope").skip


def test_trials_stream_and_count_unscored_samples(tmp_path):
    samples = [sample(0, acc=1), sample(1, acc=None), sample(2, acc=0)]
    path = write_run(tmp_path, "mc", samples, output_type="multiple_choice", chat="")
    run = one_run(path)
    assert isinstance(run.trials, types.GeneratorType)
    assert run.evaluation.template == "3shot-chat"
    assert run.counts["unscored"] == 0                    # filled while the trials are read
    got = list(run.trials)
    assert [t.sample_id for t in got] == ["0", "2"]
    assert run.counts["unscored"] == 1


def test_fractional_preferred_metric_keeps_its_value_and_out_of_range_skips(tmp_path):
    path = write_run(tmp_path / "a", "frac", [sample(0, acc=0.5), sample(1, acc=1.0)])
    assert [t.score for t in trials(path)[1]] == [0.5, 1.0]
    path = write_run(tmp_path / "b", "pct", [sample(0, acc=50), sample(1, acc=100)])
    run = one_run(path)
    assert run.skip is not None and "pct" in run.skip and "acc" in run.skip and "50" in run.skip


def test_unreadable_inputs(tmp_path):
    lonely = tmp_path / "lonely" / f"samples_x_{STAMP_X}.jsonl"
    lonely.parent.mkdir()
    lonely.write_text(json.dumps(sample(0, acc=1)) + "\n")
    with pytest.raises(UnreadableInput, match="results_"):
        one_run(lonely)

    path = write_run(tmp_path / "broken", "b", [sample(0, acc=1)])
    with path.open("a") as handle:
        handle.write('{"doc_id": 1, "acc": \n')
    with pytest.raises(UnreadableInput, match="line 2"):
        one_run(path)


def test_pairing_with_the_results_file(tmp_path):
    """The date in the name must match; a renamed file goes with a lone one-task results file."""
    shutil.copy(ASDIV_DIR / f"results_{ASDIV_STAMP}.json", tmp_path)
    renamed = tmp_path / "asdiv-samples.jsonl"
    shutil.copy(ASDIV, renamed)
    run = one_run(renamed)
    assert (run.evaluation.task, len(list(run.trials))) == ("asdiv", 50)
    other_date = tmp_path / "samples_asdiv_2024-09-01T00-00-00.000000.jsonl"
    shutil.copy(ASDIV, other_date)
    with pytest.raises(UnreadableInput, match=r"results_2024-09-01T00-00-00\.000000\.json"):
        one_run(other_date)


def test_a_samples_file_damaged_on_its_first_line_is_named_not_ignored(tmp_path):
    """A samples file named as lm-eval names it, beside its run's results file, is lm-eval's
    even when its first line is damaged: ingest skips it naming the line, where before it was
    ignored as "not a per-sample harness output" (and a folder of such files was "no harness
    output found", naming no file)."""
    from reasonboard.ingest import IngestOptions, run_ingest

    folder = tmp_path / "run"
    shutil.copytree(NEGOTIATION, folder)
    damaged = folder / BELIEF.name
    damaged.write_bytes(b'{"doc_id": 0, "doc": {\n' + damaged.read_bytes())
    garbage = folder / INTENTION.name
    garbage.write_bytes(b"<html>\n" + garbage.read_bytes())
    assert lmeval.detect(damaged) and lmeval.detect(garbage)
    result = run_ingest(IngestOptions(paths=(folder,), data_dir=tmp_path / "data"))
    skipped = {p.name: reason for p, reason in result.skipped_files}
    assert skipped[BELIEF.name].startswith("line 1: not valid JSON")
    assert skipped[INTENTION.name].startswith("line 1: not valid JSON")
    renamed = tmp_path / "other" / "samples.jsonl"  # not lm-eval's name: its content decides
    renamed.parent.mkdir()
    renamed.write_text("<html>\n")
    assert not lmeval.detect(renamed)


def test_files_saved_with_a_byte_order_mark_read_alike(tmp_path):
    """A samples file and its results file saved by a Windows editor (a UTF-8 byte order
    mark first): the same trials; before, both failed 'Unexpected UTF-8 BOM'."""
    folder = tmp_path / "run"
    shutil.copytree(NEGOTIATION, folder)
    for path in folder.iterdir():
        path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    (plain_run, plain), (marked_run, marked) = trials(BELIEF), trials(folder / BELIEF.name)
    assert marked == plain and len(marked) == 20
    assert marked_run.evaluation == plain_run.evaluation
