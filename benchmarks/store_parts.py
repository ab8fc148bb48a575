"""Where a build from trials spends its store phase and its published files: the CPU seconds
of each DuckDB statement the store runs, the trials' insert beside the same insert with no
join (scan and insert only), and one published samples file written with and without the
order check, per file.

    python benchmarks/store_parts.py --trials DIR [--files 200]

`DIR` is a data folder with trials (`reasonboard demo --models N --out DIR`). Three parts:

1. **the store's statements**: a cold store of `DIR` (the build's own `open_store`), each
   statement's CPU seconds (the process's, DuckDB's threads included) summed by its text;
2. **the trials' insert, stripped**: the store run again up to the insert of every trial
   into `trials`, which is then timed as the store writes it and twice stripped: without the
   sample ids' join, and with no join at all (the trials decoded and inserted, nothing
   looked up). What the stripped forms cost is what no design of the insert can save;
3. **the published files**: `--files` trials files each written as a published samples file
   (`sampleoutputs.PUBLISHED`) on one thread, with the order check the build runs
   (`write_sorted`) and without it, and with snappy instead of zstd, per file.

It measures how much of the store phase and of the published files' cost is the decoding,
inserting and encoding any build from trials does, against what is the build's own design
(docs/maintainers/performance.md).
"""

from __future__ import annotations

import argparse
import re
import resource
import shutil
import tempfile
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from reasonboard.config import SiteConfig
from reasonboard.sampleoutputs import PUBLISHED, SAMPLE_COLUMNS, write_sorted
from reasonboard.store import cache, pointsdb, trialcodes, trialrows
from reasonboard.store.pointsdb import sql_string
from reasonboard.store.trialfiles import discover_trial_files


def cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    return own.ru_utime + own.ru_stime


class Timed:
    """A connection whose `execute` adds each statement's CPU seconds to `spent`, by its
    first words."""

    def __init__(self, con: Any, spent: dict[str, list[float]]):
        self._con, self._spent = con, spent

    def execute(self, query: str, *args: Any, **kwargs: Any) -> Any:
        start = cpu()
        found = self._con.execute(query, *args, **kwargs)
        entry = self._spent[re.sub(r"\s+", " ", query.strip())[:90]]
        entry[0] += 1
        entry[1] += cpu() - start
        return found

    def __getattr__(self, name: str) -> Any:
        return getattr(self._con, name)


def store_statements(data: Path, work: Path) -> None:
    spent: dict[str, list[float]] = defaultdict(lambda: [0, 0.0])
    plain = pointsdb.PointsDB.__init__

    def timed_init(self: pointsdb.PointsDB, *args: Any, **kwargs: Any) -> None:
        plain(self, *args, **kwargs)
        self.con = Timed(self.con, spent)  # type: ignore[assignment]

    pointsdb.PointsDB.__init__ = timed_init  # type: ignore[method-assign]
    try:
        start = cpu()
        db, _ = cache.open_store(data, work / "cache", None, SiteConfig())
        db.close()
        whole = cpu() - start
    finally:
        pointsdb.PointsDB.__init__ = plain  # type: ignore[method-assign]
    print(f"1. the store of {data}: {whole:.2f} CPU s, of which in DuckDB statements "
          f"{sum(s for _, s in spent.values()):.2f}; the largest:", flush=True)
    for text, (count, seconds) in sorted(spent.items(), key=lambda kv: -kv[1][1])[:8]:
        print(f"   {seconds:6.2f} CPU s  x{count:<3} {text}", flush=True)


def stripped_insert(data: Path, work: Path) -> None:
    """The store up to its insert of the trials, then that insert three ways."""
    found: dict[str, float] = {}

    def measure(con: Any, raw: str, parameters: list[Any]) -> int:
        first = real_store(con, raw, parameters)  # the real numbering and insert, then the variants
        select = "SELECT {point}, {sample}, r.epoch, r.correct, r.truncated, r.options, r.tokens, r.compressed FROM {source}"
        variants = {
            "as stored": select.format(point="m.point", sample="s.sample",
                                       source=f"{raw} r JOIN raw_map m USING ({trialcodes.WRITTEN}) "
                                              "JOIN trial_samples s USING (sample_id)"),
            "without the sample ids' join": select.format(point="m.point", sample="0",
                                                          source=f"{raw} r JOIN raw_map m USING ({trialcodes.WRITTEN})"),
            "no join (decode and insert only)": select.format(point="0", sample="0", source=f"{raw} r"),
        }
        for name, query in variants.items():
            con.execute("CREATE OR REPLACE TEMP TABLE bench_trials AS SELECT * FROM trials LIMIT 0")
            start = cpu()
            con.execute(f"INSERT INTO bench_trials {query}", parameters)
            found[name] = cpu() - start
        con.execute("DROP TABLE bench_trials")
        return first

    real_store: Callable[..., int] = trialcodes.store
    trialrows.trialcodes.store = measure  # type: ignore[attr-defined]
    try:
        db, _ = cache.open_store(data, work / "cache-insert", None, SiteConfig())
        db.close()
    finally:
        trialrows.trialcodes.store = real_store  # type: ignore[attr-defined]
    print("2. the insert of every trial into `trials`, CPU s:", flush=True)
    for name, seconds in found.items():
        print(f"   {seconds:6.2f}  {name}", flush=True)


def published(data: Path, work: Path, files: int) -> None:
    import duckdb

    chosen = discover_trial_files(data)[:files]
    con = duckdb.connect()
    con.execute("SET threads = 1")
    con.execute("SET enable_progress_bar = false")
    target = work / "samples.parquet"
    query = f"SELECT {', '.join(SAMPLE_COLUMNS)} FROM read_parquet(?)"
    ways: dict[str, Callable[[Path], None]] = {
        "as the build writes them (order checked)": lambda f: write_sorted(con, query, [str(f)], target),
        "without the order check": lambda f: con.execute(
            f"COPY ({query}) TO {sql_string(target)} (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 122880, "
            f"{PUBLISHED})", [str(f)]),
        "without the order check, snappy": lambda f: con.execute(
            f"COPY ({query}) TO {sql_string(target)} (FORMAT parquet, COMPRESSION snappy, ROW_GROUP_SIZE 122880, "
            "PARQUET_VERSION V2)", [str(f)]),
        "decoding only": lambda f: con.execute(f"SELECT count(*), sum(hash({', '.join(SAMPLE_COLUMNS)})) "
                                               f"FROM ({query})", [str(f)]).fetchall(),
    }
    print(f"3. published samples files, {len(chosen)} of them, one thread, CPU ms per file:", flush=True)
    for name, write in ways.items():
        start = cpu()
        for f in chosen:
            write(f)
        print(f"   {(cpu() - start) / len(chosen) * 1000:6.2f}  {name}", flush=True)
    con.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=Path, required=True)
    parser.add_argument("--files", type=int, default=200)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="rb-store-parts-"))
    try:
        store_statements(args.trials, work)
        stripped_insert(args.trials, work)
        published(args.trials, work, args.files)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
