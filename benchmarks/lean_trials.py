"""What a lean build from trials costs: the work SAMPLES.md adds to a build from points,
each part done in a lean form with the project's parts (one DuckDB statement or one NumPy
product each, none of the build's code), measured in one run beside the two real builds of
the same demo world.

    python benchmarks/lean_trials.py --trials DIR --points DIR

`DIR`s are the same demo world twice: `reasonboard demo --models N --out DIR` (with trials)
and `bench_trials.write_points` (the same counts as points files). A build from trials
still does everything a build from points does after its store, so it costs at least

    points build - its store phase + the parts below

with these parts done this way, against a target such as "2 times the points build":

* **store**: every trial into the PointsDB's `trials` table (SAMPLES.md section 1, "the store
  loads trials into the PointsDB"), here as hashes and flags in one `CREATE TABLE AS`: no
  numbering, no names kept, no check of any value;
* **points**: the points derived from the stored trials in SQL (one `GROUP BY`);
* **items**: the per-item counters the paired tests read (section 5: trials, correct and
  truncated per evaluation and item: sums over runs of the stored rows, in file order);
* **analyses**: the per-sample analyses' grouping of trials by token bin and outcome
  (section 6, the hazard analysis; one `GROUP BY`, the other analyses not counted);
* **published samples**: every trial encoded once into Parquet (section 5), here as one file
  (no cost per file) with DuckDB's writer, less one decoding of the trials files (a lean
  build would read them once for both);
* **paired sums**: the paired bootstrap's replicate sums (section 5, `paired_draws` 2000
  replicates, plus the observed row): per stratum one count matrix of resampled items, times
  one column per evaluation (correct only; `C_P` also needs the truncated and guess sums,
  and epochs the design effect's moments). No interval, no `p`, no pair is finished.

It is not a floor for every design: passes could be fused into one, a published file could
copy the trials file's column chunks instead of encoding them (no tool of the project does),
the store could skip the columns that are constant within a file. It says how far a lean
design with DuckDB, Parquet and NumPy gets, and so how much of a target's gap is the spec's
work rather than the build's overhead.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "benchmarks"))

import compare_builds  # noqa: E402
from phase_cpu import build  # noqa: E402
from run import decode_scan  # noqa: E402

DRAWS = 2000  # SAMPLES.md section 5: paired_draws' default


def cpu() -> float:
    """This process's CPU seconds, DuckDB's threads included."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    return own.ru_utime + own.ru_stime


def timed(step: Callable[[], object]) -> float:
    start = cpu()
    step()
    return cpu() - start


def parts(trials_dir: Path, work: Path) -> dict[str, float]:
    """CPU seconds of each lean part (the module docstring)."""
    import duckdb

    files = sorted(str(p) for p in (trials_dir / "trials").glob("*.parquet"))
    con = duckdb.connect(str(work / "lean.duckdb"))
    con.execute("SET enable_progress_bar = false")
    scan = "read_parquet(?)"
    decode, _, _ = decode_scan(trials_dir)  # run.py's scan decoding every value once
    store = timed(lambda: (con.execute(
        f"""CREATE TABLE trials AS SELECT hash(model, template, sampler, base_task, params) AS point,
                   hash(sample_id) AS sample, epoch, correct, truncated, options, tokens, compressed
            FROM {scan}""", [files]), con.execute("CHECKPOINT")))
    points = timed(lambda: con.execute(
        """CREATE TABLE points AS SELECT point, count(*) AS total, count(*) FILTER (WHERE correct) AS correct,
                  count(*) FILTER (WHERE truncated) AS truncated, sum(tokens) AS tokens
           FROM trials GROUP BY point"""))
    def item_counters() -> None:
        # The trials are stored in file order (sorted by sample, then epoch): an item's trials
        # are one run of rows, so its counters are sums over runs, no hash table.
        rows = con.execute("SELECT point, sample, correct, truncated FROM trials").fetchnumpy()
        point, sample = rows["point"], rows["sample"]
        starts = np.flatnonzero(np.concatenate([[True], (point[1:] != point[:-1]) | (sample[1:] != sample[:-1])]))
        np.diff(np.append(starts, len(point)))
        np.add.reduceat(rows["correct"].astype(np.int32), starts)
        np.add.reduceat(rows["truncated"].astype(np.int32), starts)

    items = timed(item_counters)
    analyses = timed(lambda: con.execute(
        """CREATE TABLE hazard AS SELECT point, tokens // 512 AS bin, correct, truncated, count(*) AS trials
           FROM trials GROUP BY ALL"""))
    target = (work / "samples.parquet").as_posix().replace("'", "''")
    samples = timed(lambda: con.execute(
        f"""COPY (SELECT base_task, params, sample_id, epoch, credit, correct, truncated, options, tokens,
                         input_tokens, compressed FROM {scan})
            TO '{target}' (FORMAT parquet, COMPRESSION zstd)""", [files]))
    strata = con.execute(
        f"""SELECT count(DISTINCT sample_id), count(DISTINCT (model, template, sampler))
            FROM {scan} GROUP BY base_task, params ORDER BY base_task, params""", [files]).fetchall()
    con.close()
    rng = np.random.default_rng(0)
    # The evaluations' outcomes per item are the items part's output: made before the clock.
    outcomes = [rng.integers(0, 2, size=(n, evaluations)).astype(np.float32) for n, evaluations in strata]

    def replicate_sums() -> None:
        for (n, _), correct in zip(strata, outcomes):
            # DRAWS resamples of the stratum's n items, and the observed sums' row.
            counts = rng.multinomial(n, np.full(n, 1.0 / n), size=DRAWS + 1).astype(np.float32)
            counts @ correct

    paired = timed(replicate_sums)
    return {"store": store, "points": points, "items": items, "analyses": analyses,
            "published samples": max(samples - decode, 0.0),
            "paired sums": paired}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=Path, required=True, help="the demo world with trials")
    parser.add_argument("--points", type=Path, required=True, help="the same world as points files")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="rb-lean-trials-"))
    try:
        pkg = compare_builds.layout(ROOT, tmp / "pkg")
        builds = {}
        for name, data in (("points", args.points), ("trials", args.trials)):
            builds[name] = build(pkg, data, tmp / f"site-{name}", tmp / f"cache-{name}")
            shutil.rmtree(tmp / f"site-{name}")
            shutil.rmtree(tmp / f"cache-{name}")
        found = parts(args.trials, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    points, trials = builds["points"]["whole build"], builds["trials"]["whole build"]
    rest = points - builds["points"]["store"]
    lean = rest + sum(found.values())
    print("CPU seconds, one run:")
    print(f"  points build {points:.1f} (store {builds['points']['store']:.1f}); trials build {trials:.1f} "
          f"({trials / points:.2f} x the points build)")
    for name, seconds in found.items():
        print(f"  lean part: {name:18s} {seconds:6.2f}")
    print(f"  lean build: points build without its store {rest:.1f} + parts {sum(found.values()):.1f} = {lean:.1f} "
          f"= {lean / points:.2f} x the points build (a target of 2 x is {2 * points:.1f})")


if __name__ == "__main__":
    main()
