"""HELM run directories as trials (INGEST.md sections 3-6).

A HELM run directory (`benchmark_output/runs/<suite>/<run spec name>/`) holds the run spec
(`run_spec.json`: scenario arguments and the adapter spec: model, method, temperature,
max_tokens), the per-instance statistics (`per_instance_stats.json`: every metric per
instance and split) and the scenario state (`scenario_state.json`: each request with the
instance's references and the completions' finish reasons). The directory is the input;
its three JSON documents are parsed whole (HELM writes them as single documents), and the
trials are yielded one instance at a time.

The rules, and why:

* Score: the per-instance stat `exact_match` without a perturbation on the instance's
  evaluation split, `test`, else `valid` (hellaswag is evaluated on `valid` only; an mmlu run
  mixes a few `valid` instances among `test` ones, and Every Eval Ever's conversion of the same
  run keeps them, so both readings give the same trials). Perturbed copies of an instance
  (robustness and fairness runs) are other conditions, not more trials, and are left out.
* Epoch: `train_trial_index + 1` (HELM repeats an instance with other few-shot examples).
* Options: the instance's references for `multiple_choice_*` adapter methods; none for
  generation, whose references are gold answers.
* Tokens: the stat `num_output_tokens`. Truncation: the completion's `finish_reason` (an
  object `{"reason": ...}` in recent HELM, a string or null in older runs) against the run's
  `max_tokens` (`is_truncated`: the `length` stops of `multiple_choice_joint`'s one-token
  answers are not truncation; a null reason with output tokens at the limit is).
* Evaluation: model `adapter_spec.model`, template `adapter_spec.method`, sampler from its
  temperature and max_tokens, task the run spec name before `:` or its `dataset=`, params the scenario's
  arguments as strings (`subject=philosophy`). HELM records no version of itself.
* A request that failed (`result.success` false) is a harness error; an instance with no
  `exact_match` on either split is unscored. Incomplete runs are read as they are.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..trials import (
    Evaluation,
    ReadOptions,
    Run,
    Trial,
    UnreadableInput,
    canonical_params,
    compressed_size,
    is_truncated,
    mapping_of,
    read_json_file,
    sampler_name,
    score_value,
)

FORMAT = "helm"
HARNESS = "helm"
FILES = ("run_spec.json", "per_instance_stats.json", "scenario_state.json")
METRIC = "exact_match"
#: Evaluation splits in order of preference (section 3).
SPLITS = ("test", "valid")
#: Adapter spec keys that are generation settings, recorded as the evaluation's
#: `generation_args` when present.
GENERATION_KEYS = ("temperature", "max_tokens", "top_p", "top_k_per_token", "num_outputs",
                   "stop_sequences", "presence_penalty", "frequency_penalty", "random")


def detect(path: Path) -> bool:
    """A directory holding the three files of a HELM run."""
    return path.is_dir() and all((path / name).is_file() for name in FILES)


def read(path: Path, options: ReadOptions) -> Iterator[Run]:
    """One run: the run directory's task for its model, template and sampler."""
    run_spec = _load(path / "run_spec.json", dict)
    adapter = mapping_of(run_spec.get("adapter_spec"))
    requests = _requests(_load(path / "scenario_state.json", dict))
    if not adapter:
        raise UnreadableInput("run_spec.json has no adapter_spec")
    instances = _load(path / "per_instance_stats.json", list)

    model = adapter.get("model")
    if not isinstance(model, str) or not model.strip():
        raise UnreadableInput("run_spec.json names no model (adapter_spec.model)")
    name = run_spec.get("name")
    if not isinstance(name, str) or not name.split(":", 1)[0].strip():
        raise UnreadableInput("run_spec.json has no run spec name")
    method = adapter.get("method")
    template = method.strip() if isinstance(method, str) and method.strip() else "default"
    limit = _integer(adapter.get("max_tokens"))
    temperature = adapter.get("temperature")
    scenario_args = mapping_of(mapping_of(run_spec.get("scenario_spec")).get("args"))

    tokens_recorded = any(_stat(entry, "num_output_tokens") is not None for entry in instances
                          if isinstance(entry, dict))
    reasons_recorded = any(r.finish_reason is not None for r in requests.values())
    evaluation = Evaluation(
        harness=HARNESS,
        harness_version=None,
        model=model.strip(),
        template=template,
        sampler=sampler_name(temperature if _is_number(temperature) else None, limit),
        task=task_name(name),
        metric=METRIC,
        generation_args={k: adapter[k] for k in GENERATION_KEYS if k in adapter},
        truncation_observed=reasons_recorded or (tokens_recorded and limit is not None),
        tokens_observed=tokens_recorded,
    )
    counts: Counter[str] = Counter()
    multiple_choice = template.startswith("multiple_choice")
    yield Run(path, FORMAT, evaluation,
              _trials(instances, requests, canonical_params(scenario_args), multiple_choice, limit, counts),
              counts)


