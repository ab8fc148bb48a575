"""How fast a build from trials could be at best: the work SAMPLES.md adds to a build from
points, each part done by the leanest means the project's parts allow, measured in one run
beside the two real builds of the same demo world.

    python benchmarks/trials_bound.py --trials DIR --points DIR

`DIR`s are the same demo world twice: `reasonboard demo --models N --out DIR` (with trials)
and `bench_trials.write_points` (the same counts as points files). A target such as "the
build from trials within 2 times the build from points" is only reachable if

    points build - its store phase + the parts below  <=  2 x points build

holds, since a build from trials still does everything a build from points does after its
store, and each part below is something the spec makes every build from trials do:

* **store**: every trial into the PointsDB's `trials` table (SAMPLES.md section 1, "the store
  loads trials into the PointsDB"), here as hashes and flags in one `CREATE TABLE AS`: no
  numbering, no names kept, no check of any value;
* **points**: the points derived from the stored trials in SQL (one `GROUP BY`);
* **items**: the per-item counters the paired tests read (section 5: trials, correct and
  truncated per evaluation and item: sums over runs of the stored rows, in file order);
* **analyses**: the per-sample analyses' grouping of trials by token bin and outcome
  (section 6, the hazard analysis; one `GROUP BY`, the other analyses not counted);
* **published samples**: every trial encoded once into Parquet (section 5), here as one file
  (no cost per file) with DuckDB's writer, less one decoding of the trials files (an ideal
  build would read them once for both);
* **paired sums**: the paired bootstrap's replicate sums (section 5, `paired_draws` 2000
  replicates): per stratum one count matrix of resampled items, times one column per
  evaluation (correct only; `C_P` also needs the truncated and guess sums, and epochs the
  design effect's moments). No interval, no `p`, no pair is finished from them.

Nothing here is the build's code: it measures a bound any design within the spec must pay,
so a target below it is a change to the spec, not to the code.
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
    """CPU seconds of each part of the bound (the module docstring)."""
    import duckdb

    files = sorted(str(p) for p in (trials_dir / "trials").glob("*.parquet"))
    con = duckdb.connect(str(work / "bound.duckdb"))
    con.execute("SET enable_progress_bar = false")
    scan = "read_parquet(?)"
    decode = timed(lambda: con.execute(f"SELECT bit_xor(hash(COLUMNS(*))) FROM {scan}", [files]).fetchall())
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

    def replicate_sums() -> None:
        for items, evaluations in strata:
            counts = rng.multinomial(items, np.full(items, 1.0 / items), size=DRAWS + 1).astype(np.float32)
            correct = rng.integers(0, 2, size=(items, evaluations)).astype(np.float32)
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
    tmp = Path(tempfile.mkdtemp(prefix="rb-trials-bound-"))
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
    bound = rest + sum(found.values())
    print("CPU seconds, one run:")
    print(f"  points build {points:.1f} (store {builds['points']['store']:.1f}); trials build {trials:.1f} "
          f"({trials / points:.2f} x the points build)")
    for name, seconds in found.items():
        print(f"  bound part: {name:18s} {seconds:6.2f}")
    print(f"  bound: points build without its store {rest:.1f} + parts {sum(found.values()):.1f} = {bound:.1f} "
          f"= {bound / points:.2f} x the points build (a target of 2 x is {2 * points:.1f})")


if __name__ == "__main__":
    main()
