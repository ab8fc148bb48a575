"""Each evaluation's ReasonScore across releases (PRODUCT.md "Releases and history"): one
point per release it was on, oldest first, then the current build, each move from the
point before marked significant when the two 95 % intervals do not overlap (STATISTICS.md
section 7 across releases, the rule of the score-change report).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

from ..sources.releases import ReleaseSnapshot
from .board import EvaluationRow

GAIN = "significant_gain"
DROP = "significant_drop"


@dataclass(frozen=True)
class HistoryPoint:
    #: the release's name, or None for the current build
    release: str | None
    date: str | None
    center: float
    margin: float
    ci_low: float
    ci_high: float
    rank: int | None
    #: GAIN or DROP against the point before (None: within the intervals, or the first point)
    move: str | None = None


def move(old: HistoryPoint, new: HistoryPoint) -> str | None:
    """The overlap rule: significant when the intervals do not overlap."""
    if new.ci_low > old.ci_high:
        return GAIN
    if new.ci_high < old.ci_low:
        return DROP
    return None


def score_history(releases: Sequence[ReleaseSnapshot], models: Iterable[EvaluationRow]
                  ) -> Mapping[str, tuple[HistoryPoint, ...]]:
    """id -> the evaluation's points across `releases` (oldest first) and the current build,
    for every evaluation of the current build that was in at least one release. A release
    where its score was not known (none of the tasks) gives no point; the current build
    gives one unless the latest release shows the same score and rank."""
    if not releases:
        return {}
    current = {m.id: m for m in models}
    points: dict[str, list[HistoryPoint]] = {}
    for r in releases:
        b = r.board
        for i, model_id in enumerate(b.ids):
            if model_id not in current:
                continue
            center, margin, low, high = b.center[i], b.margin[i], b.ci_low[i], b.ci_high[i]
            if center is None or margin is None or low is None or high is None:
                continue
            points.setdefault(model_id, []).append(
                HistoryPoint(r.name, r.date, float(center), float(margin), float(low), float(high), b.rank[i]))
    history = {}
    for model_id, found in points.items():
        s = current[model_id].score
        if s.known:
            assert s.center is not None and s.margin is not None and s.ci_low is not None and s.ci_high is not None
            now = HistoryPoint(None, None, s.center, s.margin, s.ci_low, s.ci_high, current[model_id].rank)
            last = found[-1]
            same = (last.center, last.margin, last.ci_low, last.ci_high, last.rank) == \
                (now.center, now.margin, now.ci_low, now.ci_high, now.rank)
            if not (same and last.release == releases[-1].name):
                found.append(now)
        marked = [found[0]]
        for point in found[1:]:
            marked.append(HistoryPoint(point.release, point.date, point.center, point.margin, point.ci_low,
                                       point.ci_high, point.rank, move(marked[-1], point)))
        history[model_id] = tuple(marked)
    return history
