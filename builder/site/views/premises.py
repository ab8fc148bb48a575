"""The premise of each sentence the pages print about an evaluation's own numbers.

A band or a claim is printed only where it holds for the data it describes, by a rule over
that data, never by a special case for one harness:

* **Tokens.** A harness that reports 0 output tokens for every answer it scored did not
  record them (an answer has at least one token): "not recorded", never "0 tokens per
  trial". Not recorded is not zero.
* **Score per token.** Withheld, with the reason, when the answers were capped at
  `ANSWER_CAP` tokens or fewer, or average that few (the one-letter answer of a
  multiple-choice format: its token count says nothing about efficiency), or tokens were
  not recorded; and when any one task behind the figure fails that premise (the figure
  divides by the mean over tasks, which such a task distorts).
* **Interval width.** The band says how wide; its causes are computed from the evaluation's
  own numbers (`width_causes`: few samples, truncation, a spread of its task scores), not a
  stock list of possible ones.
* **C_P and C_I.** Where truncation was not recorded, "C_P equals C_I here" only when the
  two estimates as printed are equal (the C_P interval multiplies by the completion factor,
  so they usually differ even with nothing truncated).
* **Guessing.** "0 = no better than guessing" only over tasks whose lucky guesses were
  removed (their samples recorded the answer options); elsewhere the guess chance is said to
  be unknown.
"""

from __future__ import annotations

import statistics
from typing import Iterable, Mapping

from ...sources.trials import ANSWER_CAP
from ...stats.board import EvaluationRow, TaskResult
from ...stats.evaluations import Evaluation
from ...store.setup import TOKEN_LIMIT_KEYS
from ...vocabulary import MODES
from .. import format as fmt

#: Median samples per task below which the sample count is named as a cause of a wide
#: interval (a Wilson interval on 1,000 samples is still about ±0.03 wide at p = 0.5). Samples,
#: not trials: epochs of the same items add little evidence (SAMPLES.md section 2).
FEW_SAMPLES = 1000
#: Truncated share of trials from which truncation is named as a cause.
TRUNCATION_CAUSE = 0.05
#: Spread (highest minus lowest task estimate) from which it is named as a cause.
SPREAD_CAUSE = 0.5
#: Decimals the pages print estimates with (format.probability).
PRINTED = 3
_C_P, _C_I = MODES.index("C_P"), MODES.index("C_I")


def harness_of(evaluation: Evaluation) -> str:
    return (evaluation.harness or "").split(";")[0].split(" ")[0].strip() or "its harness"


def answer_cap(generation_args: Mapping[str, object]) -> int | None:
    """The token limit when it is an answer cap (`ANSWER_CAP` or fewer tokens), else None."""
    for name in TOKEN_LIMIT_KEYS:
        value = generation_args.get(name)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and 0 < value <= ANSWER_CAP:
            return int(value)
    return None


def tokens_recorded(tasks: Iterable[TaskResult]) -> bool:
    """Whether any task recorded a positive output-token count (0 everywhere: not recorded)."""
    return any((t.tokens or 0) > 0 for t in tasks)


def tokens_note(evaluation: Evaluation, m: EvaluationRow) -> str | None:
    """Why an evaluation shows no token figures, or None when it recorded them."""
    if not evaluation.tokens_observed:
        return f"tokens not recorded by {harness_of(evaluation)}"
    if not tokens_recorded(m.tasks.values()):
        return f"tokens not recorded: {harness_of(evaluation)} reports 0 output tokens for every answer"
    return None


def task_tokens_note(evaluation_note: str | None, t: TaskResult) -> str | None:
    """The evaluation's note, or this task's own when it alone reports no tokens."""
    if evaluation_note is not None:
        return evaluation_note
    return None if (t.tokens or 0) > 0 else "tokens not recorded on this task: 0 output tokens reported"


