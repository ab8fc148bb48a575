"""The page model: frozen dataclasses holding exactly what each page shows (STYLE.md data flow).

`build_page_model(results)` turns the build's statistics and signals into one `SiteModel`:
a list of pages, each knowing its output path, its title, whether it shows simulated data,
and every figure it prints, already paired with its band and interval. Templates only
display these objects; nothing here does I/O or produces HTML.

Scale (PRODUCT.md, and the later 5,000-model issue): no page embeds a list of every model.
The leaderboard paginates (`page_size`); task pages chart at most `CURVE_SERIES` models
and list at most `page_size` rows; the navigation is the same handful of links everywhere.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Iterable, Sequence

import numpy as np

from ..stats.bands import Band, Bands
from ..stats.significance import overlaps, rank_ranges
from . import format as fmt
from .charts import Chart
from .markdown import ContentPage
from ..slugs import evaluation_slugs, unique_slugs
from .urls import evaluation_page_path, page_path
from ..vocabulary import MODES

#: Difficulty curves draw this many models per chart; more lines stop being readable.
CURVE_SERIES = 8
#: Nearest neighbours (each side) whose win rates a model page shows.
NEIGHBOURS = 3


# -- shared pieces -------------------------------------------------------------------

@dataclass(frozen=True)
class BandView:
    """An interpretation band as the reader sees it: label and the guide's wording."""

    scale: str
    key: str
    label: str
    text: str
    low: float | None = None
    high: float | None = None

    @classmethod
    def of(cls, scale: str, band: Band | None) -> "BandView | None":
        return None if band is None else cls(scale, band.key, band.label, band.text, band.low, band.high)

    @property
    def range_text(self) -> str:
        """"700 to below 900", or "900 and above" for the open top band."""
        low = f"{self.low:g}" if self.low is not None else fmt.MISSING
        return f"{low} and above" if self.high is None else f"{low} to below {self.high:g}"


@dataclass(frozen=True)
class Interval:
    """A 95 % interval printed as `center ± margin`, with `[low, high]` and a bar.

    `scale` is "score" (ReasonScore, 0-1000) or "probability" (a task estimate, 0-1).
    `estimate` is the point estimate when it differs from the midpoint (C_P multiplies
    two Wilson centres, so its estimate can sit slightly off the middle).
    """

    center: float
    margin: float
    low: float
    high: float
    scale: str
    band: BandView | None = None
    width: BandView | None = None
    estimate: float | None = None

    @property
    def _fmt(self):
        return fmt.score if self.scale == "score" else fmt.probability

    # The texts are cached: a cell, its bar's label and its chart point all print them.
    @cached_property
    def text(self) -> str:
        return f"{self._fmt(self.center)} ± {self._fmt(self.margin)}"

    @property
    def center_text(self) -> str:
        return self._fmt(self.center)

    @property
    def margin_text(self) -> str:
        return self._fmt(self.margin)

    @cached_property
    def range_text(self) -> str:
        return f"[{self._fmt(self.low)}, {self._fmt(self.high)}]"

    @property
    def estimate_text(self) -> str:
        return self._fmt(self.estimate if self.estimate is not None else self.center)

    @property
    def axis_max(self) -> float:
        return 1000.0 if self.scale == "score" else 1.0

    def _pct(self, x: float) -> str:
        return f"{100 * min(max(x / self.axis_max, 0.0), 1.0):.2f}"

    @property
    def bar_left(self) -> str:
        return self._pct(self.low)

    @property
    def bar_width(self) -> str:
        return f"{max(float(self._pct(self.high)) - float(self._pct(self.low)), 0.0):.2f}"

    @property
    def bar_center(self) -> str:
        return self._pct(self.center)

    @property
    def description(self) -> str:
        top = "1000" if self.scale == "score" else "1"
        return f"{self.text}, 95% interval {self.range_text} on a scale from 0 to {top}"


@dataclass(frozen=True)
class Ref:
    """A link to another page: its output path and the text to show."""

    label: str
    path: str


@dataclass(frozen=True)
class TieMark:
    """How a row relates to the next row in rank order (STATISTICS.md §7)."""

    tied: bool | None  # None for the last row

    @property
    def text(self) -> str:
        if self.tied is None:
            return ""
        return "statistically tied with the next row" if self.tied else "statistically distinct from the next row"


@dataclass(frozen=True)
class Badge:
    """One Evaluation Card signal (R, C, P or X) summarised for a model or a result.

    `state` drives styling only ("attention", "clear", "na"); `value` is the short
    wording shown in the badge and `text` the sentence a screen reader and tooltip get, so
    colour is never the only cue. Not a grade (EVALCARDS.md).
    """

    letter: str
    name: str
    state: str
    value: str
    text: str


