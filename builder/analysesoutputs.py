"""The per-sample analyses' data files (SAMPLES.md section 6; docs/analyses.md "Data files"):
`data/analyses.json`, the index with each evaluation's rank at each budget, and
`data/analyses/<evaluation slug>.json`, one evaluation's compression, hazard and budget sweep.

An evaluation's document is columns, not records: each field is written once, with one
element per task (`tasks.name` gives their order; null where a task has no compression or
no hazard), per outcome (`OUTCOMES` order, an outcome that does not occur has 0 trials), per
hazard bin or per budget. Written as records, the field names took a third of the file, and
these files are one per evaluation: on a 10,000-evaluation site, tens of megabytes. A bin's
upper edge is the next bin's lower edge (the last bin's is `top`), so only lower edges are
written.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from .outputs import dump_json
from .stats.analyses import Analyses, EvaluationAnalyses
from .stats.budget import DIVISORS
from .stats.compression import OUTCOMES, OutcomeCompression, Quartiles, TaskCompression
from .stats.evaluations import Evaluation
from .stats.grid import r3, r6
from .stats.hazard import TaskHazard

ANALYSES_SCHEMA = "reasonboard.analyses/2"


def analyses_files(analyses: Analyses, evaluations: Mapping[str, Evaluation]) -> dict[str, bytes]:
    """`data/analyses.json` (each evaluation with trials: its file and its rank at each
    budget) and `data/analyses/<evaluation slug>.json` (its compression, hazard and sweep)."""
    if not analyses.evaluations:
        return {}
    files, index = {}, []
    for eid in sorted(analyses.evaluations):
        e, path = evaluations[eid], f"data/analyses/{evaluations[eid].slug}.json"
        rank = analyses.ranks.get(eid)
        index.append({"id": eid, "file": path, "budget_ranks": list(rank.ranks) if rank else None,
                      "budget_rank_ranges": [list(x) for x in rank.ranges] if rank else None,
                      "rank_depends_on_budget": rank.depends if rank else None})
        files[path] = dump_json(analyses_document(e, analyses.evaluations[eid]))
    files["data/analyses.json"] = dump_json({"schema": ANALYSES_SCHEMA, "budget_divisors": list(DIVISORS),
                                             "evaluations": index})
    return files


def _quartiles(q: Quartiles | None) -> list[float | None] | None:
    return None if q is None else [r6(q.q1), r6(q.median), r6(q.q3)]


def _per_outcome(c: TaskCompression) -> list[OutcomeCompression | None]:
    found = {o.outcome: o for o in c.outcomes}
    return [found.get(name) for name in OUTCOMES]


def _compression(found: Sequence[TaskCompression | None]) -> dict[str, list[Any]]:
    """Each field with one element per task (null without compression), each of those one
    per outcome in `OUTCOMES` order."""
    rows = [None if c is None else _per_outcome(c) for c in found]

    def field(pick: Any, absent: Any) -> list[Any]:
        return [None if r is None else [absent if o is None else pick(o) for o in r] for r in rows]

    return {"looping": [None if c is None else list(c.looping) for c in found],
            "trials": field(lambda o: o.trials, 0), "bits_trials": field(lambda o: o.bits_trials, 0),
            "bits_per_token": field(lambda o: _quartiles(o.bits), None),
            "size_trials": field(lambda o: o.size_trials, 0), "compressed": field(lambda o: _quartiles(o.size), None)}


def _hazard(found: Sequence[TaskHazard | None]) -> dict[str, list[Any]]:
    """Each field with one element per task (null without output tokens), each of those one
    per bin."""

    def field(pick: Any) -> list[Any]:
        return [None if h is None else [pick(b) for b in h.bins] for h in found]

    return {"top": [None if h is None else h.top for h in found],
            "top_is_limit": [None if h is None else h.limited for h in found],
            "low": field(lambda b: b.low), "ending": field(lambda b: b.ending), "events": field(lambda b: b.events),
            "at_risk": field(lambda b: b.at_risk), "hazard": field(lambda b: r6(b.hazard)),
            "ci_low": field(lambda b: r6(b.ci_low)), "ci_high": field(lambda b: r6(b.ci_high))}


def analyses_document(e: Evaluation, a: EvaluationAnalyses) -> dict[str, Any]:
    """One evaluation's analyses as columns (the module's docstring)."""
    names = sorted(a.recorded)
    recorded = [a.recorded[t] for t in names]
    tasks: dict[str, Any] = {
        "name": names, "trials": [r.trials for r in recorded], "with_tokens": [r.with_tokens for r in recorded],
        "with_text": [r.with_text for r in recorded], "token_limit": [r.limit for r in recorded],
        "compression": _compression([a.compression.get(t) for t in names]),
        "hazard": _hazard([a.hazard.get(t) for t in names]),
    }
    sweep = None
    if a.sweep is not None:
        levels = a.sweep.levels
        sweep = {"limits": dict(a.sweep.limits), "divisor": [lv.divisor for lv in levels],
                 "reasonscore": [r3(lv.center) for lv in levels], "margin": [r3(lv.margin) for lv in levels],
                 "ci_low": [r3(lv.ci_low) for lv in levels], "ci_high": [r3(lv.ci_high) for lv in levels],
                 "tasks": {t: [[r6(x) for x in lv.tasks[t]] for lv in levels] for t in a.sweep.limits}}
    return {"schema": ANALYSES_SCHEMA, "id": e.id, "model": e.model, "template": e.template, "sampler": e.sampler,
            "tasks": tasks, "budget_sweep": sweep, "budget_sweep_note": a.sweep_note}