def score_per_token_note(evaluation: Evaluation, avg_tokens: float | None,
                         tasks: Mapping[str, TaskResult] | None = None) -> str | None:
    """Why the score per token and its band are withheld, or None: the answers were capped at
    `ANSWER_CAP` tokens or fewer, or (cap recorded or not) they average that few, or (given the
    `tasks` behind the figure) any one task's do, or a task recorded no tokens.

    Any task, not the average: the figure divides by the task-balanced mean of tokens per
    trial, so one task of one-letter answers (or of tokens not recorded, counted 0) pulls the
    mean down and the score per token up whatever the other tasks show; the figure then says
    nothing about efficiency, even when the mean is above the cap."""
    cap = answer_cap(evaluation.generation_args)
    if cap is not None:
        return (f"withheld: answers were capped at {cap} token{'' if cap == 1 else 's'}, "
                "so tokens say nothing about efficiency")
    if avg_tokens is not None and 0 < avg_tokens <= ANSWER_CAP:
        # Rounded as the "tokens per trial" printed beside it: "2 tokens per trial" next to
        # "answers average 1.5 tokens" would be two figures for one average.
        shown = fmt.tokens(avg_tokens)
        # Under half a token (most answers recorded none) rounds to 0: said in words.
        average = "fewer than one token" if shown == "0" else f"{shown} token{'' if shown == '1' else 's'}"
        return (f"withheld: answers average {average} (a letter or a few words), "
                "so tokens say nothing about efficiency")
    if avg_tokens is None or not tasks or len(tasks) < 2:
        return None
    short = {name: t.tokens / t.total for name, t in tasks.items()
             if t.tokens and t.total and 0 < t.tokens / t.total <= ANSWER_CAP}
    silent = [name for name, t in tasks.items() if not t.tokens or t.tokens <= 0]
    if not short and not silent:
        return None
    parts = [f"answers on {name} average {value:.3g} token{'' if value == 1 else 's'} (a letter or a few words)"
             for name, value in sorted(short.items())[:3]]
    if len(short) > 3:
        parts.append(f"{len(short) - 3} more task{'s' if len(short) > 4 else ''} as short")
    if silent:
        parts.append(f"tokens were not recorded on {_listed(sorted(silent))}")
    return f"withheld: {'; '.join(parts)}, so tokens averaged over its {len(tasks)} tasks say nothing about efficiency"


def _listed(names: list[str]) -> str:
    return ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")


def _same_printed(t: TaskResult) -> bool:
    c_p, c_i = t.modes[_C_P][0], t.modes[_C_I][0]
    return c_p is not None and c_i is not None and round(c_p, PRINTED) == round(c_i, PRINTED)


def truncation_note(evaluation: Evaluation, tasks: Iterable[TaskResult]) -> str | None:
    """Why truncation shows as "not recorded", or None when the harness recorded it. The
    C_P = C_I sentence only where every task's printed estimates are equal."""
    if evaluation.truncation_observed:
        return None
    tasks = list(tasks)
    said = f"truncation not recorded by {harness_of(evaluation)}"
    if tasks and all(_same_printed(t) for t in tasks):
        return f"{said}: C_P equals C_I here"
    return f"{said}: no trial counted as truncated"


def width_causes(m: EvaluationRow, truncation_observed: bool,
                 behind: Mapping[str, TaskResult] | None = None) -> tuple[str, ...]:
    """What makes this evaluation's ReasonScore interval wide, from its own numbers.

    `behind`: the tasks the score is computed over (the board's tasks it has); the model's
    other tasks do not widen that interval, so a cause taken from them would be false."""
    tasks = [(name, t) for name, t in (m.tasks if behind is None else behind).items() if t.has_interval]
    if not tasks:
        return ()
    causes = []
    samples = sorted(t.samples or t.total for _, t in tasks)
    median = int(statistics.median(samples))
    if len(tasks) == 1 and samples[0] < FEW_SAMPLES:
        causes.append(f"few samples ({samples[0]} on its one task)")
    elif median < FEW_SAMPLES:
        causes.append(f"few samples (a median of {median} per task, {samples[0]} on the smallest)")
    rate = m.truncation_rate
    if truncation_observed and rate is not None and rate >= TRUNCATION_CAUSE:
        causes.append(f"truncation ({rate:.0%} of trials)")
    estimates = [(t.estimate, name) for name, t in tasks if t.estimate is not None]
    if len(estimates) >= 2:
        (low, low_task), (high, high_task) = min(estimates), max(estimates)
        if high - low >= SPREAD_CAUSE:
            causes.append(f"task scores spread from {low:.2f} ({low_task}) to {high:.2f} ({high_task})")
    return tuple(causes)


def chance_note(tasks: Iterable[tuple[str, TaskResult]]) -> str:
    """What 0 means on an evaluation's per-task chart: "no better than guessing" only where
    guesses were removed (the samples recorded answer options)."""
    tasks = list(tasks)
    unknown = [name for name, t in tasks if not (t.guess or 0) > 0]
    if not unknown:
        return "0 = no better than guessing"
    if len(unknown) == len(tasks):
        return ("0 = never right; the guess chance is unknown (the samples record no answer options), "
                "so no lucky guesses were removed")
    return (f"0 = no better than guessing, except on {', '.join(unknown)}, where the guess chance is unknown "
            "(no answer options recorded) and 0 = never right")
