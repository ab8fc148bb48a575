"""The per-sample path at scale: a demo built from its trials files against the same demo
built from points files, and the bytes a trial costs.

    python benchmarks/bench_trials.py [--models 2000] [--rounds 3] [--keep DIR]

Fixture: `reasonboard demo --models N` (about 2,500 evaluations at 2,000 models, every task
with 640 or more samples), written twice: as the demo writes it (one trials file per
evaluation, some evaluations with epochs) and as points files holding the same simulated
counters (one CSV per model, what the demo wrote before trials were kept). Each is built
clean (fresh cache and output) `--rounds` times, alternating, in a fresh process; the medians
are compared (target: the trials build within 2x the points build). Printed besides: bytes
per trial of the trials files and of the published per-sample outcomes (`data/samples/`),
and the fewest samples any (evaluation, task) has.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import duckdb


def write_points(out: Path, models: int) -> None:
    """The demo's simulated counters as points files (one CSV per model) and its evals.json."""
    from reasonboard import demo

    demo.write_points_files(out, demo.simulate(models, 0))


def timed_build(data: Path, site: Path, cache: Path) -> float:
    shutil.rmtree(site, ignore_errors=True)
    shutil.rmtree(cache, ignore_errors=True)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", "from reasonboard.cli import main; main()", "build", "--quiet",
                    "--data", str(data), "--out", str(site), "--cache", str(cache)], check=True, capture_output=True)
    return time.perf_counter() - start


def size(paths: list[Path]) -> int:
    return sum(p.stat().st_size for p in paths)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--keep", type=Path, default=None)
    args = parser.parse_args()
    base = args.keep or Path(tempfile.mkdtemp(prefix="bench-trials-"))
    try:
        trials_data, points_data = base / "data-trials", base / "data-points"
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", "from reasonboard.cli import main; main()", "demo", "--models",
                        str(args.models), "--out", str(trials_data), "--force"], check=True, capture_output=True)
        print(f"demo trials files written in {time.perf_counter() - start:.1f} s")
        shutil.rmtree(points_data, ignore_errors=True)
        write_points(points_data, args.models)
        files = sorted((trials_data / "trials").glob("*.parquet"))
        con = duckdb.connect()
        trials, evaluations, fewest = con.execute(
            "SELECT sum(n), count(DISTINCT e), min(s) FROM (SELECT model || template || sampler AS e, base_task, "
            "count(*) AS n, count(DISTINCT (params, sample_id)) AS s FROM read_parquet(?) GROUP BY ALL)",
            [[str(f) for f in files]]).fetchone()
        print(f"{evaluations:,} evaluations, {trials:,} trials, fewest samples of an (evaluation, task): {fewest}")
        print(f"trials files: {size(files) / 1e6:.1f} MB, {size(files) / trials:.2f} bytes per trial")

        with_trials, with_points = [], []
        for _ in range(args.rounds):
            with_points.append(timed_build(points_data, base / "site-points", base / "cache-points"))
            with_trials.append(timed_build(trials_data, base / "site-trials", base / "cache-trials"))
        published = sorted((base / "site-trials" / "data" / "samples").rglob("*.parquet"))
        print(f"published samples: {len(published)} files, {size(published) / 1e6:.1f} MB, "
              f"{size(published) / trials:.2f} bytes per trial")
        t, p = sorted(with_trials)[len(with_trials) // 2], sorted(with_points)[len(with_points) // 2]
        print("rounds (points / trials, s): " + ", ".join(f"{a:.1f} / {b:.1f}" for a, b in zip(with_points, with_trials)))
        print(f"clean build from points {p:.1f} s, from trials {t:.1f} s (medians): ratio {t / p:.2f} (target <= 2)")
    finally:
        if args.keep is None:
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
