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

from dataclasses import asdict, dataclass
from typing import Any, Iterable, Mapping

SCHEMA = "reasonboard.diff/1"

#: Data files round ReasonScores to 3 decimals and rates to 6 (PRODUCT.md, "Outputs"); the
#: report's derived numbers keep the same precision so its JSON is as stable as its inputs.
SCORE_DECIMALS = 3
RATE_DECIMALS = 6

# The ways a model present in both builds can compare (asv's ++ / !! / ~ / = / x).
SIGNIFICANT_GAIN = "significant_gain"
SIGNIFICANT_DROP = "significant_drop"
WITHIN_INTERVALS = "within_intervals"
SCORE_UNCHANGED = "score_unchanged"
#: One side has no score at all (a model with none of the configured tasks: all four null).
NOT_COMPARABLE = "not_comparable"

#: Leaderboard configuration keys whose change alters every score (STATISTICS.md section 4).
CONFIG_KEYS = ("mode", "bootstrap", "seed")


# -- the report model -------------------------------------------------------------------


@dataclass(frozen=True)
class ModelRef:
    """A leaderboard row named the way a reader knows it (label) and the way data does (id)."""

    id: str
    label: str


@dataclass(frozen=True)
class Score:
    """A ReasonScore with its bootstrap interval (STATISTICS.md section 4).

    All four are None for a model that has none of the configured tasks (the leaderboard
    writes NaN as null).
    """

    center: float | None
    margin: float | None
    ci_low: float | None
    ci_high: float | None

    @property
    def known(self) -> bool:
        return None not in (self.center, self.margin, self.ci_low, self.ci_high)


@dataclass(frozen=True)
class TaskMove:
    """A task whose old and new intervals do not overlap for one model: the likely cause."""

    task: str
    old_estimate: float
    new_estimate: float
    direction: str  # "up" or "down"


@dataclass(frozen=True)
class ModelChange:
    """A model present in both builds whose score, rank, rank range, band or task set moved."""

    model: ModelRef
    old: Score
    new: Score
    delta: float | None
    significance: str
    old_rank: int | None
    new_rank: int | None
    old_rank_range: tuple[int, int] | None
    new_rank_range: tuple[int, int] | None
    old_band: str | None
    new_band: str | None
    old_complete: bool
    new_complete: bool
    old_missing_tasks: tuple[str, ...]
    new_missing_tasks: tuple[str, ...]
    task_moves: tuple[TaskMove, ...]

    @property
    def rank_move(self) -> int:
        """Places gained (positive) or lost; 0 when either side is unranked."""
        if self.old_rank is None or self.new_rank is None:
            return 0
        return self.old_rank - self.new_rank


@dataclass(frozen=True)
class ModelEntry:
    """A model that exists in only one of the two builds."""

    model: ModelRef
    score: Score
    rank: int | None
    rank_range: tuple[int, int] | None
    band: str | None
    complete: bool


@dataclass(frozen=True)
class TieChanges:
    """Tie-group changes (STATISTICS.md section 7).

    Groups are the maximal cliques of the overlap graph, so one moving model reshapes several
    of them; the pairs (from `tied_with`, models present in both builds only) say the same
    thing in the form a reviewer reads fastest: who is now tied with whom.
    """

    groups_formed: tuple[tuple[ModelRef, ...], ...]
    groups_dissolved: tuple[tuple[ModelRef, ...], ...]
    pairs_tied: tuple[tuple[ModelRef, ModelRef], ...]
    pairs_untied: tuple[tuple[ModelRef, ModelRef], ...]


@dataclass(frozen=True)
class ConfigChange:
    key: str
    old: Any
    new: Any


@dataclass(frozen=True)
class TripleRef:
    """A reported-result triple (EVALCARDS.md section 2)."""

    model: str
    benchmark: str
    metric: str


@dataclass(frozen=True)
class GapChange:
    """A reproducibility gap opened, closed or changed (EVALCARDS.md section 4).

    `old_missing` / `new_missing` are None when the triple does not exist on that side, so
    "closed because the fields were reported" never reads like "closed because the result
    was removed".
    """

    triple: TripleRef
    old_missing: tuple[str, ...] | None
    new_missing: tuple[str, ...] | None


@dataclass(frozen=True)
class CompletenessChange:
    """A benchmark's reporting completeness C(b) moved, or it appeared or vanished (section 5)."""

    benchmark: str
    old: float | None
    new: float | None
    delta: float | None
    old_fully_missing: int | None
    new_fully_missing: int | None
    old_has_card: bool | None
    new_has_card: bool | None
    fields_gained: tuple[str, ...]
    fields_lost: tuple[str, ...]


