"""What changed since the previous release, for readers: the score-change report
(`compare`) of two releases' data files, told as a release's changes page tells it
(`changes.json` of a snapshot, read back by `sources/releasechanges.py`).

Beyond the report, each model whose own score did not change is told apart by why it moved
anyway: only because evaluations joined or left the ranking (`others_joined`: nothing
between it and the evaluations in both releases changed), or because other evaluations'
scores moved (`others_moved`). A ReasonScore depends on the evaluation's own results only
(STATISTICS.md section 4), so its rank, rank range and ties are what others can move.

Significance is the report's: where both releases hold the model's per-sample outcomes, the
paired test of its ReasonScore change on the items both share (`samples.paired_changes`),
significant after Holm over the paired tests of the page; elsewhere the overlap rule (old
and new 95 % intervals do not overlap). Each move names its `rule` and carries its `test`,
and the document's `rule` is `paired` when any move is, so that the page says which rule
speaks for each line.
"""

from __future__ import annotations

import json
from typing import Any, Mapping

from ..sources.releasechanges import CHANGES_SCHEMA
from ..stats.paired import PairedTest
from ..stats.verdicts import PairedVerdict
from .compare import compare
from .report import OVERLAP, PAIRED, SCORE_UNCHANGED, CardChanges, FlagChange, ModelChange, ModelEntry

#: At most this many flags raised (and cleared) are listed; the counts are always whole.
MAX_FLAGS = 200

Doc = Mapping[str, Any]


def release_changes(base: Doc | None, head: Doc, base_signals: Doc | None, head_signals: Doc | None,
                    previous: str | None, previous_date: str | None,
                    paired: Mapping[str, PairedTest | None] | None = None) -> dict[str, Any]:
    """The `changes.json` document of a release whose data files are `head`, compared
    with the previous release's `base` (None for the first release: nothing changed);
    `paired`: the paired tests of the models whose outcomes both hold (`compare`)."""
    if base is None:
        return {"schema": CHANGES_SCHEMA, "previous": None, "previous_date": None, "rule": "overlap",
                "config_changes": [], "tasks_added": [], "tasks_removed": [], "models": [], "unchanged": 0,
                "signals": _signals(CardChanges(compared=False, note="the first release: nothing to compare with"))}
    report = compare(base, head, base_signals, head_signals, base_name=previous or "base", head_name="release",
                     paired=paired)
    slugs = {m["id"]: m.get("slug") or "" for m in [*base.get("models", ()), *head.get("models", ())]}
    moves = [_entry(e, "joined", slugs) for e in report.added] + [_entry(e, "left", slugs) for e in report.removed]
    explain = _Attribution(base, head)
    moves += [_move(c, explain.kind(c), explain, slugs) for c in report.changed]
    return {
        "schema": CHANGES_SCHEMA, "previous": previous, "previous_date": previous_date,
        "rule": PAIRED if any(c.rule == PAIRED for c in report.changed) else OVERLAP,
        "config_changes": [{"key": c.key, "old": _text(c.old), "new": _text(c.new)} for c in report.config_changes],
        "tasks_added": list(report.tasks_added), "tasks_removed": list(report.tasks_removed),
        "models": moves, "unchanged": report.unchanged, "signals": _signals(report.cards),
    }


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True)


def _scored(score: Any) -> list[float] | None:
    return [score.center, score.margin, score.ci_low, score.ci_high] if score.known else None


def _entry(e: ModelEntry, kind: str, slugs: Mapping[str, str]) -> dict[str, Any]:
    joined = kind == "joined"
    side = {"score": _scored(e.score), "rank": e.rank, "range": list(e.rank_range) if e.rank_range else None,
            "band": e.band}
    none = {"score": None, "rank": None, "range": None, "band": None}
    old, new = (none, side) if joined else (side, none)
    return {"id": e.model.id, "label": e.model.label, "slug": slugs.get(e.model.id, ""), "kind": kind,
            "old": old["score"], "new": new["score"], "old_rank": old["rank"], "new_rank": new["rank"],
            "old_rank_range": old["range"], "new_rank_range": new["range"], "old_band": old["band"],
            "new_band": new["band"], "joined_above": 0, "left_above": 0, "tasks": [], "rule": OVERLAP,
            "rule_note": "", "test": None}


