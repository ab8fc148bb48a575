"""The pairwise page: the win-rate matrix and Bradley–Terry strengths of the top models."""

from __future__ import annotations

from dataclasses import dataclass

from .. import format as fmt
from ..charts import Chart
from .base import Page, Ref
from .rows import Context


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


def pairwise_page(ctx: Context, top: int) -> PairwisePage:
    pw = ctx.results.pairwise
    # One ranked model has no opponent: a 1 x 1 matrix of "·" would be the page's whole content.
    ids = [i for i in pw.models if i in ctx.paths]
    ids = ids if len(ids) >= 2 else []
    win = pw.win_rate
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
        StrengthRow(s.rank, Ref(ctx.labels[s.id], ctx.paths[s.id]), f"{s.strength:.3f}",
                    f"{pw.expected_wins.get(s.id, 0.0):.2f}", ctx.by_id[s.id].rank)
        for s in pw.bradley_terry if s.id in ctx.paths)
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
        ranked=sum(1 for m in ctx.models if m.rank is not None),
    )
