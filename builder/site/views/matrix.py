"""The model × task matrix (`matrix.html`, `matrix-2.html`, ...; PRODUCT.md "Boards, the
model × task matrix, filters"): one row per evaluation, one column per task, each cell the
task's estimate with its 95 % interval, its rank range among the evaluations on that task
and a mark for high truncation (after ReasonScape's leaderboard, whose cells carry intervals
and truncation marks).

Every evaluation is a row and every task a column, whatever the boards rank: a board never
hides a result. Rows are listed by label, never by a score: evaluations with different
tasks have no common axis. A reader may sort by one task's column (one task is one axis)
and filter by the evaluations' groups (`evals.json` `groups`, "family:llama"); both live in
the page's URL fragment (site.js), so a filtered view is a link, offline too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from ...config import SiteConfig
from ...stats.board import EvaluationRow, TaskResult
from ...stats.taskranks import TaskRanking
from .. import format as fmt
from ..urls import matrix_path
from .base import NavLink, Page, Pager, Ref
from .facets import Facet, groups_attribute
from .facets import facets as facet_list
from .rows import Context

#: A task result is marked as highly truncated from this share of truncated trials on.
HIGH_TRUNCATION = 0.10
#: A preliminary result's place in a cell (SAMPLES.md section 4: it has no rank).
PRELIMINARY = "preliminary"


@dataclass(frozen=True)
class MatrixCell:
    """One evaluation on one task."""

    estimate: float | None
    text: str
    range_text: str
    #: "1–3 of 9": where the interval places it among the evaluations on the task.
    rank_text: str
    truncation: float | None
    high_truncation: bool

    @property
    def sort_value(self) -> str:
        return "" if self.estimate is None else f"{self.estimate:.6f}"

    @property
    def description(self) -> str:
        parts = [f"{self.text}, 95% interval {self.range_text}"]
        if self.rank_text == PRELIMINARY:
            parts.append("preliminary on this task: too few samples for a rank")
        elif self.rank_text:
            parts.append(f"rank {self.rank_text} on this task")
        if self.high_truncation and self.truncation is not None:
            parts.append(f"{fmt.percent(self.truncation)} of trials truncated")
        return "; ".join(parts)


@dataclass(frozen=True)
class MatrixRow:
    #: The evaluation's id (what the compare view's address names).
    id: str
    ref: Ref
    anchor: str
    #: The evaluation's groups ("family:llama"), the facets a reader filters by.
    groups: tuple[str, ...]
    cells: tuple[MatrixCell | None, ...]
    tasks_present: int
    #: Said beside the label when the harness recorded no truncation (no mark is possible).
    truncation_note: str | None
    simulated: bool

    @property
    def filter_text(self) -> str:
        return self.ref.label.lower()

    @property
    def groups_text(self) -> str:
        return groups_attribute(self.groups)


@dataclass(frozen=True)
class MatrixPage(Page):
    tasks: tuple[Ref, ...]
    rows: tuple[MatrixRow, ...]
    facets: tuple[Facet, ...]
    pager: Pager | None
    total_rows: int
    mode: str
    #: The front page shows the matrix when no board ranks two evaluations.
    front: bool = False
    boards: tuple[Ref, ...] = ()
    high_truncation: float = HIGH_TRUNCATION

    @property
    def any_truncation_mark(self) -> bool:
        return any(c is not None and c.high_truncation for r in self.rows for c in r.cells)

    @property
    def any_preliminary(self) -> bool:
        return any(c is not None and c.rank_text == PRELIMINARY for r in self.rows for c in r.cells)


def matrix_order(models: Sequence[EvaluationRow]) -> list[EvaluationRow]:
    """The matrix's rows: by label, then id (never by a score)."""
    return sorted(models, key=lambda m: (m.label.casefold(), m.id))


def matrix_pages(ctx: Context, config: SiteConfig, tasks: Sequence[str], base: str = "matrix",
                 boards: tuple[Ref, ...] = ()) -> list[MatrixPage]:
    """The matrix's pages at `matrix.html`, ... (or, with `base` "index", as the front page)."""
    ranks = {t: _ranks(ctx.results.task_rankings[t]) for t in tasks}
    rows = [_row(ctx, m, tasks, ranks) for m in matrix_order(ctx.models)]
    size = max(1, int(config.page_size))
    chunks = [rows[i:i + size] for i in range(0, len(rows), size)] or [[]]
    front = base == "index"
    paths = [(("index.html" if k == 0 else f"index-{k + 1}.html") if front else matrix_path(k + 1))
             for k in range(len(chunks))]
    facets = facet_list(r.groups for r in rows)
    task_refs = tuple(Ref(t, ctx.task_paths[t]) for t in tasks)
    pages = []
    for k, chunk in enumerate(chunks):
        title = config.title if front else "Model × task matrix"
        if k:
            title = f"{title}: page {k + 1}"
        pages.append(MatrixPage(
            path=paths[k], title=title, template="matrix.html", simulated=any(r.simulated for r in chunk),
            description=f"Every evaluation's result on each of {len(tasks)} tasks, with intervals",
            tasks=task_refs, rows=tuple(chunk), facets=facets,
            pager=Pager(k + 1, tuple(NavLink(str(j + 1), p) for j, p in enumerate(paths))) if len(paths) > 1 else None,
            total_rows=len(rows), mode=config.mode, front=front, boards=boards))
    return pages


def _ranks(ranking: TaskRanking) -> dict[str, str]:
    """Each evaluation's rank range on one task among the ranked results on it: "2 of 7" or
    "1–3 of 7"; a preliminary result (too few samples) has none and reads `PRELIMINARY`."""
    n = len(ranking.rows) if ranking.ranked < 0 else ranking.ranked
    out = {}
    for k, (m, best, worst) in enumerate(zip(ranking.rows, ranking.rank_best, ranking.rank_worst)):
        if ranking.is_preliminary(k):
            out[m.id] = PRELIMINARY
            continue
        span = str(best) if best == worst else f"{best}–{worst}"
        out[m.id] = f"{span} of {n}"
    return out


def _row(ctx: Context, m: EvaluationRow, tasks: Sequence[str], ranks: dict[str, dict[str, str]]) -> MatrixRow:
    e = m.evaluation
    cells = tuple(_cell(m.tasks.get(t), ranks[t].get(m.id, ""), e.truncation_observed) for t in tasks)
    note = None if e.truncation_observed else "truncation not recorded"
    return MatrixRow(id=m.id, ref=ctx.ref(m.id), anchor=ctx.anchors[m.id], groups=e.groups, cells=cells,
                     tasks_present=sum(1 for c in cells if c is not None), truncation_note=note,
                     simulated=ctx.simulated[m.id])


def _cell(t: TaskResult | None, rank_text: str, truncation_observed: bool) -> MatrixCell | None:
    if t is None or t.low is None or t.high is None:
        return None
    center, margin = (t.low + t.high) / 2, (t.high - t.low) / 2
    truncation = (t.truncated / t.total) if t.total and truncation_observed else None
    return MatrixCell(
        estimate=t.estimate if t.estimate is not None else center,
        text=f"{fmt.probability(center)} ± {fmt.probability(margin)}",
        range_text=f"[{fmt.probability(t.low)}, {fmt.probability(t.high)}]",
        rank_text=rank_text, truncation=truncation,
        high_truncation=truncation is not None and truncation >= HIGH_TRUNCATION)
