"""Time the Evaluation Card signals on the full real EEE corpus (5,320 records, 35,586 results).

The target is load + compute under 10 s on a 2-core machine. Run from the
repository root:

    .venv/bin/python benchmarks/bench_signals.py [--data DIR] [--repeat N]

DIR defaults to the shared real-data folder beside the repository (`../shared/data`): its
`eee-2026-02/` and `benchmark-cards/` are linked into a temporary data directory as `eee/`
and `cards/`. Prints each phase, the total, the serialisation of `signals.json` (reported
separately: it is part of writing the site, not of computing the signals), the CPU time
(meaningful when other jobs share the machine), the core count and the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from reasonboard.config import SiteConfig  # noqa: E402
from reasonboard.signals import compute_signals  # noqa: E402
from reasonboard.store.pointsdb import PointsDB  # noqa: E402
from reasonboard.store.reported import load_reported  # noqa: E402

DEFAULT_SHARED = ROOT.parent / "shared" / "data"


def corpus_dir(shared: Path, tmp: Path) -> Path:
    """A data directory whose eee/ and cards/ are the real corpus, hard-linked (a symbolic
    link out of the data folder is refused by the build)."""
    eee, cards = shared / "eee-2026-02", shared / "benchmark-cards"
    if not eee.is_dir() or not cards.is_dir():
        sys.exit(f"real corpus not found under {shared} (expected eee-2026-02/ and benchmark-cards/)")
    shutil.copytree(eee, tmp / "eee", copy_function=os.link)
    shutil.copytree(cards, tmp / "cards", copy_function=os.link)
    return tmp


def run_once(data: Path) -> dict[str, float]:
    config = SiteConfig()
    times: dict[str, float] = {}
    start, cpu = time.perf_counter(), time.process_time()
    with PointsDB() as db:
        loaded = load_reported(db, data, config, strict=False)
        times["load"] = time.perf_counter() - start
        mark = time.perf_counter()
        signals = compute_signals(db, config, [])
        times["compute"] = time.perf_counter() - mark
    times["total"] = times["load"] + times["compute"]
    # CPU time of this process (all threads): what the work costs when other jobs share the cores.
    times["cpu"] = time.process_time() - cpu
    mark = time.perf_counter()
    text = json.dumps(signals.to_json(), sort_keys=True)
    times["signals.json"] = time.perf_counter() - mark
    times["records"], times["results"] = loaded.records, loaded.results
    times["triples"], times["json_mb"] = len(signals.triples), len(text) / 1e6
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_SHARED, help="folder holding eee-2026-02/ and benchmark-cards/")
    parser.add_argument("--repeat", type=int, default=3, help="runs; the best is reported")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        data = corpus_dir(args.data, Path(tmp))
        runs = [run_once(data) for _ in range(args.repeat)]
    best = min(runs, key=lambda r: r["total"])
    print(f"cores: {os.cpu_count()}   load average: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"corpus: {best['records']:.0f} records, {best['results']:.0f} results, {best['triples']:.0f} triples")
    for i, r in enumerate(runs, 1):
        print(f"run {i}: load {r['load']:.2f} s + compute {r['compute']:.2f} s = {r['total']:.2f} s wall"
              f" ({r['cpu']:.2f} s CPU)   signals.json {r['signals.json']:.2f} s, {r['json_mb']:.1f} MB")
    verdict = "under" if best["total"] < 10 else "OVER"
    print(f"best: {best['total']:.2f} s ({verdict} the 10 s target)")


if __name__ == "__main__":
    main()
