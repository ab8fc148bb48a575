"""lm-evaluation-harness per-sample files (`--log_samples`) as trials (INGEST.md sections 3-6).

lm-eval writes, per task, a `samples_<task>_<date>.jsonl` (one JSON object per document,
`doc_id` first) and, beside it, one `results_<date>.json` holding what the samples do not:
the model, the number of shots, whether a chat template was applied, the task's output type
and generation settings, the harness version. A samples file without its results file is
unreadable: it would give trials with no model.

Layouts seen in real files, all read alike:

* 0.4.3 and later: JSON Lines with `filter` and `metrics` keys;
* before 0.4.3: no `filter` / `metrics` keys (the metric values are the keys that are not
  the sample's own), and some files are JSON Lines saved with a `.json` suffix, others
  (0.4.2) one indented JSON array. JSON Lines are streamed; an array is parsed whole.

What the files do not record, and what we therefore say:

* no stop reasons and no output tokens: `truncated` is always False, `tokens` None, and the
  evaluation says neither was observable (the site shows "not recorded by lm-eval");
* no epochs: `epoch` is 1.

Which score (section 3): `acc`, else `exact_match`, else the first per-sample metric whose
values are all 0 or 1, or the one named by `--scorer` (`--scorer NAME,FILTER` also picks the
filter; otherwise the first filter in the file, lm-eval's main pipeline, is read and the
others are the same samples scored again, not more trials). A metric recorded as a
[prediction, gold] pair (`f1`, `micro_f1`) is not a per-sample score. A chosen metric with
values outside [0, 1] (`mae`: a regression error) means the task has no correctness: the run
is skipped with the task, the metric and an example value.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...errors import shortened
from ..trials import (
    Evaluation,
    ReadOptions,
    Run,
    Trial,
    UnreadableInput,
    compressed_size,
    pick_params,
    score_value,
)
from .lmeval_results import (
    SAMPLES_NAME,
    harness_version,
    load_results,
    model_name,
    results_beside,
    sampler_of,
    task_config,
    task_generation_kwargs,
    template_name,
)

FORMAT = "lm-eval"
HARNESS = "lm-evaluation-harness"

#: Bytes read to recognise a samples file: its first object starts with `doc_id`.
PEEK = 64 * 1024
_STARTS_WITH_DOC_ID = re.compile(rb'\A(?:\xef\xbb\xbf)?\s*(\[\s*)?\{\s*"doc_id"\s*:')
#: Keys of a sample that are not metric values (the old layout has no `metrics` list).
SAMPLE_KEYS = frozenset({
    "doc_id", "doc", "target", "arguments", "resps", "filtered_resps", "filter", "metrics",
    "doc_hash", "prompt_hash", "target_hash", "task_name",
})
#: Output types whose requests score given continuations by log-likelihood: the model
#: generates nothing (only `generate_until` samples text).
LIKELIHOOD_TYPES = frozenset({"loglikelihood", "loglikelihood_rolling", "multiple_choice"})
#: Metrics taken by name before any other (section 3), in this order.
PREFERRED = ("acc", "exact_match")


def detect(path: Path) -> bool:
    """A file whose first JSON object begins with `doc_id` (lm-eval always writes it first),
    whatever the suffix; a first line that is complete within the peek is also parsed, for
    files written by other tools with the keys in another order."""
    if not path.is_file():
        return False
    try:
        with path.open("rb") as handle:
            head = handle.read(PEEK)
    except OSError:
        return False
    if _STARTS_WITH_DOC_ID.match(head):
        return True
    if _named_as_samples(path):
        return True  # a damaged one is still ours, to be skipped with its reason (its line)
    line, newline, _ = head.partition(b"\n")
    if not newline:
        return False
    try:
        first = json.loads(line)
    except (ValueError, UnicodeDecodeError):
        return False
    return isinstance(first, dict) and "doc_id" in first and "doc" in first


def _named_as_samples(path: Path) -> bool:
    """lm-eval's own name for a samples file (`samples_<task>_<date>.jsonl`) with the
    results file of the same run beside it: a file so named is lm-eval's even when its
    first line is damaged, so it is skipped with its line, not ignored unnamed."""
    match = SAMPLES_NAME.match(path.name)
    return match is not None and (path.parent / f"results_{match['date']}.json").is_file()


def read(path: Path, options: ReadOptions) -> Iterator[Run]:
    """One run: the task of this samples file, with the evaluation from its results file."""
    results_path, task = results_beside(path)
    results = load_results(results_path)
    config = task_config(results, task)
    scan = _scan(path, options.scorer)
    kwargs = task_generation_kwargs(config) or scan.generation_kwargs
    evaluation = Evaluation(
        harness=HARNESS,
        harness_version=harness_version(results),
        model=model_name(results, results_path),
        template=template_name(results, task),
        sampler=sampler_of(kwargs),
        task=task,
        metric=scan.metric or "none",
        generation_args=kwargs,
        truncation_observed=False,
        tokens_observed=False,
        sampled=config.get("output_type") not in LIKELIHOOD_TYPES,
    )
    if scan.problem is not None:
        yield Run(path, FORMAT, evaluation, (), skip=f"{task}: {scan.problem}")
        return
    assert scan.metric is not None
    counts: Counter[str] = Counter()
    multiple_choice = config.get("output_type") == "multiple_choice"
    yield Run(path, FORMAT, evaluation,
              _trials(path, scan.metric, scan.filter, multiple_choice, options.params, counts), counts)


# -- the samples file -------------------------------------------------------------------


def _records(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line as an editor counts it, sample) for every sample of the file: JSON Lines
    streamed, a JSON array (0.4.2) parsed whole and numbered by element."""
    try:
        with path.open("r", encoding="utf-8-sig") as handle:  # -sig: a byte order mark is no JSON error
            start = handle.read(PEEK).lstrip("\ufeff \t\r\n")
            handle.seek(0)
            if start.startswith("["):
                try:
                    samples = json.load(handle)
                except json.JSONDecodeError as error:
                    raise UnreadableInput(f"line {error.lineno}: not valid JSON ({error.msg})") from None
                for index, sample in enumerate(samples if isinstance(samples, list) else [samples], 1):
                    if not isinstance(sample, dict):
                        raise UnreadableInput(f"sample {index}: not a JSON object")
                    yield index, sample
                return
            for number, line in enumerate(handle, 1):
                if not line.strip():
                    continue
                try:
                    sample = json.loads(line)
                except json.JSONDecodeError as error:
                    raise UnreadableInput(f"line {number}: not valid JSON ({error.msg})") from None
                if not isinstance(sample, dict):
                    raise UnreadableInput(f"line {number}: not a JSON object")
                yield number, sample
    except (OSError, UnicodeDecodeError) as error:
        raise UnreadableInput(f"cannot be read ({error})") from None


