"""The HELM reader against real run directories (Every Eval Ever's HELM test data, HELM's own
2024 BBQ runs of nine models) and small hand-written ones. Expected values come from a plain
`json` reading of the run's files in the test, or by hand, never from the reader."""

from __future__ import annotations

import json
import shutil
import types
from collections import Counter
from pathlib import Path

import pytest
from reasonboard.sources.harness import helm
from reasonboard.sources.trials import ReadOptions, UnreadableInput

DATA = Path(__file__).parent / "data" / "per-instance" / "helm"
EEE = DATA / "every_eval_ever"
NARRATIVE = EEE / "narrative_qa-model=openai_gpt2"
MMLU = EEE / "mmlu-subject=philosophy,method=multiple_choice_joint,model=openai_gpt2"
HELLASWAG = EEE / "commonsense-dataset=hellaswag,method=multiple_choice_joint,model=eleutherai_pythia-1b-v0"
BBQ = sorted((DATA / "helm/benchmark_output_TRUE_latest/runs/v3").iterdir())


def load(directory: Path, name: str):
    return json.loads((directory / name).read_text(encoding="utf-8"))


def stat(entry: dict, name: str, split: str):
    for s in entry["stats"]:
        if s["name"]["name"] == name and s["name"].get("split") == split and not s["name"].get("perturbation"):
            return s
    return None


def plain_trials(directory: Path) -> dict[str, dict]:
    """instance id -> exact_match, output tokens, split, references, finish reason: a
    second reading of the run, test split first, then valid."""
    requests = {r["instance"]["id"]: r for r in load(directory, "scenario_state.json")["request_states"]}
    out = {}
    for entry in load(directory, "per_instance_stats.json"):
        split = "test" if stat(entry, "exact_match", "test") else "valid"
        reason = requests[entry["instance_id"]]["result"]["completions"][0].get("finish_reason")
        out[entry["instance_id"]] = {
            "exact_match": stat(entry, "exact_match", split)["mean"],
            "tokens": stat(entry, "num_output_tokens", split)["sum"],
            "split": split,
            "references": len(requests[entry["instance_id"]]["instance"]["references"]),
            "reason": reason["reason"] if isinstance(reason, dict) else reason,
        }
    return out


def one_run(directory: Path):
    (run,) = list(helm.read(directory, ReadOptions()))
    return run


def test_detects_run_directories_only(tmp_path):
    assert all(helm.detect(d) for d in [NARRATIVE, MMLU, HELLASWAG, *BBQ])
    assert not helm.detect(NARRATIVE / "run_spec.json")
    assert not helm.detect(EEE)
    partial = tmp_path / "partial"
    partial.mkdir()
    for name in ("run_spec.json", "per_instance_stats.json"):
        shutil.copy(NARRATIVE / name, partial)
    assert not helm.detect(partial)


def test_generation_run_truncation_from_output_length_at_the_limit():
    """narrative_qa (gpt2, max_tokens 100): null finish reasons; one answer of exactly 100
    tokens is truncated, the others are not."""
    expected = plain_trials(NARRATIVE)
    limit = load(NARRATIVE, "run_spec.json")["adapter_spec"]["max_tokens"]
    assert limit == 100 and {e["reason"] for e in expected.values()} == {None}
    run = one_run(NARRATIVE)
    got = list(run.trials)
    ev = run.evaluation
    assert (ev.model, ev.template, ev.sampler, ev.task, ev.metric, ev.harness) == (
        "openai/gpt2", "generation", "greedy-100", "narrative_qa", "exact_match", "helm")
    assert (ev.truncation_observed, ev.tokens_observed) == (True, True)
    assert {t.sample_id: t.truncated for t in got} == {i: e["tokens"] >= limit for i, e in expected.items()}
    assert sum(t.truncated for t in got) == 1
    assert {t.sample_id: t.tokens for t in got} == {i: e["tokens"] for i, e in expected.items()}
    assert {t.options for t in got} == {None}              # generation: references are gold answers
    assert {t.params for t in got} == {"{}"}


def test_scenario_args_are_params_and_valid_split_instances_count():
    """mmlu philosophy: one of the ten instances is on the valid split (EEE's conversion of
    the same run keeps it too)."""
    expected = plain_trials(MMLU)
    assert Counter(e["split"] for e in expected.values()) == {"test": 9, "valid": 1}
    run = one_run(MMLU)
    got = list(run.trials)
    assert run.evaluation.task == "mmlu" and run.evaluation.template == "multiple_choice_joint"
    assert {t.params for t in got} == {'{"subject":"philosophy"}'}
    assert {t.sample_id: t.score for t in got} == {i: e["exact_match"] for i, e in expected.items()}
    assert {t.sample_id: t.options for t in got} == {i: e["references"] for i, e in expected.items()}
    assert sum(t.score >= 1 for t in got) == 1


def test_valid_only_run_and_the_dataset_names_the_task():
    expected = plain_trials(HELLASWAG)
    assert {e["split"] for e in expected.values()} == {"valid"}
    run = one_run(HELLASWAG)
    got = list(run.trials)
    assert run.evaluation.task == "hellaswag"              # run spec "commonsense:dataset=hellaswag,..."
    assert run.evaluation.model == "eleutherai/pythia-1b-v0"
    assert sum(t.score >= 1 for t in got) == sum(e["exact_match"] == 1 for e in expected.values()) == 3
    assert {t.options for t in got} == {4}


