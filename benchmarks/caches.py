"""What each cache a build keeps gains, measured in one run.

    python benchmarks/caches.py [--models 2000] [--rounds 3] [--eee PATH] [--cards PATH] [--keep DIR]

Fixture as `benchmarks/run.py`: `reasonboard demo --models N` points beside the full Every Eval
Ever corpus and the 16 cards (about 2,500 evaluations at N = 2000). A clean build of the data
(A) fills the cache; then, `--rounds` times and alternating, each scenario rebuilds after one
model's trials change with one cache removed just before the build:

* `all caches`: what a lab's rebuild costs;
* `no PointsDB`: the store ingests every input again (`pointsdb-*.duckdb` removed);
* `no page keys`: every page is rendered (the build state, `build-*.json`, removed);

and a build with nothing changed, with and without the build state (`build-*.json`), is timed
the same way. Each figure is the median wall time of a build in a fresh process; the gain of a
cache is the scenario's median minus that of `all caches`. Also printed: how many files the
writer left untouched (its byte comparison keeps their modification times).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from run import DEFAULT_CARDS, DEFAULT_EEE, change_one_model, make_fixture, measured_build, median

SCENARIOS = {
    "all caches": (),
    "no PointsDB": ("pointsdb-*.duckdb",),
    "no page keys": ("build-*.json",),
}


def remove(cache: Path, patterns: tuple[str, ...]) -> None:
    for pattern in patterns:
        for path in cache.glob(pattern):
            shutil.rmtree(path) if path.is_dir() else path.unlink()


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--models", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--eee", type=Path, default=DEFAULT_EEE)
    parser.add_argument("--cards", type=Path, default=DEFAULT_CARDS)
    parser.add_argument("--keep", type=Path, help="work in this directory and keep it")
    args = parser.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="rb-caches-"))
    work.mkdir(parents=True, exist_ok=True)
    data, site, cache = work / "data", work / "site", work / "cache"
    try:
        for path in (site, cache):
            shutil.rmtree(path, ignore_errors=True)
        make_fixture(data, args.models, args.eee, args.cards)
        summary, wall, _ = measured_build(data, site, cache)
        print(f"clean build (empty cache): {wall:.2f} s, {summary['pages']} pages", flush=True)
        walls: dict[str, list[float]] = {name: [] for name in SCENARIOS}
        unchanged: list[int] = []
        for _ in range(args.rounds):
            for name, patterns in SCENARIOS.items():
                change_one_model(data / "trials")
                remove(cache, patterns)
                summary, wall, _ = measured_build(data, site, cache)
                walls[name].append(wall)
                if name == "all caches":
                    unchanged.append(int(summary["files"]) - int(summary["changed"]))
                print(f"  {name}: {wall:.2f} s", flush=True)
        same: dict[str, list[float]] = {"nothing changed": [], "nothing changed, no build state": []}
        for _ in range(args.rounds):
            for name in same:
                if "no build state" in name:
                    remove(cache, ("build-*.json",))
                _, wall, _ = measured_build(data, site, cache)
                same[name].append(wall)
        base = median(walls["all caches"])
        print(f"\none-model rebuild at {args.models} demo models, median of {args.rounds} (wall, fresh process):")
        for name, values in walls.items():
            gain = "" if name == "all caches" else f"; the cache saves {median(values) - base:+.2f} s"
            print(f"  {name:20s} {median(values):6.2f} s ({', '.join(f'{v:.2f}' for v in values)}){gain}")
        print(f"  the writer left {median([float(u) for u in unchanged]):.0f} of {summary['files']} files untouched "
              "(same bytes: modification time kept)")
        for name, values in same.items():
            print(f"  {name:32s} {median(values):6.2f} s ({', '.join(f'{v:.2f}' for v in values)})")
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
