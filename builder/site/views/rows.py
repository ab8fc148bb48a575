"""A model's leaderboard row and the lookups the page builders share (`Context`).

The row is made once per evaluation and shown by the leaderboard, the model page and the
evaluation lists; intervals are made once per (model, task) and shown by the model page
and the task page."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from ...results import BuildResults
from ...stats.bands import Bands
from ...stats.board import EvaluationRow, Score, TaskResult
from ...stats.verdicts import PairedResult
from .. import format as fmt
from ..urls import board_path, page_path
from . import premises
from .base import Badge, BandView, Interval, Ref, TieMark
from .evalcards import Cards
from .facets import groups_attribute


@dataclass(frozen=True)
class ModelRow:
    id: str
    path: str
    #: The row's HTML id on lists of evaluations: it names the evaluation, never its rank.
    anchor: str
    label: str
    model: str
    template_name: str
    sampler: str
    rank: int | None
    rank_range: tuple[int, int] | None
    complete: bool
    missing_tasks: tuple[str, ...]
    score: Interval | None
    avg_tokens: float | None
    score_per_token: float | None
    score_per_token_band: BandView | None
    truncation_rate: float | None
    tie_next: TieMark
    #: How many other ranked models' intervals overlap this one (the list itself grows with
    #: the square of the number of models; the rank range says where they sit).
    tied_count: int
    badges: tuple[Badge, ...]
    simulated: bool
    #: Shown instead of the truncation rate / the token figures when the evaluation's
    #: harness could not record them (INGEST.md section 6): never a misleading 0.
    truncation_note: str | None = None
    tokens_note: str | None = None
    #: Why the score per token and its band are withheld (answers capped), or None.
    score_per_token_note: str | None = None
    #: What makes the ReasonScore interval as wide as it is, from this evaluation's numbers.
    width_causes: tuple[str, ...] = ()
    #: evals.json groups ("family:llama"): the facets a reader filters by.
    groups: tuple[str, ...] = ()
    #: Why a complete evaluation is not ranked (SAMPLES.md section 4): "fewer than 20
    #: samples on hellaswag"; None when it is ranked or incomplete.
    preliminary: str | None = None
    #: Why no band rates its score per token although it has one: a task result on the
    #: board rests on fewer than `min_samples` samples ("fewer than 20 samples on
    #: oxdna_simple"), whether the evaluation is preliminary or also incomplete.
    thin_evidence: str | None = None

    @property
    def rank_text(self) -> str:
        if self.rank is None:
            return "unranked"
        best, worst = self.rank_range or (self.rank, self.rank)
        return str(self.rank) if best == worst else f"{self.rank} ({best}–{worst})"

    @property
    def rank_range_text(self) -> str:
        if self.rank_range is None:
            return ""
        best, worst = self.rank_range
        return f"could rank anywhere from {best} to {worst}" if best != worst else "rank is certain"

    @property
    def filter_text(self) -> str:
        return " ".join([self.label, self.model, self.template_name, self.sampler]).lower()

    @property
    def ref(self) -> Ref:
        return Ref(self.label, self.path)

    @property
    def groups_text(self) -> str:
        return groups_attribute(self.groups)


def score_interval(bands: Bands, rs: Score, ranked: bool = True) -> Interval | None:
    """A ReasonScore interval with its band (only when `ranked`: a score over fewer tasks
    than the board's is not banded as if ranked) and its CI-width category."""
    if rs.center is None or rs.margin is None or rs.ci_low is None or rs.ci_high is None:
        return None
    return Interval(rs.center, rs.margin, rs.ci_low, rs.ci_high, "score",
                    band=BandView.of("reasonscore", bands.reasonscore(rs.center)) if ranked else None,
                    width=BandView.of("ci_width", bands.ci_width(rs.margin)))


def task_interval(bands: Bands, estimate: float | None, low: float | None, high: float | None) -> Interval | None:
    """A task interval: midpoint ± half-width of `[low, high]`.

    Its band reads the estimate on the ReasonScore scale (1000 × p): a model with this
    score on every task would have that ReasonScore. The guide page says so.
    """
    if low is None or high is None:
        return None
    center = (low + high) / 2
    band = BandView.of("reasonscore", bands.reasonscore(1000 * (estimate if estimate is not None else center)))
    return Interval(center, (high - low) / 2, low, high, "probability", band=band, estimate=estimate)


@dataclass
class Context:
    """Lookups shared by the page builders (not part of the model)."""

    results: BuildResults
    bands: Bands
    models: tuple[EvaluationRow, ...]
    by_id: dict[str, EvaluationRow]
    paths: dict[str, str]
    labels: dict[str, str]
    anchors: dict[str, str]
    task_paths: dict[str, str]
    simulated: dict[str, bool]
    cards: Cards
    rows: dict[str, ModelRow] = field(default_factory=dict)
    #: One `Ref` per model, shared by every list that links it (tie lists hold ~10^5 links).
    refs: dict[str, Ref] = field(default_factory=dict)
    task_refs: dict[str, Ref] = field(default_factory=dict)

    #: Task intervals by (model id, task): the model page and the task page show the same one.
    intervals: dict[tuple[str, str], Interval | None] = field(default_factory=dict)
    #: Each model's position in leaderboard order (filled on first use).
    positions: dict[str, int] = field(default_factory=dict)
    #: The boards' page slugs, in config order (the first board is the front page).
    board_slugs: list[str] = field(default_factory=list)
    #: Whether the front page is the matrix (no board ranks two evaluations).
    front_matrix: bool = False
    #: Each board's rows by evaluation id (filled on first use).
    boards_by_id: dict[str, dict[str, EvaluationRow]] = field(default_factory=dict)

    def board_refs(self) -> tuple[Ref, ...]:
        """A link to each board's first page, the front page first."""
        return tuple(Ref(b.name, "index.html" if k == 0 else board_path(self.board_slugs[k]))
                     for k, b in enumerate(self.results.boards))

    def board_rows(self, name: str) -> dict[str, EvaluationRow]:
        """The rows of the board called `name`, by evaluation id."""
        if not self.boards_by_id:
            self.boards_by_id.update((b.name, {m.id: m for m in b.leaderboard.models}) for b in self.results.boards)
        return self.boards_by_id.get(name, {})

    def board_page(self, model_id: str) -> str:
        """The leaderboard page holding the model's row (its anchor is `anchors[model_id]`):
        where the models it may be tied with are listed, by rank."""
        if not self.positions:
            self.positions.update((m.id, n) for n, m in enumerate(self.models))
        size = max(1, int(self.results.config.page_size))
        page = self.positions[model_id] // size + 1
        return page_path("index", "", page)

    @property
    def min_samples(self) -> int:
        return int(self.results.config.min_samples)

    def preliminary_text(self, samples: int | None) -> str:
        """Why a task result has no rank and no band (SAMPLES.md section 4): "preliminary:
        3 samples, fewer than 20"; the task page and the model page say it the same way."""
        n = samples or 0
        return f"preliminary: {fmt.count(n)} sample{'' if n == 1 else 's'}, fewer than {self.min_samples}"

    def thin_text(self, tasks: Sequence[str]) -> str | None:
        """Which of an evaluation's tasks rest on too few samples to rank it: "fewer than 20
        samples on a, b"; None when none does."""
        return f"fewer than {self.min_samples} samples on {', '.join(tasks)}" if tasks else None

    def task_interval(self, model_id: str, task: str, t: TaskResult) -> Interval | None:
        """The interval of a task result; a preliminary one (fewer than `min_samples`
        samples, SAMPLES.md section 4) is shown without a band."""
        key = (model_id, task)
        if key not in self.intervals:
            interval = task_interval(self.bands, t.estimate, t.low, t.high)
            if interval is not None and t.preliminary:
                interval = replace(interval, band=None)
            self.intervals[key] = interval
        return self.intervals[key]

    def task_ref(self, task: str) -> Ref:
        """One `Ref` per task, shared by the model pages listing it."""
        ref = self.task_refs.get(task)
        if ref is None:
            ref = self.task_refs[task] = Ref(task, self.task_paths.get(task, ""))
        return ref

    def ref(self, model_id: str) -> Ref:
        ref = self.refs.get(model_id)
        if ref is None:
            ref = self.refs[model_id] = Ref(self.labels[model_id], self.paths[model_id])
        return ref


def model_row(ctx: Context, m: EvaluationRow, paired: Mapping[str, PairedResult] | None = None,
              board_tasks: Sequence[str] = ()) -> ModelRow:
    """A board's row of `m`; its tie mark follows the paired test against the next row where
    `paired` (that board's adjacent tests) has one, else interval overlap. `board_tasks`: the
    board's tasks, over which its score per token is computed."""
    e = m.evaluation
    tokens_note = premises.tokens_note(e, m)
    behind = {t: m.tasks[t] for t in board_tasks if t in m.tasks}
    spt_note = premises.score_per_token_note(e, m.avg_tokens, behind)
    spt = None if tokens_note else m.score_per_token
    # Preliminary rows have no rank, so neither band (SAMPLES.md section 4): the reason instead.
    # An incomplete evaluation's present tasks can be as thin: its band is withheld alike.
    thin = ctx.thin_text(m.preliminary_tasks)
    preliminary = thin if m.status == "preliminary" else None
    spt_band = (None if tokens_note or spt_note or thin
                else BandView.of("score_per_token", ctx.bands.score_per_token(spt)))
    score = score_interval(ctx.bands, m.score, ranked=m.rank is not None)
    # Causes are named for any interval wider than the tightest band.
    wide = score is not None and score.width is not None and score.width.key != ctx.bands.scales["ci_width"][-1].key
    return ModelRow(
        id=e.id, path=ctx.paths[e.id], anchor=ctx.anchors[e.id], label=e.label, model=e.model,
        template_name=e.template, sampler=e.sampler, rank=m.rank, rank_range=m.rank_range,
        complete=m.complete, missing_tasks=m.missing_tasks,
        score=score,
        avg_tokens=None if tokens_note else m.avg_tokens, score_per_token=spt, score_per_token_band=spt_band,
        truncation_rate=m.truncation_rate,
        tie_next=TieMark.of(None if m.distinct_from_next is None else not m.distinct_from_next,
                            (paired or {}).get(e.id), mode=ctx.results.leaderboard.settings.mode),
        tied_count=m.tied_count,
        badges=ctx.cards.model_badges(e.id),
        simulated=ctx.simulated[e.id],
        truncation_note=premises.truncation_note(e, m.tasks.values()), tokens_note=tokens_note,
        score_per_token_note=spt_note,
        # The interval is the board's score: its causes are read from the board's tasks only.
        width_causes=premises.width_causes(m, e.truncation_observed, behind if board_tasks else None) if wide else (),
        groups=e.groups, preliminary=preliminary, thin_evidence=thin,
    )
