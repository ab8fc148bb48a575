"""Writing reported results, cards and the leaderboard's own results into the PointsDB.

The sources read the files (`sources/eee.py`, `sources/cards.py`) and hand over plain
records; this module makes the rows the store keeps from them, so what is stored is the
store's code alone and its cache key need not cover any later stage.

EVALCARDS.md sections 1-3: one row per `evaluation_results[]` entry (rows whose score is
null or not a finite number are counted as dropped and left out), with its keys, its
population levels (so either populated rule can be applied later without a reload) and
its canonical setup. Cards are stored with the keys they answer to, their 28 card items
and their risks (`cardrows.py`). The leaderboard's own per-task results become rows of the
same shape at every build (`own_row_columns`), so the publisher's numbers carry the same
signals as everyone else's.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping

import numpy as np

from ..config import SiteConfig
from ..errors import InputError
from ..sources.cards import read_cards
from ..sources.eee import EEERecord, read_eee
from .cardrows import card_tables
from .keys import DEFAULT_METRIC, Aliases, benchmark_path, key, org_key, rho
from .pointsdb import PointsDB
from .populated import level
from .results import ResultsStore
from .setup import GENERATION_FIELDS, agent_scaffold, canonical, with_token_limit

#: The metric of the leaderboard's own rows: the task's C_P estimate on [0, 1] (section 1).
OWN_METRIC = "p_correct"
#: The source type of the leaderboard's own rows: the publisher ran them.
OWN_SOURCE_TYPE = "evaluation_run"
LEVEL_COLUMNS = (
    "lvl_temperature", "lvl_max_tokens", "lvl_harness", "lvl_eval_plan", "lvl_eval_limits",
    "lvl_agentic_eval_config", "lvl_source_type", "lvl_organization", "lvl_relationship",
)


@dataclass(frozen=True)
class OwnResult:
    """One (evaluation, task) result of the leaderboard itself, as a reported result row."""

    #: The evaluation's hf_id if given, else its model name (keyed like `model_info.id`).
    model: str
    evaluation_id: str
    task: str
    #: The task's C_P estimate on [0, 1]; None or NaN rows are dropped like any other.
    score: float | None
    #: Falls back to the site config's `organization`.
    organization: str | None = None
    #: Falls back to the site config's `relationship`.
    relationship: str | None = None
    generation_args: Mapping[str, Any] = field(default_factory=dict)
    harness: str | None = None
    #: False for a task scored by log-likelihood: nothing was sampled, so no temperature or
    #: token limit is required of it (EVALCARDS.md section 4, by task kind).
    sampled: bool = True


@dataclass(frozen=True)
class ReportedLoad:
    """What `load_reported` read: counts for the build summary, and every skipped file."""

    records: int = 0
    results: int = 0
    cards: int = 0
    dropped: int = 0
    #: (path under the data directory as given, reason) per unusable file, EEE files first.
    problems: tuple[tuple[str, str], ...] = ()

    def to_summary(self) -> dict[str, Any]:
        """A JSON-able summary (kept with the PointsDB cache)."""
        return {"records": self.records, "results": self.results, "cards": self.cards,
                "dropped": self.dropped, "problems": [list(p) for p in self.problems]}


#: Columns that are the same for every result of one record (computed once per record).
RECORD_COLUMNS = (
    "own", "source_path", "evaluation_id", "schema_version", "model_id", "model_key",
    "organization", "org_key", "relationship_reported", "relationship", "source_type",
    "lvl_source_type", "lvl_organization", "lvl_relationship", "lvl_harness", "harness", "harness_version",
)
#: Columns of one result entry.
RESULT_COLUMNS = (
    "result_index", "benchmark_name", "evaluation_name", "benchmark_key", "slice_key", "benchmark_path",
    "metric_name", "metric_key", "metric_unit", "min_score", "max_score", "score", "sampled",
    "lvl_temperature", "lvl_max_tokens", "lvl_eval_plan", "lvl_eval_limits", "lvl_agentic_eval_config",
    *GENERATION_FIELDS, "agent_scaffold",
)
#: Where the score is among `RESULT_COLUMNS`.
_SCORE_AT = RESULT_COLUMNS.index("score")
_TYPED = {"row_id": np.int64, "own": bool, "score": np.float64, "sampled": bool, **{c: np.uint8 for c in LEVEL_COLUMNS}}


class RowColumns:
    """Result rows collected as tuples (row id, result part, record part), turned into
    typed columns for one bulk insert."""

    NAMES = ("row_id", *RESULT_COLUMNS, *RECORD_COLUMNS)

    def __init__(self, first_row_id: int = 0) -> None:
        self.first_row_id = first_row_id
        self.rows: list[tuple[Any, ...]] = []

    def __len__(self) -> int:
        return len(self.rows)

    def add(self, record_part: tuple[Any, ...], result_part: tuple[Any, ...]) -> None:
        self.rows.append((self.first_row_id + len(self.rows), *result_part, *record_part))

    def arrays(self) -> dict[str, np.ndarray]:
        columns = list(zip(*self.rows)) if self.rows else [()] * len(self.NAMES)
        out = {}
        for name, values in zip(self.NAMES, columns):
            if name in _TYPED:
                out[name] = np.asarray(values, dtype=_TYPED[name])
            else:
                out[name] = np.empty(len(values), dtype=object)
                out[name][:] = values
        return out


def record_part(*, own: bool, source_path: str | None, evaluation_id: str | None, schema_version: str | None,
                model_id: str, aliases: Aliases, organization: Any, relationship: Any, source_type: Any,
                harness: Any, harness_version: Any) -> tuple[Any, ...]:
    """The `RECORD_COLUMNS` values (section 2 keys, section 3 levels, section 6 rho)."""
    return (
        own, source_path, evaluation_id, schema_version, model_id, aliases.model(model_id),
        organization.strip() if isinstance(organization, str) else None, org_key(organization),
        relationship if isinstance(relationship, str) else None, rho(relationship),
        source_type if isinstance(source_type, str) else None,
        level(source_type), level(organization), level(relationship), level(harness),
        canonical(harness), canonical(harness_version),
    )


def result_part(*, index: int | None, benchmark_name: str, evaluation_name: str | None, bench: str,
                slice_key: str | None, metric_name: str | None, unit: Any, min_score: float | None,
                max_score: float | None, score: float, args: Mapping[str, Any], scaffold: Any,
                setup: tuple[Any, ...] | None = None, sampled: bool = True) -> tuple[Any, ...]:
    """The `RESULT_COLUMNS` values (keys, range inputs, levels and canonical setup);
    `setup` is `setup_part(args, scaffold)` when the caller has it already. A reported
    result is taken as sampled: EEE records do not say how a task was scored."""
    return (
        index, benchmark_name, evaluation_name, bench, slice_key, benchmark_path(bench, slice_key),
        metric_name, key(metric_name) or DEFAULT_METRIC,
        (unit.strip().casefold() or None) if isinstance(unit, str) else None,
        min_score, max_score, float(score), sampled,
        *(setup if setup is not None else setup_part(args, scaffold)),
    )


def setup_part(args: Mapping[str, Any], scaffold: Any) -> tuple[Any, ...]:
    """The last `RESULT_COLUMNS`: the levels and canonical setup of one result's generation
    arguments (the same for every task of one of the leaderboard's own evaluations)."""
    return (
        level(args.get("temperature")), level(args.get("max_tokens")), level(args.get("eval_plan")),
        level(args.get("eval_limits")), level(args.get("agentic_eval_config")),
        *(canonical(args.get(name)) for name in GENERATION_FIELDS), canonical(scaffold),
    )


def score_problem(score: Any) -> str | None:
    """Why a score cannot be used (section 2: null or non-numeric), or None when it can."""
    if score is None:
        return "score is null or missing"
    if isinstance(score, bool) or not isinstance(score, (int, float)):
        return f"score is not a number ({json.dumps(score, default=str)[:40]})"
    if not math.isfinite(score):
        return "score is not a finite number"
    return None


# -- reported results (EEE) ----------------------------------------------------------------


def load_reported(db: PointsDB, data_dir: Path, config: SiteConfig, strict: bool) -> ReportedLoad:
    """Read `data_dir/eee/**/*.json` and `data_dir/cards/*.json` into the PointsDB
    (`read_reported`, then `store_reported`)."""
    return store_reported(db, read_reported(data_dir, config, strict))


@dataclass(frozen=True)
class ReportedRead:
    """The reported results and cards as read from their files, not yet stored. Reading is
    Python and needs no database, so a build reads them while DuckDB ingests the points
    (store/cache.py)."""

    rows: RowColumns
    #: (source path, index, model id, benchmark, reason) of each result left out
    dropped: list[tuple[Any, ...]]
    card_rows: dict[str, dict[str, Any]]
    load: ReportedLoad


def read_reported(data_dir: Path, config: SiteConfig, strict: bool) -> ReportedRead:
    """Rows keep their source path relative to `data_dir` (stable across machines); problems
    name `data_dir/...`. Missing directories are simply empty. Unusable files are skipped
    and listed in `problems`; with `strict` the first one raises `InputError` instead,
    before anything is stored."""
    data_dir = Path(data_dir)
    eee = read_eee(data_dir / "eee", base=data_dir)
    cards = read_cards(data_dir / "cards", base=data_dir)
    aliases = Aliases.from_tables(config.model_aliases, config.benchmark_aliases)
    card_rows, card_problems = card_tables(cards.cards, aliases)
    # Problems name the file as the user can find it: under the data directory as given.
    problems = tuple(((data_dir / path).as_posix(), reason)
                     for path, reason in (*eee.problems, *cards.problems, *card_problems))
    if strict and problems:
        path, reason = problems[0]
        raise InputError(path, reason)
    rows = RowColumns()
    dropped: list[tuple[Any, ...]] = []
    for record in eee.records:
        add_record(rows, dropped, record, aliases)
    return ReportedRead(rows, dropped, card_rows, ReportedLoad(
        records=len(eee.records), results=len(rows), cards=len(card_rows["cards"]["card_id"]),
        dropped=len(dropped), problems=problems))


def store_reported(db: PointsDB, read: ReportedRead) -> ReportedLoad:
    """Replace the PointsDB's reported rows and cards with `read`."""
    names = ("source_path", "result_index", "model_id", "benchmark", "reason")
    store = ResultsStore(db)
    store.reset()
    store.insert("reported_rows", read.rows.arrays())
    store.insert("reported_dropped", dict(zip(names, zip(*read.dropped))) if read.dropped else {})
    for table, columns in read.card_rows.items():
        store.insert(table, columns)
    return read.load


def add_record(rows: RowColumns, dropped: list[tuple[Any, ...]], record: EEERecord, aliases: Aliases) -> None:
    """Add one record's usable results to `rows`; the others go to `dropped` with a reason
    (source path, index, model id, benchmark, reason)."""
    model_id = (record.model_id or record.model_name or "").strip()
    shared = None
    if model_id:
        shared = record_part(
            own=False, source_path=record.path, evaluation_id=record.evaluation_id,
            schema_version=record.schema_version, model_id=model_id, aliases=aliases,
            organization=record.organization, relationship=record.relationship, source_type=record.source_type,
            harness=record.eval_library_name, harness_version=record.eval_library_version,
        )
    for result in record.results:
        reason = score_problem(result.score)
        raw_bench = key(result.dataset_name) or key(result.evaluation_name)
        if reason is None and shared is None:
            reason = "the record names no model (model_info.id)"
        if reason is None and not raw_bench:
            reason = "the result names no benchmark (dataset_name or evaluation_name)"
        if reason is not None:
            dropped.append((record.path, result.index, record.model_id,
                            result.dataset_name or result.evaluation_name, reason))
            continue
        bench = aliases.benchmark(raw_bench)
        eval_key = key(result.evaluation_name)
        assert shared is not None  # a record without a model has a reason above
        rows.add(shared, result_part(
            index=result.index,
            benchmark_name=((result.dataset_name if key(result.dataset_name) else result.evaluation_name) or "").strip(),
            evaluation_name=result.evaluation_name, bench=bench,
            slice_key=eval_key if eval_key and eval_key not in (raw_bench, bench) else None,
            metric_name=result.metric_id if key(result.metric_id) else result.metric_name,
            unit=result.metric_unit, min_score=result.min_score, max_score=result.max_score,
            score=result.score, args=result.generation_args,
            scaffold=agent_scaffold(record.model_details, result.generation_details),
        ))


# -- the leaderboard's own results ---------------------------------------------------------


def own_row_columns(own_rows: Iterable[OwnResult], config: SiteConfig, aliases: Aliases,
                    first_row_id: int) -> tuple[RowColumns, int]:
    """The own results as row columns (section 1), and how many were dropped (no finite
    score, or a task name without letters or digits).

    Rows are ordered by (evaluation, task) so row ids are stable across builds.
    """
    columns = RowColumns(first_row_id)
    dropped = 0
    # An evaluation's tasks share its record part and setup: made once per evaluation (the
    # memo keeps the arguments it was made from, so an equal key means equal inputs).
    shared_of: dict[tuple[Any, ...], tuple[Any, ...]] = {}
    # A task's benchmark key and the result columns before the score are the same in every
    # evaluation (the metric, range and names are the task's): made once per task.
    task_of: dict[str, tuple[str, tuple[Any, ...]]] = {}
    rows = columns.rows
    next_id = first_row_id
    for own in sorted(own_rows, key=lambda o: (o.evaluation_id, o.task)):
        task = task_of.get(own.task)
        if task is None:
            bench = aliases.benchmark(key(own.task))
            head = result_part(
                index=None, benchmark_name=own.task, evaluation_name=own.task, bench=bench, slice_key=None,
                metric_name=OWN_METRIC, unit=None, min_score=0.0, max_score=1.0, score=0.0,
                args={}, scaffold=None, setup=(),
            )[:_SCORE_AT]
            task = task_of[own.task] = (bench, head)
        bench, head = task
        model_id = (own.model or "").strip()
        if score_problem(own.score) is not None or not bench or not model_id:
            dropped += 1
            continue
        assert own.score is not None  # score_problem() names a missing score
        memo = (model_id, own.evaluation_id, own.organization, own.relationship, own.harness, id(own.generation_args))
        found = shared_of.get(memo)
        if found is None or found[0] is not own.generation_args:
            args = with_token_limit(_generation_args(own.generation_args))
            shared = record_part(
                own=True, source_path=None, evaluation_id=own.evaluation_id, schema_version=None,
                model_id=model_id, aliases=aliases,
                organization=own.organization or config.organization or None,
                relationship=own.relationship or config.relationship,
                source_type=OWN_SOURCE_TYPE, harness=own.harness, harness_version=None,
            )
            found = shared_of[memo] = (own.generation_args, shared, setup_part(args, args.get("agent_scaffold")))
        _, shared, setup = found
        # The row `RowColumns.add` makes of result_part(...) and the record part.
        rows.append((next_id, *head, float(own.score), own.sampled, *setup, *shared))
        next_id += 1
    return columns, dropped


def _generation_args(value: Any) -> Mapping[str, Any]:
    """generation_args as a mapping; a JSON object given as text is accepted too."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError:
            return {}
    return value if isinstance(value, Mapping) else {}
