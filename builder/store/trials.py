"""Trials into points, in DuckDB (INGEST.md sections 1-3).

Readers stream `Trial`s; `TrialStore` gathers them into numpy columns and hands DuckDB one
batch at a time (never a row per `execute`), so the Python side holds at most `BATCH`
trials whatever the size of the ingest. Everything that counts happens in
`sql/trials.sql`: resolving duplicate trials (the input later in sorted path order wins),
the per-task range check (values outside [0, 1]: no correctness), and the GROUP BY that
makes points.
"""

from __future__ import annotations

import re
import tempfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Iterable, NamedTuple

import duckdb
import numpy as np

from ..errors import shortened
from ..sources.limits import MAX_EPOCH, MAX_TOKENS
from ..sources.trials import Trial, UnreadableInput
from . import trialfiles
from .pointsdb import fetch_as, load_sql, picker

SQL_FILE = "trials.sql"
BATCH = 50_000
#: DuckDB's buffer pool for the trial tables (its own setting, not a bound on the process).
MEMORY_LIMIT = "64MB"
_NAME = re.compile(r"^-- name: (\w+)\s*$", re.MULTILINE)


@lru_cache(maxsize=1)
def _statements() -> tuple[str, dict[str, str]]:
    parts = _NAME.split(load_sql(SQL_FILE))
    rest = parts[1:]
    return parts[0], {rest[i]: rest[i + 1].strip() for i in range(0, len(rest), 2)}


def _sql(name: str) -> str:
    return _statements()[1][name]


@dataclass(frozen=True)
class Point:
    """One summed point: the columns of a points file, plus partial-credit trials."""

    model: str
    template: str
    sampler: str
    base_task: str
    params: str
    total: int
    correct: int
    truncated: int
    guess: float
    tokens: int
    partial: int


@dataclass(frozen=True)
class NoCredit:
    """A task skipped because its values leave [0, 1] (an error metric, a regression score)."""

    model: str
    template: str
    sampler: str
    task: str
    metric: str
    trials: int
    example: float

    @property
    def message(self) -> str:
        return (f"task {self.task} ({self.model}): metric '{self.metric}' has values outside [0, 1] "
                f"(e.g. {self.example:g}), so no trial is correct or not: skipped ({self.trials} trials)")


class TokensRecorded(NamedTuple):
    """Whether any kept trial of an evaluation recorded its output tokens."""

    model: str
    template: str
    sampler: str
    recorded: bool


class RunCounts(NamedTuple):
    """What one run contributed: its line's samples x epochs, partial and replaced trials."""

    run_idx: int
    samples: int
    epochs: int
    trials: int
    partial: int
    replaced: int


@dataclass(frozen=True)
class Summed:
    points: list[Point]
    no_credit: list[NoCredit]
    replaced: int
    #: By run id; a run with no kept trial (skipped, or empty) has none.
    runs: dict[int, RunCounts]


