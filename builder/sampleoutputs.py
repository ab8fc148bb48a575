"""The published per-sample outcomes (SAMPLES.md section 5).

Each evaluation with trials gets `data/samples/<evaluation slug>.parquet`: its trials with
the columns of SAMPLES.md section 1 except model, template and sampler (the name says which
evaluation), sorted as trials files are; outcomes, tokens and compressed sizes, never the
text of an item or an answer (trials files have none). `publish_samples = false` keeps even
the items' ids private. Read from the evaluation's own trials files, not from the PointsDB's
table of every trial; the build makes them while its render workers make the pages.

A file is a pure function of its evaluation's names, its trials files' bytes and the code
that encodes them (this package's, DuckDB's Parquet writer), so `samples_keys` digests
exactly those; a rebuild keeps the previous build's file of an unchanged key (the build
state records the keys beside the pages', buildstate.py) instead of encoding it again.
"""

from __future__ import annotations

import hashlib
import json
import tempfile
from collections import Counter
from functools import partial
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping, TypeVar

import duckdb

from .confined import checked_name
from .resources import code_digest
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
#: The version of `samples_keys`' format: a key of another format never matches.
KEY_FORMAT = "reasonboard-samples-key/1"

Kept = TypeVar("Kept")


def samples_path(slug: str) -> str:
    """The site path of an evaluation's per-sample outcomes (its page's slug, which may hold
    one `/`: `model/template-sampler`)."""
    return f"{SAMPLES_FOLDER}/{slug}.parquet"


def samples_keys(evaluations: Iterable[Evaluation], digests: Mapping[str, str], publish: bool) -> dict[str, str]:
    """The key of each published file (by site path): a digest of the evaluation's names and
    of each of its trials files, by path, with `digests` of their bytes (`Fingerprints.point_files`),
    the package's code and DuckDB's version. An evaluation with a file `digests` lacks has no key."""
    keys = {}
    for e in evaluations:
        if publish and e.trial_files and all(rel in digests for rel in e.trial_files):
            inputs = [KEY_FORMAT, code_digest(), duckdb.__version__, list(e.key),
                      [[rel, digests[rel]] for rel in e.trial_files]]
            keys[samples_path(e.slug)] = hashlib.sha256(json.dumps(inputs).encode("utf-8")).hexdigest()
    return keys


#: Published files per job of the render pool (site/workers.py): about half a second of
#: writing each at 2,500 evaluations, so the processes share the files and end together.
PER_JOB = 64


def samples_files(data_dir: Path, evaluations: Iterable[Evaluation], publish: bool,
                  keep: Callable[[str], Kept | None] = lambda path: None) -> Iterator[tuple[str, bytes | Kept]]:
    """(site path, bytes) of the per-sample outcomes of each of `evaluations` with trials
    files (`Evaluation.trial_files`, relative to `data_dir`), when `publish`. Sorted by path;
    the same trials give the same bytes. A file `keep` vouches for (the previous build's, of
    the same key) comes as what `keep` returns, not encoded again."""
    for job in samples_jobs(data_dir, evaluations, publish, keep):
        yield from job()


def samples_jobs(data_dir: Path, evaluations: Iterable[Evaluation], publish: bool,
                 keep: Callable[[str], Kept | None] = lambda path: None,
                 per_job: int = PER_JOB) -> list[Callable[[], Iterator[tuple[str, bytes | Kept]]]]:
    """`samples_files` as jobs of `per_job` files each, in path order: together they yield
    what `samples_files` yields, each job its own part.

    `evaluations` are every evaluation of the data, each listing every trials file that holds
    one of its trials: a file only one of them lists holds that evaluation's trials only, and
    is read whole, without comparing each trial's names (most of them: ingest and the demo
    write a file per evaluation)."""
    evaluations = list(evaluations)
    owners = Counter(rel for e in evaluations for rel in e.trial_files)
    chosen = sorted((e for e in evaluations if e.trial_files and publish), key=lambda e: e.slug)
    shared = {e.slug for e in chosen if any(owners[rel] > 1 for rel in e.trial_files)}
    return [partial(_written, data_dir, chosen[start:start + per_job], shared, keep)
            for start in range(0, len(chosen), per_job)]


def _written(data_dir: Path, chosen: list[Evaluation], shared: set[str],
             keep: Callable[[str], Kept | None]) -> Iterator[tuple[str, bytes | Kept]]:
    """The published files of `chosen` (those in `shared` read trial by trial for their own
    names), one at a time, through one DuckDB connection."""
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
                path = samples_path(e.slug)
                kept = keep(path)
                if kept is not None:
                    yield path, kept
                    continue
                # DuckDB opens them: each checked to be a file inside the project (confined.py).
                files = [checked_name(data_dir / rel) for rel in e.trial_files]
                where = " WHERE trim(model) = ? AND trim(template) = ? AND trim(sampler) = ?" if e.slug in shared else ""
                write_sorted(con, f"SELECT {', '.join(SAMPLE_COLUMNS)} FROM read_parquet(?){where}",
                             [files, *e.key] if e.slug in shared else [files], target)
                yield path, target.read_bytes()
    finally:
        con.close()


#: The error a samples file's statement raises when its rows come out of `ORDER`.
UNSORTED = "reasonboard: trials out of order"


def write_sorted(con: duckdb.DuckDBPyConnection, query: str, parameters: list[Any], target: Path) -> None:
    """`query`'s rows sorted by `ORDER`, written to `target` as a published samples file.

    Ingest and the demo write every trials file sorted, so the rows are first written as
    read, with each one compared to the one before it (`lag` over the rows as they come,
    which on one thread is the order they are written in): sorting them again was a third
    of the file's cost, and the comparison costs less than half the sort. A file out of
    order (made by hand, say) stops that statement at its first misplaced row, and is then
    written sorted. Either way the rows and the bytes are those of the sorted query."""
    as_read = (f"SELECT * EXCLUDE (previous) FROM (SELECT *, lag(({ORDER})) OVER () AS previous FROM ({query})) "
               f"WHERE CASE WHEN ({ORDER}) < previous THEN error('{UNSORTED}') ELSE true END")
    try:
        copy_to_parquet(con, as_read, parameters, target, PUBLISHED)
    except duckdb.Error as exc:
        if UNSORTED not in str(exc):
            raise
        copy_to_parquet(con, f"{query} ORDER BY {ORDER}", parameters, target, PUBLISHED)
