"""The per-sample analyses as pages show them (SAMPLES.md section 6): compression by
outcome and the token hazard on a model page, the models' hazards together on a task page,
the budget sweep on a model page and the ranking at each budget on the board's page.

Every chart has its table twin; what was not recorded is a sentence, never a number.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Mapping, Sequence

from ...stats.analyses import EvaluationAnalyses
from ...stats.budget import DIVISORS, BudgetRank, Sweep
from ...stats.compression import LOOP_RATIO, Quartiles, TaskCompression
from ...stats.hazard import FIRST_EDGE, HazardBin, TaskHazard
from .. import format as fmt
from ..charts import Chart
from .base import Page, Ref

#: Series a hazard chart draws: the colours and point shapes of the chart kinds stay apart
#: up to here (the table lists every series).
CHART_SERIES = 8

#: `LOOP_RATIO` in words.
LOOP_SHARE = {0.5: "half", 0.25: "a quarter"}.get(LOOP_RATIO, f"{LOOP_RATIO:g} of")

#: Said beside every budget sweep (SAMPLES.md section 6).
BUDGET_CAVEAT = ("A smaller budget is simulated by counting every answer longer than it as cut off. That holds "
                 "when the prompt did not state the budget: a model told of a smaller budget may answer shorter.")


def budget_label(divisor: int) -> str:
    return "L" if divisor == 1 else f"L/{divisor}"


def _spread(q: Quartiles | None, digits: int = 2) -> str:
    if q is None:
        return fmt.MISSING
    return f"{q.median:.{digits}f} ({q.q1:.{digits}f}–{q.q3:.{digits}f})"


def _bin_label(b: HazardBin, last: bool, limited: bool) -> str:
    return _edges_text(b.low, None if last and not limited else b.high)


@lru_cache(maxsize=1024)
def _edges_text(low: int, high: int | None) -> str:
    """"32–64", or "4,096+" for a last bin without a recorded limit (the same few edges on
    every task of every evaluation: each text is made once)."""
    return f"{low:,}+" if high is None else f"{low:,}–{high:,}"


def _unit_interval(estimate: float, low: float, high: float) -> str:
    """"0.412 [0.380, 0.445]", the bounds clipped to [0, 1]; adding 0.0 turns a -0.0 (a bound
    computed as 0 from below) into 0.0, which would otherwise print as "-0.000". (The clips
    are written as conditions, which give what `max(low, 0.0)` and `min(high, 1.0)` give,
    without two calls for each of about a hundred cells a model page has.)"""
    return f"{estimate + 0.0:.3f} [{(0.0 if low < 0.0 else low) + 0.0:.3f}, {(1.0 if high > 1.0 else high) + 0.0:.3f}]"


def _hazard_text(b: HazardBin) -> str:
    if b.hazard is None or b.ci_low is None or b.ci_high is None:
        return "not reached"
    return _unit_interval(b.hazard, b.ci_low, b.ci_high)


@dataclass(frozen=True)
class CompressionRow:
    task: str
    outcome: str
    trials: str
    bits: str
    size: str


@dataclass(frozen=True)
class HazardRow:
    """One task: its hazard [interval] in each bin of the table's columns ("—": the task's
    bins differ there)."""

    task: str
    cells: tuple[str, ...]


@dataclass(frozen=True)
class BudgetRow:
    budget: str
    tokens: str
    score: str
    tasks: tuple[str, ...]


@dataclass(frozen=True)
class ModelAnalyses:
    """The three analyses of one evaluation, each with its chart (None: nothing to draw),
    table rows and sentences (what was not recorded, what stands out)."""

    compression_chart: Chart | None
    compression_rows: tuple[CompressionRow, ...]
    compression_notes: tuple[str, ...]
    hazard_chart: Chart | None
    hazard_bins: tuple[str, ...]
    hazard_rows: tuple[HazardRow, ...]
    hazard_notes: tuple[str, ...]
    sweep_chart: Chart | None
    sweep_rows: tuple[BudgetRow, ...]
    sweep_tasks: tuple[str, ...]
    sweep_note: str | None
    #: How many tasks the hazard chart draws, of how many with a hazard.
    hazard_charted: int = 0
    hazard_tasks: int = 0
    #: Whether a task's last bin ends at the run's token limit (else no page says it does).
    hazard_limited: bool = False
    caveat: str = BUDGET_CAVEAT

    @property
    def charts(self) -> tuple[Chart, ...]:
        return tuple(c for c in (self.compression_chart, self.hazard_chart, self.sweep_chart) if c is not None)


def model_analyses(a: EvaluationAnalyses, label: str) -> ModelAnalyses:
    """The three analyses of one evaluation. Its charts are drawn from their twin tables
    (`Chart.from_twin`), so they carry no rows: a chart is made where its table has a
    number to draw."""
    tasks = list(a.recorded)
    comp_rows, drawn, comp_notes = _compression(a.compression, tasks, a)
    haz_bins, haz_rows, charted, haz_notes = _hazard(a.hazard, tasks)
    with_bins = len(haz_rows)
    comp_chart = Chart("compression", "compression-chart", f"Bits per output token of {label}'s outputs by outcome",
                       "compression-table", (), from_twin=True) if drawn else None
    haz_chart = Chart("hazard", "hazard-chart", f"Token hazard of {label} on each task", "hazard-table",
                      (), from_twin=True, series=CHART_SERIES) if charted else None
    sweep_rows, sweep_tasks, sweep_chart = _sweep(a.sweep, label)
    return ModelAnalyses(comp_chart, tuple(comp_rows), tuple(comp_notes), haz_chart, haz_bins, tuple(haz_rows),
                         tuple(haz_notes), sweep_chart, sweep_rows, sweep_tasks, a.sweep_note, charted, with_bins,
                         hazard_limited=any(h.limited and h.bins for h in a.hazard.values()))


def _compression(found: Mapping[str, TaskCompression], tasks: list[str],
                 a: EvaluationAnalyses) -> tuple[list[CompressionRow], bool, list[str]]:
    """The table's rows, whether any has bits per token to draw, and the sentences."""
    rows: list[CompressionRow] = []
    drawn = False
    notes: list[str] = []
    looping: dict[str, list[str]] = {}
    untold = [t for t in tasks if t not in found]
    if untold:
        notes.append(f"No compression on {_tasks_text(untold)}: the trials do not record their output text.")
    for task in tasks:
        c = found.get(task)
        if c is None:
            continue
        for o in c.outcomes:
            rows.append(CompressionRow(task, o.outcome, fmt.count(o.trials), _spread(o.bits), _spread(o.size, 0)))
            drawn = drawn or o.bits is not None
        for name in c.looping:
            looping.setdefault(name, []).append(task)
        missing = a.recorded[task].trials - a.recorded[task].with_text
        if missing:
            notes.append(f"Task {task}: {missing:,} of {a.recorded[task].trials:,} trials record no output text.")
    for name, where in looping.items():
        notes.append(f"Looping: on {_tasks_text(where)}, the median {name} output takes at most {LOOP_SHARE} the "
                     "bits per output token of the median correct one (the table has the medians). Repetitive or "
                     "looping output compresses that much better; so does an output-token count that includes "
                     "reasoning whose text the log does not keep (a reasoning model through Inspect, say), which "
                     "the trials cannot tell apart.")
    return rows, drawn, notes


