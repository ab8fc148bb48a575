"""The token hazard (SAMPLES.md section 6): given that an answer reached `a` output
tokens, the risk that it ends wrong (incorrect or truncated) before `b`.

Bins have edges at powers of two from 32 up to the run's recorded token limit (without
one, the largest power of two a trial reached); the last bin keeps every trial at or past
its lower edge, so the trials cut off at the limit are in it. Per bin DuckDB counts the
trials ending in it, those ending wrong, and those still going at its lower edge (a
reverse running sum), and gives the hazard with its Wilson interval (the store's macro).
Trials that end before 32 tokens are in no bin: a hazard over answer letters says nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from ..store.pointsdb import PointsDB
from .analysissql import EvalKey, Rows, picker, query

#: The first edge: 32 output tokens.
FIRST_EDGE = 32


@dataclass(frozen=True, slots=True)
class HazardBin:
    """`[low, high)` (the last bin: `low` and beyond, up to the top edge), the trials
    ending in it, those ending wrong (`events`), those reaching `low` (`at_risk`), and the
    hazard `events / at_risk` with its 95 % Wilson interval: None when no trial reached
    `low`."""

    low: int
    high: int
    ending: int
    events: int
    at_risk: int
    hazard: float | None
    ci_low: float | None
    ci_high: float | None


@dataclass(frozen=True, slots=True)
class TaskHazard:
    """One evaluation's hazard on one task. `top` is the top edge; `limited` says whether
    it is the run's token limit (else the largest power of two a trial reached). No bins
    when the top edge is at most 32 tokens."""

    top: int
    limited: bool
    bins: tuple[HazardBin, ...]


def hazard(db: PointsDB, statements: Mapping[str, Rows] | None = None) -> dict[tuple[EvalKey, str], TaskHazard]:
    """Per (evaluation, task) with at least one trial that records its output tokens
    (`statements`: the statements' rows when the caller has them)."""
    names, rows = statements["hazard"] if statements else query(db, "hazard")
    bins: dict[tuple[EvalKey, str], list[HazardBin]] = {}
    pick = picker(names, "model", "template", "sampler", "base_task", "low_edge", "high_edge", "ending", "events",
                   "at_risk", "hazard", "low", "high")
    # The statement's columns are BIGINT and DOUBLE (or NULL): DuckDB gives them as int and
    # float (or None), and so does the memo's JSON, so a bin takes them as they come (about a
    # million bins at 2,500 evaluations).
    for model, template, sampler, task, *values in map(pick, rows):
        bins.setdefault(((model, template, sampler), task), []).append(HazardBin(*values))
    # Every task with tokens, from `recorded`: one whose top edge leaves no bin has no rows above.
    names, recorded = statements["recorded"] if statements else query(db, "recorded")
    pick = picker(names, "model", "template", "sampler", "base_task", "with_tokens", "top", "token_limit")
    out: dict[tuple[EvalKey, str], TaskHazard] = {}
    for row in recorded:
        model, template, sampler, task, with_tokens, top, limit = pick(row)
        if with_tokens:
            key = ((model, template, sampler), task)
            out[key] = TaskHazard(int(top), limit is not None, tuple(bins.get(key, ())))
    return out

