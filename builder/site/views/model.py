"""A model's pages: one per evaluation (`ModelPage`), and one per model with several
evaluations (`ModelGroupPage`) listing them."""

from __future__ import annotations

from dataclasses import dataclass

from ...sampleoutputs import samples_path
from ...stats.board import EvaluationRow, ModeEstimate
from ...stats.cost import evaluation_cost
from ...stats.pairwise import NEIGHBOUR_REACH
from ...stats.verdicts import PairedResult
from ...vocabulary import MODES
from .. import format as fmt
from ..charts import Chart
from ..urls import page_path
from . import premises
from .analyses import ModelAnalyses, model_analyses
from .base import BandView, Interval, Page, Ref, p_text, paired_number
from .cards import ReportedResults
from .cost import CostView, cost_view
from .history import HistoryView, history_view
from .rows import Context, ModelRow, score_interval

#: Nearest neighbours (each side) whose win rates a model page shows: the statistics' reach,
#: whose pairs alone get a paired test. A row further out would print "—" under a caption
#: giving a reason (too few shared items) that is not the real one.
NEIGHBOURS = NEIGHBOUR_REACH


#: How each estimator counts a truncated trial, by its last letter (the per-task chart's caption).
TRUNCATION_RULES = {"I": "truncated trials left out", "P": "truncation counted as failure",
                    "O": "truncation counted as success"}


@dataclass(frozen=True)
class TaskResult:
    task: Ref
    interval: Interval
    total: int
    truncated: int
    correct: int
    tokens_per_trial: float | None
    truncation_rate: float | None
    #: (estimate, low, high) of each estimator in `MODES` order; None where it has no value.
    modes: tuple[tuple[float, float, float] | None, ...]
    truncation_note: str | None = None
    tokens_note: str | None = None
    #: Distinct samples, and the effective trials the interval counts (SAMPLES.md section 2).
    samples: int | None = None
    effective_trials: float | None = None
    #: Why the result has no band: "preliminary: 1 sample, fewer than 20" (SAMPLES.md §4).
    preliminary: str | None = None

    @property
    def trials_text(self) -> str:
        """"50", or "50 (10 samples × 5 epochs)" when samples were answered more than once."""
        return fmt.trials(self.total, self.samples)


def credit_note(task: str, total: int, partial: int | None, harness: tuple[str, float] | None) -> str | None:
    """What a reader needs when the harness gave partial credit or scores the task itself:
    "lingoly: 11 of 26 trials partially correct, counted as not correct; the harness reports
    48.1 % (accuracy)". None when there is neither."""
    parts = []
    if partial:
        parts.append(f"{fmt.count(partial)} of {fmt.count(total)} trials partially correct, counted as not correct")
    if harness is not None:
        metric, value = harness
        figure = fmt.percent(value) if 0 <= value <= 1 else f"{value:g}"
        parts.append(f"the harness reports {figure} ({metric})")
    return f"{task}: " + "; ".join(parts) if parts else None


@dataclass(frozen=True)
class TierRow:
    tier: str
    reasonscore: str
    band: BandView | None
    avg_tokens: str


@dataclass(frozen=True)
class Neighbour:
    model: Ref
    rank: int | None
    win_rate: float | None   # P(this model beats the neighbour)
    loss_rate: float | None  # P(the neighbour beats this model)
    tasks_shared: int
    #: The paired test of the ReasonScore difference on shared items, when there is one.
    paired: PairedResult | None = None
    #: The neighbour's evaluation id.
    id: str = ""

    @property
    def paired_text(self) -> str:
        t = self.paired
        if t is None:
            return "—"
        return f"{paired_number(t.effect, 'points')} ({paired_number(t.low, 'points')} to {paired_number(t.high, 'points')})"

    @property
    def p_text(self) -> str:
        return "—" if self.paired is None else p_text(self.paired.p, self.paired.method)

    @property
    def verdict(self) -> str:
        if self.paired is None:
            return "—"
        return "distinct" if self.paired.significant else "not distinguishable"

    @property
    def win_text(self) -> str:
        return fmt.win_rate(self.win_rate)

    @property
    def loss_text(self) -> str:
        return fmt.win_rate(self.loss_rate)


@dataclass(frozen=True)
class Setting:
    """One line of an evaluation's setup (`temperature: 0.7`)."""

    name: str
    value: str