def _move(c: ModelChange, kind: str, explain: _Attribution, slugs: Mapping[str, str]) -> dict[str, Any]:
    joined_above, left_above = explain.above(c.model.id) if kind == "others_joined" else (0, 0)
    return {"id": c.model.id, "label": c.model.label, "slug": slugs.get(c.model.id, ""), "kind": kind,
            "old": _scored(c.old), "new": _scored(c.new), "old_rank": c.old_rank, "new_rank": c.new_rank,
            "old_rank_range": list(c.old_rank_range) if c.old_rank_range else None,
            "new_rank_range": list(c.new_rank_range) if c.new_rank_range else None,
            "old_band": c.old_band, "new_band": c.new_band, "joined_above": joined_above, "left_above": left_above,
            "tasks": [{"task": t.task, "old": t.old_estimate, "new": t.new_estimate, "direction": t.direction}
                      for t in c.task_moves],
            "rule": c.rule, "rule_note": c.rule_note, "test": _test(c.test)}


def _test(t: PairedVerdict | None) -> dict[str, Any] | None:
    """A move's paired test as published: shared items, the ReasonScore difference (new minus
    old) with its interval, the raw p, the method and Holm's verdict over the page's tests."""
    if t is None:
        return None
    return {"shared": t.shared, "effect": t.effect, "low": t.low, "high": t.high, "p": t.p, "method": t.method,
            "significant": t.significant}


class _Attribution:
    """Why a model whose score did not change moved: the ranked evaluations of both sides."""

    def __init__(self, base: Doc, head: Doc):
        self.old = _ranked(base)
        self.new = _ranked(head)
        common = self.old.keys() & self.new.keys()
        #: evaluations ranked in both releases whose own score changed: only they can move
        #: another one's rank, rank range or ties relative to the evaluations of both
        self.moved = [b for b in sorted(common) if self.old[b][1:] != self.new[b][1:]]

    def kind(self, c: ModelChange) -> str:
        if c.significance != SCORE_UNCHANGED:
            return c.significance
        own = (c.old_complete != c.new_complete or c.old_missing_tasks != c.new_missing_tasks
               or c.old_band != c.new_band)
        a = c.model.id
        if own or a not in self.old or a not in self.new:
            return "own_status"
        for b in self.moved:
            if b != a and _relation(self.old[a], self.old[b]) != _relation(self.new[a], self.new[b]):
                return "others_moved"
        return "others_joined"

    def above(self, a: str) -> tuple[int, int]:
        """(evaluations ranked above `a` that joined the ranking, that left it)."""
        joined = sum(1 for b, v in self.new.items() if b not in self.old and v[0] < self.new[a][0])
        left = sum(1 for b, v in self.old.items() if b not in self.new and v[0] < self.old[a][0])
        return joined, left


#: (rank, ci_low, ci_high, center) of a ranked evaluation
Ranked = tuple[int, float, float, float]


def _ranked(leaderboard: Doc) -> dict[str, Ranked]:
    """id -> (rank, ci_low, ci_high, center) of every ranked evaluation."""
    out = {}
    for m in leaderboard.get("models", ()):
        rs = m.get("reasonscore") or {}
        if m.get("rank") is not None and rs.get("ci_low") is not None:
            out[m["id"]] = (int(m["rank"]), float(rs["ci_low"]), float(rs["ci_high"]), float(rs["center"]))
    return out


def _relation(a: Ranked, b: Ranked) -> tuple[bool, bool, bool]:
    """What decides a's rank, rank range and ties with respect to b (STATISTICS.md section 7):
    b ranked above a, b distinct above a, b reaching into a's interval from above or below."""
    return (b[0] < a[0], b[1] > a[2], b[2] >= a[1] and b[1] <= a[2])


def _flags(flags: tuple[FlagChange, ...]) -> list[dict[str, Any]]:
    return [{"model": f.triple.model, "benchmark": f.triple.benchmark, "metric": f.triple.metric,
             "kinds": list(f.kinds)} for f in flags[:MAX_FLAGS]]


def _signals(cards: CardChanges) -> dict[str, Any]:
    return {
        "compared": cards.compared, "note": cards.note, "gaps_opened": len(cards.gaps_opened),
        "gaps_closed": len(cards.gaps_closed), "gaps_changed": len(cards.gaps_changed),
        "triples_added": cards.triples_added, "triples_removed": cards.triples_removed,
        "completeness": [{"benchmark": c.benchmark, "old": c.old, "new": c.new} for c in cards.completeness],
        "flags_raised": _flags(cards.flags_raised), "flags_cleared": _flags(cards.flags_cleared),
        "flags_raised_total": len(cards.flags_raised), "flags_cleared_total": len(cards.flags_cleared),
    }
