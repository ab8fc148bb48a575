"""The score-change report model: frozen dataclasses, what `compare` makes and the markdown
module renders, and the outcomes a score move can have (asv's ++ / !! / ~ / = / x).

`ScoreChangeReport.to_json()` is the report's JSON form (schema `SCHEMA`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from ..stats.board import Score
from ..stats.verdicts import PairedVerdict

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
#: Paired on shared items and not significant after Holm (the overlap rule's `~` is WITHIN_INTERVALS).
NOT_SIGNIFICANT = "not_significant"

#: Which rule decided a change: the paired test on shared items (both builds publish
#: per-sample outcomes) or interval overlap.
PAIRED = "paired"
OVERLAP = "overlap"


@dataclass(frozen=True)
class ModelRef:
    """A leaderboard row named the way a reader knows it (label) and the way data does (id)."""

    id: str
    label: str


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
    #: `PAIRED` or `OVERLAP`: which rule gave `significance`, and the paired test when paired.
    rule: str = OVERLAP
    test: PairedVerdict | None = None
    #: Why the overlap rule speaks for this line (no per-sample data, too few shared items).
    rule_note: str = ""

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
    of them; the pairs (from `tied_with`, models ranked in both builds only) say the same
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
        return tuple(c for c in self.changed
                     if c.significance in (WITHIN_INTERVALS, NOT_SIGNIFICANT, SCORE_UNCHANGED, NOT_COMPARABLE))

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
            "not_significant": len(self.by_significance(NOT_SIGNIFICANT)),
            "paired": sum(1 for c in self.changed if c.rule == PAIRED),
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
        data: dict[str, Any] = _plain(asdict(self))
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