def _tasks_text(tasks: list[str]) -> str:
    return f"task {tasks[0]}" if len(tasks) == 1 else f"{len(tasks)} tasks ({', '.join(tasks)})"


def _hazard(found: Mapping[str, TaskHazard], tasks: list[str]
            ) -> tuple[tuple[str, ...], list[HazardRow], int, list[str]]:
    """The bins (the table's columns), a row per task with bins, how many of the first
    `CHART_SERIES` of those have a hazard to draw (the chart's series), and the sentences."""
    cells: dict[str, dict[str, str]] = {}
    edges: dict[str, int] = {}
    charted = 0
    notes: list[str] = []
    unlimited: dict[str, int] = {}
    untold = [t for t in tasks if t not in found]
    if untold:
        notes.append(f"No hazard on {_tasks_text(untold)}: the trials do not record their output tokens.")
    for task in tasks:
        h = found.get(task)
        if h is None:
            continue
        if not h.bins:
            notes.append(_no_bin(task, h))
            continue
        if not h.limited:
            unlimited[task] = h.top
        mine = cells.setdefault(task, {})
        last = len(h.bins) - 1
        for n, b in enumerate(h.bins):
            label = _bin_label(b, n == last, h.limited)
            edges.setdefault(label, b.low)
            mine[label] = _hazard_text(b)
        if len(cells) <= CHART_SERIES and any(b.hazard is not None for b in h.bins):
            charted += 1
    if unlimited:
        notes.append(_unlimited(unlimited))
    bins = tuple(sorted(edges, key=lambda s: (edges[s], s)))
    rows = [HazardRow(task, tuple(c.get(label, fmt.MISSING) for label in bins)) for task, c in cells.items()]
    return bins, rows, charted, notes


