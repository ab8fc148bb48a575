"""The page model: every page of the site, assembled from the page kinds' views.

`plan_page_model(results)` turns the build's statistics and signals into one `SiteModel`:
a list of pages, each knowing its output path, its title, whether it shows simulated data,
and every figure it prints, already paired with its band and interval; the model and
benchmark pages are `Deferred`, made by the process that renders them (`build_page_model`
makes them all at once, for tests and tools that look at every page). Each page kind is
built by its own module in `views/` (the benchmark and signals pages by `views/evalcards`);
this module only puts them in order. Templates only display these objects; nothing here
does I/O or produces HTML.

Scale (PRODUCT.md, and the later 5,000-model issue): no page embeds a list of every model.
The leaderboard paginates (`page_size`); task pages chart at most `CURVE_SERIES` models
and list at most `page_size` rows; the navigation is the same handful of links everywhere.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import partial
from typing import Sequence

from ..results import BuildResults
from ..slugs import unique_slugs
from ..stats.cost import cost_board, costs_of
from .markdown import ContentPage
from .urls import evaluation_page_path, page_path
from .views import evalcards
from .views.analyses import budget_page
from .views.base import Deferred, NavLink, Page, Ref, made
from .views.compare import compare_page
from .views.content import ContentView, NotFoundPage, band_table, site_settings
from .views.cost import PATH as COST_PATH
from .views.cost import cost_page
from .views.leaderboard import leaderboard_pages, other_board_pages
from .views.matrix import matrix_order, matrix_pages
from .views.model import draws_chart, model_groups, model_page
from .views.pairwise import pairwise_page
from .views.releases import LIST_PATH, releases_pages
from .views.rows import Context, model_row
from .views.task import task_page


@dataclass(frozen=True)
class SiteModel:
    """Everything the renderer needs: site-wide facts and the pages in output order.

    From `plan_page_model` the model and benchmark pages are `Deferred` (made where they
    are rendered); `build_page_model` gives every page made."""

    title: str
    description: str
    nav: tuple[NavLink, ...]
    pages: tuple[Page | Deferred, ...]
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
    #: The ranking at a smaller token budget (views/analyses.py), when any model has a sweep.
    budget_page: str = ""


def build_page_model(results: BuildResults, content_pages: Sequence[ContentPage] = ()) -> SiteModel:
    """Every page of the site from a `BuildResults` (results.py), all made (the build plans
    them instead; this is for tests and tools that look at every page).

    `content_pages` are the parsed `content/*.md` pages, in navigation order.
    """
    plan = plan_page_model(results, content_pages)
    return replace(plan, pages=tuple(made(p) for p in plan.pages))


def plan_page_model(results: BuildResults, content_pages: Sequence[ContentPage] = ()) -> SiteModel:
    """The page model with the model and benchmark pages `Deferred`: what the renderer
    needs before it forks its workers, which make those pages (views/base.py)."""
    config = results.config
    models = results.leaderboard.models
    # Every task in the data has its page, whatever the boards rank.
    tasks = list(results.task_rankings)
    task_slugs = unique_slugs(tasks)
    paths = {m.id: evaluation_page_path(m.slug) for m in models}
    labels = {m.id: m.label for m in models}
    task_paths = {t: page_path("tasks", s) for t, s in zip(tasks, task_slugs)}
    simulated = {m.id: m.evaluation.simulated for m in models}
    ctx = Context(
        results=results, bands=results.bands, models=models,
        by_id={m.id: m for m in models}, paths=paths, labels=labels,
        anchors={m.id: "m-" + m.evaluation.anchor for m in models},
        task_paths=task_paths, simulated=simulated,
        cards=evalcards.Cards.build(results, paths, task_paths, labels, simulated),
    )
    for m in models:
        ctx.rows[m.id] = model_row(ctx, m, results.comparisons.board_next,  # the first board's
                                   results.leaderboard.settings.tasks)
    ctx.board_slugs = unique_slugs([b.name for b in results.boards])
    # With no board ranking two evaluations, nothing can be ordered: the front page is the
    # matrix, which orders nothing (PRODUCT.md "Boards").
    ranked_counts = [b.ranked for b in results.boards] or [sum(1 for m in models if m.rank is not None)]
    ctx.front_matrix = max(ranked_counts) < 2
    boards = ctx.board_refs() if len(results.boards) > 1 else ()

    pages: list[Page | Deferred] = []
    if ctx.front_matrix:
        ctx.positions.update((m.id, n) for n, m in enumerate(matrix_order(models)))
        pages += matrix_pages(ctx, config, tasks, base="index", boards=boards)
    else:
        pages += leaderboard_pages(ctx, config, list(results.leaderboard.settings.tasks))
    pages += other_board_pages(ctx, config)
    pages += matrix_pages(ctx, config, tasks, boards=boards)
    groups = model_groups(ctx)
    parents = {row.id: Ref(g.label, g.path) for g in groups for row in (e.row for e in g.evaluations)}
    pages += [Deferred(ctx.paths[m.id], "model.html", partial(model_page, ctx, m, parents.get(m.id)),
                       draws_chart(m, results.history.get(m.id), m.id in results.analyses.evaluations))
              for m in models]
    pages += groups
    pages += [task_page(ctx, results.task_rankings[t], config.page_size) for t in tasks]
    pages.append(pairwise_page(ctx, config.pairwise_top))
    pages.append(compare_page(config, results.leaderboard.settings.mode, any(ctx.simulated.values()),
                              len(results.boards)))
    budget = budget_page([(m.id, ctx.ref(m.id), m.rank) for m in models if m.rank is not None],
                         results.analyses.ranks, config.page_size, any(ctx.simulated.values()))
    if budget is not None:
        pages.append(budget)
    pages += ctx.cards.pages()
    pages += releases_pages(results.releases, results.bands)
    costs = costs_of(models)
    if costs:
        pages.append(cost_page(cost_board(models, costs), costs, ctx.rows, any(ctx.simulated[i] for i in costs)))
    bands = band_table(ctx.bands)
    settings = site_settings(results.leaderboard.settings, config.paired_draws, config.pairwise_top,
                             [(b.name, b.tasks) for b in results.boards])
    for content in content_pages:
        pages.append(ContentView(path=f"{content.slug}.html", title=content.title, template="content.html",
                                 simulated=False, description=content.description, html=content.html,
                                 bands=bands if content.slug == "guide" else (),
                                 settings=settings if content.slug == "methodology" else ()))
    pages.append(NotFoundPage(path="404.html", title="Page not found", template="404.html", simulated=False,
                              description="This page does not exist."))

    nav = (NavLink("Leaderboard", "index.html"), NavLink("Matrix", "matrix.html"), NavLink("Pairwise", "pairwise.html"),
           NavLink("Signals", "signals.html"),
           *((NavLink("Releases", LIST_PATH),) if results.releases else ()),
           *((NavLink("Cost", COST_PATH),) if costs else ()),
           *(NavLink(c.title, f"{c.slug}.html") for c in content_pages))
    return SiteModel(title=config.title, description=config.description, nav=nav, pages=tuple(pages),
                     simulated_any=any(ctx.simulated.values()), base_url=config.base_url,
                     organization=config.organization,
                     content={c.slug: f"{c.slug}.html" for c in content_pages},
                     logo=config.logo, favicon=config.favicon, extra_css=config.extra_css,
                     budget_page=budget.path if budget is not None else "")
