"""The published per-sample outcomes (SAMPLES.md section 5): `data/samples/<evaluation>.parquet`.

Each evaluation with trials gets one Parquet file of its trials with the columns of SAMPLES.md
section 1 except `model`, `template` and `sampler` (the file's name says which evaluation it
is), sorted as trials files are. They hold outcomes, token counts and compressed sizes, never
the text of an item or an answer (the trials files have none); `reasonboard diff` and readers
can pair two builds on them. A site whose items' ids must stay private sets
`publish_samples = false`.

The files are read from the evaluation's own trials files (`points.source`), not from the
PointsDB's table of every trial, so each costs a read of its own small files. The build
makes them while its render workers make the pages (`build.py`, the data files).
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path

import duckdb

from .stats.evaluations import Evaluation
from .store.trialfiles import NAMES, ORDER

#: The published columns: a trials file's without the evaluation's names.
COLUMNS = tuple(name for name in NAMES if name not in ("model", "template", "sampler"))
FOLDER = "data/samples"


def samples_path(slug: str) -> str:
    """The site path of an evaluation's per-sample outcomes (its page's slug, which may hold
    one `/`: `model/template-sampler`)."""
    return f"{FOLDER}/{slug}.parquet"


def samples_files(data_dir: Path, evaluations: Iterable[Evaluation]) -> Iterator[tuple[str, bytes]]:
    """(site path, bytes) of the per-sample outcomes of each of `evaluations` with trials
    files (`Evaluation.trial_files`, relative to `data_dir`). Sorted by path; the same
    trials give the same bytes."""
    chosen = sorted((e for e in evaluations if e.trial_files), key=lambda e: e.slug)
    con = duckdb.connect()
    con.execute("SET enable_progress_bar = false")
    try:
        with tempfile.TemporaryDirectory(prefix="reasonboard-samples-") as scratch:
            target = Path(scratch) / "samples.parquet"
            for e in chosen:
                files = [str(data_dir / rel) for rel in e.trial_files]
                con.execute(
                    f"COPY (SELECT {', '.join(COLUMNS)} FROM read_parquet(?) WHERE trim(model) = ? "
                    f"AND trim(template) = ? AND trim(sampler) = ? ORDER BY {ORDER}) "
                    "TO ? (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 122880)",
                    [files, *e.key, str(target)])
                yield samples_path(e.slug), target.read_bytes()
    finally:
        con.close()