def _unlimited(tops: Mapping[str, int]) -> str:
    """One sentence for the tasks whose bins stop where the outputs did (no recorded limit)."""
    if len(tops) == 1:
        (task, top), = tops.items()
        return (f"Task {task}: no token limit recorded; the bins stop at {top:,} tokens, the largest power of two "
                "an output reached.")
    each = ", ".join(f"{task} {top:,}" for task, top in tops.items())
    return (f"No token limit recorded: on each task the bins stop at the largest power of two an output "
            f"reached ({each} tokens).")


def _no_bin(task: str, h: TaskHazard) -> str:
    """Why a task's hazard has no bin: the run's token limit, or (without one) the largest power
    of two an output reached, is at or below the first edge; the longest output is then
    shorter than twice that power."""
    if h.limited:
        return f"Task {task}: the run's token limit of {h.top:,} tokens leaves no bin from {FIRST_EDGE} tokens up."
    shorter = "2 tokens" if h.top == 1 else f"{2 * h.top:,} tokens"
    return f"Task {task}: every output is shorter than {shorter}; the first bin starts at {FIRST_EDGE} tokens."


def hazard_point(series: str, order: int, label: str, n: int, b: HazardBin) -> dict[str, object]:
    """One chart row of the `hazard` kind (rounded: the chart needs no more)."""
    return {"series": series, "series_order": order, "bin": label, "bin_order": n,
            "hazard": round(b.hazard or 0.0, 3), "low": round(max(b.ci_low or 0.0, 0.0), 3),
            "high": round(min(b.ci_high or 1.0, 1.0), 3)}


def _sweep(sweep: Sweep | None, label: str) -> tuple[tuple[BudgetRow, ...], tuple[str, ...], Chart | None]:
    if sweep is None:
        return (), (), None
    tasks = tuple(sweep.limits)
    limit = sweep.limit
    rows: list[BudgetRow] = []
    for level in sweep.levels:
        tokens = fmt.count(limit / level.divisor) if limit is not None else "per task"
        rows.append(BudgetRow(budget_label(level.divisor), tokens, f"{level.center:.1f} ± {level.margin:.1f}",
                              tuple(_unit_interval(*level.tasks[t]) for t in tasks)))
    chart = Chart("budget", "budget-chart", f"ReasonScore of {label} at each output-token budget", "budget-table",
                  (), from_twin=True)
    return tuple(rows), tasks, chart


@dataclass(frozen=True)
class TaskHazards:
    """The hazards of a task page's models together: a chart of the first `charted` and a
    table row per model, a cell per bin."""

    chart: Chart | None
    bins: tuple[str, ...]
    rows: tuple[tuple[Ref, tuple[str, ...]], ...]
    charted: int
    notes: tuple[str, ...]


