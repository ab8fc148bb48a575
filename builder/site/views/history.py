"""A model page's score across releases (PRODUCT.md "Releases and history"): a chart of the
ReasonScore with its interval at each release and in this build, significant moves marked,
and its table twin. Each move names the rule that judged it (`stats.history`: the paired
test on shared items, Holm over the page's, or interval overlap), and the page says so.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...stats.history import DROP, GAIN, OVERLAP, PAIRED, RESCORED, HistoryPoint, basis_change
from .. import format as fmt
from ..charts import Chart
from .base import Interval
from .releases import board_path, paired_move

MOVES = {GAIN: "significantly up", DROP: "significantly down", None: ""}


@dataclass(frozen=True)
class HistoryRow:
    #: the release's name ("r3 to r9" for releases with the same score and rank), or "this build"
    label: str
    date: str
    #: the release's board, "" for this build
    path: str
    interval: Interval
    rank: str
    #: "significantly up", "significantly down", or ""
    move: str
    #: The rule that judged the move from the row before, with its figures ("" for none)
    rule: str = ""
    #: Why the move from the row before is not judged ("" when it is)
    note: str = ""


@dataclass(frozen=True)
class HistoryView:
    rows: tuple[HistoryRow, ...]
    chart: Chart
    significant: int
    #: How many moves the paired test judged (Holm over these), and the overlap rule
    paired: int = 0
    overlap: int = 0
    #: Moves between points scored otherwise (another estimator or other board tasks)
    rescored: int = 0


def rule_text(p: HistoryPoint) -> str:
    """The rule that judged the move to `p`, in words."""
    if p.rule == PAIRED and p.test is not None:
        return paired_move(p.test, p.move is not None)
    if p.rule == OVERLAP:
        return "overlap rule: intervals " + ("do not overlap" if p.move else "overlap")
    return ""


def rescored_text(before: HistoryPoint, p: HistoryPoint) -> str:
    """Why the move to `p` is not judged: the two scores are computed differently."""
    assert before.basis is not None and p.basis is not None
    return f"not comparable: scored otherwise ({basis_change(before.basis, p.basis)})"


def _spans(points: tuple[HistoryPoint, ...]) -> list[list[HistoryPoint]]:
    """Consecutive releases with the same score and rank, as one span each (a model that
    did not move for thirty releases is one row, not thirty)."""
    spans: list[list[HistoryPoint]] = []
    for p in points:
        last = spans[-1][-1] if spans else None
        if last is not None and p.release is not None and p.move is None and p.rule != RESCORED and \
                (last.center, last.margin, last.ci_low, last.ci_high, last.rank) == \
                (p.center, p.margin, p.ci_low, p.ci_high, p.rank):
            spans[-1].append(p)
        else:
            spans.append([p])
    return spans


def history_view(points: tuple[HistoryPoint, ...], label: str) -> HistoryView | None:
    """The history of one evaluation, oldest first; None when it was in no release."""
    if not points:
        return None
    rows = []
    previous: HistoryPoint | None = None
    for span in _spans(points):
        first, last = span[0], span[-1]
        name = first.release if first.release is not None else "this build"
        date = first.date or fmt.MISSING
        if len(span) > 1:
            name, date = f"{first.release} to {last.release}", f"{first.date} to {last.date}"
        rows.append(HistoryRow(
            label=name, date=date, path=board_path(first.release) if first.release is not None else "",
            interval=Interval(first.center, first.margin, first.ci_low, first.ci_high, "score"),
            rank=str(first.rank) if first.rank is not None else "unranked", move=MOVES[first.move],
            rule=rule_text(first),
            note=rescored_text(previous, first) if first.rule == RESCORED and previous is not None else ""))
        previous = last
    chart = Chart(kind="history", id="history-chart", twin="history-table",
                  label=f"ReasonScore of {label} with its 95% interval at each of {len(rows)} points in time",
                  rows=tuple({"label": r.label, "order": n, "low": r.interval.low, "high": r.interval.high,
                              "center": r.interval.center, "text": r.interval.text,
                              "move": r.move or r.note or "no significant move"}
                             for n, r in enumerate(rows)))
    return HistoryView(rows=tuple(rows), chart=chart, significant=sum(1 for r in rows if r.move),
                       paired=sum(1 for p in points if p.rule == PAIRED),
                       overlap=sum(1 for p in points if p.rule == OVERLAP),
                       rescored=sum(1 for p in points if p.rule == RESCORED))