@dataclass(frozen=True)
class FlagChange:
    """A comparability divergence flag raised or cleared (EVALCARDS.md section 7).

    Flags are True, False (checked, within the threshold) or None (not checked: N/A);
    `None` for a side that lacks the triple is told apart by `old_present` / `new_present`.
    `kinds` names the flagged checks (variant, cross_party) on the side that has the flag.
    """

    triple: TripleRef
    old_flag: bool | None
    new_flag: bool | None
    old_present: bool
    new_present: bool
    kinds: tuple[str, ...]
    spread: float | None


@dataclass(frozen=True)
class CorpusChange:
    """Corpus-wide signal rates before and after (EVALCARDS.md sections 4 and 5)."""

    old_triples: int | None
    new_triples: int | None
    old_gap_rate: float | None
    new_gap_rate: float | None
    old_completeness_median: float | None
    new_completeness_median: float | None


@dataclass(frozen=True)
class CardChanges:
    """Evaluation Card changes between the two signal files.

    Only compared when both builds have a signals file (`compared`); otherwise `note` says
    which side lacked one, because listing every gap of one side as "new" would be a lie.
    """

    compared: bool
    note: str
    gaps_opened: tuple[GapChange, ...] = ()
    gaps_closed: tuple[GapChange, ...] = ()
    gaps_changed: tuple[GapChange, ...] = ()
    completeness: tuple[CompletenessChange, ...] = ()
    flags_raised: tuple[FlagChange, ...] = ()
    flags_cleared: tuple[FlagChange, ...] = ()
    triples_added: int = 0
    triples_removed: int = 0
    corpus: CorpusChange | None = None

    @property
    def count(self) -> int:
        """How many card-level changes a reviewer will read about."""
        return (len(self.gaps_opened) + len(self.gaps_closed) + len(self.gaps_changed)
                + len(self.completeness) + len(self.flags_raised) + len(self.flags_cleared))


@dataclass(frozen=True)
class ScoreChangeReport:
    """Everything `reasonboard diff` says, as data (rendered by `builder.diff.markdown`)."""

    base_name: str
    head_name: str
    config_changes: tuple[ConfigChange, ...]
    changed: tuple[ModelChange, ...]
    added: tuple[ModelEntry, ...]
    removed: tuple[ModelEntry, ...]
    unchanged: int
    tasks_added: tuple[str, ...]
    tasks_removed: tuple[str, ...]
    ties: TieChanges
    cards: CardChanges

    def by_significance(self, significance: str) -> tuple[ModelChange, ...]:
        return tuple(c for c in self.changed if c.significance == significance)

    @property
    def significant(self) -> tuple[ModelChange, ...]:
        return tuple(c for c in self.changed if c.significance in (SIGNIFICANT_GAIN, SIGNIFICANT_DROP))

    @property
    def not_significant(self) -> tuple[ModelChange, ...]:
        return tuple(c for c in self.changed if c.significance in (WITHIN_INTERVALS, SCORE_UNCHANGED, NOT_COMPARABLE))

    @property
    def has_significant_drop(self) -> bool:
        return any(c.significance == SIGNIFICANT_DROP for c in self.changed)

    def summary(self) -> dict[str, int]:
        """The headline counts, shared by the markdown headline and the JSON."""
        return {
            "changed": len(self.changed),
            "significant_gains": len(self.by_significance(SIGNIFICANT_GAIN)),
            "significant_drops": len(self.by_significance(SIGNIFICANT_DROP)),
            "within_intervals": len(self.by_significance(WITHIN_INTERVALS)),
            "score_unchanged": len(self.by_significance(SCORE_UNCHANGED)),
            "not_comparable": len(self.by_significance(NOT_COMPARABLE)),
            "added": len(self.added),
            "removed": len(self.removed),
            "unchanged": self.unchanged,
            "tasks_added": len(self.tasks_added),
            "tasks_removed": len(self.tasks_removed),
            "card_changes": self.cards.count,
        }

    def to_dict(self) -> dict[str, Any]:
        """The same content as the markdown, as JSON-ready data (`--format json`)."""
        data = _plain(asdict(self))
        data["schema"] = SCHEMA
        data["summary"] = self.summary()
        for change, row in zip(self.changed, data["changed"]):
            row["rank_move"] = change.rank_move
        return data


def _plain(value: Any) -> Any:
    """Tuples become lists so the data equals its own JSON round trip."""
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    return value


# -- comparing leaderboards ---------------------------------------------------------------


