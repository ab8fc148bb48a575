"""The typed results of the leaderboard statistics: what `compute_leaderboard` hands the
later stages.

Every number is already rounded as `leaderboard.json` and `pairwise.json` publish it
(scores to 3 places, probabilities and ratios to 6, `-0.0` made `0.0`, NaN made None), so
the pages, the export and the data files read the same values; `outputs` writes the JSON
documents from these objects, which are the contract between the stages, not the JSON.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, NamedTuple

from .evaluations import Evaluation

#: (estimate, low, high) of one estimator; None where it has no value.
ModeEstimate = tuple[float | None, float | None, float | None]


@dataclass(frozen=True, slots=True)
class Score:
    """A ReasonScore with its 95 % interval: `center ± margin`, `[ci_low, ci_high]`.

    All four are None for a model that has none of the configured tasks (`leaderboard.json`
    has them as null); the score-change report reads published scores into this too."""

    center: float | None
    margin: float | None
    ci_low: float | None
    ci_high: float | None

    @property
    def known(self) -> bool:
        return None not in (self.center, self.margin, self.ci_low, self.ci_high)

    def overlaps(self, other: Score) -> bool:
        """Whether both intervals are known and overlap (closed intervals: the tie rule of
        STATISTICS.md section 7, `significance.overlaps`)."""
        if self.ci_low is None or self.ci_high is None or other.ci_low is None or other.ci_high is None:
            return False
        return not (other.ci_low > self.ci_high or self.ci_low > other.ci_high)


@dataclass(frozen=True, slots=True)
class TaskResult:
    """One evaluation on one task: summed counters (raw trials) and the estimators (which
    read the effective counters)."""

    total: int
    truncated: int
    correct: int
    guess: float | None
    tokens: float | None
    #: The site's estimator (`config.mode`): estimate and 95 % interval.
    estimate: float | None
    low: float | None
    high: float | None
    #: Every estimator, in `vocabulary.MODES` order.
    modes: tuple[ModeEstimate, ...]
    #: Distinct samples (SAMPLES.md section 2: from the trials, a points file's `samples`
    #: column, else `total`) and the effective number of trials the estimators counted
    #: (total divided by the design effect, point by point; 3 decimals).
    samples: int | None = None
    effective_trials: float | None = None
    #: Fewer than `min_samples` samples (SAMPLES.md section 4): shown, never banded or ranked.
    preliminary: bool = False
    #: The items it answered (SAMPLES.md section 3): its samples when every point has trials,
    #: else None (a points file does not say which items).
    items: int | None = None
    #: Trials with partial credit, counted as not correct (INGEST.md section 3); None when
    #: no point has trials (a points file does not say).
    partial: int | None = None

    @property
    def epochs(self) -> float:
        """Mean trials per sample (`m̄`): above 1 when samples were answered several times."""
        return self.total / self.samples if self.samples else 1.0

    @property
    def has_interval(self) -> bool:
        """Whether the site's estimator gave an interval: the rows a task page ranks and a
        model page lists (without one, the task page lists the model as missing)."""
        return self.low is not None and self.high is not None


@dataclass(frozen=True, slots=True)
class TierResult:
    """The v1 ReasonScore and average tokens of one difficulty tier."""

    reasonscore: float | None
    avg_tokens: float | None


@dataclass(frozen=True, slots=True)
class EvaluationRow:
    """One evaluation's leaderboard row: its rank and every statistic of it."""

    evaluation: Evaluation
    complete: bool
    missing_tasks: tuple[str, ...]
    #: None for an incomplete or preliminary evaluation (it gets no rank).
    rank: int | None
    rank_range: tuple[int, int] | None
    score: Score
    band: str | None
    avg_tokens: float | None
    score_per_token: float | None
    truncation_rate: float | None
    #: How many other ranked evaluations' intervals overlap this one.
    tied_count: int
    distinct_from_next: bool | None
    #: The tasks it has points on, in the leaderboard's task order.
    tasks: Mapping[str, TaskResult]
    tiers: Mapping[str, TierResult]
    score_per_token_v1: float | None
    #: SAMPLES.md section 4: "ranked"; "preliminary" when a task of the board has fewer than
    #: `min_samples` samples (`preliminary_tasks`); "incomplete" when a task is missing.
    status: str = "ranked"
    preliminary_tasks: tuple[str, ...] = ()

    @property
    def id(self) -> str:
        return self.evaluation.id

    @property
    def slug(self) -> str:
        return self.evaluation.slug

    @property
    def model(self) -> str:
        return self.evaluation.model

    @property
    def template(self) -> str:
        return self.evaluation.template

    @property
    def sampler(self) -> str:
        return self.evaluation.sampler

    @property
    def label(self) -> str:
        return self.evaluation.label


