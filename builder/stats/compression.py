"""Compression of the outputs by outcome (SAMPLES.md section 6; seed 003, "Compression
Pre-Computation"): do failing samples show low entropy?

A trial's `compressed` is the gzip size of its output text; `8 * compressed / tokens`,
bits per output token, is the seed's entropy proxy. Reasoning that keeps saying new things
compresses poorly; output that repeats itself (a loop that runs until the token limit)
compresses very well. Per (evaluation, task) and outcome (correct, incorrect, truncated),
DuckDB gives the quartiles of both measures (`quantile_cont`: linear interpolation between
order statistics) and `looping` names the failure outcomes that compress much better than
the successes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from ..store.pointsdb import PointsDB
from .analysissql import EvalKey, Rows, picker, query

#: The seed's three statuses, in the order pages list them.
OUTCOMES = ("correct", "incorrect", "truncated")
FAILURES = ("incorrect", "truncated")
#: A failure outcome is flagged when its median bits per output token is at most this
#: fraction of the correct trials' median: "much better" is at most half the information
#: per token, far beyond what the length of an answer alone does to gzip.
LOOP_RATIO = 0.5
#: ... and both outcomes have at least this many measured trials (a median of two trials
#: says nothing about a model's habits).
LOOP_MIN_TRIALS = 5


@dataclass(frozen=True, slots=True)
class Quartiles:
    q1: float
    median: float
    q3: float


@dataclass(frozen=True, slots=True)
class OutcomeCompression:
    """One outcome's trials on one task: how many, how many could be measured for each
    measure (output text and a positive token count for bits per token; output text for
    the size), and the quartiles (None when no trial could be measured)."""

    outcome: str
    trials: int
    bits_trials: int
    bits: Quartiles | None
    size_trials: int
    size: Quartiles | None


@dataclass(frozen=True, slots=True)
class TaskCompression:
    """The outcomes that occur, in `OUTCOMES` order, and the failure outcomes flagged as
    compressing much better than the correct trials (`looping`)."""

    outcomes: tuple[OutcomeCompression, ...]
    looping: tuple[str, ...]

    def outcome(self, name: str) -> OutcomeCompression | None:
        return next((o for o in self.outcomes if o.outcome == name), None)


def compression(db: PointsDB, statements: Mapping[str, Rows] | None = None) -> dict[tuple[EvalKey, str], TaskCompression]:
    """Per (evaluation, task) with at least one trial that records a compressed size
    (`statements`: the statements' rows when the caller has them)."""
    names, rows = statements["compression"] if statements else query(db, "compression")
    found: dict[tuple[EvalKey, str], list[OutcomeCompression]] = {}
    pick = picker(names, "model", "template", "sampler", "base_task", "outcome", "trials", "bits_trials", "bits",
                   "size_trials", "size")
    for row in rows:
        model, template, sampler, task, outcome, trials, bits_trials, bits, size_trials, size = pick(row)
        found.setdefault(((model, template, sampler), task), []).append(OutcomeCompression(
            outcome, int(trials), int(bits_trials), _quartiles(bits), int(size_trials), _quartiles(size)))
    out = {}
    for key, outcomes in found.items():
        if not any(o.size_trials for o in outcomes):
            continue
        ordered = tuple(sorted(outcomes, key=lambda o: OUTCOMES.index(o.outcome)))
        out[key] = TaskCompression(ordered, looping(ordered))
    return out


def looping(outcomes: tuple[OutcomeCompression, ...]) -> tuple[str, ...]:
    """The failure outcomes whose median bits per output token is at most `LOOP_RATIO` of
    the correct trials' (both with at least `LOOP_MIN_TRIALS` measured trials)."""
    by_name = {o.outcome: o for o in outcomes}
    good = by_name.get("correct")
    if good is None or good.bits is None or good.bits_trials < LOOP_MIN_TRIALS:
        return ()
    flagged = []
    for name in FAILURES:
        bad = by_name.get(name)
        if bad is not None and bad.bits is not None and bad.bits_trials >= LOOP_MIN_TRIALS \
                and bad.bits.median <= LOOP_RATIO * good.bits.median:
            flagged.append(name)
    return tuple(flagged)


def _quartiles(values: Any) -> Quartiles | None:
    if values is None or None in values:
        return None
    q1, median, q3 = values
    return Quartiles(float(q1), float(median), float(q3))
