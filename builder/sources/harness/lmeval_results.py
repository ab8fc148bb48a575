"""lm-evaluation-harness's `results_<date>.json`, read for what the samples files do not
record: the model, the number of shots and whether a chat template was applied (the
template), the task's generation settings (the sampler) and the harness version.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..trials import (
    UnreadableInput,
    mapping_of,
    read_json_file,
    sampler_name,
)

#: `samples_<task>_<date>.<suffix>`, the date as lm-eval's `date_id` (isoformat, `:` -> `-`).
SAMPLES_NAME = re.compile(r"\Asamples_(?P<task>.+)_(?P<date>\d{4}-\d\d-\d\dT[0-9.\-]+?)\.jsonl?\Z")


def results_beside(path: Path) -> tuple[Path, str]:
    """`results_<date>.json` of the same run and the task name, both from the samples file's
    name. The date must match: a results file of another run in the same folder may have
    other shots or settings. A renamed samples file is paired with the only results file
    beside it when that file holds one task."""
    match = SAMPLES_NAME.match(path.name)
    if match:
        exact = path.parent / f"results_{match['date']}.json"
        if exact.is_file():
            return exact, match["task"]
        raise UnreadableInput(f"no {exact.name} beside it (lm-eval's results file names the model and settings)")
    beside = sorted(p for p in path.parent.glob("results_*.json") if p.is_file())
    if len(beside) != 1:
        raise UnreadableInput("not named samples_<task>_<date>.jsonl and not alone with one results_*.json: "
                              "its results file (the model and settings) cannot be told")
    tasks = list(mapping_of(load_results(beside[0]).get("configs")))
    if len(tasks) != 1:
        raise UnreadableInput(f"cannot tell which task of {beside[0].name} this samples file holds "
                              "(its name is not samples_<task>_<date>.jsonl)")
    return beside[0], tasks[0]


def load_results(path: Path) -> dict[str, Any]:
    document = read_json_file(path)
    if not isinstance(document, dict):
        raise UnreadableInput(f"{path.name}: not an lm-eval results file (not a JSON object)")
    return document



def task_config(results: Mapping[str, Any], task: str) -> Mapping[str, Any]:
    return mapping_of(mapping_of(results.get("configs")).get(task))


def task_generation_kwargs(config: Mapping[str, Any]) -> dict[str, Any]:
    """The task's `generation_kwargs` as the results file records them (after lm-eval
    applied any `--gen_kwargs`); only `generate_until` tasks generate."""
    kwargs = config.get("generation_kwargs")
    if config.get("output_type") == "generate_until" and isinstance(kwargs, dict):
        return dict(kwargs)
    return {}


def model_name(results: Mapping[str, Any], results_path: Path) -> str:
    """Section 4: the results' `model_name`, else `pretrained=` of `model_args` (a
    `k=v,k=v` string or, in recent versions, an object); API backends name it `model=`."""
    name = results.get("model_name")
    if isinstance(name, str) and name.strip():
        return name.strip()
    args = mapping_of(results.get("config")).get("model_args")
    if isinstance(args, str):
        args = dict(part.split("=", 1) for part in args.split(",") if "=" in part)
    for key in ("pretrained", "model"):
        value = mapping_of(args).get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    raise UnreadableInput(f"{results_path.name} names no model (no model_name, no pretrained= in model_args)")


def template_name(results: Mapping[str, Any], task: str) -> str:
    """`{n}shot` from `n-shot`, `-chat` when a chat template was applied: lm-eval records
    `chat_template` as None when it was not, and as the template (an empty string for API
    models, which apply their own) when it was."""
    shots = mapping_of(results.get("n-shot")).get(task)
    if isinstance(shots, bool) or not isinstance(shots, int):
        return "default"
    chat = "-chat" if results.get("chat_template") is not None else ""
    return f"{shots}shot{chat}"


def harness_version(results: Mapping[str, Any]) -> str | None:
    """`lm_eval_version`; builds from a git checkout (2024) record only their commit."""
    version = results.get("lm_eval_version")
    if isinstance(version, str) and version.strip():
        return version.strip()
    commit = results.get("git_hash")
    return f"git {commit.strip()}" if isinstance(commit, str) and commit.strip() else None


def sampler_of(kwargs: Mapping[str, Any]) -> str:
    """Section 4 from the task's generation kwargs; `do_sample: false` without a temperature
    is greedy decoding too. Loglikelihood tasks generate nothing: `default`."""
    temperature = kwargs.get("temperature")
    if not is_number(temperature):
        temperature = 0 if kwargs.get("do_sample") is False else None
    limit = next((kwargs[k] for k in ("max_gen_toks", "max_tokens", "max_new_tokens")
                  if is_number(kwargs.get(k))), None)
    return sampler_name(temperature, int(limit) if limit is not None else None)


def is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)
