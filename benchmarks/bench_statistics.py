"""Time the statistics for a large simulated leaderboard (issue 2's speed target).

    python benchmarks/bench_statistics.py [--models 2000]

Writes `reasonboard demo --models N` into a temporary directory, ingests it into an
in-memory PointsDB, then times each statistics phase separately: the aggregate query, the
bootstrap ReasonScore, significance (rank ranges, tie lists, tie groups) and pairwise win
rates with Bradley–Terry for the top 50, and every ranked model's win rates against its
four nearest neighbours. Target: the three statistics together under 5 s
on a 2-core machine.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

import numpy as np
from reasonboard.demo import write_demo
from reasonboard.sources.evals import read_evals
from reasonboard.sources.points import discover_point_files
from reasonboard.stats.pairwise import neighbour_win_rates, pairwise
from reasonboard.stats.reasonscore import reasonscore_v2
from reasonboard.stats.significance import rank_order, significance
from reasonboard.store.ingest import ingest_evals, ingest_points
from reasonboard.store.pointsdb import MODES, PointsDB
from reasonboard.store.trialfiles import discover_trial_files


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=int, default=2000)
    parser.add_argument("--top", type=int, default=50)
    args = parser.parse_args()
    print(f"cores: {os.cpu_count()}, models: {args.models}")
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp)
        t = time.perf_counter()
        demo = write_demo(data, models=args.models, seed=0)
        print(f"demo data      {time.perf_counter() - t:7.3f} s  ({demo.points} points)")
        db = PointsDB()
        t = time.perf_counter()
        ingest_points(db, discover_point_files(data) + discover_trial_files(data), data)
        ingest_evals(db, read_evals(data / "evals.json"))
        print(f"ingest         {time.perf_counter() - t:7.3f} s")

        timings = {}
        t = time.perf_counter()
        agg = db.aggregate(group_by=("model", "template", "sampler", "base_task"), mode=MODES)
        keys = list(zip(agg["model"].tolist(), agg["template"].tolist(), agg["sampler"].tolist()))
        evals = sorted(set(keys))
        tasks = db.tasks()
        row = _index(keys, evals)
        col = np.searchsorted(np.array(tasks, dtype=object), agg["base_task"])
        shape = (len(evals), len(tasks))
        present = np.zeros(shape, bool)
        present[row, col] = True
        grids = {}
        for name in ("C_P_est", "C_P_low", "C_P_high"):
            grids[name] = np.full(shape, np.nan)
            grids[name][row, col] = agg[name]
        timings["aggregate (SQL)"] = time.perf_counter() - t

        t = time.perf_counter()
        scores = reasonscore_v2(grids["C_P_low"], grids["C_P_high"], present)
        timings["reasonscore (B=5000)"] = time.perf_counter() - t

        t = time.perf_counter()
        complete = np.flatnonzero(present.all(axis=1))
        ids = ["|".join(k) for k in evals]
        order = complete[rank_order(scores.center[complete], [ids[i] for i in complete])]
        sig = significance(scores.ci_low[order], scores.ci_high[order])
        timings["significance"] = time.perf_counter() - t

        t = time.perf_counter()
        top = order[: args.top]
        pw = pairwise(grids["C_P_est"][top], grids["C_P_low"][top], grids["C_P_high"][top], present[top])
        timings[f"pairwise (top {args.top})"] = time.perf_counter() - t

        t = time.perf_counter()
        neighbour_win_rates(grids["C_P_est"][order], grids["C_P_low"][order], grids["C_P_high"][order], present[order])
        timings["neighbour win rates"] = time.perf_counter() - t

        for name, seconds in timings.items():
            print(f"{name:22s} {seconds:7.3f} s")
        stats = sum(v for k, v in timings.items() if not k.startswith("aggregate"))
        print(f"{'statistics total':22s} {stats:7.3f} s  (target < 5 s; with the SQL aggregate "
              f"{stats + timings['aggregate (SQL)']:.3f} s)")
        print(f"evaluations {len(evals)}, ranked {len(order)}, tie groups {len(sig.tie_groups)}, "
              f"BT iterations {pw.iterations}")


def _index(keys: list[tuple], evals: list[tuple]) -> np.ndarray:
    position = {k: i for i, k in enumerate(evals)}
    return np.fromiter((position[k] for k in keys), dtype=int, count=len(keys))


if __name__ == "__main__":
    main()