@dataclass(frozen=True)
class BoardStanding:
    """Where an evaluation stands on one board: its rank and score there, or why it has none:
    the tasks it misses, or (having them all) the tasks with too few samples to rank, which
    make it preliminary; "missing" alone would then name nothing."""

    board: Ref
    rank_text: str
    score: Interval | None
    missing: tuple[str, ...]
    tasks: int
    preliminary: str | None = None


@dataclass(frozen=True)
class ModelPage(Page):
    row: ModelRow
    hf_id: str | None
    organization: str | None
    relationship: str | None
    harness: str | None
    settings: tuple[Setting, ...]
    groups: tuple[str, ...]
    task_results: tuple[TaskResult, ...]
    chart: Chart | None
    #: What 0 means on the per-task chart (`premises.chance_note`).
    chance: str
    tiers: tuple[TierRow, ...]
    score_per_token_v1: str | None
    neighbours: tuple[Neighbour, ...]
    #: Neighbours whose interval overlaps this one (counted in `tied_count`) but whose paired
    #: test calls them distinct: "statistically tied" would contradict the table for them.
    tied_apart: tuple[Ref, ...]
    #: This model's reported result rows with their signals.
    reported: ReportedResults
    #: The model's page when it has several evaluations (this page is one of them), else None.
    parent: Ref | None = None
    #: The fewest shared items a paired comparison needs (config `min_samples`).
    min_samples: int = 0
    #: The leaderboard page holding this model's row (anchor `row.anchor`), among the
    #: models it may be tied with.
    board: str = "index.html"
    modes: tuple[str, ...] = MODES
    #: Its standing on every board (PRODUCT.md "Boards"), the front page's first.
    boards: tuple[BoardStanding, ...] = ()
    #: How many of the front page board's tasks it has (its score there is over these).
    board_tasks_present: int = 0
    #: Per task with partial credit or the harness's own figure (`credit_note`).
    credit_notes: tuple[str, ...] = ()
    #: Site path of its per-sample outcomes (SAMPLES.md section 5), when published.
    samples: str | None = None
    #: Its score across the project's releases and this build; None when in no release.
    history: HistoryView | None = None
    #: Its prices and what its run cost; None when evals.json gives no price.
    cost: CostView | None = None
    #: Compression, token hazard and budget sweep, for an evaluation with per-sample trials.
    analyses: ModelAnalyses | None = None
    #: The estimator of the per-task table and chart (site setting `mode`), and how it counts
    #: a truncated trial: a site built with E_P must not label its figures C_P.
    mode: str = "C_P"
    truncation_rule: str = "truncation counted as failure"

    @property
    def charts(self) -> tuple[Chart, ...]:
        own = tuple(c for c in (self.chart, self.history.chart if self.history else None) if c is not None)
        return own + (self.analyses.charts if self.analyses else ())


@dataclass(frozen=True)
class EvaluationSummary:
    """One evaluation as its model's page lists it: the leaderboard row and its settings."""

    row: ModelRow
    settings: tuple[Setting, ...]

    @property
    def settings_text(self) -> str:
        return ", ".join(f"{s.name} {s.value}" for s in self.settings) or fmt.MISSING


@dataclass(frozen=True)
class ModelGroupPage(Page):
    """`models/<model>.html` of a model with several evaluations (template/sampler pairs).

    Its address depends on the model name only: adding or removing an evaluation changes
    what it lists, never where it is, so links to a model keep working.
    Each evaluation has its own page under it.
    """

    model: str
    label: str
    evaluations: tuple[EvaluationSummary, ...]


def settings_of(m: EvaluationRow) -> tuple[Setting, ...]:
    args = m.evaluation.generation_args
    return tuple(Setting(str(k), fmt.setting(v)) for k, v in sorted(args.items()))