@pytest.mark.parametrize("directory", BBQ, ids=[d.name.rsplit("model=", 1)[1] for d in BBQ])
def test_bbq_one_token_answer_cap_is_never_truncation(directory):
    """multiple_choice_joint with max_tokens 1: OpenAI, Llama and Mixtral say "length" for
    every answer, Anthropic "", Google null with 0 tokens; none of it is truncation."""
    expected = plain_trials(directory)
    run = one_run(directory)
    got = list(run.trials)
    assert run.evaluation.sampler == "greedy-1" and run.evaluation.task == "bbq"
    assert run.evaluation.model == load(directory, "run_spec.json")["adapter_spec"]["model"]
    assert [t.truncated for t in got] == [False, False]
    assert {t.sample_id: (t.score, t.tokens, t.options) for t in got} == {
        i: (e["exact_match"], e["tokens"], e["references"]) for i, e in expected.items()}
    assert {t.options for t in got} == {3}


def test_bbq_runs_do_carry_length_stops():
    """The trap the test above guards against is really in the data."""
    reasons = Counter(e["reason"] for d in BBQ for e in plain_trials(d).values())
    assert reasons["length"] == 10 and reasons[""] == 4 and reasons[None] == 4


# -- hand-written runs -------------------------------------------------------------------


def em(split, value, perturbation=None, name="exact_match"):
    stat_name = {"name": name, "split": split}
    if perturbation:
        stat_name["perturbation"] = perturbation
    return {"name": stat_name, "count": 1, "sum": value, "mean": value}


def write_run(directory: Path, instances: list[dict], requests: list[dict], *, method="generation",
              max_tokens=100, args=None) -> Path:
    directory.mkdir(parents=True)
    adapter = {"method": method, "model": "lab/m", "temperature": 0.7, "max_tokens": max_tokens}
    (directory / "run_spec.json").write_text(json.dumps({
        "name": "task_x:level=2,model=lab_m", "adapter_spec": adapter,
        "scenario_spec": {"class_name": "X", "args": args or {"level": 2}}}))
    (directory / "per_instance_stats.json").write_text(json.dumps(instances))
    (directory / "scenario_state.json").write_text(json.dumps(
        {"adapter_spec": adapter, "request_states": requests}))
    return directory


def request(instance_id, reason, trial=0, success=True, refs=2, perturbation=None):
    instance = {"id": instance_id, "split": "test", "references": [{}] * refs}
    if perturbation:
        instance["perturbation"] = {"name": perturbation}
    return {"instance": instance, "train_trial_index": trial,
            "result": {"success": success, "completions": [{"finish_reason": reason}]}}


def test_hand_written_run(tmp_path):
    instances = [
        {"instance_id": "a", "train_trial_index": 0,
         "stats": [em("test", 1), em("test", 0, perturbation={"name": "typos"}),
                   em("test", 12, name="num_output_tokens")]},
        {"instance_id": "a", "train_trial_index": 1,                    # a second few-shot trial
         "stats": [em("test", 0), em("test", 100, name="num_output_tokens")]},
        {"instance_id": "a", "train_trial_index": 0, "perturbation": {"name": "typos"},
         "stats": [em("test", 0)]},                                     # a perturbed copy: left out
        {"instance_id": "b", "train_trial_index": 0, "stats": [em("valid", 1)]},
        {"instance_id": "e", "train_trial_index": 0, "stats": [em("valid", 0), em("test", 1)]},  # test first
        {"instance_id": "c", "train_trial_index": 0, "stats": [em("train", 1)]},   # unscored
        {"instance_id": "d", "train_trial_index": 0, "stats": [em("test", 1)]},    # request failed
    ]
    requests = [request("a", "stop"), request("a", {"reason": "length"}, trial=1),
                request("a", "stop", perturbation="typos"), request("b", None),
                request("c", "stop"), request("d", None, success=False), request("e", "stop")]
    run = one_run(write_run(tmp_path / "run", instances, requests))
    assert isinstance(run.trials, types.GeneratorType)
    got = list(run.trials)
    assert [(t.sample_id, t.epoch, t.score, t.truncated, t.tokens, t.options) for t in got] == [
        ("a", 1, 1.0, False, 12, None),
        ("a", 2, 0.0, True, 100, None),        # "length" under a 100-token limit: truncated
        ("b", 1, 1.0, False, None, None),
        ("e", 1, 1.0, False, None, None),
    ]
    assert dict(run.counts) == {"unscored": 1, "errors": 1}
    assert {t.params for t in got} == {'{"level":"2"}'}
    ev = run.evaluation
    assert (ev.task, ev.sampler, ev.template) == ("task_x", "t0.7-100", "generation")


def test_broken_json_is_unreadable_with_file_and_line(tmp_path):
    directory = write_run(tmp_path / "run", [], [])
    (directory / "per_instance_stats.json").write_text('[\n{"instance_id": "a",\n')
    with pytest.raises(UnreadableInput, match=r"per_instance_stats\.json, line 3"):
        one_run(directory)


@pytest.mark.parametrize("name, task", [
    ("commonsense:dataset=hellaswag,method=multiple_choice_joint,model=x", "hellaswag"),
    ("mmlu:subject=philosophy,method=multiple_choice_joint,model=openai_gpt2", "mmlu"),
    ("narrative_qa:model=openai_gpt2", "narrative_qa"),
    ("bbq", "bbq"),
    ("commonsense:dataset=,model=x", "commonsense"),
])
def test_task_name_from_the_run_spec_name(name, task):
    from reasonboard.sources.harness.helm import task_name

    assert task_name(name) == task
