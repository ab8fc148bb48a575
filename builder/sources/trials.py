"""The trial: what every per-sample harness reader produces (INGEST.md sections 1 and 3).

A lab's harness outputs (Inspect AI logs, lm-evaluation-harness sample files, HELM run
directories, lighteval details, Every Eval Ever instance-level JSONL) all say the same
thing in different shapes: one scored generation per (sample, epoch). Each reader in
`sources/harness/` turns its format into `Run`s of `Trial`s, and everything after that
(summing trials into points, writing points files) sees only these records.

The rules that every reader must apply alike live here as small functions, so two readers
can never disagree on what "truncated", "correct" or the sampler's name means.
"""

from __future__ import annotations

import gzip
import json
import math
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping

#: Stop reasons that mean "the generation hit the token limit" (INGEST.md section 3).
LIMIT_STOPS = frozenset({"max_tokens", "model_length", "length"})
#: Stop reasons that say nothing, so the output length decides.
SILENT_STOPS = frozenset({"", "unknown"})
#: A limit this small caps an answer letter, not a generation: never truncation.
ANSWER_CAP = 16
#: Difficulty keys read from sample metadata when `--params` is not given (section 5).
DEFAULT_PARAM_KEYS = ("level", "difficulty")


class UnreadableInput(Exception):
    """A whole input cannot be used: not readable, corrupt, or a log that did not finish.
    The message is the reason shown beside the file's path."""


def mapping_of(value: Any) -> Mapping[str, Any]:
    """`value` when it is a JSON object, else an empty one: optional sections of a
    harness's files are read without a check at every step."""
    return value if isinstance(value, dict) else {}


def read_json_file(path: Path) -> Any:
    """A whole JSON document (a harness's results or metadata file); a file that cannot be
    read or parsed is an `UnreadableInput` naming the file and, for bad JSON, the line."""
    try:
        return json.loads(path.read_text(encoding="utf-8-sig"))  # -sig: a byte order mark is no JSON error
    except (OSError, UnicodeDecodeError) as error:
        raise UnreadableInput(f"{path.name}: cannot be read ({error})") from None
    except json.JSONDecodeError as error:
        raise UnreadableInput(f"{path.name}, line {error.lineno}: not valid JSON ({error.msg})") from None


@dataclass(frozen=True)
class ReadOptions:
    """The reader-facing options of `reasonboard ingest` (PRODUCT.md, CLI)."""

    scorer: str | None = None
    params: tuple[str, ...] = DEFAULT_PARAM_KEYS
    partial: bool = False


@dataclass(frozen=True)
class Evaluation:
    """What a run says about the evaluation it belongs to (INGEST.md section 4), before the
    command line's overrides (`--model`, `--template`, `--sampler`) are applied."""

    harness: str                      # "inspect_ai", "lm-evaluation-harness", "helm", "lighteval", "every_eval_ever"
    harness_version: str | None
    model: str
    template: str
    sampler: str
    task: str                         # becomes `base_task`
    metric: str                       # the score the credit comes from, for messages
    generation_args: Mapping[str, Any] = field(default_factory=dict)
    truncation_observed: bool = True  # the harness records stop reasons or output lengths
    tokens_observed: bool = True      # the harness records output tokens per trial
    #: The harness's own headline figure for the task, as its log records it: (metric, value),
    #: shown beside ours (partial credit makes them differ); None when it records none.
    headline: tuple[str, float] | None = None
    #: The model generated its answers. False for a task scored by the log-likelihood of
    #: given answers (lm-eval `loglikelihood`/`multiple_choice`, lighteval LOGPROBS): nothing
    #: was sampled, so no temperature or token limit applies to it.
    sampled: bool = True


@dataclass(frozen=True, slots=True)
class Trial:
    """One (sample, epoch) of one evaluation on one task (INGEST.md section 1).

    `score` is the trial's value on [0, 1] when the harness gives one (booleans 1/0, Inspect
    letters C=1, P=0.5, I=N=0); credit is `score >= 1`, partial credit `0 < score < 1`. A task
    whose scores leave [0, 1] has no correctness and is skipped where trials are summed.
    `input_tokens` and `compressed` (SAMPLES.md section 1) are None when not recorded; the
    output text itself is never kept, only its compressed size.
    """

    sample_id: str
    epoch: int
    params: str            # canonical JSON of a flat object of strings (`canonical_params`)
    score: float
    truncated: bool
    options: int | None    # answer options of a multiple-choice sample; None for write-in
    tokens: int | None     # output tokens; None when not recorded
    input_tokens: int | None = None
    compressed: int | None = None


