"""Cost (PRODUCT.md "Boards, the model × task matrix, filters", Cost): `cost.html`, the
cost–score chart with its frontier and the headline "cheapest evaluation statistically tied
with the best", and the cost lines of a model page. The figures are `stats.cost`'s; a cost
that was not recorded is said, never printed as a number."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from ...stats.cost import Cost, CostBoard
from .. import format as fmt
from ..charts import Chart
from .base import Interval, Page, Ref
from .rows import ModelRow

PATH = "cost.html"


@dataclass(frozen=True)
class CostView:
    """A model page's cost lines."""

    prices: str
    source: str
    run: str
    per_correct: str
    basis: str
    #: why there is no cost, when there is none
    missing: str | None


def cost_view(c: Cost | None) -> CostView | None:
    if c is None:
        return None
    prices = ", ".join(f"{fmt.usd(p)} per million {kind} tokens" for p, kind in ((c.price_in, "input"),
                                                                                (c.price_out, "output"))
                       if p is not None)
    source = ", ".join(x for x in (c.source, f"read {c.date}" if c.date else None) if x) or "not given"
    per_correct = (f"{fmt.usd(c.per_correct)} ({fmt.count(c.correct)} correct trials)" if c.per_correct is not None
                   else "no correct trial" if c.run is not None else fmt.MISSING)
    return CostView(prices=prices, source=source, run=fmt.usd(c.run), per_correct=per_correct, basis=c.basis,
                    missing=c.missing)


@dataclass(frozen=True)
class CostRow:
    model: Ref
    score: Interval
    run: str
    per_correct: str
    frontier: bool
    dominated_by: Ref | None
    tied_with_best: bool


@dataclass(frozen=True)
class CostPage(Page):
    headline: str
    best: Ref | None
    rows: tuple[CostRow, ...]
    chart: Chart | None
    #: evaluations with a price but no cost, and why
    without: tuple[tuple[Ref, str], ...]
    basis: str

    @property
    def charts(self) -> tuple[Chart, ...]:
        return (self.chart,) if self.chart else ()


def cost_page(board: CostBoard, costs: Mapping[str, Cost], rows: Mapping[str, ModelRow],
              simulated: bool) -> CostPage:
    by_id = {p.id: p for p in board.points}
    table = []
    for p in board.points:
        row = rows[p.id]
        assert row.score is not None
        c = costs[p.id]
        tied = board.best is not None and (p.id == board.best or (
            p.ci_high >= rows[board.best].score.low and p.ci_low <= rows[board.best].score.high))  # type: ignore[union-attr]
        table.append(CostRow(row.ref, row.score, fmt.usd(p.cost), fmt.usd(c.per_correct), p.dominated_by is None,
                             rows[p.dominated_by].ref if p.dominated_by else None, tied))
    headline = "No ranked evaluation has a known cost, so none can be named cheapest."
    if board.cheapest_tied is not None and board.best is not None:
        pick, best = rows[board.cheapest_tied], rows[board.best]
        assert pick.score is not None and best.score is not None
        if board.cheapest_tied == board.best:
            headline = (f"The best evaluation, {best.label} ({best.score.text}), is also the cheapest among those "
                        f"statistically tied with it: {fmt.usd(by_id[pick.id].cost)} per run.")
        else:
            headline = (f"The cheapest evaluation statistically tied with the best is {pick.label}: "
                        f"{fmt.usd(by_id[pick.id].cost)} per run, ReasonScore {pick.score.text}, whose interval "
                        f"overlaps that of the best, {best.label} ({best.score.text}).")
    elif board.best is not None and board.points:
        headline = (f"Neither the best evaluation, {rows[board.best].label}, nor any evaluation statistically tied "
                    "with it has a known cost.")
    chart = None
    if table:
        chart = Chart(kind="cost-score", id="cost-chart", twin="cost-table",
                      label=f"ReasonScore against cost per run of {len(table)} evaluations",
                      rows=tuple({"label": r.model.label, "cost": by_id_cost, "low": r.score.low,
                                  "high": r.score.high, "center": r.score.center, "text": r.score.text,
                                  "cost_text": r.run, "frontier": "on the frontier" if r.frontier else "dominated"}
                                 for r, by_id_cost in zip(table, (p.cost for p in board.points))))
    without = tuple((rows[i].ref, c.missing or "") for i, c in sorted(costs.items())
                    if c.run is None and i in rows)
    bases = {costs[p.id].basis for p in board.points}
    return CostPage(path=PATH, title="Cost and score", template="cost.html", simulated=simulated,
                    description="What each evaluation cost against what it scored, and the cheapest one "
                                "statistically tied with the best",
                    headline=headline, best=rows[board.best].ref if board.best else None, rows=tuple(table),
                    chart=chart, without=without, basis="; ".join(sorted(bases)))