def model_groups(ctx: Context) -> list[ModelGroupPage]:
    """The page of each model with several evaluations, listing them in leaderboard order."""
    members: dict[str, list[EvaluationRow]] = {}
    model_slug: dict[str, str] = {}
    for m in ctx.models:
        members.setdefault(m.model, []).append(m)
        model_slug[m.model] = m.evaluation.model_slug
    pages = []
    for name in sorted(n for n, ms in members.items() if len(ms) > 1):
        rows = tuple(EvaluationSummary(ctx.rows[m.id], settings_of(m)) for m in members[name])
        first = members[name][0]
        # The evals.json label without the "(template, sampler)" that tells the rows apart.
        label = first.label.removesuffix(f" ({first.template}, {first.sampler})")
        pages.append(ModelGroupPage(
            path=page_path("models", model_slug[name]), title=label, template="model_group.html",
            simulated=any(r.row.simulated for r in rows),
            description=f"The {len(rows)} evaluations of {label}: one per prompt template and sampler",
            model=name, label=label, evaluations=rows))
    return pages


def draws_chart(m: EvaluationRow, history: object = (), has_analyses: bool = False) -> bool:
    """Whether the model page of `m` draws a chart: when it lists a task result, i.e. a
    task with an interval, has a history across releases, or per-sample analyses. Known
    before the page is made (`Deferred`)."""
    return bool(history) or has_analyses or any(t.has_interval for t in m.tasks.values())


def model_page(ctx: Context, m: EvaluationRow, parent: Ref | None = None) -> ModelPage:
    row = ctx.rows[m.id]
    e = m.evaluation
    task_results = []
    for task, t in m.tasks.items():
        interval = ctx.task_interval(m.id, task, t)
        if interval is None:
            continue
        total = t.total
        task_results.append(TaskResult(
            task=ctx.task_ref(task), interval=interval, total=total,
            truncated=t.truncated, correct=t.correct,
            tokens_per_trial=(t.tokens / total) if total and t.tokens is not None else None,
            truncation_rate=(t.truncated / total) if total else None,
            modes=_mode_values(t.modes),
            truncation_note=premises.truncation_note(e, [t]),
            tokens_note=premises.task_tokens_note(row.tokens_note, t),
            samples=t.samples, effective_trials=t.effective_trials,
            preliminary=ctx.preliminary_text(t.samples) if t.preliminary else None,
        ))
    mode = ctx.results.leaderboard.settings.mode
    chart = None
    if task_results:  # drawn from its twin, the task results table: no rows of its own
        chart = Chart(kind="forest-probability", id="task-intervals", twin="task-results", from_twin=True,
                      label=f"{mode} intervals of {row.label} on each of {len(task_results)} tasks", rows=())
    tiers = tuple(
        TierRow(tier, fmt.score(v.reasonscore),
                BandView.of("reasonscore", ctx.bands.reasonscore(v.reasonscore)), fmt.tokens(v.avg_tokens))
        for tier, v in sorted(m.tiers.items(), key=lambda kv: _tier_order(kv[0])))
    spt_v1 = m.score_per_token_v1
    settings = settings_of(m)
    notes = (credit_note(task, t.total, t.partial, e.harness_scores.get(task)) for task, t in m.tasks.items())
    title = row.label + ("" if row.complete else " (incomplete)")
    neighbours = _neighbours(ctx, m.id)
    return ModelPage(
        path=row.path, title=title, template="model.html", simulated=row.simulated,
        description=f"ReasonScore, per-task intervals and Evaluation Card signals of {row.label}",
        row=row, hf_id=e.hf_id, organization=e.organization, relationship=e.relationship,
        harness=e.harness, settings=settings, groups=e.groups,
        task_results=tuple(task_results), chart=chart, tiers=tiers,
        # The E estimators keep lucky guesses: their 0 is "never right" whatever was recorded.
        chance=(premises.chance_note((task, t) for task, t in m.tasks.items() if t.has_interval)
                if mode.startswith("C") else "0 = never right"),
        mode=mode, truncation_rule=TRUNCATION_RULES[mode[-1]],
        score_per_token_v1=fmt.ratio(spt_v1) if spt_v1 is not None else None,
        neighbours=neighbours, tied_apart=_tied_apart(ctx, m, neighbours),
        reported=ctx.cards.reported_for(m.id), parent=parent,
        min_samples=ctx.results.comparisons.min_samples,
        board=ctx.board_page(m.id), boards=board_standings(ctx, m.id),
        board_tasks_present=len(ctx.results.leaderboard.settings.tasks) - len(m.missing_tasks),
        credit_notes=tuple(n for n in notes if n),
        samples=samples_path(e.slug) if e.trial_files and ctx.results.config.publish_samples else None,
        history=history_view(ctx.results.history.get(m.id, ()), row.label),
        cost=cost_view(evaluation_cost(m)),
        analyses=_analyses(ctx, m.id, row.label),
    )