def _metric_names(sample: Mapping[str, Any]) -> list[str]:
    names = sample.get("metrics")
    if isinstance(names, list):
        return [n for n in names if isinstance(n, str)]
    return [k for k in sample if k not in SAMPLE_KEYS]


@dataclass
class _Values:
    """What one metric's values look like across the task (for choosing and range-checking)."""

    numbers: int = 0
    binary: bool = True                  # every number is 0 or 1
    non_binary: Any = None               # an example that is not 0 or 1
    out_of_range: Any = None             # an example outside [0, 1] (infinities included)
    not_a_score: Any = None              # an example that is no number (a [pred, gold] pair)

    def add(self, value: Any) -> None:
        if value is None:
            return
        if isinstance(value, float) and not math.isfinite(value):
            number: float | None = value
        else:
            number = score_value(value) if not isinstance(value, str) else None
        if number is None:
            if self.not_a_score is None:
                self.not_a_score = value
            return
        self.numbers += 1
        if number not in (0.0, 1.0):
            self.binary = False
            if self.non_binary is None:
                self.non_binary = value
        if not 0.0 <= number <= 1.0 and self.out_of_range is None:
            self.out_of_range = value


@dataclass
class _Scan:
    metric: str | None = None
    filter: str | None = None
    problem: str | None = None
    generation_kwargs: dict[str, Any] = field(default_factory=dict)