def task_name(run_spec_name: str) -> str:
    """INGEST.md section 5: the run spec name before `:`, except that a `dataset=` argument
    names the task (`commonsense:dataset=hellaswag,...` -> `hellaswag`, as the Every Eval
    Ever conversion of the same run names it)."""
    head, _, args = run_spec_name.partition(":")
    for arg in args.split(","):
        key, _, value = arg.partition("=")
        if key.strip() == "dataset" and value.strip():
            return value.strip()
    return head.strip()


def _load(path: Path, kind: type) -> Any:
    document = read_json_file(path)
    if not isinstance(document, kind):
        raise UnreadableInput(f"{path.name}: not a HELM {path.stem} (not a JSON {kind.__name__})")
    return document



def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _integer(value: Any) -> int | None:
    return int(value) if _is_number(value) and float(value).is_integer() else None


@dataclass(frozen=True)
class _Request:
    """What the scenario state adds to an instance's statistics."""

    references: int
    finish_reason: str | None
    failed: bool
    text: str | None


def _requests(state: Mapping[str, Any]) -> dict[tuple[str, int], _Request]:
    """(instance id, train trial index) -> its first unperturbed request. Methods that send
    one request per reference (`multiple_choice_separate_*`) repeat the instance; its
    references and answer are the same in each."""
    found: dict[tuple[str, int], _Request] = {}
    states = state.get("request_states")
    for request_state in states if isinstance(states, list) else []:
        if not isinstance(request_state, dict):
            continue
        instance = mapping_of(request_state.get("instance"))
        if instance.get("perturbation"):
            continue
        key = (str(instance.get("id")), _integer(request_state.get("train_trial_index")) or 0)
        if key in found:
            continue
        result = mapping_of(request_state.get("result"))
        completions = result.get("completions")
        first = mapping_of(completions[0]) if isinstance(completions, list) and completions else {}
        references = instance.get("references")
        found[key] = _Request(
            references=len(references) if isinstance(references, list) else 0,
            finish_reason=_finish_reason(first.get("finish_reason")),
            failed=result.get("success") is False,
            text=first.get("text") if isinstance(first.get("text"), str) else None,
        )
    return found


def _finish_reason(value: Any) -> str | None:
    """`{"reason": "length"}` in recent HELM, a plain string in older runs."""
    if isinstance(value, dict):
        value = value.get("reason")
    return value if isinstance(value, str) else None


def _stat(entry: Mapping[str, Any], name: str) -> tuple[str, Mapping[str, Any]] | None:
    """(split, stat) of the unperturbed stat `name` on the first evaluation split that has it."""
    by_split: dict[str, Mapping[str, Any]] = {}
    stats = entry.get("stats")
    for stat in stats if isinstance(stats, list) else []:
        stat_name = mapping_of(mapping_of(stat).get("name"))
        if stat_name.get("name") == name and not stat_name.get("perturbation"):
            split = stat_name.get("split")
            if isinstance(split, str) and split not in by_split:
                by_split[split] = stat
    return next(((split, by_split[split]) for split in SPLITS if split in by_split), None)


def _stat_value(stat: Mapping[str, Any], key: str) -> float | None:
    if not stat.get("count"):
        return None
    value = stat.get(key)
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _trials(instances: list[Any], requests: Mapping[tuple[str, int], _Request], params: str,
            multiple_choice: bool, limit: int | None, counts: Counter[str]) -> Iterator[Trial]:
    for entry in instances:
        if not isinstance(entry, dict) or entry.get("perturbation"):
            continue
        instance_id = str(entry.get("instance_id"))
        train_trial = _integer(entry.get("train_trial_index")) or 0
        request = requests.get((instance_id, train_trial))
        if request is not None and request.failed:
            counts["errors"] += 1
            continue
        found = _stat(entry, METRIC)
        score = score_value(_stat_value(found[1], "mean")) if found else None
        if found is None or score is None:
            counts["unscored"] += 1
            continue
        split, _ = found
        tokens_stat = _stat(entry, "num_output_tokens")
        tokens_value = (_stat_value(tokens_stat[1], "sum")
                        if tokens_stat is not None and tokens_stat[0] == split else None)
        tokens = int(tokens_value) if tokens_value is not None else None
        prompt_stat = _stat(entry, "num_prompt_tokens")
        prompt_value = (_stat_value(prompt_stat[1], "sum")
                        if prompt_stat is not None and prompt_stat[0] == split else None)
        finish_reason = request.finish_reason if request is not None else None
        references = request.references if request is not None else 0
        yield Trial(
            sample_id=instance_id,
            epoch=train_trial + 1,
            params=params,
            score=score,
            truncated=is_truncated(finish_reason, tokens, limit),
            options=references if multiple_choice and references else None,
            tokens=tokens,
            input_tokens=int(prompt_value) if prompt_value is not None else None,
            compressed=compressed_size(request.text if request is not None else None),
        )