class TrialStore:
    """The trials of one ingest, in a private in-memory DuckDB connection.

    Trials are buffered across runs and handed over `BATCH` at a time (registering a batch
    costs milliseconds, so a flush per small log would dominate an ingest of many logs);
    the few run records go in at `sum()`, with the runs skipped on the way marked.
    """

    def __init__(self) -> None:
        # A temporary database file with a small buffer pool, so the trials of a large
        # ingest spill to disk instead of growing the process (memory flat in trials).
        self._dir = tempfile.TemporaryDirectory(prefix="reasonboard-ingest-")
        self.con = duckdb.connect(str(Path(self._dir.name) / "trials.duckdb"))
        self.con.execute(f"SET memory_limit = '{MEMORY_LIMIT}'")
        self.con.execute("SET preserve_insertion_order = false")
        self.con.execute("SET enable_progress_bar = false")
        self.con.execute(_statements()[0])
        self._runs: list[tuple[int, int, str, str, str, str, str]] = []
        #: Each evaluation's number (its position in sorted order), set by `sum`.
        self._evaluations: dict[tuple[str, str, str], int] = {}
        self._skipped: set[int] = set()
        self._pending: list[Trial] = []
        self._pending_runs: list[int] = []
        self._seq = 0

    @property
    def scratch(self) -> str:
        """A private folder for files made on the way (removed by `close`)."""
        return self._dir.name

    def close(self) -> None:
        self.con.close()
        self._dir.cleanup()

    def add_run(self, input_idx: int, model: str, template: str, sampler: str, task: str, metric: str) -> int:
        """Register a run (its evaluation after the command line's overrides); returns its id."""
        run_idx = len(self._runs)
        self._runs.append((run_idx, input_idx, model, template, sampler, task, metric))
        return run_idx

    def add_trials(self, run_idx: int, trials: Iterable[Trial]) -> int:
        """Stream a run's trials in; returns how many were read."""
        count = 0
        pending, runs = self._pending, self._pending_runs
        for trial in trials:
            problem = trial_problem(trial)
            if problem:
                raise UnreadableInput(f"a trial out of range: sample {shortened(trial.sample_id)!r}, "
                                      f"epoch {trial.epoch}: {problem}")
            pending.append(trial)
            runs.append(run_idx)
            count += 1
            if len(pending) >= BATCH:
                self._flush()
                pending, runs = self._pending, self._pending_runs
        return count

    def skip_run(self, run_idx: int) -> None:
        """Leave out a run whose reader gave up half-way (its trials stay, unused)."""
        self._skipped.add(run_idx)

    def _flush(self) -> None:
        batch, runs = self._pending, self._pending_runs
        if not batch:
            return
        n = len(batch)
        columns = {
            "run_idx": np.array(runs, dtype=np.int32),
            "seq": np.arange(self._seq, self._seq + n, dtype=np.int64),
            "sample_id": np.array([t.sample_id for t in batch], dtype=object),
            "epoch": np.fromiter((t.epoch for t in batch), dtype=np.int32, count=n),
            "params": np.array([t.params for t in batch], dtype=object),
            "score": np.fromiter((t.score for t in batch), dtype=np.float64, count=n),
            "truncated": np.fromiter((t.truncated for t in batch), dtype=np.bool_, count=n),
            "options": np.fromiter((t.options or 0 for t in batch), dtype=np.int32, count=n),
            "tokens": np.fromiter((-1 if t.tokens is None else t.tokens for t in batch), dtype=np.int64, count=n),
            "input_tokens": np.fromiter((-1 if t.input_tokens is None else t.input_tokens for t in batch),
                                        dtype=np.int64, count=n),
            "compressed": np.fromiter((-1 if t.compressed is None else t.compressed for t in batch),
                                      dtype=np.int64, count=n),
        }
        self._seq += n
        self._pending, self._pending_runs = [], []
        self.con.register("trial_batch", columns)
        try:
            self.con.execute(_sql("insert_trials"))
        finally:
            self.con.unregister("trial_batch")

    def _insert_runs(self) -> None:
        self._evaluations = {key: k for k, key in enumerate(sorted({r[2:5] for r in self._runs}))}
        if not self._runs:
            return
        names = ("run_idx", "input_idx", "model", "template", "sampler", "task", "metric")
        columns = {name: np.array([r[i] for r in self._runs], dtype=np.int32 if i < 2 else object)
                   for i, name in enumerate(names)}
        columns["evaluation"] = np.array([self._evaluations[r[2:5]] for r in self._runs], dtype=np.int32)
        columns["skipped"] = np.array([r[0] in self._skipped for r in self._runs], dtype=np.bool_)
        self.con.register("run_batch", columns)
        try:
            self.con.execute(_sql("insert_runs"))
        finally:
            self.con.unregister("run_batch")

    def tokens_recorded(self) -> list[tuple[str, str, str, bool]]:
        """(model, template, sampler, any trial recorded tokens) per evaluation; after `sum`."""
        return [(r.model, r.template, r.sampler, bool(r.recorded))
                for r in fetch_as(self.con.execute(_sql("tokens_recorded")), TokensRecorded, "tokens_recorded")]

    def write_evaluation(self, model: str, template: str, sampler: str, path: Path,
                         earlier: Path | None = None) -> None:
        """Write one evaluation's trials file to `path` (after `sum`). With `earlier` (the
        evaluation's file from a previous ingest), its trials of the tasks this ingest did
        not read are kept: ingesting one task's logs never drops another task's trials."""
        source = _sql("evaluation_trials")
        evaluation = self._evaluations[(model, template, sampler)]
        parameters: list[object] = [evaluation]
        if earlier is not None:
            source = (f"({source} UNION ALL SELECT {trialfiles.select_list()} FROM read_parquet(?) "
                      "WHERE base_task NOT IN (SELECT task FROM ingest_kept WHERE evaluation = ?))")
            parameters += [str(earlier), evaluation]
        trialfiles.write_trials(self.con, source, parameters, path)

    def sum(self) -> Summed:
        """Resolve duplicates, drop tasks without correctness, and sum into points."""
        self._flush()
        self._insert_runs()
        self.con.execute(_sql("resolve"))
        [(replaced,)] = self.con.execute(_sql("replaced")).fetchall()
        self.con.execute(_sql("out_of_range"))
        # Columns by name, in the record's field order (`picker`), with the counts as ints.
        cur = self.con.execute(_sql("no_credit"))
        no_credit = [NoCredit(m, t, s, task, metric, int(n), float(ex))
                     for m, t, s, task, metric, n, ex in map(picker(cur.description, NoCredit, "no_credit"),
                                                             cur.fetchall())]
        cur = self.con.execute(_sql("points"))
        points = [Point(m, t, s, task, params, int(n), int(c), int(tr), float(g), int(tok), int(p))
                  for m, t, s, task, params, n, c, tr, g, tok, p in map(picker(cur.description, Point, "points"),
                                                                          cur.fetchall())]
        runs = {r.run_idx: r for r in fetch_as(self.con.execute(_sql("run_counts")), RunCounts, "run_counts")}
        return Summed(points=points, no_credit=no_credit, replaced=int(replaced), runs=runs)


def trial_problem(trial: Trial) -> str | None:
    """What makes a harness's trial one the build would refuse in the trials file ingest
    writes (trialrows.py's checks): said at ingest, naming the input, so ingest never
    writes a file that the next build stops on (or crashes converting)."""
    if not 1 <= trial.epoch <= MAX_EPOCH:
        return f"the epoch must be a whole number from 1 to {MAX_EPOCH:,} (got {trial.epoch})"
    if trial.options is not None and trial.options < 0:
        return f"the number of answer options must not be negative (got {trial.options})"
    for name, value in (("output tokens", trial.tokens), ("input tokens", trial.input_tokens)):
        if value is not None and not 0 <= value < MAX_TOKENS:
            return f"{name} must be from 0 to {MAX_TOKENS:,} (got {value})"
    return None