def _analyses(ctx: Context, model_id: str, label: str) -> ModelAnalyses | None:
    found = ctx.results.analyses.evaluations.get(model_id)
    return model_analyses(found, label) if found is not None else None


def board_standings(ctx: Context, model_id: str) -> tuple[BoardStanding, ...]:
    """The evaluation on each board: rank and score where it is ranked, else its missing tasks."""
    out = []
    for board, ref in zip(ctx.results.boards, ctx.board_refs()):
        row = ctx.board_rows(board.name).get(model_id)
        if row is None:
            continue
        ranked = row.rank is not None
        out.append(BoardStanding(ref, ctx.rows[model_id].rank_text if board is ctx.results.boards[0] and ranked
                                 else (str(row.rank) if ranked else "not ranked"),
                                 score_interval(ctx.bands, row.score, ranked=True) if ranked else None,
                                 row.missing_tasks, len(board.tasks),
                                 ctx.thin_text(row.preliminary_tasks) if row.status == "preliminary" else None))
    return tuple(out)


#: Tier names read in difficulty order; other names follow alphabetically.
TIER_ORDER = ("easy", "medium", "hard")


def _tier_order(tier: str) -> tuple[int, str]:
    return (TIER_ORDER.index(tier) if tier in TIER_ORDER else len(TIER_ORDER), tier)


def _mode_values(modes: tuple[ModeEstimate, ...]) -> tuple[tuple[float, float, float] | None, ...]:
    """The six estimators of one task in `MODES` order (fragments.estimator_rows prints them)."""
    return tuple([None if a is None or b is None or c is None else (a, b, c) for a, b, c in modes])


def _neighbours(ctx: Context, model_id: str) -> tuple[Neighbour, ...]:
    """Win rates against the models ranked just above and below (STATISTICS.md §8)."""
    pw = ctx.results.pairwise
    ids = pw.models
    if model_id not in ids or not pw.win_rate:
        return _near_neighbours(ctx, model_id)
    paired = _paired(ctx, model_id)
    k = ids.index(model_id)
    win = pw.win_rate
    shared = pw.tasks_shared
    out = []
    for j in range(max(0, k - NEIGHBOURS), min(len(ids), k + NEIGHBOURS + 1)):
        if j == k or ids[j] not in ctx.paths:
            continue
        out.append(Neighbour(Ref(ctx.labels[ids[j]], ctx.paths[ids[j]]), ctx.by_id[ids[j]].rank,
                             win[k][j], win[j][k], int(shared[k][j]) if shared else 0, paired.get(ids[j]), ids[j]))
    return tuple(out)


def _tied_apart(ctx: Context, m: EvaluationRow, neighbours: tuple[Neighbour, ...]) -> tuple[Ref, ...]:
    """The neighbours counted as tied with `m` by interval overlap (STATISTICS.md section 7)
    that the paired test on shared items (SAMPLES.md section 5) calls distinct."""
    def overlaps(o: EvaluationRow | None) -> bool:
        return m.rank is not None and o is not None and o.rank is not None and m.score.overlaps(o.score)
    return tuple(n.model for n in neighbours if n.paired is not None and n.paired.significant
                 and overlaps(ctx.by_id.get(n.id)))


def _near_neighbours(ctx: Context, model_id: str) -> tuple[Neighbour, ...]:
    """A ranked model outside the top `pairwise_top`: its win rates against the models on
    either side, which statistics computes for every ranked model (`neighbours`)."""
    near = ctx.results.pairwise.neighbours
    paired = _paired(ctx, model_id)
    out = []
    for entry in near.get(model_id, ()):
        other = entry.id
        if other not in ctx.paths:
            continue
        back = next((e.win_rate for e in near.get(other, ()) if e.id == model_id), None)
        out.append(Neighbour(Ref(ctx.labels[other], ctx.paths[other]), ctx.by_id[other].rank,
                             entry.win_rate, back, entry.tasks_shared, paired.get(other), other))
    return tuple(out)


def _paired(ctx: Context, model_id: str) -> dict[str, PairedResult]:
    """The model's paired tests against its neighbours, by the neighbour's id."""
    return {r.other: r for r in ctx.results.comparisons.neighbours.get(model_id, ())}
