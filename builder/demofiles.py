"""The demo's simulated trials as trials files (SAMPLES.md section 1).

The simulator (`demo.py`) draws every trial as numpy arrays; here they become one Parquet
file per evaluation through DuckDB: the arrays are registered as a table, joined with the
points' task, params and tier labels, and copied out sorted as every trials file is
(`store.trialfiles`). Sample ids are the sample's position within its point ("0", "1",
...), so two evaluations of the same point share the items both answered. The simulator
writes no text: `compressed` is simulated (democompress.py) and `input_tokens` is null (not
recorded).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

import duckdb
import numpy as np

from .demoworld import DemoEvaluation
from .store.trialfiles import write_trials


@dataclass(frozen=True)
class SimulatedTrials:
    """Every trial of one evaluation as parallel arrays (the rows of its trials file): the
    point it belongs to, its sample within the point and its epoch, and its outcome."""

    point: np.ndarray
    sample: np.ndarray
    epoch: np.ndarray
    correct: np.ndarray
    truncated: np.ndarray
    options: np.ndarray     # 0 for a write-in item
    tokens: np.ndarray
    compressed: np.ndarray  # the simulated gzip size of the output (democompress.py)


@dataclass(frozen=True)
class PointTexts:
    """The text columns of an evaluation's points, in point order."""

    task: Sequence[str]
    params: Sequence[str]
    tiers: Sequence[Sequence[str]]

#: The trials in the file's order already (`_order`), each point's texts looked up by its
#: index in lists given as parameters: a projection keeps the scan's order, a join would not.
SOURCE = """
(SELECT ?::VARCHAR AS model, ?::VARCHAR AS template, ?::VARCHAR AS sampler,
        (?::VARCHAR[])[point + 1] AS base_task, (?::VARCHAR[])[point + 1] AS params,
        sample::VARCHAR AS sample_id, epoch, CASE WHEN correct THEN 1.0 ELSE 0.0 END AS credit,
        correct, truncated, NULLIF(options, 0) AS options, tokens,
        NULL AS input_tokens, compressed, (?::VARCHAR[])[point + 1] AS tiers
 FROM demo_trials)
"""


class TrialsWriter:
    """One DuckDB connection for every evaluation's file of a demo run."""

    def __init__(self) -> None:
        self.con = duckdb.connect()
        self.con.execute("SET enable_progress_bar = false")

    def __enter__(self) -> TrialsWriter:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.con.close()

    def write(self, run: DemoEvaluation, points: PointTexts, trials: SimulatedTrials, path: Path) -> None:
        """Write one evaluation's trials to `path` (through a temporary name beside it)."""
        order = _order(points, trials)
        self.con.register("demo_trials", {
            "point": trials.point[order], "sample": trials.sample[order], "epoch": trials.epoch[order].astype(np.int32),
            "correct": trials.correct[order], "truncated": trials.truncated[order],
            "options": trials.options[order], "tokens": trials.tokens[order],
            "compressed": trials.compressed[order],
        })
        texts = [list(points.task), list(points.params), [";".join(t) for t in points.tiers]]
        temporary = path.with_name(path.name + ".tmp")
        try:
            write_trials(self.con, SOURCE, [run.model, run.template, run.sampler, *texts], temporary,
                         with_tiers=True, ordered=True)
            temporary.replace(path)  # a reader never sees half a file
        finally:
            temporary.unlink(missing_ok=True)
            self.con.unregister("demo_trials")


def _order(points: PointTexts, trials: SimulatedTrials) -> np.ndarray:
    """The permutation putting the trials in a trials file's order: by task and params as
    text, then the sample id as text ("10" before "2"), then the epoch."""
    keys = list(zip(points.task, points.params))
    point_rank = np.empty(len(keys), dtype=np.int64)
    point_rank[sorted(range(len(keys)), key=keys.__getitem__)] = np.arange(len(keys))
    count = int(trials.sample.max()) + 1 if len(trials.sample) else 0
    sample_rank = np.empty(count, dtype=np.int64)
    sample_rank[sorted(range(count), key=str)] = np.arange(count)
    return np.lexsort((trials.epoch, sample_rank[trials.sample], point_rank[trials.point]))