def task_hazards(task: str, models: Sequence[tuple[str, Ref]], analyses: Mapping[str, EvaluationAnalyses],
                 series: int) -> TaskHazards | None:
    """`models`: (evaluation id, link) in the task page's order; `series`: how many to chart."""
    found = [(mid, ref, analyses[mid].hazard[task]) for mid, ref in models
             if mid in analyses and task in analyses[mid].hazard and analyses[mid].hazard[task].bins]
    if not found:
        return None
    labels: dict[str, int] = {}
    per_model = []
    data: list[dict[str, object]] = []
    for k, (_, ref, h) in enumerate(found):
        cells = {}
        for n, b in enumerate(h.bins):
            label = _bin_label(b, n == len(h.bins) - 1, h.limited)
            labels.setdefault(label, b.low)
            cells[label] = _hazard_text(b)
            if k < series and b.hazard is not None:
                data.append(hazard_point(f"{k + 1}. {ref.label}", k, label, n, b))
        per_model.append((ref, cells))
    ordered = tuple(sorted(labels, key=lambda s: (labels[s], s)))
    # Bins are ordered by their lower edge across models; the chart's order follows it.
    order = {s: n for n, s in enumerate(ordered)}
    for row in data:
        row["bin_order"] = order[str(row["bin"])]
    rows = tuple((ref, tuple(cells.get(s, fmt.MISSING) for s in ordered)) for ref, cells in per_model)
    charted = min(series, len(found))
    chart = Chart("hazard", "task-hazard", f"Token hazard of {charted} models on {task}", "task-hazard-table",
                  tuple(data)) if data else None
    # A model whose tokens are recorded but whose outputs (or token limit) stop short of the
    # first bin has no hazard for that reason, not for want of tokens: the two are told apart.
    short = sum(1 for mid, _ in models if mid in analyses and task in analyses[mid].hazard
                and not analyses[mid].hazard[task].bins)
    untold = len(models) - len(found) - short
    notes: list[str] = []
    if untold:
        notes.append(f"{untold} of the {len(models)} models listed {'has' if untold == 1 else 'have'} no hazard "
                     "on this task: their trials do not record output tokens, or there are none.")
    if short:
        notes.append(f"{short} of the {len(models)} models listed {'records' if short == 1 else 'record'} output "
                     f"tokens but {'has' if short == 1 else 'have'} no hazard on this task: the outputs, or the "
                     f"run's token limit, stop short of the first bin (from {FIRST_EDGE} tokens up).")
    return TaskHazards(chart, ordered, rows, charted, tuple(notes))


@dataclass(frozen=True)
class BudgetRankRow:
    model: Ref
    rank: int
    ranks: tuple[str, ...]
    depends: bool


def budget_rank_rows(models: Sequence[tuple[str, Ref, int]], ranks: Mapping[str, BudgetRank]) -> tuple[BudgetRankRow, ...]:
    """`models`: the board's ranked evaluations (id, link, rank), in rank order."""
    out = []
    for mid, ref, rank in models:
        r = ranks.get(mid)
        if r is None:
            continue
        cells = tuple(f"{x} ({lo}–{hi})" if lo != hi else str(x) for x, (lo, hi) in zip(r.ranks, r.ranges))
        out.append(BudgetRankRow(ref, rank, cells, r.depends))
    return tuple(out)


BUDGETS = tuple(budget_label(d) for d in DIVISORS)


@dataclass(frozen=True)
class BudgetPage(Page):
    """`budget.html`: the board's ranked models with a budget sweep, their rank (and rank
    range) at each budget, the first `page_size` of them listed; which ranks move."""

    rows: tuple[BudgetRankRow, ...]
    compared: int
    moved: int
    ranked: int
    budgets: tuple[str, ...] = BUDGETS
    caveat: str = BUDGET_CAVEAT


def budget_page(models: Sequence[tuple[str, Ref, int]], ranks: Mapping[str, BudgetRank], page_size: int,
                simulated: bool) -> BudgetPage | None:
    """None when no ranked model has a sweep (no page, no link)."""
    rows = budget_rank_rows(models, ranks)
    if not rows:
        return None
    return BudgetPage(path="budget.html", title="Ranking at a smaller token budget", template="budget.html",
                      simulated=simulated, description="The leaderboard's ranks at a sixteenth to the whole of each "
                      "run's output-token limit, recomputed from the per-sample trials",
                      rows=rows[:max(1, page_size)], compared=len(rows), moved=sum(r.depends for r in rows),
                      ranked=len(models))
