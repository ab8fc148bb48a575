"""A task's page: every model's interval on it in order, with plausible rank ranges, and
its difficulty curves."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from ...slugs import unique_slugs
from ...stats.board import EvaluationRow
from ...stats.taskranks import TaskRanking
from .. import format as fmt
from ..charts import Chart
from . import premises
from .analyses import TaskHazards, task_hazards
from .base import Interval, Page, Ref, TieMark, adjacent_rule, spread
from .cards import BenchmarkSummary
from .rows import Context, task_interval

#: Difficulty curves draw this many models per chart; more lines stop being readable.
CURVE_SERIES = 8


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
    #: "50", or "50 (10 samples × 5 epochs)" (SAMPLES.md section 2).
    trials_text: str = ""
    #: Why the row is not ranked: "preliminary: 3 samples, fewer than 20" (SAMPLES.md §4).
    preliminary: str | None = None
    #: "95 of 100": the task's items this evaluation answered; "not recorded" without trials.
    items_text: str = ""

    @property
    def position_text(self) -> str:
        if self.preliminary:
            return "—"
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
    #: The models the page lists: those whose trials do not carry the coordinate have no
    #: curve, so "every model on this task" holds only when `total` is all of them. Their
    #: samples may still record it (ingest reads only the metadata keys `--params` names).
    listed: int = 0

    @property
    def caption(self) -> str:
        recording = "" if self.total >= self.listed else \
            f" whose trials carry {self.parameter} as a difficulty coordinate (of the {self.listed} listed)"
        if self.charted < self.total:
            return (f"C_P estimate at each level of {self.parameter} for {self.charted} of the {self.total} "
                    f"models{recording}, spread from the best to the worst on this task; the table lists all of them.")
        if recording:
            return (f"C_P estimate at each level of {self.parameter} for the {self.total} "
                    f"model{'' if self.total == 1 else 's'}{recording}.")
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
    #: This task's Evaluation Card summary, when its benchmark has a card.
    benchmark: BenchmarkSummary | None
    #: Which rule marks each adjacent pair (`base.adjacent_rule`).
    adjacent_rule: str = ""
    paired_any: bool = False
    #: The listed models' token hazards together (per-sample trials with output tokens).
    hazards: TaskHazards | None = None
    #: Rows with fewer than `min_samples` samples, listed apart (SAMPLES.md section 4).
    preliminary: tuple[TaskModelRow, ...] = ()
    #: Said when the evaluations did not all answer the same items (SAMPLES.md section 3).
    items_note: str | None = None
    min_samples: int = 20
    #: The estimator of the ranking table (site setting `mode`); the difficulty curves are C_P.
    mode: str = "C_P"

    @property
    def charts(self) -> tuple[Chart, ...]:
        hazard = self.hazards.chart if self.hazards else None
        return tuple(c for c in (self.chart, *(c.chart for c in self.curves), hazard) if c is not None)


def task_page(ctx: Context, ranking: TaskRanking, page_size: int) -> TaskPage:
    """The task's ranking (`stats.taskranks`), its first `page_size` rows formatted.
    Intervals are made only for the rows the page shows."""
    task = ranking.task
    listed = ranking.listed(page_size)
    paired_next = ctx.results.comparisons.task_next.get(task, {})
    rows = []
    for n, m in enumerate(listed):
        t = m.tasks[task]
        interval = ctx.task_interval(m.id, task, t)
        assert interval is not None  # rows without an interval are listed as missing
        total = t.total
        rows.append(TaskModelRow(
            model=ctx.ref(m.id), position=n + 1,
            rank_range=(ranking.rank_best[n], ranking.rank_worst[n]), interval=interval, total=total,
            truncation_rate=t.truncated / total if total else None,
            tie_next=TieMark.of(ranking.tied_next[n], paired_next.get(m.id), "rate",
                                ctx.results.leaderboard.settings.mode),
            leaderboard_rank=m.rank, truncation_note=premises.truncation_note(m.evaluation, [t]),
            trials_text=fmt.trials(total, t.samples),
            preliminary=ctx.preliminary_text(t.samples) if ranking.is_preliminary(n) else None,
            items_text=_items_text(t.items, ranking.items),
        ))
    ranked = [r for r in rows if not r.preliminary]
    chart = None
    if ranked:
        chart = Chart(kind="forest-probability", id="task-models", twin="task-table",
                      label=f"{ctx.results.leaderboard.settings.mode} intervals of the {len(ranked)} models on "
                            f"{task}, best first",
                      rows=tuple({"label": f"{r.position}. {r.model.label}", "order": r.position,
                                  "low": r.interval.low, "high": r.interval.high, "center": r.interval.center,
                                  "text": r.interval.text, "hollow": False} for r in ranked))
    curves = _curves(ctx, task, [m.id for m in listed])
    return TaskPage(
        path=ctx.task_paths[task], title=f"Task: {task}", template="task.html",
        simulated=any(ctx.simulated[m.id] for m in ranking.rows),
        description=f"Every model's interval on {task}, difficulty curves and the task's Evaluation Card",
        task=task, rows=tuple(ranked), shown=len(rows), total=len(ranking.rows), chart=chart, curves=curves,
        preliminary=tuple(r for r in rows if r.preliminary),
        items_note=_items_note(ranking, listed, task), min_samples=ctx.min_samples,
        mode=ctx.results.leaderboard.settings.mode,
        missing=tuple(ctx.ref(m.id) for m in ranking.missing[:page_size]),
        benchmark=ctx.cards.summary_for_task(task),
        adjacent_rule=adjacent_rule(len(paired_next), max(len(ranked) - 1, 0), ctx.results.comparisons.min_samples,
                                    "on this task", ctx.results.leaderboard.settings.mode),
        paired_any=bool(paired_next),
        hazards=task_hazards(task, [(m.id, ctx.ref(m.id)) for m in listed], ctx.results.analyses.evaluations,
                             CURVE_SERIES),
    )


def _items_text(answered: int | None, items: int | None) -> str:
    if answered is None:
        return "not recorded"
    return f"{fmt.count(answered)} of {fmt.count(items)}" if items is not None else fmt.count(answered)


def _items_note(ranking: TaskRanking, listed: Sequence[EvaluationRow], task: str) -> str | None:
    """The sentence a task page prints when its evaluations did not all answer the same
    items: a difference between two of them then mixes the models with the items."""
    answered = [m.tasks[task].items for m in listed]
    known = [a for a in answered if a is not None]
    unknown = len(answered) - len(known)
    if ranking.items is None or (not unknown and all(a == ranking.items for a in known)):
        return None
    parts = []
    if any(a != ranking.items for a in known):
        parts.append(f"The evaluations on this page did not all answer the same items: the task has "
                     f"{fmt.count(ranking.items)} items among those with per-sample records, and the Items column "
                     "says how many each answered, so a difference between two of them is partly a difference "
                     "between their items.")
    if unknown:
        one = unknown == 1
        parts.append(f"{unknown} of them {'has' if one else 'have'} no per-sample records, so which items "
                     f"{'it' if one else 'they'} answered is not known.")
    return " ".join(parts)


def _level_sort_key(value: str) -> tuple[int, float, str]:
    try:
        return (0, float(value), str(value))
    except (TypeError, ValueError):
        return (1, 0.0, str(value))


def _curves(ctx: Context, task: str, order: list[str]) -> tuple[Curve, ...]:
    """One chart and one table per difficulty parameter of the task.

    The chart draws at most `CURVE_SERIES` models, spread evenly over the task order (the
    best, the worst and those between): the top few alone would all sit near 1 and hide
    how weaker models collapse. The table lists every model on the page with every level,
    so no number exists only as a colour.
    """
    out = []
    params = ctx.results.curves.get(task, {})
    position = {mid: n for n, mid in enumerate(order)}
    for param, all_points in sorted(params.items()):
        points = [p for p in all_points if p.id in position]
        levels = sorted({str(p.value) for p in points}, key=_level_sort_key)
        level_index = {v: n for n, v in enumerate(levels)}
        by_model: dict[str, dict[str, Interval]] = {}
        for p in points:
            iv = task_interval(ctx.bands, p.estimate, p.low, p.high)
            if iv is not None:
                by_model.setdefault(p.id, {})[str(p.value)] = iv
        models = [mid for mid in order if mid in by_model]
        if not models or not levels:
            continue
        charted = spread(models, CURVE_SERIES)
        series: list[dict[str, object]] = []
        for n, mid in enumerate(charted, start=1):
            ordered = sorted(by_model[mid].items(), key=lambda kv: level_index[kv[0]])
            for lv, iv in ordered:
                series.append({"model": f"{n}. {ctx.labels[mid]}", "series_order": n, "level": lv,
                             "level_order": level_index[lv],
                             "estimate": iv.estimate if iv.estimate is not None else iv.center,
                             "low": iv.low, "high": iv.high, "text": iv.text})
        data = tuple(series)
        rows = tuple(CurveRow(Ref(ctx.labels[mid], ctx.paths[mid]),
                              tuple(by_model[mid][lv].text if lv in by_model[mid] else fmt.MISSING for lv in levels))
                     for mid in models)
        slug = unique_slugs([param])[0]
        chart = Chart(kind="curves", id=f"curve-{slug}", twin=f"curve-table-{slug}",
                      label=f"C_P estimate of {len(charted)} models on {task} at each level of {param}",
                      rows=data)
        out.append(Curve(param, tuple(levels), chart, rows, len(charted), len(models), len(order)))
    return tuple(out)