@dataclass
class Run:
    """The trials of one evaluation on one task read from one input.

    `trials` is streamed (a generator over the file); `counts` is filled while it is
    consumed: samples left out because of a harness error ("errors") or no score
    ("unscored"). `skip` is set instead of trials when the whole task cannot be used
    (no binary correctness, no main scorer value): the reason is shown to the user.
    """

    source: Path
    format: str
    evaluation: Evaluation
    trials: Iterable[Trial]
    counts: Counter[str] = field(default_factory=Counter)
    skip: str | None = None


# -- the shared rules -------------------------------------------------------------------


def is_truncated(stop_reason: str | None, output_tokens: int | None, limit: int | None) -> bool:
    """INGEST.md section 3, "Truncation": the stop reason when it speaks, else the output
    length against the run's limit; never for answer caps of `ANSWER_CAP` tokens or fewer."""
    if limit is not None and limit <= ANSWER_CAP:
        return False
    reason = (stop_reason or "").strip().lower()
    if reason in LIMIT_STOPS:
        return True
    if reason in SILENT_STOPS and limit is not None and output_tokens is not None:
        return output_tokens >= limit
    return False


def count_tokens(output_tokens: int | None, reasoning_tokens: int | None = None) -> int | None:
    """Output tokens of a trial; reasoning tokens are added only when they exceed the output
    count (providers that report them apart: where they are included, they never do)."""
    if output_tokens is None:
        return reasoning_tokens
    if reasoning_tokens is not None and reasoning_tokens > output_tokens:
        return output_tokens + reasoning_tokens
    return output_tokens


LETTER_SCORES = {"C": 1.0, "P": 0.5, "I": 0.0, "N": 0.0}


def score_value(value: Any) -> float | None:
    """A per-sample score as a number: booleans and Inspect's letters mapped, numbers as
    they are (range-checked per task later), anything else None (unscored)."""
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, (int, float)):
        number = float(value)
        return number if math.isfinite(number) else None
    if isinstance(value, str):
        letter = value.strip().upper()
        if letter in LETTER_SCORES:
            return LETTER_SCORES[letter]
        if letter in ("TRUE", "FALSE"):
            return 1.0 if letter == "TRUE" else 0.0
        try:
            number = float(value)
        except ValueError:
            return None
        return number if math.isfinite(number) else None
    return None


def compressed_size(text: str | None) -> int | None:
    """SAMPLES.md section 1: the gzip size of the output text (level 9, no timestamp), the
    seed's entropy proxy; None when the harness recorded no output text."""
    if text is None:
        return None
    return len(gzip.compress(text.encode("utf-8"), compresslevel=9, mtime=0))


def _decimal(number: float) -> str:
    """The shortest decimal text of a number: 0.7 -> "0.7", 1.0 -> "1"."""
    text = repr(float(number))
    return text[:-2] if text.endswith(".0") else text


def sampler_name(temperature: float | None, max_tokens: int | None) -> str:
    """INGEST.md section 4: `greedy` / `t0.7`, then `-4k` (a multiple of 1024) or `-100`;
    `default` when nothing is recorded, `default-4k` when only the limit is."""
    if temperature is None:
        head = "default"
    elif float(temperature) == 0:
        head = "greedy"
    else:
        head = "t" + _decimal(temperature)
    if max_tokens is None:
        return head
    limit = f"{max_tokens // 1024}k" if max_tokens % 1024 == 0 else str(max_tokens)
    return f"{head}-{limit}"


def param_text(value: Any) -> str:
    """A difficulty coordinate as a string: strings as they are, anything else as JSON text."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True)


def canonical_params(values: Mapping[str, Any]) -> str:
    """The canonical JSON of a flat object of strings, as the PointsDB keys identity on it."""
    return json.dumps({str(k): param_text(v) for k, v in values.items()},
                      sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def pick_params(metadata: Mapping[str, Any] | None, keys: Iterable[str]) -> str:
    """`canonical_params` of the named metadata keys that are present (section 5)."""
    if not metadata:
        return "{}"
    return canonical_params({k: metadata[k] for k in keys if k in metadata and metadata[k] is not None})


def strip_registry(task: str) -> str:
    """Inspect task names without their registry prefix: `inspect_evals/mmlu_0_shot` -> `mmlu_0_shot`."""
    return task.rsplit("/", 1)[-1].strip()


def trials_of(runs: Iterable[Run]) -> Iterator[tuple[Run, Trial]]:
    """Every trial with the run it belongs to (a convenience for tests and summaries)."""
    for run in runs:
        for trial in run.trials:
            yield run, trial
