"""A model page's score across releases (PRODUCT.md "Releases and history"): a chart of the
ReasonScore with its interval at each release and in this build, significant moves marked,
and its table twin. Significance is the overlap rule (`stats.history`), and the page says so.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...stats.history import DROP, GAIN, HistoryPoint
from .. import format as fmt
from ..charts import Chart
from .base import Interval
from .releases import board_path

MOVES = {GAIN: "significantly up", DROP: "significantly down", None: ""}


@dataclass(frozen=True)
class HistoryRow:
    #: the release's name, or "this build"
    label: str
    date: str
    #: the release's board, "" for this build
    path: str
    interval: Interval
    rank: str
    #: "significantly up", "significantly down", or ""
    move: str


@dataclass(frozen=True)
class HistoryView:
    rows: tuple[HistoryRow, ...]
    chart: Chart
    significant: int


def history_view(points: tuple[HistoryPoint, ...], label: str) -> HistoryView | None:
    """The history of one evaluation, oldest first; None when it was in no release."""
    if not points:
        return None
    rows = tuple(HistoryRow(
        label=p.release if p.release is not None else "this build", date=p.date or fmt.MISSING,
        path=board_path(p.release) if p.release is not None else "",
        interval=Interval(p.center, p.margin, p.ci_low, p.ci_high, "score"),
        rank=str(p.rank) if p.rank is not None else "unranked", move=MOVES[p.move]) for p in points)
    chart = Chart(kind="history", id="history-chart", twin="history-table",
                  label=f"ReasonScore of {label} with its 95% interval at each of {len(rows)} points in time",
                  rows=tuple({"label": r.label, "order": n, "low": r.interval.low, "high": r.interval.high,
                              "center": r.interval.center, "text": r.interval.text, "move": r.move or "no significant move"}
                             for n, r in enumerate(rows)))
    return HistoryView(rows=rows, chart=chart, significant=sum(1 for r in rows if r.move))