@dataclass(frozen=True, slots=True)
class TieGroup:
    """A maximal set of ranked evaluations whose intervals all overlap, in constant size:
    its rank span, its size, and `at`, the published score every member's interval
    contains (the largest lower bound among them). Its members are exactly the ranked
    evaluations with `ci_low <= at <= ci_high`."""

    ranks: tuple[int, int]
    size: int
    at: float | None


@dataclass(frozen=True, slots=True)
class Settings:
    """The settings the leaderboard was computed under (echoed in `leaderboard.json`)."""

    mode: str
    bootstrap: int
    seed: int
    tasks: tuple[str, ...]
    min_samples: int = 20


@dataclass(frozen=True, slots=True)
class Leaderboard:
    settings: Settings
    #: Ranked evaluations in rank order, then the incomplete ones.
    models: tuple[EvaluationRow, ...]
    tie_groups: tuple[TieGroup, ...]


@dataclass(frozen=True, slots=True)
class RankedBoard:
    """One board (PRODUCT.md "Boards"): its name, description and tasks, and its own
    leaderboard: every evaluation, ranked when it has every task of the board, with its
    ReasonScore over the board's tasks. Each row's `tasks` holds every task the evaluation
    has, on the board or not, so no result is hidden by a board."""

    name: str
    description: str
    leaderboard: Leaderboard

    @property
    def tasks(self) -> tuple[str, ...]:
        return self.leaderboard.settings.tasks

    @property
    def ranked(self) -> int:
        return sum(1 for m in self.leaderboard.models if m.rank is not None)


@dataclass(frozen=True, slots=True)
class NeighbourRate:
    """P(this evaluation beats the neighbour `id`) over the tasks both have."""

    id: str
    win_rate: float | None
    tasks_shared: int


@dataclass(frozen=True, slots=True)
class Strength:
    """A Bradley–Terry strength and its rank among the top evaluations."""

    id: str
    strength: float | None
    rank: int


@dataclass(frozen=True, slots=True)
class Pairwise:
    """The win-rate matrix and Bradley–Terry ranking of the top evaluations (`models`, in
    rank order), and every ranked evaluation's win rates against its neighbours (§8)."""

    models: tuple[str, ...]
    #: `win_rate[a][b]`: P(models[a] beats models[b]).
    win_rate: tuple[tuple[float | None, ...], ...]
    tasks_shared: tuple[tuple[int, ...], ...]
    expected_wins: Mapping[str, float | None]
    bradley_terry: tuple[Strength, ...]
    neighbours: Mapping[str, tuple[NeighbourRate, ...]]


class CurvePoint(NamedTuple):
    """C_P of one evaluation at one level of a difficulty coordinate.

    A NamedTuple, not a dataclass like its neighbours: a 2,500-evaluation build makes
    217,000 of them, and a tuple is made four times faster than a frozen dataclass."""

    id: str
    value: str
    estimate: float | None
    low: float | None
    high: float | None
    n: int


#: Difficulty curves: task -> coordinate -> points, by evaluation id then level. Only for the
#: evaluations the task's page lists (`TaskRanking.listed`, the first `page_size` of its
#: ranking): nothing else reads them, and every evaluation's would grow with the board
#: (870,000 points at 10,000 evaluations). A coordinate is present when a listed evaluation
#: has a point at one of its levels; a task without such a point maps to an empty dict.
Curves = Mapping[str, Mapping[str, tuple[CurvePoint, ...]]]
