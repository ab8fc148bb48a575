"""The published per-sample outcomes (SAMPLES.md section 5).

Each evaluation with trials gets `data/samples/<evaluation slug>.parquet`: its trials with
the columns of SAMPLES.md section 1 except model, template and sampler (the name says which
evaluation), sorted as trials files are; outcomes, tokens and compressed sizes, never the
text of an item or an answer (trials files have none). `publish_samples = false` keeps even
the items' ids private. Read from the evaluation's own trials files, not from the PointsDB's
table of every trial; the build makes them while its render workers make the pages.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Iterable, Iterator

import duckdb

from .confined import checked_name
from .stats.evaluations import Evaluation
from .store.trialfiles import NAMES, ORDER, copy_to_parquet

#: The published columns: a trials file's without the evaluation's names.
SAMPLE_COLUMNS = tuple(name for name in NAMES if name not in ("model", "template", "sampler"))
SAMPLES_FOLDER = "data/samples"
#: How the published files are written, for fewer bytes with the same values: Parquet's
#: version 2 data pages store integers as deltas bit-packed per block (`tokens` and
#: `compressed` are nine tenths of a file; the columns stay BIGINT, since the width packed
#: is the values' own). Measured on the demo's 625 evaluations: 69.2 KB a file before, 61.3 KB
#: after. zstd level 3: level 19 saves 1.0 % more bytes (38.28 MB against 38.68 MB for the 625
#: files) for 2.4 times the CPU (20.1 s against 8.3 s), the build's largest cost per evaluation
#: beside the pages. Every DuckDB since 0.10 and pyarrow read them; `reasonboard diff` reads both
#: these and version 1 files.
PUBLISHED = "PARQUET_VERSION V2, COMPRESSION_LEVEL 3"


def samples_path(slug: str) -> str:
    """The site path of an evaluation's per-sample outcomes (its page's slug, which may hold
    one `/`: `model/template-sampler`)."""
    return f"{SAMPLES_FOLDER}/{slug}.parquet"


def samples_files(data_dir: Path, evaluations: Iterable[Evaluation], publish: bool) -> Iterator[tuple[str, bytes]]:
    """(site path, bytes) of the per-sample outcomes of each of `evaluations` with trials
    files (`Evaluation.trial_files`, relative to `data_dir`), when `publish`. Sorted by path;
    the same trials give the same bytes."""
    chosen = sorted((e for e in evaluations if e.trial_files and publish), key=lambda e: e.slug)
    con = duckdb.connect()
    con.execute("SET enable_progress_bar = false")
    # A file of one evaluation is small: a second thread costs more CPU to coordinate than
    # it saves (measured: a quarter more CPU for the same bytes), and it runs beside the
    # render workers, which have the cores.
    con.execute("SET threads = 1")
    try:
        with tempfile.TemporaryDirectory(prefix="reasonboard-samples-") as scratch:
            target = Path(scratch) / "samples.parquet"
            for e in chosen:
                # DuckDB opens them: each checked to be a file inside the project (confined.py).
                files = [checked_name(data_dir / rel) for rel in e.trial_files]
                copy_to_parquet(con, f"SELECT {', '.join(SAMPLE_COLUMNS)} FROM read_parquet(?) WHERE trim(model) = ? "
                                     f"AND trim(template) = ? AND trim(sampler) = ? ORDER BY {ORDER}",
                                [files, *e.key], target, PUBLISHED)
                yield samples_path(e.slug), target.read_bytes()
    finally:
        con.close()
