"""Keys that decide which reports talk about the same thing (EVALCARDS.md section 2).

Two reports are compared only when their model, benchmark and metric keys agree, so the
keys must forgive spelling (`MMLU-PRO` vs `MMLU-Pro`, `OLMo` vs `olmo`, a double space in
an organisation name) and nothing else. Every key is derived here, once, so the loader,
the card matcher and the tests cannot disagree about them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Mapping

from ..vocabulary import RELATIONSHIPS as KNOWN_RELATIONSHIPS

_RUNS = re.compile(r"[a-z0-9]+")
_SPACES = re.compile(r"\s+")

#: The metric key of a report that names no metric (section 2).
DEFAULT_METRIC = "score"
#: The party key of a report whose organisation is not named at all: one shared party, so
#: unnamed reports never count as corroboration of each other. Written as a label, in
#: parentheses, so a page never mistakes it for an organisation's name.
UNNAMED_ORGANIZATION = "(unnamed)"


def key(text: object) -> str:
    """The lowercase ASCII alphanumeric runs of `text` joined by `-` ("MATH Level 5" → "math-level-5")."""
    if text is None:
        return ""
    return "-".join(_RUNS.findall(str(text).lower()))


def fold(text: object) -> str:
    """Trimmed and case-folded: the model-id normalisation of section 2."""
    return str(text).strip().casefold() if text is not None else ""


def org_key(name: object) -> str:
    """Organisation name case-folded, whitespace runs collapsed, trimmed.

    The real corpus spells the LiveCodeBench Pro consortium with and without a double
    space; both must be one party (section 2). An absent or blank name is the single
    `UNNAMED_ORGANIZATION` party.
    """
    if not isinstance(name, str) or not name.strip():
        return UNNAMED_ORGANIZATION
    return _SPACES.sub(" ", name.casefold()).strip()


def benchmark_path(benchmark: str, slice_: str | None) -> str:
    """`benchmark` or `benchmark/slice` (section 2)."""
    return f"{benchmark}/{slice_}" if slice_ else benchmark


@dataclass(frozen=True)
class Aliases:
    """The config's `[aliases]` tables, normalised once.

    Both sides of every entry go through the same normalisation as the keys they map
    (`fold` for models, `key` for benchmarks), so `"Org/Model" = "org/other"` in
    `site.toml` works however the publisher capitalised or punctuated it.
    """

    models: Mapping[str, str] = field(default_factory=dict)
    benchmarks: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def from_tables(cls, models: Mapping[str, str] | None, benchmarks: Mapping[str, str] | None) -> Aliases:
        return cls(
            models={fold(k): fold(v) for k, v in (models or {}).items()},
            benchmarks={key(k): key(v) for k, v in (benchmarks or {}).items()},
        )

    def model(self, model_id: object) -> str:
        """Model key: `model_info.id` trimmed and case-folded, then aliased."""
        folded = fold(model_id)
        return self.models.get(folded, folded)

    def benchmark(self, bench_key: str) -> str:
        """A benchmark key mapped through the aliases (unknown keys map to themselves)."""
        return self.benchmarks.get(bench_key, bench_key)


@dataclass(frozen=True)
class PointAliases:
    """The config's `[aliases]` as they apply to points and `evals.json`, as to reported rows:
    a model whose trimmed, case-folded name is an alias (a task whose `key` is one) takes
    the name written on the right, so one run ingested under two names is one evaluation."""

    models: Mapping[str, str] = field(default_factory=dict)
    tasks: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def from_tables(cls, models: Mapping[str, str] | None, benchmarks: Mapping[str, str] | None) -> PointAliases:
        return cls(models={fold(k): v.strip() for k, v in (models or {}).items() if fold(k) != fold(v)},
                   tasks={key(k): v.strip() for k, v in (benchmarks or {}).items() if key(k) != key(v)})

    def model(self, name: str) -> str:
        return self.models.get(fold(name), name)

    def task(self, name: str) -> str:
        return self.tasks.get(key(name), name)

    def rename_staged(self, con: Any) -> None:
        """Rename the models and tasks of the staged points (the temp table `staged`), once per
        distinct name (there are few), joined back in SQL."""
        for column, rename in (("model", self.model), ("base_task", self.task)):
            pairs = {name: rename(name) for (name,) in con.execute(f"SELECT DISTINCT {column} FROM staged").fetchall()}
            if any(old != new for old, new in pairs.items()):
                con.execute(f"UPDATE staged SET {column} = r.new FROM (SELECT unnest(?::VARCHAR[]) AS old, "
                            f"unnest(?::VARCHAR[]) AS new) r WHERE staged.{column} = r.old",
                            [list(pairs), list(pairs.values())])

    def salt(self) -> str:
        """What enters the points part's fingerprint: the aliases change the stored rows."""
        return repr((sorted(self.models.items()), sorted(self.tasks.items()))) if self.models or self.tasks else ""


#: The relationships a report may state (the rest is `unspecified`).
_KNOWN_RELATIONSHIPS = frozenset(KNOWN_RELATIONSHIPS)


def rho(reported: Any) -> str:
    """`first_party`, `third_party` or `collaborative` as reported (trimmed, any case);
    anything else (null, missing, `other`, free text) is `unspecified`."""
    if isinstance(reported, str):
        value = reported.strip().casefold()
        if value in _KNOWN_RELATIONSHIPS:
            return value
    return "unspecified"
