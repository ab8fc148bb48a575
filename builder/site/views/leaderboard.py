"""The board pages: the front page (`index.html`, `index-2.html`, ...) ranks the first
board, each other board has `boards/<slug>.html` (PRODUCT.md "Boards"): ranked rows, tie
groups, the forest chart of the ranked rows. Evaluations without every task of the board
are listed after the ranked ones, by name and with no score or band: a score over other
tasks is not comparable. Paginated (`page_size`): no page lists every model."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

from ...config import SiteConfig
from ...stats.board import Leaderboard, RankedBoard
from ..charts import Chart
from ..urls import board_path, page_path
from .base import Badge, BandView, NavLink, Page, Pager, Ref, adjacent_rule
from .facets import Facet, facets
from .rows import Context, ModelRow, model_row


@dataclass(frozen=True)
class TieGroup:
    """A tie group as `leaderboard.json` gives it: its members are the ranked models whose
    intervals contain `at`; listing them would repeat the rows (and grow with the square of
    the number of models), so the page gives the span, the size and the first member."""

    first: Ref
    size: int
    at: float
    ranks: str


@dataclass(frozen=True)
class LeaderboardPage(Page):
    ranked: tuple[ModelRow, ...]
    incomplete: tuple[ModelRow, ...]
    #: Complete but with a task of fewer than `min_samples` samples: listed apart, unranked.
    preliminary: tuple[ModelRow, ...]
    min_samples: int
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
    #: The board this page ranks, and the site's boards (the first is the front page).
    board: str = ""
    board_description: str = ""
    boards: tuple[Ref, ...] = ()
    #: A badge every row of the board carries, said once above the table instead.
    common_badges: tuple[Badge, ...] = ()
    facets: tuple[Facet, ...] = ()
    #: Which rule marks each adjacent pair (`base.adjacent_rule`).
    adjacent_rule: str = ""
    paired_any: bool = False

    @property
    def charts(self) -> tuple[Chart, ...]:
        return (self.forest,) if self.forest else ()

    @property
    def last_row(self) -> int:
        return self.first_rank + len(self.ranked) + len(self.preliminary) + len(self.incomplete) - 1


def leaderboard_pages(ctx: Context, config: SiteConfig, tasks: list[str]) -> list[LeaderboardPage]:
    """The front page's board (the first), over `ctx.models`' rows; its adjacent pairs are the
    ones the paired comparisons test."""
    board = ctx.results.boards[0] if ctx.results.boards else None
    return _pages(ctx, config, tasks, [ctx.rows[m.id] for m in ctx.models], board,
                  [page_path("index", "", k + 1) for k in range(_chunk_count(ctx, config))], ctx.results.leaderboard,
                  len(ctx.results.comparisons.board_next))


def other_board_pages(ctx: Context, config: SiteConfig) -> list[LeaderboardPage]:
    """The page(s) of each board after the first, each row marked against the next by the
    board's own paired tests where there are any, else by interval overlap."""
    pages = []
    for k, board in enumerate(ctx.results.boards[1:], 1):
        paired = ctx.results.comparisons.board(board.name, first=False)
        rows = [model_row(ctx, m, paired, board_tasks=board.tasks) for m in board.leaderboard.models]
        size = max(1, int(config.page_size))
        count = max(1, -(-len(rows) // size))
        paths = [board_path(ctx.board_slugs[k], n + 1) for n in range(count)]
        pages += _pages(ctx, config, list(board.tasks), rows, board, paths, board.leaderboard, len(paired))
    return pages


def _chunk_count(ctx: Context, config: SiteConfig) -> int:
    return max(1, -(-len(ctx.models) // max(1, int(config.page_size))))


def _pages(ctx: Context, config: SiteConfig, tasks: list[str], rows: list[ModelRow], board: RankedBoard | None,
           paths: list[str], leaderboard: Leaderboard, paired: int = 0) -> list[LeaderboardPage]:
    """The pages of one board; `paired` of its adjacent pairs have a paired test."""
    size = max(1, int(config.page_size))
    chunks = [rows[i:i + size] for i in range(0, len(rows), size)] or [[]]
    ranked_ids = [r.id for r in rows if r.rank is not None]
    total_ranked = len(ranked_ids)
    rule = adjacent_rule(paired, max(total_ranked - 1, 0), ctx.results.comparisons.min_samples, "on the board",
                         ctx.results.leaderboard.settings.mode)
    band_views = tuple(BandView.of_band("reasonscore", b) for b in ctx.bands.all()["reasonscore"])
    task_refs = tuple(Ref(t, ctx.task_paths[t]) for t in tasks)
    # A tie group is listed once, on the page of its first member in rank order. Listing it
    # on every page it touches would repeat each group on several pages: at 2,000 models
    # that was over half a megabyte of links per index page.
    page_of = {r.id: n // size for n, r in enumerate(rows)}
    groups_on: dict[int, list[TieGroup]] = {}
    for g in leaderboard.tie_groups:
        first, last = g.ranks
        first_id = ranked_ids[first - 1]
        assert g.at is not None  # every ranked model's interval is finite
        groups_on.setdefault(page_of[first_id], []).append(
            TieGroup(ctx.ref(first_id), g.size, g.at, _rank_span([first, last])))
    name = board.name if board is not None else ""
    front = paths[0] == "index.html"
    common = _common_badges([r for r in rows if r.rank is not None])
    row_facets = facets(r.groups for r in rows if r.rank is not None)
    pages = []
    for k, chunk in enumerate(chunks):
        page_groups = tuple(groups_on.get(k, ()))
        ranked = tuple(r for r in chunk if r.rank is not None)
        incomplete = tuple(r for r in chunk if r.rank is None and not r.preliminary)
        preliminary = tuple(r for r in chunk if r.preliminary)
        title = config.title if front else f"{name}: {config.title}"
        if k:
            title = f"{title}: page {k + 1}"
        pages.append(LeaderboardPage(
            path=paths[k], title=title, template="leaderboard.html",
            simulated=any(r.simulated for r in chunk), description=config.description,
            ranked=ranked, incomplete=incomplete, preliminary=preliminary, min_samples=config.min_samples,
            forest=_forest_chart(ranked, k),
            tie_groups=page_groups, tasks=task_refs,
            pager=Pager(k + 1, tuple(NavLink(str(j + 1), p) for j, p in enumerate(paths))) if len(paths) > 1 else None,
            first_rank=k * size + 1, total_models=len(rows), total_ranked=total_ranked,
            mode=config.mode, bootstrap=config.bootstrap, seed=config.seed, bands=band_views,
            board=name if len(ctx.results.boards) > 1 else "",
            board_description=board.description if board is not None else "",
            boards=ctx.board_refs() if len(ctx.results.boards) > 1 else (),
            common_badges=common, facets=row_facets, adjacent_rule=rule, paired_any=bool(paired),
        ))
    return pages


def _common_badges(rows: Sequence[ModelRow]) -> tuple[Badge, ...]:
    """The badges every ranked row carries alike (same letter, value and sentence), when
    there are at least two rows: said once above the table, not on every row."""
    if len(rows) < 2:
        return ()
    first = rows[0].badges
    return tuple(b for b in first if all(b in r.badges for r in rows[1:]))


def _rank_span(ranks: Iterable[int | None]) -> str:
    known = [r for r in ranks if r is not None]
    if not known:
        return ""
    return f"ranks {min(known)}–{max(known)}" if min(known) != max(known) else f"rank {known[0]}"


def _forest_chart(rows: Sequence[ModelRow], page: int) -> Chart | None:
    data = tuple(
        {"label": _chart_label(r), "order": n, "low": r.score.low, "high": r.score.high, "center": r.score.center,
         "text": r.score.text, "hollow": False}
        for n, r in enumerate(rows) if r.score is not None and r.rank is not None)
    if not data:
        return None
    return Chart(kind="forest-score", id="forest", twin="leaderboard",
                 label=f"ReasonScore intervals of the {len(data)} ranked models in the table below, in rank order",
                 rows=data)


def _chart_label(row: ModelRow) -> str:
    prefix = f"{row.rank}. " if row.rank is not None else "* "
    return prefix + row.label
