"""Each evaluation's ReasonScore across releases (PRODUCT.md "Releases and history"): one
point per release it was on, oldest first, then the current build, each move from the
point before marked significant or not by one of two rules, which the point names:

* `paired`: the release's changes (`changes.json`, written when the release was made) hold
  the paired test of this evaluation's change on the items both releases' per-sample
  outcomes share, and the point before is the previous release. Its raw p joins Holm's
  step-down over the paired moves of this one evaluation (the tests its page shows together,
  SAMPLES.md section 5), and a significant one is a gain or a drop by the sign of its effect.
* `overlap`: otherwise (no per-sample outcomes on both sides, too few shared items, a gap of
  releases between the points, or the current build): significant when the two 95 %
  intervals do not overlap (STATISTICS.md section 7 across releases, the rule of the
  score-change report).
* `rescored`: the two points are scored differently (another estimator, or other board
  tasks): their ReasonScores are not the same quantity, so the move is not judged at all.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Iterable, Mapping, Sequence

from ..sources.releasechanges import MoveTest
from ..sources.releases import ReleaseSnapshot
from .board import EvaluationRow
from .paired import holm

GAIN = "significant_gain"
DROP = "significant_drop"
PAIRED = "paired"
OVERLAP = "overlap"
RESCORED = "rescored"
#: What a point's ReasonScore is computed from: the estimator and the board's tasks, sorted.
Basis = tuple[str, tuple[str, ...]]


def basis_of(mode: str, tasks: Iterable[str]) -> Basis:
    """The basis of a score computed with estimator `mode` over the board's `tasks`."""
    return mode, tuple(sorted(tasks))


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
    #: GAIN or DROP against the point before (None: not significant, or the first point)
    move: str | None = None
    #: PAIRED or OVERLAP: the rule that judged the move from the point before (None: the
    #: first point, or the same score as the point before)
    rule: str | None = None
    #: The paired test of that move, when `rule` is PAIRED
    test: MoveTest | None = None
    #: The estimator and board tasks the score was computed from (None: not known)
    basis: Basis | None = None


def move(old: HistoryPoint, new: HistoryPoint) -> str | None:
    """The overlap rule: significant when the intervals do not overlap."""
    if new.ci_low > old.ci_high:
        return GAIN
    if new.ci_high < old.ci_low:
        return DROP
    return None


def score_history(releases: Sequence[ReleaseSnapshot], models: Iterable[EvaluationRow],
                  basis: Basis | None = None) -> Mapping[str, tuple[HistoryPoint, ...]]:
    """id -> the evaluation's points across `releases` (oldest first) and the current build,
    for every evaluation of the current build that was in at least one release. A release
    where its score was not known (none of the tasks) gives no point; the current build
    gives one unless the latest release shows the same score and rank. `basis`: the current
    build's estimator and board tasks."""
    if not releases:
        return {}
    current = {m.id: m for m in models}
    points: dict[str, list[HistoryPoint]] = {}
    for r in releases:
        b = r.board
        tests = {m.id: m.test for m in r.changes.moves if m.rule == PAIRED and m.test is not None}
        for i, model_id in enumerate(b.ids):
            if model_id not in current:
                continue
            center, margin, low, high = b.center[i], b.margin[i], b.ci_low[i], b.ci_high[i]
            if center is None or margin is None or low is None or high is None:
                continue
            before = points.get(model_id)
            test = tests.get(model_id) if before and before[-1].release == r.changes.previous else None
            points.setdefault(model_id, []).append(
                HistoryPoint(r.name, r.date, float(center), float(margin), float(low), float(high), b.rank[i],
                             test=test, basis=basis_of(b.mode, b.tasks)))
    history = {}
    for model_id, found in points.items():
        s = current[model_id].score
        if s.known:
            assert s.center is not None and s.margin is not None and s.ci_low is not None and s.ci_high is not None
            now = HistoryPoint(None, None, s.center, s.margin, s.ci_low, s.ci_high, current[model_id].rank,
                               basis=basis)
            last = found[-1]
            same = (last.center, last.margin, last.ci_low, last.ci_high, last.rank) == \
                (now.center, now.margin, now.ci_low, now.ci_high, now.rank)
            if not (same and last.release == releases[-1].name):
                found.append(now)
        history[model_id] = _marked(found)
    return history


def _marked(found: Sequence[HistoryPoint]) -> tuple[HistoryPoint, ...]:
    """The points with each move from the point before judged by its rule (module docstring)."""
    rescored = {k for k, p in enumerate(found) if k and _rescored(found[k - 1], p)}
    # A move not judged has no test in the family Holm corrects over.
    tests = {k: p.test for k, p in enumerate(found) if k and p.test is not None and k not in rescored}
    verdicts = dict(zip(tests, holm([t.p for t in tests.values()])))
    marked = [found[0]]
    for k, point in enumerate(found[1:], 1):
        before = marked[-1]
        same = (point.center, point.margin, point.ci_low, point.ci_high) == \
            (before.center, before.margin, before.ci_low, before.ci_high)
        rule: str | None = PAIRED
        if k in rescored:
            rule, verdict = RESCORED, None
        elif point.test is not None:
            verdict = (GAIN if point.test.effect > 0 else DROP) if verdicts[k] else None
        else:
            rule, verdict = (None, None) if same else (OVERLAP, move(before, point))
        marked.append(replace(point, move=verdict, rule=rule))
    return tuple(marked)


def _rescored(before: HistoryPoint, point: HistoryPoint) -> bool:
    """Whether the two points are scored differently (both bases known and unequal)."""
    return before.basis is not None and point.basis is not None and before.basis != point.basis


def task_set_change(old: Iterable[str], new: Iterable[str], names: int = 6) -> tuple[str, str]:
    """A board's task set before and after, as two short texts: the tasks themselves when
    both sets have at most `names`, else their counts with what was added and removed
    ("8 tasks", "8 tasks: +d, −c"), so a swap never reads "8 → 8" as if nothing changed."""
    before, after = sorted(set(old)), sorted(set(new))
    if len(before) <= names and len(after) <= names:
        return ", ".join(before) or "none", ", ".join(after) or "none"
    moved = [f"+{t}" for t in after if t not in before] + [f"−{t}" for t in before if t not in after]
    return f"{len(before)} tasks", f"{len(after)} tasks: {', '.join(moved)}"


def basis_change(old: Basis, new: Basis) -> str:
    """How two scorings differ, in words ("estimator C_P → E_P, board tasks a, b → a"); ""
    when they do not. Shared by the history across releases and the score-change report."""
    (old_mode, old_tasks), (new_mode, new_tasks) = old, new
    why = [f"estimator {old_mode} → {new_mode}"] if old_mode != new_mode else []
    if old_tasks != new_tasks:  # sorted by `basis_of`
        why.append("board tasks {} → {}".format(*task_set_change(old_tasks, new_tasks)))
    return ", ".join(why)