@dataclass(frozen=True)
class NavLink:
    label: str
    path: str


@dataclass(frozen=True)
class Page:
    """What every page has. `template` names the Jinja page template."""

    path: str
    title: str
    template: str
    simulated: bool
    description: str

    @property
    def charts(self) -> tuple[Chart, ...]:
        return ()


# -- leaderboard -----------------------------------------------------------------------

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
    tied_with: tuple[Ref, ...]
    badges: tuple[Badge, ...]
    simulated: bool
    #: Shown instead of the truncation rate / the token figures when the evaluation's
    #: harness could not record them (INGEST.md section 6): never a misleading 0.
    truncation_note: str | None = None
    tokens_note: str | None = None

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


@dataclass(frozen=True)
class TieGroup:
    members: tuple[Ref, ...]
    ranks: str


@dataclass(frozen=True)
class Pager:
    """Links between numbered pages (the leaderboard's `index.html`, `index-2.html`, ...;
    a benchmark's result rows).

    It links a window of pages, not all of them (`window`), so a page's size does not grow
    with the number of pages: a 5,000-model leaderboard has 50 index pages.
    """

    current: int
    pages: tuple[NavLink, ...]

    #: Pages shown on each side of the current one; the first and last are always shown.
    SPAN = 2

    @property
    def window(self) -> tuple[NavLink | None, ...]:
        """The pages to link, in order, with `None` where a run of pages is left out.

        All pages when there are few; otherwise the first, the last and `SPAN` pages on
        each side of the current one. A gap of a single page shows that page instead of
        an ellipsis, which would take as much room.
        """
        n = len(self.pages)
        keep = {1, n, *range(self.current - self.SPAN, self.current + self.SPAN + 1)}
        shown = sorted(k for k in keep if 1 <= k <= n)
        out: list[NavLink | None] = []
        for k in shown:
            if out and k - prev == 2:
                out.append(self.pages[k - 2])
            elif out and k - prev > 2:
                out.append(None)
            out.append(self.pages[k - 1])
            prev = k
        return tuple(out)

    @property
    def previous(self) -> NavLink | None:
        return self.pages[self.current - 2] if self.current > 1 else None

    @property
    def next(self) -> NavLink | None:
        return self.pages[self.current] if self.current < len(self.pages) else None


@dataclass(frozen=True)
class LeaderboardPage(Page):
    ranked: tuple[ModelRow, ...]
    incomplete: tuple[ModelRow, ...]
    forest: Chart | None
    tie_groups: tuple[TieGroup, ...]
    tasks: tuple[Ref, ...]
    pager: Pager | None
    first_rank: int
    total_models: int
    total_ranked: int
    mode: str
    bootstrap: int
    seed: int
    bands: tuple[BandView, ...]

    @property
    def charts(self) -> tuple[Chart, ...]:
        return (self.forest,) if self.forest else ()

    @property
    def last_row(self) -> int:
        return self.first_rank + len(self.ranked) + len(self.incomplete) - 1