def compare(base: Mapping[str, Any], head: Mapping[str, Any],
            base_signals: Mapping[str, Any] | None = None,
            head_signals: Mapping[str, Any] | None = None,
            *, base_name: str = "base", head_name: str = "head") -> ScoreChangeReport:
    """Build the score-change report for two leaderboards (and optionally their signals)."""
    old_models = {m["id"]: m for m in base.get("models", [])}
    new_models = {m["id"]: m for m in head.get("models", [])}
    refs = {**{i: _ref(m) for i, m in old_models.items()}, **{i: _ref(m) for i, m in new_models.items()}}

    changed = []
    unchanged = 0
    for model_id in sorted(old_models.keys() & new_models.keys()):
        change = _model_change(old_models[model_id], new_models[model_id])
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
        config_changes=_config_changes(base, head),
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


def _model_change(old: Mapping[str, Any], new: Mapping[str, Any]) -> ModelChange | None:
    old_score, new_score = _score(old), _score(new)
    change = ModelChange(
        model=_ref(new),
        old=old_score,
        new=new_score,
        delta=_delta(old_score, new_score),
        significance=significance(old_score, new_score),
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


def _config_changes(base: Mapping[str, Any], head: Mapping[str, Any]) -> tuple[ConfigChange, ...]:
    old, new = base.get("config") or {}, head.get("config") or {}
    changes = [ConfigChange(key, old.get(key), new.get(key)) for key in CONFIG_KEYS if old.get(key) != new.get(key)]
    if base.get("schema") != head.get("schema"):
        changes.insert(0, ConfigChange("schema", base.get("schema"), head.get("schema")))
    return tuple(changes)


def _tie_changes(base: Mapping[str, Any], head: Mapping[str, Any], old_models: Mapping[str, Any],
                 new_models: Mapping[str, Any], refs: Mapping[str, ModelRef]) -> TieChanges:
    def groups(leaderboard: Mapping[str, Any]) -> set[tuple[str, ...]]:
        return {tuple(sorted(group)) for group in leaderboard.get("tie_groups") or ()}

    def pairs(models: Mapping[str, Any], keep: set[str]) -> set[tuple[str, str]]:
        found = set()
        for model_id, model in models.items():
            for other in model.get("tied_with") or ():
                if model_id in keep and other in keep and other != model_id:
                    found.add(tuple(sorted((model_id, other))))
        return found

    def named(ids: Iterable[str]) -> tuple[ModelRef, ...]:
        return tuple(refs.get(i, ModelRef(i, i)) for i in ids)

    def ordered_groups(found: set[tuple[str, ...]]) -> tuple[tuple[ModelRef, ...], ...]:
        return tuple(named(g) for g in sorted(found, key=lambda g: (-len(g), g)))

    old_groups, new_groups = groups(base), groups(head)
    both = set(old_models) & set(new_models)
    old_pairs, new_pairs = pairs(old_models, both), pairs(new_models, both)
    return TieChanges(
        groups_formed=ordered_groups(new_groups - old_groups),
        groups_dissolved=ordered_groups(old_groups - new_groups),
        pairs_tied=tuple(named(p) for p in sorted(new_pairs - old_pairs)),  # type: ignore[misc]
        pairs_untied=tuple(named(p) for p in sorted(old_pairs - new_pairs)),  # type: ignore[misc]
    )


# -- comparing signal files -----------------------------------------------------------------


def compare_signals(base: Mapping[str, Any] | None, head: Mapping[str, Any] | None) -> CardChanges:
    """Evaluation Card changes: gaps (section 4), completeness (5), divergence flags (7)."""
    if base is None and head is None:
        return CardChanges(compared=False, note="neither build has a signals.json")
    if base is None:
        return CardChanges(compared=False, note="the base build has no signals.json")
    if head is None:
        return CardChanges(compared=False, note="the head build has no signals.json")

    old_triples, new_triples = _triples(base), _triples(head)
    opened, closed, changed = [], [], []
    for key in sorted(old_triples.keys() | new_triples.keys()):
        old_gap = _gap(old_triples.get(key))
        new_gap = _gap(new_triples.get(key))
        change = GapChange(TripleRef(*key), old_gap[1], new_gap[1])
        if new_gap[0] and not old_gap[0]:
            opened.append(change)
        elif old_gap[0] and not new_gap[0] and key in new_triples:
            closed.append(change)
        elif old_gap[0] and new_gap[0] and old_gap[1] != new_gap[1]:
            changed.append(change)

    raised, cleared = [], []
    for key in sorted(old_triples.keys() | new_triples.keys()):
        old_t, new_t = old_triples.get(key), new_triples.get(key)
        old_flag, new_flag = _flag(old_t), _flag(new_t)
        if new_flag is True and old_flag is not True:
            raised.append(_flag_change(key, old_t, new_t, flagged=new_t))
        elif old_flag is True and new_flag is not True:
            cleared.append(_flag_change(key, old_t, new_t, flagged=old_t))

    return CardChanges(
        compared=True,
        note="",
        gaps_opened=tuple(opened),
        gaps_closed=tuple(closed),
        gaps_changed=tuple(changed),
        completeness=_completeness_changes(base, head),
        flags_raised=tuple(raised),
        flags_cleared=tuple(cleared),
        triples_added=len(new_triples.keys() - old_triples.keys()),
        triples_removed=len(old_triples.keys() - new_triples.keys()),
        corpus=_corpus_change(base, head),
    )


def _triples(signals: Mapping[str, Any]) -> dict[tuple[str, str, str], Mapping[str, Any]]:
    return {(t["model"], t["benchmark"], t["metric"]): t for t in signals.get("triples") or ()}


def _gap(triple: Mapping[str, Any] | None) -> tuple[bool, tuple[str, ...] | None]:
    if triple is None:
        return False, None
    repro = triple.get("reproducibility") or {}
    return bool(repro.get("gap")), tuple(repro.get("missing") or ())


def _flag(triple: Mapping[str, Any] | None) -> bool | None:
    if triple is None:
        return None
    return (triple.get("comparability") or {}).get("flag")


def _flag_change(key: tuple[str, str, str], old: Mapping[str, Any] | None, new: Mapping[str, Any] | None,
                 flagged: Mapping[str, Any] | None) -> FlagChange:
    comparability = (flagged or {}).get("comparability") or {}
    kinds = tuple(k for k in ("variant", "cross_party") if (comparability.get(k) or {}).get("flag") is True)
    spreads = [comparability[k].get("spread") for k in kinds if comparability[k].get("spread") is not None]
    return FlagChange(
        triple=TripleRef(*key),
        old_flag=_flag(old),
        new_flag=_flag(new),
        old_present=old is not None,
        new_present=new is not None,
        kinds=kinds,
        spread=round(max(spreads), RATE_DECIMALS) if spreads else None,
    )


def _completeness_changes(base: Mapping[str, Any], head: Mapping[str, Any]) -> tuple[CompletenessChange, ...]:
    old = {b["benchmark"]: b for b in base.get("benchmarks") or ()}
    new = {b["benchmark"]: b for b in head.get("benchmarks") or ()}
    changes = []
    for name in sorted(old.keys() | new.keys()):
        a, b = old.get(name), new.get(name)
        old_c = a.get("completeness") if a else None
        new_c = b.get("completeness") if b else None
        old_fields, new_fields = _field_scores(a), _field_scores(b)
        gained = tuple(f for f in sorted(new_fields) if new_fields[f] > old_fields.get(f, 0.0))
        lost = tuple(f for f in sorted(old_fields) if old_fields[f] > new_fields.get(f, 0.0))
        if a is not None and b is not None and old_c == new_c and not gained and not lost \
                and bool(a.get("has_card")) == bool(b.get("has_card")):
            continue
        changes.append(CompletenessChange(
            benchmark=name,
            old=old_c,
            new=new_c,
            delta=round(new_c - old_c, RATE_DECIMALS) if old_c is not None and new_c is not None else None,
            old_fully_missing=a.get("fully_missing") if a else None,
            new_fully_missing=b.get("fully_missing") if b else None,
            old_has_card=bool(a.get("has_card")) if a else None,
            new_has_card=bool(b.get("has_card")) if b else None,
            fields_gained=gained,
            fields_lost=lost,
        ))
    # Largest completeness move first; appearing or vanishing benchmarks count as their whole C(b).
    changes.sort(key=lambda c: (-abs(c.delta if c.delta is not None else (c.new or c.old or 0.0)), c.benchmark))
    return tuple(changes)


def _field_scores(benchmark: Mapping[str, Any] | None) -> dict[str, float]:
    if benchmark is None:
        return {}
    return {f["field"]: float(f.get("score") or 0.0) for f in benchmark.get("fields") or ()}


def _corpus_change(base: Mapping[str, Any], head: Mapping[str, Any]) -> CorpusChange:
    old, new = base.get("corpus") or {}, head.get("corpus") or {}
    return CorpusChange(
        old_triples=old.get("triples"),
        new_triples=new.get("triples"),
        old_gap_rate=old.get("reproducibility_gap_rate"),
        new_gap_rate=new.get("reproducibility_gap_rate"),
        old_completeness_median=old.get("completeness_median"),
        new_completeness_median=new.get("completeness_median"),
    )
