"""Compare two built leaderboards and their signal files: the score-change report model.

PRODUCT.md, "Score-change report": a pull request that adds evaluation data should say which
scores moved, and which of those moves are **significant**, meaning the old and new ReasonScore
intervals do not overlap (STATISTICS.md section 7 applied across builds instead of across
models). A move inside the intervals is still reported, but apart, the way asv compare marks
"changed but not significant" with `~`.

Everything here is pure: two loaded `leaderboard.json` documents (PRODUCT.md, "Outputs") and two
optional `signals.json` documents (EVALCARDS.md section 8) go in, a frozen `ScoreChangeReport`
comes out. Reading files is the command's job, rendering the markdown module's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping

import numpy as np

from ..stats.board import Score
from ..stats.history import basis_change, basis_of, task_set_change
from ..stats.paired import PairedTest, holm
from ..stats.verdicts import PairedVerdict
from .cards import compare_signals
from .report import (
    NOT_COMPARABLE,
    NOT_SIGNIFICANT,
    OVERLAP,
    PAIRED,
    SCORE_DECIMALS,
    SCORE_UNCHANGED,
    SIGNIFICANT_DROP,
    SIGNIFICANT_GAIN,
    WITHIN_INTERVALS,
    ConfigChange,
    ModelChange,
    ModelEntry,
    ModelRef,
    ScoreChangeReport,
    TaskMove,
    TieChanges,
)

#: Leaderboard configuration keys whose change alters every score (STATISTICS.md section 4).
CONFIG_KEYS = ("mode", "bootstrap", "seed")


# -- the report model -------------------------------------------------------------------


# -- comparing leaderboards ---------------------------------------------------------------


def compare(base: Mapping[str, Any], head: Mapping[str, Any],
            base_signals: Mapping[str, Any] | None = None,
            head_signals: Mapping[str, Any] | None = None,
            *, base_name: str = "base", head_name: str = "head",
            paired: Mapping[str, PairedTest | None] | None = None) -> ScoreChangeReport:
    """Build the score-change report for two leaderboards (and optionally their signals).

    `paired` holds, for the models whose per-sample outcomes both builds publish, the paired
    test of their ReasonScore change (`samples.paired_changes`; None: too few shared items).
    Those changes are significant after Holm over the report's paired tests; the others by
    the overlap rule. Each change names its rule."""
    old_models = {m["id"]: m for m in base.get("models", [])}
    new_models = {m["id"]: m for m in head.get("models", [])}
    refs = {**{i: _ref(m) for i, m in old_models.items()}, **{i: _ref(m) for i, m in new_models.items()}}
    # The paired test scores both sides' outcomes one way (C_P over the head's tasks). Where the
    # builds score differently, a model's change comes from the setting, not its answers: the
    # test of the same answers gave "+0.0, p = 1, not significant" beside a change of +290.
    rescored = _rescored(base, head)
    paired = {} if rescored else (paired or {})
    both = sorted(old_models.keys() & new_models.keys())
    tested = [i for i in both if paired.get(i) is not None and _score(old_models[i]) != _score(new_models[i])]
    verdicts = dict(zip(tested, holm([paired[i].p for i in tested])))  # type: ignore[union-attr]

    changed = []
    unchanged = 0
    for model_id in both:
        test = paired.get(model_id)
        same = _score(old_models[model_id]) == _score(new_models[model_id])
        note = ("" if test is not None or same else rescored if rescored
                else "fewer shared items than a paired test needs" if model_id in paired
                else "no per-sample outcomes in both builds")
        change = _model_change(old_models[model_id], new_models[model_id], test, verdicts.get(model_id, False), note,
                               rescored=bool(rescored))
        if change is None:
            unchanged += 1
        else:
            changed.append(change)
    # Sorted by size of change (PRODUCT.md), then by places moved, then by id for stability.
    changed.sort(key=lambda c: (-abs(c.delta or 0.0), -abs(c.rank_move), c.model.id))

    added = _entries(new_models[i] for i in new_models.keys() - old_models.keys())
    removed = _entries(old_models[i] for i in old_models.keys() - new_models.keys())

    old_tasks, new_tasks = _task_set(base), _task_set(head)
    return ScoreChangeReport(
        base_name=base_name,
        head_name=head_name,
        config_changes=_config_changes(base, head) + _board_change(base, head, old_tasks, new_tasks),
        changed=tuple(changed),
        added=added,
        removed=removed,
        unchanged=unchanged,
        tasks_added=tuple(sorted(new_tasks - old_tasks)),
        tasks_removed=tuple(sorted(old_tasks - new_tasks)),
        ties=_tie_changes(base, head, old_models, new_models, refs),
        cards=compare_signals(base_signals, head_signals),
    )


def significance(old: Score, new: Score) -> str:
    """Significant when the intervals do not overlap (STATISTICS.md section 7's rule)."""
    if new == old:
        return SCORE_UNCHANGED
    if not (old.known and new.known):
        return NOT_COMPARABLE
    assert new.ci_low is not None and new.ci_high is not None and old.ci_low is not None and old.ci_high is not None
    if new.ci_low > old.ci_high:
        return SIGNIFICANT_GAIN
    if new.ci_high < old.ci_low:
        return SIGNIFICANT_DROP
    return WITHIN_INTERVALS


def _ref(model: Mapping[str, Any]) -> ModelRef:
    return ModelRef(id=model["id"], label=model.get("label") or model["id"])


def _score(model: Mapping[str, Any]) -> Score:
    rs = model["reasonscore"]

    def number(key: str) -> float | None:
        return None if rs.get(key) is None else float(rs[key])

    return Score(center=number("center"), margin=number("margin"), ci_low=number("ci_low"), ci_high=number("ci_high"))


def _delta(old: Score, new: Score) -> float | None:
    if not (old.known and new.known) or old.center is None or new.center is None:
        return None
    return round(new.center - old.center, SCORE_DECIMALS)


def _rank_range(model: Mapping[str, Any]) -> tuple[int, int] | None:
    value = model.get("rank_range")
    return (int(value[0]), int(value[1])) if value else None


def _model_change(old: Mapping[str, Any], new: Mapping[str, Any], test: PairedTest | None = None,
                  significant: bool = False, note: str = "", rescored: bool = False) -> ModelChange | None:
    """The change of one model, None when nothing about it moved. `rescored`: the builds score
    differently (another estimator or board tasks), so the two ReasonScores are not the same
    quantity and a changed score is not judged (`note` says why)."""
    old_score, new_score = _score(old), _score(new)
    verdict = significance(old_score, new_score)
    if rescored and verdict != SCORE_UNCHANGED:
        verdict = NOT_COMPARABLE
    record = None
    if test is not None and verdict not in (SCORE_UNCHANGED, NOT_COMPARABLE):
        record = PairedVerdict.of(test, SCORE_DECIMALS, significant)
        verdict = (SIGNIFICANT_GAIN if test.effect > 0 else SIGNIFICANT_DROP) if significant else NOT_SIGNIFICANT
    change = ModelChange(
        model=_ref(new),
        old=old_score,
        new=new_score,
        delta=_delta(old_score, new_score),
        significance=verdict,
        rule=PAIRED if record is not None else OVERLAP,
        test=record,
        rule_note="" if record is not None else note,
        old_rank=old.get("rank"),
        new_rank=new.get("rank"),
        old_rank_range=_rank_range(old),
        new_rank_range=_rank_range(new),
        old_band=old.get("band"),
        new_band=new.get("band"),
        old_complete=bool(old.get("complete", True)),
        new_complete=bool(new.get("complete", True)),
        old_missing_tasks=tuple(sorted(old.get("missing_tasks") or ())),
        new_missing_tasks=tuple(sorted(new.get("missing_tasks") or ())),
        task_moves=_task_moves(old.get("tasks") or {}, new.get("tasks") or {}),
    )
    moved = (
        change.significance != SCORE_UNCHANGED
        or change.old_rank != change.new_rank
        or change.old_rank_range != change.new_rank_range
        or change.old_band != change.new_band
        or change.old_complete != change.new_complete
        or change.old_missing_tasks != change.new_missing_tasks
    )
    return change if moved else None


def _task_moves(old: Mapping[str, Any], new: Mapping[str, Any]) -> tuple[TaskMove, ...]:
    """Tasks whose `[low, high]` intervals no longer overlap: where a significant move came from."""
    moves = []
    for task in sorted(old.keys() & new.keys()):
        a, b = old[task], new[task]
        if b["low"] > a["high"]:
            direction = "up"
        elif b["high"] < a["low"]:
            direction = "down"
        else:
            continue
        moves.append(TaskMove(task=task, old_estimate=a["estimate"], new_estimate=b["estimate"],
                              direction=direction))
    return tuple(moves)


def _entries(models: Iterable[Mapping[str, Any]]) -> tuple[ModelEntry, ...]:
    """Added or removed models, best score first (their "size of change")."""
    entries = [
        ModelEntry(model=_ref(m), score=_score(m), rank=m.get("rank"), rank_range=_rank_range(m),
                   band=m.get("band"), complete=bool(m.get("complete", True)))
        for m in models
    ]
    entries.sort(key=lambda e: (e.score.center is None, -(e.score.center or 0.0), e.model.id))
    return tuple(entries)


def _task_set(leaderboard: Mapping[str, Any]) -> set[str]:
    """The configured task set, plus any task a model reports (an incomplete config is no excuse)."""
    tasks = set((leaderboard.get("config") or {}).get("tasks") or ())
    for model in leaderboard.get("models", []):
        tasks.update((model.get("tasks") or {}).keys())
    return tasks


def _board_change(base: Mapping[str, Any], head: Mapping[str, Any], old_tasks: set[str],
                  new_tasks: set[str]) -> tuple[ConfigChange, ...]:
    """The board's tasks, when they changed otherwise than the tasks the data added or removed
    (the report's "Tasks: ..." line): a board cut from 12 tasks to 3 over the same data
    rescored every model, and the report must say why."""
    old = set((base.get("config") or {}).get("tasks") or ())
    new = set((head.get("config") or {}).get("tasks") or ())
    if old == new or (new - old == new_tasks - old_tasks and old - new == old_tasks - new_tasks):
        return ()
    return (ConfigChange("board tasks", *task_set_change(old, new)),)


def _rescored(base: Mapping[str, Any], head: Mapping[str, Any]) -> str:
    """Why the two builds' ReasonScores are not the same quantity ("" when they are): another
    estimator, or another set of board tasks."""
    old, new = base.get("config") or {}, head.get("config") or {}
    why = basis_change(basis_of(str(old.get("mode")), old.get("tasks") or ()),
                       basis_of(str(new.get("mode")), new.get("tasks") or ()))
    return f"the builds score differently ({why}): the two scores are not the same quantity" if why else ""


def _config_changes(base: Mapping[str, Any], head: Mapping[str, Any]) -> tuple[ConfigChange, ...]:
    old, new = base.get("config") or {}, head.get("config") or {}
    changes = [ConfigChange(key, old.get(key), new.get(key)) for key in CONFIG_KEYS if old.get(key) != new.get(key)]
    if base.get("schema") != head.get("schema"):
        changes.insert(0, ConfigChange("schema", base.get("schema"), head.get("schema")))
    return tuple(changes)


@dataclass(frozen=True)
class RankedIntervals:
    """The ranked models' published intervals, sorted by lower bound, so the models tied with
    one (schema 2 gives only their count) or holding one score (a schema 2 tie group) are
    found by a binary search instead of a scan. Derived from the rounded published bounds,
    so a pair that touches only at the last published digit may differ from the build's own
    (unrounded) verdict."""

    ids: list[str]
    low: np.ndarray   # sorted ascending
    high: np.ndarray  # in the order of `ids`
    index: dict[str, int]

    @classmethod
    def of(cls, leaderboard: Mapping[str, Any]) -> RankedIntervals:
        rows = [(m["id"], float(m["reasonscore"]["ci_low"]), float(m["reasonscore"]["ci_high"]))
                for m in leaderboard.get("models", ())
                if m.get("rank") is not None and (m.get("reasonscore") or {}).get("ci_low") is not None]
        rows.sort(key=lambda r: (r[1], r[0]))
        ids = [r[0] for r in rows]
        return cls(ids, np.array([r[1] for r in rows], dtype=float), np.array([r[2] for r in rows], dtype=float),
                   {i: n for n, i in enumerate(ids)})

    def _reaching(self, low: float, high: float) -> list[str]:
        end = int(np.searchsorted(self.low, high, side="right"))  # every B with B.low <= high ...
        hits = np.flatnonzero(self.high[:end] >= low)              # ... and B.high >= low
        return [self.ids[k] for k in hits.tolist()]

    def containing(self, score: float) -> list[str]:
        return self._reaching(score, score)

    def overlapping(self, model_id: str) -> list[str]:
        k = self.index[model_id]
        return [i for i in self._reaching(float(self.low[k]), float(self.high[k])) if i != model_id]


def _tie_changes(base: Mapping[str, Any], head: Mapping[str, Any], old_models: Mapping[str, Any],
                 new_models: Mapping[str, Any], refs: Mapping[str, ModelRef]) -> TieChanges:
    def groups(leaderboard: Mapping[str, Any]) -> set[tuple[str, ...]]:
        found = set()
        intervals = RankedIntervals.of(leaderboard)
        for group in leaderboard.get("tie_groups") or ():
            # Schema 1 lists the members; schema 2 gives a record they are derived from.
            members = group if isinstance(group, list) else intervals.containing(float(group["at"]))
            found.add(tuple(sorted(members)))
        return found

    def pairs(leaderboard: Mapping[str, Any], models: Mapping[str, Any], keep: set[str]) -> set[tuple[str, str]]:
        found: set[tuple[str, str]] = set()
        if any("tied_with" in model for model in models.values()):  # schema 1
            tied = {model_id: model.get("tied_with") or () for model_id, model in models.items()}
        else:  # schema 2: the overlapping intervals, derived from the published ones
            intervals = RankedIntervals.of(leaderboard)
            tied = {model_id: intervals.overlapping(model_id) for model_id in keep if model_id in intervals.index}
        for model_id, others in tied.items():
            if model_id not in keep:
                continue
            for other in others:
                if other in keep and other != model_id:
                    found.add((model_id, other) if model_id < other else (other, model_id))
        return found

    def named(ids: Iterable[str]) -> tuple[ModelRef, ...]:
        return tuple(refs.get(i, ModelRef(i, i)) for i in ids)

    def ordered_groups(found: set[tuple[str, ...]]) -> tuple[tuple[ModelRef, ...], ...]:
        return tuple(named(g) for g in sorted(found, key=lambda g: (-len(g), g)))

    old_groups, new_groups = groups(base), groups(head)
    # Ties are between ranked models (STATISTICS.md section 7): a model ranked on one side only
    # left or joined the ranking, and "no longer tied" (or "now tied") would say its interval
    # moved away from (or onto) the others' when only its rank did.
    both = {i for i in set(old_models) & set(new_models)
            if old_models[i].get("rank") is not None and new_models[i].get("rank") is not None}
    old_pairs, new_pairs = pairs(base, old_models, both), pairs(head, new_models, both)
    return TieChanges(
        groups_formed=ordered_groups(new_groups - old_groups),
        groups_dissolved=ordered_groups(old_groups - new_groups),
        pairs_tied=tuple(named(p) for p in sorted(new_pairs - old_pairs)),  # type: ignore[misc]
        pairs_untied=tuple(named(p) for p in sorted(old_pairs - new_pairs)),  # type: ignore[misc]
    )