def _scan(path: Path, scorer: str | None) -> _Scan:
    """One pass over the file before any trial: the filter and metric to read, whether the
    task has binary correctness at all, and the generation kwargs the samples were made
    with. Keeps a few counters per metric, never the samples."""
    wanted_metric, _, wanted_filter = (scorer or "").partition(",")
    chosen_filter: str | None = wanted_filter or None
    names: list[str] = []
    values: dict[str, _Values] = {}
    generation: dict[str, Any] = {}
    seen = False
    for _, sample in _records(path):
        sample_filter = sample.get("filter")
        if chosen_filter is None and isinstance(sample_filter, str):
            chosen_filter = sample_filter
        if chosen_filter is not None and sample_filter is not None and sample_filter != chosen_filter:
            continue
        if not seen:
            seen = True
            generation = _generation_kwargs(sample)
        for name in _metric_names(sample):
            if name not in values:
                names.append(name)
                values[name] = _Values()
            values[name].add(sample.get(name))
    scan = _Scan(filter=chosen_filter, generation_kwargs=generation)
    if not seen:
        scan.problem = (f"no samples with filter {wanted_filter}" if wanted_filter else "no samples")
        return scan
    if wanted_metric:
        metric: str | None = wanted_metric
        if metric not in values:
            scan.metric = metric
            scan.problem = f"no per-sample metric {metric} (the samples have: {', '.join(names) or 'none'})"
            return scan
    else:
        metric = next((m for m in PREFERRED if m in values), None)
        if metric is None:
            metric = next((m for m in names if values[m].numbers and values[m].binary), None)
        if metric is None:
            shown = names[0] if names else None
            scan.problem = ("no per-sample metric with 0/1 values" if shown is None
                            else _no_correctness(shown, values[shown]))
            scan.metric = shown
            return scan
    scan.metric = metric
    seen_values = values[metric]
    if seen_values.out_of_range is not None or not seen_values.numbers:
        scan.problem = _no_correctness(metric, seen_values)
    return scan


def _no_correctness(metric: str, values: _Values) -> str:
    """The skip message: the metric and an example value that rules it out."""
    if values.out_of_range is not None:
        why, example = "values outside [0, 1]", values.out_of_range
    elif values.numbers and values.non_binary is not None:
        why, example = "values other than 0 and 1", values.non_binary
    else:
        why, example = "values that are not per-sample scores", values.not_a_score
    return f"no binary correctness: metric {metric} has {why} (e.g. {_show(example)})"


def _show(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, float) else repr(value)
    return shortened(text)


def _generation_kwargs(sample: Mapping[str, Any]) -> dict[str, Any]:
    """The generation kwargs of the sample's first request (`arguments.gen_args_0.arg_1`; a
    list in older layouts), for results files whose task config does not record them;
    loglikelihood requests carry none."""
    arguments = sample.get("arguments")
    first: Any = None
    if isinstance(arguments, dict):
        first = next(iter(arguments.values()), None)
        if isinstance(first, dict):
            first = list(first.values())
    elif isinstance(arguments, list) and arguments:
        first = arguments[0]
    if isinstance(first, list) and len(first) >= 2 and isinstance(first[1], dict):
        return dict(first[1])
    return {}


def _options(sample: Mapping[str, Any]) -> int | None:
    """A multiple-choice sample's options: one loglikelihood request per choice."""
    for key in ("arguments", "resps"):
        requests = sample.get(key)
        if isinstance(requests, (dict, list)) and requests:
            return len(requests)
    return None


def _trials(path: Path, metric: str, filter_: str | None, multiple_choice: bool,
            param_keys: tuple[str, ...], counts: Counter[str]) -> Iterator[Trial]:
    for _, sample in _records(path):
        if filter_ is not None and sample.get("filter", filter_) != filter_:
            continue
        value = sample.get(metric)
        score = score_value(value) if not isinstance(value, str) else None
        if score is None:
            counts["unscored"] += 1
            continue
        doc = sample.get("doc")
        yield Trial(
            sample_id=str(sample.get("doc_id")),
            epoch=1,
            params=pick_params(doc if isinstance(doc, dict) else None, param_keys),
            score=score,
            truncated=False,
            options=_options(sample) if multiple_choice else None,
            tokens=None,
            compressed=None if multiple_choice else compressed_size(_first_response(sample)),
        )


def _first_response(sample: Mapping[str, Any]) -> str | None:
    """A generation's text: the first response (`resps[0][0]`); None when it is not text."""
    resps = sample.get("resps")
    first = resps[0] if isinstance(resps, list) and resps else None
    if isinstance(first, list):
        first = first[0] if first else None
    return first if isinstance(first, str) else None
