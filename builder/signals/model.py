"""The Evaluation Card signals as frozen dataclasses: the contract for pages and `signals.json`.

Everything here is computed already; nothing does I/O or queries the database. The page
authors read:

* `Signals.rows` (`ResultRow`): every result row, reported or the leaderboard's own, with
  its keys, score, party, source file, agentic status, missing reproducibility fields and
  setup. Find them with `rows_for_model(model_key)`, `rows_for_benchmark(benchmark_key)`,
  `rows_for_triple(...)`, `row(row_id)`. For a leaderboard model, key its hf_id (else its
  name) with `model_key_for(...)`; its own rows (`own=True`) also come by leaderboard id
  from `rows_for_evaluation(evaluation_id)`.
* `Signals.triples` (`TripleSignals`): per (model, benchmark path, metric): reproducibility,
  provenance and comparability, the latter with both divergence checks, the parties' scores
  and the differing setup fields. `triple(model, benchmark, metric)`, `triples_for_model`,
  `triples_for_benchmark`, `triple_of(row)`.
* `Signals.benchmarks` (`BenchmarkSignals`): per benchmark key: completeness C(b), the 28
  `FieldScore`s with the card's text, fully missing fields, risks. `benchmark(key)`.
* `Signals.corpus` (`CorpusSignals`): the rollups for the signals dashboard.

N/A is None everywhere (a divergence check with nothing to compare, a rate over nothing),
never False: "not checked: one party" must not read like "checked: within 5 %".
`Signals.to_json()` is `site/data/signals.json` (EVALCARDS.md section 8).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from functools import cached_property
from operator import attrgetter
from typing import Any, Callable, Iterable, Mapping, TypeVar

from ..store.keys import Aliases
from ..store.setup import SETUP_FIELDS
from .comparability import Comparability, ComparabilityRollup
from .completeness import FieldScore
from .provenance import Provenance, ProvenanceRollup, Risk
from .reproducibility import Reproducibility, ReproducibilityRollup, required_fields
from .rounding import r6

SCHEMA = "reasonboard.signals/1"

Triple = tuple[str, str, str]

Record = TypeVar("Record")


def record_builder(cls: type[Record]) -> Callable[..., Record]:
    """A faster stand-in for the constructor of a frozen dataclass, for the tens of
    thousands of rows a corpus has: takes every field positionally and fills the instance's
    `__dict__` in one step, where the generated `__init__` sets each field through
    `object.__setattr__` (about 3 us a row for `ResultRow`'s 25 fields, against 1 us).
    The instance is the same (equal, hashed, frozen and pickled alike); classes with
    `__slots__` or a `__post_init__` are refused, since this would skip them."""
    fields_ = dataclasses.fields(cls)  # type: ignore[arg-type]
    params = getattr(cls, "__dataclass_params__", None)
    if params is None or not params.frozen or hasattr(cls, "__post_init__") or hasattr(cls, "__slots__"):
        raise TypeError(f"{cls.__name__} is not a frozen dataclass with a plain __init__")
    names = tuple(f.name for f in fields_)
    count = len(names)
    new, set_dict = object.__new__, object.__setattr__

    def build(*values: Any) -> Record:
        if len(values) != count:
            raise TypeError(f"{cls.__name__} takes {count} values, got {len(values)}")
        record = new(cls)
        set_dict(record, "__dict__", dict(zip(names, values)))
        return record

    return build


@dataclass(frozen=True)
class ResultRow:
    """One result: an EEE `evaluation_results[]` entry or one of the leaderboard's own."""

    row_id: int
    #: True for the leaderboard's own (evaluation, task) results.
    own: bool
    #: The EEE file, relative to the data directory (None for own rows).
    source_path: str | None
    #: The record's evaluation_id, or the leaderboard evaluation id for own rows.
    evaluation_id: str | None
    #: The model id as reported (display); `model_key` is what rows are grouped by.
    model_id: str
    model_key: str
    #: The benchmark as reported (dataset_name, else evaluation_name).
    benchmark_name: str
    benchmark_key: str
    slice_key: str | None
    #: "benchmark" or "benchmark/slice": the benchmark part of the triple.
    benchmark_path: str
    metric_name: str | None
    metric_key: str
    metric_unit: str | None
    score: float
    min_score: float | None
    max_score: float | None
    #: The organisation as reported, and its key (the party).
    organization: str | None
    org_key: str
    #: rho: first_party, third_party, collaborative or unspecified; and the raw value.
    relationship: str
    relationship_reported: str | None
    source_type: str | None
    agentic: bool
    #: The model generated its answers; False for a task scored by log-likelihood, of which
    #: temperature and max_tokens are not required (section 4, by task kind).
    sampled: bool
    #: Which routes made the row agentic: "card", "agentic_eval_config", "pattern".
    agentic_routes: tuple[str, ...]
    #: Required reproducibility fields that are not populated, in spec order.
    missing: tuple[str, ...]
    #: The setup (canonical text or None), one value per `SETUP_FIELDS` entry.
    setup: tuple[str | None, ...]

    @property
    def triple(self) -> Triple:
        return (self.model_key, self.benchmark_path, self.metric_key)

    @property
    def gap(self) -> bool:
        return bool(self.missing)

    @property
    def required(self) -> tuple[str, ...]:
        return required_fields(self.agentic, self.sampled)

    @property
    def setup_fields(self) -> dict[str, str | None]:
        """The setup as {field: value} in `SETUP_FIELDS` order (None = not reported)."""
        return dict(zip(SETUP_FIELDS, self.setup))


@dataclass(frozen=True)
class TripleSignals:
    """The signals of one (model, benchmark path, metric) triple over all its reports."""

    model: str
    #: A display id for the model (the reported id that sorts first).
    model_id: str
    #: The benchmark path (`benchmark` or `benchmark/slice`).
    benchmark: str
    benchmark_key: str
    slice_key: str | None
    metric: str
    reports: int
    #: The reporting organisation keys, sorted.
    parties: tuple[str, ...]
    row_ids: tuple[int, ...]
    reproducibility: Reproducibility
    provenance: Provenance
    comparability: Comparability

    @property
    def key(self) -> Triple:
        return (self.model, self.benchmark, self.metric)

    def to_json(self) -> dict[str, Any]:
        return {
            "model": self.model, "benchmark": self.benchmark, "metric": self.metric,
            "reports": self.reports, "parties": list(self.parties),
            "reproducibility": self.reproducibility.to_json(),
            "provenance": self.provenance.to_json(),
            "comparability": self.comparability.to_json(),
        }


@dataclass(frozen=True)
class BenchmarkSignals:
    """The Evaluation Card of one benchmark key: completeness, fields, risks."""

    key: str
    #: The card's benchmark name, else the name the reports use, else the key.
    name: str
    has_card: bool
    #: The card file, relative to the data directory.
    card_path: str | None
    #: C(b) = sum of s(f) over the 28 fields / 28, on [0, 1].
    completeness: float
    fields: tuple[FieldScore, ...]
    risks: tuple[Risk, ...]
    #: Result rows and triples of this benchmark (all slices).
    rows: int
    triples: int
    #: The card lists an agentic task (route 1 of section 4).
    agentic: bool = False

    @property
    def fully_missing(self) -> tuple[str, ...]:
        """The fields with s(f) = 0, by dotted name."""
        return tuple(f.field for f in self.fields if f.score <= 0.0)

    @property
    def risk_categories(self) -> tuple[str, ...]:
        return tuple(r.category for r in self.risks if r.category)

    def to_json(self) -> dict[str, Any]:
        return {
            "benchmark": self.key, "has_card": self.has_card, "completeness": r6(self.completeness),
            "fully_missing": len(self.fully_missing), "fields": [f.to_json() for f in self.fields],
            "risks": list(self.risk_categories),
        }


@dataclass(frozen=True)
class CorpusSignals:
    """Corpus rollups (the signals dashboard)."""

    triples: int
    rows: int
    benchmarks: int
    reproducibility: ReproducibilityRollup
    #: Median C(b) over benchmarks (None without benchmarks).
    completeness_median: float | None
    #: p(f): mean s(f) over benchmarks, by field (None without benchmarks).
    field_population: Mapping[str, float | None]
    provenance: ProvenanceRollup
    comparability: ComparabilityRollup

    def to_json(self) -> dict[str, Any]:
        return {
            "triples": self.triples,
            "reproducibility_gap_rate": r6(self.reproducibility.gap_rate),
            "field_missingness": {f: r6(v) for f, v in self.reproducibility.field_missingness.items()},
            "completeness_median": r6(self.completeness_median),
            "field_population": {f: r6(v) for f, v in self.field_population.items()},
            "provenance": self.provenance.to_json(),
            "comparability": self.comparability.to_json(),
        }


@dataclass(frozen=True)
class Signals:
    """All Evaluation Card signals of one build."""

    populated_rule: str
    threshold: float
    #: Result entries left out for a null or non-numeric score (reported and own).
    dropped_rows: int
    rows: tuple[ResultRow, ...]
    triples: tuple[TripleSignals, ...]
    benchmarks: tuple[BenchmarkSignals, ...]
    corpus: CorpusSignals
    aliases: Aliases = field(default_factory=Aliases, compare=False, repr=False)
    #: Each model key's digest of its rows (signals/memo.py): what its rows and triples are
    #: made from, given `salt` (the code, settings and cards): page keys are built on them.
    digests: Mapping[str, str] = field(default_factory=dict, compare=False, repr=False)
    salt: str = field(default="", compare=False, repr=False)

    # -- lookups (indices built once, on first use) ---------------------------------------

    @cached_property
    def _rows_by_id(self) -> dict[int, ResultRow]:
        return {r.row_id: r for r in self.rows}

    @cached_property
    def _rows_by_model(self) -> dict[str, tuple[ResultRow, ...]]:
        return _group(self.rows, lambda r: r.model_key)

    @cached_property
    def _rows_by_benchmark(self) -> dict[str, tuple[ResultRow, ...]]:
        return _group(self.rows, lambda r: r.benchmark_key)

    @cached_property
    def _own_rows_by_evaluation(self) -> dict[str, tuple[ResultRow, ...]]:
        return _group((r for r in self.rows if r.own), lambda r: r.evaluation_id)

    @cached_property
    def _triples_by_key(self) -> dict[Triple, TripleSignals]:
        return {t.key: t for t in self.triples}

    @cached_property
    def _triples_by_model(self) -> dict[str, tuple[TripleSignals, ...]]:
        return _group(self.triples, lambda t: t.model)

    @cached_property
    def _triples_by_benchmark(self) -> dict[str, tuple[TripleSignals, ...]]:
        return _group(self.triples, lambda t: t.benchmark_key)

    @cached_property
    def _benchmarks_by_key(self) -> dict[str, BenchmarkSignals]:
        return {b.key: b for b in self.benchmarks}

    def row(self, row_id: int) -> ResultRow | None:
        return self._rows_by_id.get(row_id)

    def rows_for_model(self, model_key: str) -> tuple[ResultRow, ...]:
        """Every row of a model key, in row order (see `model_key_for` to key a model id)."""
        return self._rows_by_model.get(model_key, ())

    def rows_for_benchmark(self, benchmark_key: str) -> tuple[ResultRow, ...]:
        """Every row of a benchmark key (all its slices), in row order."""
        return self._rows_by_benchmark.get(benchmark_key, ())

    def rows_for_evaluation(self, evaluation_id: str) -> tuple[ResultRow, ...]:
        """The leaderboard's own rows of one evaluation (its leaderboard id), by task."""
        return self._own_rows_by_evaluation.get(evaluation_id, ())

    def rows_for_triple(self, model: str, benchmark: str, metric: str) -> tuple[ResultRow, ...]:
        t = self.triple(model, benchmark, metric)
        return tuple(self._rows_by_id[i] for i in t.row_ids) if t else ()

    def triple(self, model: str, benchmark: str, metric: str) -> TripleSignals | None:
        return self._triples_by_key.get((model, benchmark, metric))

    def triple_of(self, row: ResultRow) -> TripleSignals:
        return self._triples_by_key[row.triple]

    def triples_for_model(self, model_key: str) -> tuple[TripleSignals, ...]:
        return self._triples_by_model.get(model_key, ())

    def triples_for_benchmark(self, benchmark_key: str) -> tuple[TripleSignals, ...]:
        return self._triples_by_benchmark.get(benchmark_key, ())

    def benchmark(self, key: str) -> BenchmarkSignals | None:
        return self._benchmarks_by_key.get(key)

    def model_key_for(self, model_id: str) -> str:
        """The model key of a model id or hf_id, with this build's aliases."""
        return self.aliases.model(model_id)

    # -- signals.json ----------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """`site/data/signals.json` (EVALCARDS.md section 8): floats rounded to 6 decimals
        (each `to_json` rounds its own), triples by (model, benchmark, metric), benchmarks
        by key; the writer sorts keys."""
        return {**self.summary_json(), "triples": [t.to_json() for t in self.sorted_triples()]}

    def summary_json(self) -> dict[str, Any]:
        """`to_json()` without its triples: the data file encodes those on its own (outputs.py)."""
        return {
            "schema": SCHEMA,
            "populated_rule": self.populated_rule,
            "dropped_rows": self.dropped_rows,
            "benchmarks": [b.to_json() for b in sorted(self.benchmarks, key=lambda b: b.key)],
            "corpus": self.corpus.to_json(),
        }

    def sorted_triples(self) -> list[TripleSignals]:
        """The triples in `signals.json` order: by (model, benchmark, metric), each unique."""
        return sorted(self.triples, key=attrgetter("model", "benchmark", "metric"))


def _group(items: Iterable[Any], key_of: Callable[[Any], Any]) -> dict[Any, tuple[Any, ...]]:
    groups: dict[Any, list[Any]] = {}
    for item in items:
        groups.setdefault(key_of(item), []).append(item)
    return {k: tuple(v) for k, v in groups.items()}
