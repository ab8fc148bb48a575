"""Reproducibility: are the fields needed to re-run a result reported? (EVALCARDS.md section 4.)

`F_repro = {temperature, max_tokens}`, extended for agentic rows with the harness
(`eval_library.name`), `eval_plan` and `eval_limits`. By task kind: a row of a task scored by
log-likelihood (the leaderboard's own rows whose `evals.json` entry lists the task under
`likelihood_tasks`) sampled nothing, so temperature and max_tokens are not required of it;
EEE records do not say how a task was scored, and are taken as sampled. A row is agentic by any of three
routes: its benchmark's card lists an agentic task, its `agentic_eval_config` is
populated, or its benchmark key matches the config's agentic pattern. The per-row and
per-triple work is SQL (`row_signals`, `triple_signals` in `store/sql/results.sql`); this
module holds the field lists, the pattern route (Python regex, the dialect the config
validates) and the result types.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from ..config import matching

BASE_FIELDS = ("temperature", "max_tokens")
AGENTIC_FIELDS = ("harness", "eval_plan", "eval_limits")
#: Every reproducibility field, in the order `missing` lists them.
FIELDS = BASE_FIELDS + AGENTIC_FIELDS
#: The three ways a row becomes agentic, as `ResultRow.agentic_routes` names them.
AGENTIC_ROUTES = ("card", "agentic_eval_config", "pattern")


def required_fields(agentic: bool, sampled: bool = True) -> tuple[str, ...]:
    """The fields a row must report: the base ones where it sampled its answers, the
    agentic ones where it is agentic."""
    return (BASE_FIELDS if sampled else ()) + (AGENTIC_FIELDS if agentic else ())


def pattern_keys(benchmark_keys: Iterable[str], pattern: str) -> list[str]:
    """The benchmark keys the config's agentic pattern matches anywhere (route 3)."""
    return matching(pattern, sorted(set(benchmark_keys)))


@dataclass(frozen=True)
class Reproducibility:
    """A triple's reproducibility signal: a gap when any of its rows misses a required field."""

    gap: bool
    #: Union of the rows' missing fields, in `FIELDS` order.
    missing: tuple[str, ...]
    #: Whether any of the triple's rows is agentic (then harness, eval_plan, eval_limits count).
    agentic: bool

    def to_json(self) -> dict[str, Any]:
        return {"gap": self.gap, "missing": list(self.missing), "agentic": self.agentic}


@dataclass(frozen=True)
class ReproducibilityRollup:
    """Corpus rates: `gap_rate` over all triples; `field_missingness[f]` over all triples for the
    base fields (a triple that sampled nothing misses neither) and over agentic triples for
    the agentic ones (None when there are none)."""

    gap_rate: float | None
    field_missingness: Mapping[str, float | None] = field(default_factory=dict)
    agentic_triples: int = 0