# -- model pages -----------------------------------------------------------------------

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
    tiers: tuple[TierRow, ...]
    score_per_token_v1: str | None
    neighbours: tuple[Neighbour, ...]
    reported: Any  # evalcards.ReportedResults: this model's result rows with their signals
    #: The model's page when it has several evaluations (this page is one of them), else None.
    parent: Ref | None = None
    modes: tuple[str, ...] = MODES

    @property
    def charts(self) -> tuple[Chart, ...]:
        return (self.chart,) if self.chart else ()


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
    what it lists, never where it is, so links to a model keep working (issue 15, item 4).
    Each evaluation has its own page under it.
    """

    model: str
    label: str
    evaluations: tuple[EvaluationSummary, ...]


# -- task pages ------------------------------------------------------------------------

@dataclass(frozen=True)
class TaskModelRow:
    model: Ref
    position: int
    rank_range: tuple[int, int]
    interval: Interval
    total: int
    truncation_rate: float | None
    tie_next: TieMark
    leaderboard_rank: int | None
    truncation_note: str | None = None

    @property
    def position_text(self) -> str:
        best, worst = self.rank_range
        return str(self.position) if best == worst else f"{self.position} ({best}–{worst})"


@dataclass(frozen=True)
class CurveRow:
    model: Ref
    cells: tuple[str, ...]  # one `center ± margin` per level; "—" where the model has no point


@dataclass(frozen=True)
class Curve:
    parameter: str
    levels: tuple[str, ...]
    chart: Chart
    rows: tuple[CurveRow, ...]
    charted: int
    total: int

    @property
    def caption(self) -> str:
        if self.charted < self.total:
            return (f"C_P estimate at each level of {self.parameter} for {self.charted} of the {self.total} models, "
                    "spread from the best to the worst on this task; the table lists all of them.")
        return f"C_P estimate at each level of {self.parameter} for every model on this task."


@dataclass(frozen=True)
class TaskPage(Page):
    task: str
    rows: tuple[TaskModelRow, ...]
    shown: int
    total: int
    chart: Chart | None
    curves: tuple[Curve, ...]
    missing: tuple[Ref, ...]
    benchmark: Any  # evalcards.BenchmarkSummary | None: this task's Evaluation Card

    @property
    def charts(self) -> tuple[Chart, ...]:
        return tuple(c for c in (self.chart, *(c.chart for c in self.curves)) if c is not None)


# -- pairwise ----------------------------------------------------------------------------

@dataclass(frozen=True)
class MatrixRow:
    model: Ref
    cells: tuple[str, ...]
    titles: tuple[str, ...]


@dataclass(frozen=True)
class StrengthRow:
    rank: int
    model: Ref
    strength: str
    expected_wins: str
    leaderboard_rank: int | None


@dataclass(frozen=True)
class PairwisePage(Page):
    columns: tuple[Ref, ...]
    matrix: tuple[MatrixRow, ...]
    chart: Chart | None
    strengths: tuple[StrengthRow, ...]
    top: int
    ranked: int

    @property
    def charts(self) -> tuple[Chart, ...]:
        return (self.chart,) if self.chart else ()


# -- content and the rest -------------------------------------------------------------------

@dataclass(frozen=True)
class ContentView(Page):
    html: str
    bands: tuple[tuple[str, tuple[BandView, ...]], ...]


@dataclass(frozen=True)
class NotFoundPage(Page):
    pass


@dataclass(frozen=True)
class SiteModel:
    """Everything the renderer needs: site-wide facts and the pages in output order."""

    title: str
    description: str
    nav: tuple[NavLink, ...]
    pages: tuple[Page, ...]
    simulated_any: bool
    base_url: str
    organization: str
    #: Content pages by slug ("methodology" -> "methodology.html"), for links that exist
    #: only when the publisher keeps that page.
    content: dict[str, str] = field(default_factory=dict)
    #: Branding from site.toml: site paths of files copied from the project's `static/`.
    logo: str = ""
    favicon: str = ""
    extra_css: str = ""

    def by_path(self) -> dict[str, Page]:
        return {p.path: p for p in self.pages}


# -- assembly --------------------------------------------------------------------------------

@dataclass
class _Context:
    """Lookups shared by the page builders (not part of the model)."""

    results: Any
    bands: Bands
    models: list[dict[str, Any]]
    by_id: dict[str, dict[str, Any]]
    paths: dict[str, str]
    labels: dict[str, str]
    anchors: dict[str, str]
    task_paths: dict[str, str]
    simulated: dict[str, bool]
    cards: Any  # evalcards.Cards
    rows: dict[str, ModelRow] = field(default_factory=dict)
    #: One `Ref` per model, shared by every list that links it (tie lists hold ~10^5 links).
    refs: dict[str, Ref] = field(default_factory=dict)

    #: Task intervals by (model id, task): the model page and the task page show the same one.
    intervals: dict[tuple[str, str], Interval | None] = field(default_factory=dict)

    def task_interval(self, model_id: str, task: str, t: dict[str, Any]) -> Interval | None:
        key = (model_id, task)
        if key not in self.intervals:
            self.intervals[key] = task_interval(self.bands, t.get("estimate"), t.get("low"), t.get("high"))
        return self.intervals[key]

    def ref(self, model_id: str) -> Ref:
        ref = self.refs.get(model_id)
        if ref is None:
            ref = self.refs[model_id] = Ref(self.labels[model_id], self.paths[model_id])
        return ref


def build_page_model(results: Any, content_pages: Sequence[ContentPage] = ()) -> SiteModel:
    """Assemble every page of the site from a `BuildResults` (see builder/build.py).

    `content_pages` are the parsed `content/*.md` pages, in navigation order.
    """
    from . import evalcards

    config = results.config
    lb = results.leaderboard
    models = lb["models"]
    tasks = list(lb["config"]["tasks"])
    task_slugs = unique_slugs(tasks)
    evaluations = results.evaluations
    slugs = evaluation_slugs([(m["model"], m["template"], m["sampler"]) for m in models])
    ctx = _Context(
        results=results, bands=results.bands, models=models,
        by_id={m["id"]: m for m in models},
        paths={m["id"]: evaluation_page_path(m["slug"]) for m in models},
        labels={m["id"]: m["label"] for m in models},
        anchors={m["id"]: "m-" + s.anchor for m, s in zip(models, slugs)},
        task_paths={t: page_path("tasks", s) for t, s in zip(tasks, task_slugs)},
        simulated={m["id"]: bool(evaluations.get(m["id"], {}).get("simulated")) for m in models},
        cards=None,
    )
    ctx.cards = evalcards.Cards.build(results, ctx.paths, ctx.task_paths, ctx.labels, ctx.simulated)
    for m in models:
        ctx.rows[m["id"]] = _model_row(ctx, m)

    pages: list[Page] = []
    pages += _leaderboard_pages(ctx, config, tasks)
    groups = _model_groups(ctx, slugs)
    parents = {row.id: Ref(g.label, g.path) for g in groups for row in (e.row for e in g.evaluations)}
    pages += [_model_page(ctx, m, parents.get(m["id"])) for m in models]
    pages += groups
    pages += [_task_page(ctx, t, config.page_size) for t in tasks]
    pages.append(_pairwise_page(ctx, config.pairwise_top))
    pages += ctx.cards.pages()
    bands = _band_table(ctx.bands)
    for content in content_pages:
        pages.append(ContentView(path=f"{content.slug}.html", title=content.title, template="content.html",
                                 simulated=False, description=content.description, html=content.html,
                                 bands=bands if content.slug == "guide" else ()))
    pages.append(NotFoundPage(path="404.html", title="Page not found", template="404.html", simulated=False,
                              description="This page does not exist."))

    nav = (NavLink("Leaderboard", "index.html"), NavLink("Pairwise", "pairwise.html"),
           NavLink("Signals", "signals.html"),
           *(NavLink(c.title, f"{c.slug}.html") for c in content_pages))
    return SiteModel(title=config.title, description=config.description, nav=nav, pages=tuple(pages),
                     simulated_any=any(ctx.simulated.values()), base_url=config.base_url,
                     organization=config.organization,
                     content={c.slug: f"{c.slug}.html" for c in content_pages},
                     logo=config.logo, favicon=config.favicon, extra_css=config.extra_css)


def _band_table(bands: Bands) -> tuple[tuple[str, tuple[BandView, ...]], ...]:
    names = {"reasonscore": "ReasonScore", "score_per_token": "score/token", "ci_width": "Interval width (± points)"}
    return tuple((names.get(scale, scale), tuple(BandView.of(scale, b) for b in group))
                 for scale, group in bands.all().items())


def score_interval(bands: Bands, rs: dict[str, Any]) -> Interval | None:
    """A ReasonScore interval with its band and its CI-width category."""
    if rs is None or rs.get("center") is None:
        return None
    return Interval(rs["center"], rs["margin"], rs["ci_low"], rs["ci_high"], "score",
                    band=BandView.of("reasonscore", bands.reasonscore(rs["center"])),
                    width=BandView.of("ci_width", bands.ci_width(rs["margin"])))


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


def observability_notes(evaluation: dict[str, Any]) -> tuple[str | None, str | None]:
    """(truncation note, tokens note) for an evaluation whose harness did not record
    truncation or tokens (evals.json `observed`, INGEST.md section 6); None where it did."""
    harness = (evaluation.get("harness") or "").split(";")[0].split(" ")[0].strip() or "its harness"
    truncation = None if evaluation.get("truncation_observed", True) is not False else (
        f"truncation not recorded by {harness}: C_P equals C_I here")
    tokens = None if evaluation.get("tokens_observed", True) is not False else f"tokens not recorded by {harness}"
    return truncation, tokens


def _model_row(ctx: _Context, m: dict[str, Any]) -> ModelRow:
    spt = m.get("score_per_token")
    truncation_note, tokens_note = observability_notes(ctx.results.evaluations.get(m["id"], {}))
    rank_range = tuple(m["rank_range"]) if m.get("rank_range") else None
    return ModelRow(
        id=m["id"], path=ctx.paths[m["id"]], anchor=ctx.anchors[m["id"]], label=m["label"], model=m["model"],
        template_name=m["template"], sampler=m["sampler"], rank=m.get("rank"), rank_range=rank_range,
        complete=bool(m["complete"]), missing_tasks=tuple(m.get("missing_tasks") or ()),
        score=score_interval(ctx.bands, m.get("reasonscore")),
        avg_tokens=m.get("avg_tokens"), score_per_token=spt,
        score_per_token_band=BandView.of("score_per_token", ctx.bands.score_per_token(spt)),
        truncation_rate=m.get("truncation_rate"),
        tie_next=TieMark(None if m.get("distinct_from_next") is None else not m["distinct_from_next"]),
        tied_with=tuple(ctx.ref(i) for i in m.get("tied_with") or () if i in ctx.paths),
        badges=ctx.cards.model_badges(m["id"]),
        simulated=ctx.simulated[m["id"]],
        truncation_note=truncation_note, tokens_note=tokens_note,
    )


def _leaderboard_pages(ctx: _Context, config: Any, tasks: list[str]) -> list[LeaderboardPage]:
    rows = [ctx.rows[m["id"]] for m in ctx.models]
    size = max(1, int(config.page_size))
    chunks = [rows[i:i + size] for i in range(0, len(rows), size)] or [[]]
    paths = [page_path("index", "", k + 1) for k in range(len(chunks))]
    groups = [tuple(ids) for ids in ctx.results.leaderboard.get("tie_groups", [])]
    total_ranked = sum(1 for r in rows if r.rank is not None)
    band_views = tuple(BandView.of("reasonscore", b) for b in ctx.bands.all()["reasonscore"])
    task_refs = tuple(Ref(t, ctx.task_paths[t]) for t in tasks)
    # A tie group is listed once, on the page of its first member in rank order. Listing it
    # on every page it touches would repeat each group on several pages: at 2,000 models
    # that was over half a megabyte of links per index page.
    page_of = {r.id: n // size for n, r in enumerate(rows)}
    groups_on: dict[int, list[TieGroup]] = {}
    for g in groups:
        groups_on.setdefault(min(page_of[i] for i in g), []).append(
            TieGroup(tuple(ctx.ref(i) for i in g), _rank_span([ctx.rows[i].rank for i in g])))
    pages = []
    for k, chunk in enumerate(chunks):
        page_groups = tuple(groups_on.get(k, ()))
        ranked = tuple(r for r in chunk if r.rank is not None)
        incomplete = tuple(r for r in chunk if r.rank is None)
        title = config.title if k == 0 else f"{config.title}: page {k + 1}"
        pages.append(LeaderboardPage(
            path=paths[k], title=title, template="leaderboard.html",
            simulated=any(r.simulated for r in chunk), description=config.description,
            ranked=ranked, incomplete=incomplete, forest=_forest_chart(chunk, k),
            tie_groups=page_groups, tasks=task_refs,
            pager=Pager(k + 1, tuple(NavLink(str(j + 1), p) for j, p in enumerate(paths))) if len(paths) > 1 else None,
            first_rank=k * size + 1, total_models=len(rows), total_ranked=total_ranked,
            mode=config.mode, bootstrap=config.bootstrap, seed=config.seed, bands=band_views,
        ))
    return pages


def _rank_span(ranks: Iterable[int | None]) -> str:
    known = [r for r in ranks if r is not None]
    if not known:
        return ""
    return f"ranks {min(known)}–{max(known)}" if min(known) != max(known) else f"rank {known[0]}"


def _forest_chart(rows: Sequence[ModelRow], page: int) -> Chart | None:
    data = tuple(
        {"label": _chart_label(r), "order": n, "low": r.score.low, "high": r.score.high, "center": r.score.center,
         "text": r.score.text, "hollow": r.rank is None}
        for n, r in enumerate(rows) if r.score is not None)
    if not data:
        return None
    return Chart(kind="forest-score", id="forest", twin="leaderboard",
                 label=f"ReasonScore intervals of the {len(data)} models in the table below, in rank order; "
                       "open circles are incomplete models", rows=data)


def _chart_label(row: ModelRow) -> str:
    prefix = f"{row.rank}. " if row.rank is not None else "* "
    return prefix + row.label


# -- model page ----------------------------------------------------------------------------

def _settings(ctx: _Context, model_id: str) -> tuple[Setting, ...]:
    args = ctx.results.evaluations.get(model_id, {}).get("generation_args") or {}
    return tuple(Setting(str(k), fmt.plain(v)) for k, v in sorted(args.items()))


def _model_groups(ctx: _Context, slugs: Sequence[Any]) -> list[ModelGroupPage]:
    """The page of each model with several evaluations, listing them in leaderboard order."""
    members: dict[str, list[dict[str, Any]]] = {}
    model_slug: dict[str, str] = {}
    for m, s in zip(ctx.models, slugs):
        members.setdefault(m["model"], []).append(m)
        model_slug[m["model"]] = s.model
    pages = []
    for name in sorted(n for n, ms in members.items() if len(ms) > 1):
        rows = tuple(EvaluationSummary(ctx.rows[m["id"]], _settings(ctx, m["id"])) for m in members[name])
        first = members[name][0]
        # The evals.json label without the "(template, sampler)" that tells the rows apart.
        label = first["label"].removesuffix(f" ({first['template']}, {first['sampler']})")
        pages.append(ModelGroupPage(
            path=page_path("models", model_slug[name]), title=label, template="model_group.html",
            simulated=any(r.row.simulated for r in rows),
            description=f"The {len(rows)} evaluations of {label}: one per prompt template and sampler",
            model=name, label=label, evaluations=rows))
    return pages


def _model_page(ctx: _Context, m: dict[str, Any], parent: Ref | None = None) -> ModelPage:
    row = ctx.rows[m["id"]]
    e = ctx.results.evaluations.get(m["id"], {})
    task_results = []
    for task, t in m["tasks"].items():
        interval = ctx.task_interval(m["id"], task, t)
        if interval is None:
            continue
        total = int(t["total"])
        task_results.append(TaskResult(
            task=Ref(task, ctx.task_paths.get(task, "")), interval=interval, total=total,
            truncated=int(t["truncated"]), correct=int(t["correct"]),
            tokens_per_trial=(t["tokens"] / total) if total else None,
            truncation_rate=(t["truncated"] / total) if total else None,
            modes=_mode_values(t.get("modes") or {}),
            truncation_note=row.truncation_note, tokens_note=row.tokens_note,
        ))
    chart = None
    if task_results:
        chart = Chart(kind="forest-probability", id="task-intervals", twin="task-results",
                      label=f"C_P intervals of {row.label} on each of {len(task_results)} tasks",
                      rows=tuple({"label": r.task.label, "order": n, "low": r.interval.low, "high": r.interval.high,
                                  "center": r.interval.center, "text": r.interval.text, "hollow": False}
                                 for n, r in enumerate(task_results)))
    tiers = tuple(
        TierRow(tier, fmt.score(v.get("reasonscore")),
                BandView.of("reasonscore", ctx.bands.reasonscore(v.get("reasonscore"))), fmt.tokens(v.get("avg_tokens")))
        for tier, v in sorted((m.get("tiers") or {}).items(), key=lambda kv: _tier_order(kv[0])))
    spt_v1 = m.get("score_per_token_v1")
    settings = _settings(ctx, m["id"])
    title = row.label + ("" if row.complete else " (incomplete)")
    return ModelPage(
        path=row.path, title=title, template="model.html", simulated=row.simulated,
        description=f"ReasonScore, per-task intervals and Evaluation Card signals of {row.label}",
        row=row, hf_id=e.get("hf_id"), organization=e.get("organization"), relationship=e.get("relationship"),
        harness=e.get("harness"), settings=settings, groups=tuple(e.get("groups") or ()),
        task_results=tuple(task_results), chart=chart, tiers=tiers,
        score_per_token_v1=fmt.ratio(spt_v1) if spt_v1 is not None else None,
        neighbours=_neighbours(ctx, m["id"]), reported=ctx.cards.reported_for(m["id"]), parent=parent,
    )


#: Tier names read in difficulty order; other names follow alphabetically.
TIER_ORDER = ("easy", "medium", "hard")


def _tier_order(tier: str) -> tuple[int, str]:
    return (TIER_ORDER.index(tier) if tier in TIER_ORDER else len(TIER_ORDER), tier)


def _mode_values(modes: dict[str, Sequence[float] | None]) -> tuple[tuple[float, float, float] | None, ...]:
    """The six estimators of one task in `MODES` order (fragments.estimator_rows prints them)."""
    return tuple(tuple(v) if v and v[0] is not None else None for v in map(modes.get, MODES))


def _neighbours(ctx: _Context, model_id: str) -> tuple[Neighbour, ...]:
    """Win rates against the models ranked just above and below (STATISTICS.md §8)."""
    pw = ctx.results.pairwise
    ids = list(pw.get("models") or [])
    if model_id not in ids or not pw.get("win_rate"):
        return _near_neighbours(ctx, model_id)
    k = ids.index(model_id)
    win = pw["win_rate"]
    shared = pw.get("tasks_shared") or []
    out = []
    for j in range(max(0, k - NEIGHBOURS), min(len(ids), k + NEIGHBOURS + 1)):
        if j == k or ids[j] not in ctx.paths:
            continue
        out.append(Neighbour(Ref(ctx.labels[ids[j]], ctx.paths[ids[j]]), ctx.by_id[ids[j]].get("rank"),
                             win[k][j], win[j][k], int(shared[k][j]) if shared else 0))
    return tuple(out)


def _near_neighbours(ctx: _Context, model_id: str) -> tuple[Neighbour, ...]:
    """A ranked model outside the top `pairwise_top`: its win rates against the models on
    either side, which statistics computes for every ranked model (`neighbours`)."""
    near = ctx.results.pairwise.get("neighbours") or {}
    out = []
    for entry in near.get(model_id) or ():
        other = entry["id"]
        if other not in ctx.paths:
            continue
        back = next((e["win_rate"] for e in near.get(other) or () if e["id"] == model_id), None)
        out.append(Neighbour(Ref(ctx.labels[other], ctx.paths[other]), ctx.by_id[other].get("rank"),
                             entry["win_rate"], back, int(entry["tasks_shared"])))
    return tuple(out)


# -- task page ---------------------------------------------------------------------------------

def _task_page(ctx: _Context, task: str, page_size: int) -> TaskPage:
    entries = []
    missing = []
    for m in ctx.models:
        t = m["tasks"].get(task)
        if not t or t.get("low") is None or t.get("high") is None:
            missing.append(ctx.ref(m["id"]))
            continue
        entries.append((m, t))
    # Order by the point estimate (the midpoint when there is none), ties broken by label,
    # like the leaderboard (§7). Intervals are made only for the rows the page shows.
    entries.sort(key=lambda x: (-(x[1]["estimate"] if x[1].get("estimate") is not None
                                  else (x[1]["low"] + x[1]["high"]) / 2), x[0]["label"]))
    low = np.array([x[1]["low"] for x in entries], dtype=float)
    high = np.array([x[1]["high"] for x in entries], dtype=float)
    best, worst = rank_ranges(low, high) if entries else (np.array([]), np.array([]))
    rows = []
    for n, (m, t) in enumerate(entries[:page_size]):
        interval = ctx.task_interval(m["id"], task, t)
        tied = None if n + 1 >= len(entries) else overlaps(low, high, n, n + 1)
        total = int(t["total"])
        rows.append(TaskModelRow(
            model=ctx.ref(m["id"]), position=n + 1,
            rank_range=(int(best[n]), int(worst[n])), interval=interval, total=total,
            truncation_rate=t["truncated"] / total if total else None, tie_next=TieMark(tied),
            leaderboard_rank=m.get("rank"), truncation_note=ctx.rows[m["id"]].truncation_note,
        ))
    chart = None
    if rows:
        chart = Chart(kind="forest-probability", id="task-models", twin="task-table",
                      label=f"C_P intervals of the {len(rows)} models on {task}, best first",
                      rows=tuple({"label": f"{r.position}. {r.model.label}", "order": r.position,
                                  "low": r.interval.low, "high": r.interval.high, "center": r.interval.center,
                                  "text": r.interval.text, "hollow": False} for r in rows))
    order = [x[0]["id"] for x in entries]
    curves = _curves(ctx, task, order[:page_size])
    return TaskPage(
        path=ctx.task_paths[task], title=f"Task: {task}", template="task.html",
        simulated=any(ctx.simulated[x[0]["id"]] for x in entries),
        description=f"Every model's interval on {task}, difficulty curves and the task's Evaluation Card",
        task=task, rows=tuple(rows), shown=len(rows), total=len(entries), chart=chart, curves=curves,
        missing=tuple(missing[:page_size]), benchmark=ctx.cards.summary_for_task(task),
    )


def spread(items: Sequence[Any], k: int) -> list[Any]:
    """At most `k` items evenly spaced over `items`, always including the first and last."""
    if len(items) <= k:
        return list(items)
    picks = sorted({round(i * (len(items) - 1) / (k - 1)) for i in range(k)})
    return [items[i] for i in picks]


def _level_sort_key(value: Any) -> tuple:
    try:
        return (0, float(value), str(value))
    except (TypeError, ValueError):
        return (1, 0.0, str(value))


def _curves(ctx: _Context, task: str, order: list[str]) -> tuple[Curve, ...]:
    """One chart and one table per difficulty parameter of the task.

    The chart draws at most `CURVE_SERIES` models, spread evenly over the task order (the
    best, the worst and those between): the top few alone would all sit near 1 and hide
    how weaker models collapse. The table lists every model on the page with every level,
    so no number exists only as a colour.
    """
    out = []
    params = (ctx.results.curves or {}).get(task) or {}
    position = {mid: n for n, mid in enumerate(order)}
    for param, points in sorted(params.items()):
        points = [p for p in points if p["id"] in position]
        levels = sorted({str(p["value"]) for p in points}, key=_level_sort_key)
        level_index = {v: n for n, v in enumerate(levels)}
        by_model: dict[str, dict[str, Interval]] = {}
        for p in points:
            iv = task_interval(ctx.bands, p.get("estimate"), p.get("low"), p.get("high"))
            if iv is not None:
                by_model.setdefault(p["id"], {})[str(p["value"])] = iv
        models = [mid for mid in order if mid in by_model]
        if not models or not levels:
            continue
        charted = spread(models, CURVE_SERIES)
        data = []
        for n, mid in enumerate(charted, start=1):
            ordered = sorted(by_model[mid].items(), key=lambda kv: level_index[kv[0]])
            for lv, iv in ordered:
                data.append({"model": f"{n}. {ctx.labels[mid]}", "series_order": n, "level": lv,
                             "level_order": level_index[lv],
                             "estimate": iv.estimate if iv.estimate is not None else iv.center,
                             "low": iv.low, "high": iv.high, "text": iv.text})
        data = tuple(data)
        rows = tuple(CurveRow(Ref(ctx.labels[mid], ctx.paths[mid]),
                              tuple(by_model[mid][lv].text if lv in by_model[mid] else fmt.MISSING for lv in levels))
                     for mid in models)
        slug = unique_slugs([param])[0]
        chart = Chart(kind="curves", id=f"curve-{slug}", twin=f"curve-table-{slug}",
                      label=f"C_P estimate of {len(charted)} models on {task} at each level of {param}",
                      rows=data)
        out.append(Curve(param, tuple(levels), chart, rows, len(charted), len(models)))
    return tuple(out)


# -- pairwise --------------------------------------------------------------------------------------

def _pairwise_page(ctx: _Context, top: int) -> PairwisePage:
    pw = ctx.results.pairwise
    ids = [i for i in pw.get("models") or [] if i in ctx.paths]
    win = pw.get("win_rate") or []
    refs = tuple(Ref(ctx.labels[i], ctx.paths[i]) for i in ids)
    matrix = []
    data = []
    for a, ida in enumerate(ids):
        cells, titles = [], []
        for b, idb in enumerate(ids):
            w = win[a][b] if a < len(win) and b < len(win[a]) else None
            cells.append("·" if a == b else fmt.win_rate(w))
            titles.append("" if a == b else f"P({ctx.labels[ida]} beats {ctx.labels[idb]}) = {fmt.win_rate(w)}")
            # Columns are named by position only (the rows give the names), so cells stay
            # narrow; the printed number drops the % sign, which the legend states.
            data.append({"row": f"{a + 1}. {ctx.labels[ida]}", "col": str(b + 1),
                         "opponent": f"{b + 1}. {ctx.labels[idb]}",
                         "row_order": a, "col_order": b, "win_rate": None if a == b else w,
                         "text": "" if a == b or w is None else f"{100 * w:.0f}",
                         "percent": "" if a == b else fmt.win_rate(w)})
        matrix.append(MatrixRow(refs[a], tuple(cells), tuple(titles)))
    strengths = tuple(
        StrengthRow(int(s["rank"]), Ref(ctx.labels[s["id"]], ctx.paths[s["id"]]), f"{s['strength']:.3f}",
                    f"{pw['expected_wins'].get(s['id'], 0.0):.2f}", ctx.by_id[s["id"]].get("rank"))
        for s in pw.get("bradley_terry") or [] if s["id"] in ctx.paths)
    chart = None
    if len(ids) >= 2:
        chart = Chart(kind="heatmap", id="win-rates", twin="win-rate-table",
                      label=f"Win-rate matrix of the top {len(ids)} models: each cell is the probability "
                            "that the row model beats the column model", rows=tuple(data))
    return PairwisePage(
        path="pairwise.html", title="Pairwise win rates", template="pairwise.html",
        simulated=any(ctx.simulated.get(i, False) for i in ids),
        description="Win-rate matrix and Bradley–Terry ranking of the top models",
        columns=refs, matrix=tuple(matrix), chart=chart, strengths=strengths, top=top,
        ranked=sum(1 for m in ctx.models if m.get("rank") is not None),
    )
