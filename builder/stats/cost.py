"""What an evaluation cost (PRODUCT.md "Boards, the model × task matrix, filters", Cost).

From evals.json's `price_in` and `price_out` (US dollars per million input and output
tokens) and the tokens the evaluation recorded:

* cost per run = price_out × output tokens / 10⁶ (+ price_in × input tokens / 10⁶ where input
  tokens were recorded), over the trials of its tasks on the board;
* cost per correct answer = cost per run / correct trials.

A part whose tokens or price were not recorded is never counted as zero: without output
tokens (or an output price) there is no cost at all, and without input tokens the cost is
the output tokens' alone and says so (`basis`). Points files carry output tokens only, so
until trials record prompt tokens every cost here is an output cost.

The cost–score frontier: an evaluation is dominated only by one that is cheaper **and**
significantly better (its ReasonScore interval lies wholly above); the frontier is every
ranked evaluation with a cost that nothing dominates. The headline names the cheapest
evaluation statistically tied with the best (intervals overlapping the top-ranked one's).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

from .board import EvaluationRow

PER = 1_000_000

#: What a run cost counts (`Cost.basis`): points files record output tokens only.
NO_INPUT_TOKENS = "output tokens only: input tokens were not recorded"
NO_INPUT_PRICE = "output tokens only: no input price (price_in) is given"


@dataclass(frozen=True)
class Cost:
    """One evaluation's prices and, where the tokens allow, what its run cost."""

    price_in: float | None
    price_out: float | None
    source: str | None
    date: str | None
    #: output tokens summed over its trials on the board's tasks; None: not recorded
    output_tokens: float | None
    correct: int
    #: USD; None when it cannot be known (`missing` says why)
    run: float | None
    per_correct: float | None
    #: which tokens `run` prices (`NO_INPUT_TOKENS`, `NO_INPUT_PRICE`)
    basis: str
    missing: str | None = None


def evaluation_cost(m: EvaluationRow) -> Cost | None:
    """The cost of `m`'s run, or None when evals.json gives it no price."""
    e = m.evaluation
    if e.price_in is None and e.price_out is None:
        return None
    tasks = list(m.tasks.values())
    tokens = None
    if e.tokens_observed and tasks and all(t.tokens is not None for t in tasks):
        tokens = float(sum(t.tokens for t in tasks if t.tokens is not None))
    correct = int(sum(t.correct for t in tasks))
    missing = None
    if e.price_out is None:
        missing = "no output price (price_out) is given"
    elif tokens is None:
        missing = "its output tokens were not recorded"
    run = e.price_out * tokens / PER if e.price_out is not None and tokens is not None else None
    return Cost(price_in=e.price_in, price_out=e.price_out, source=e.price_source, date=e.price_date,
                output_tokens=tokens, correct=correct, run=run,
                per_correct=run / correct if run is not None and correct > 0 else None,
                basis=NO_INPUT_TOKENS if e.price_in is not None else NO_INPUT_PRICE, missing=missing)


@dataclass(frozen=True)
class CostPoint:
    """A ranked evaluation with a known cost, on the cost–score chart."""

    id: str
    cost: float
    center: float
    ci_low: float
    ci_high: float
    #: the cheapest evaluation that is cheaper and significantly better; None on the frontier
    dominated_by: str | None


@dataclass(frozen=True)
class CostBoard:
    points: tuple[CostPoint, ...]
    #: the top-ranked evaluation, and the cheapest with a known cost among it and those tied with it
    best: str | None
    cheapest_tied: str | None


def cost_board(models: Sequence[EvaluationRow], costs: dict[str, Cost]) -> CostBoard:
    """The frontier and the headline over the ranked evaluations whose run cost is known."""
    scored = {m.id: (m.rank, m.score.center, m.score.ci_low, m.score.ci_high) for m in models}
    ranked = {i: (rank, c, lo, hi) for i, (rank, c, lo, hi) in scored.items()
              if rank is not None and c is not None and lo is not None and hi is not None}
    known = [(i, run, v) for i, v in ranked.items() if i in costs and (run := costs[i].run) is not None]
    points = []
    for i, cost, (_, center, low, high) in known:
        # Dominated only by one that is cheaper and significantly better (interval wholly above).
        better = [(run, o) for o, run, v in known if run < cost and v[2] > high]
        points.append(CostPoint(i, cost, center, low, high, min(better)[1] if better else None))
    best = min(ranked, key=lambda i: ranked[i][0], default=None)
    cheapest_tied = None
    if best is not None:
        _, _, best_low, best_high = ranked[best]
        tied = [p for p in points if p.ci_high >= best_low and p.ci_low <= best_high]
        pick = min(tied, key=lambda p: (p.cost, -p.center, p.id), default=None)
        cheapest_tied = pick.id if pick is not None else None
    return CostBoard(tuple(sorted(points, key=lambda p: (p.cost, p.id))), best, cheapest_tied)


def costs_of(models: Iterable[EvaluationRow]) -> dict[str, Cost]:
    return {m.id: c for m in models if (c := evaluation_cost(m)) is not None}
