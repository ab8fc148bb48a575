"""Time what a rebuild spends deciding which pages to keep (issue 16): making each page's view
model and taking its digest (site/reuse.py), per page kind, and the data files.

    python benchmarks/page_reuse.py --data DIR [--rounds 5]

A rebuild makes and digests every page, though it renders few, so these are most of its
render phase's CPU. The build's results are gathered once from `--data` (read, never
written: the cache goes to a temporary directory), as benchmarks/data_files.py does; then,
`--rounds` times, the page model is planned afresh (so no view is cached from a round
before), every page is made and digested, and the data files are made, all with the cyclic
GC paused as in the build. Printed: the least CPU time of the rounds per page kind (make,
digest) and for the planning and the data files; the least, because on a shared machine the
noise only ever adds. Compare two revisions by running this with each one's code first on
`PYTHONPATH` (the figures in the issue 16 notes were taken so, alternating).
"""

from __future__ import annotations

import argparse
import gc
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from reasonboard.build import BuildOptions, gather, load_settings
from reasonboard.outputs import data_files
from reasonboard.results import BuildResults
from reasonboard.site.model import plan_page_model
from reasonboard.site.reuse import page_digest
from reasonboard.site.views.base import made


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True, help="the data directory to gather")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="reasonboard-reuse-") as tmp:
        return measure(args.data, Path(tmp), args.rounds)


def measure(data: Path, tmp: Path, rounds: int) -> int:
    options = BuildOptions(data_dir=data, out_dir=tmp / "site", cache_dir=tmp / "cache")
    project, config, bands = load_settings(options)
    gathered = gather(options, project, config, bands)
    board = gathered.board
    results = BuildResults(config=gathered.config, leaderboard=board.leaderboard, pairwise=board.pairwise,
                           curves=board.curves, signals=gathered.signals, evaluations=board.evaluations,
                           bands=bands, task_rankings=board.task_rankings, timings={})
    gc.freeze()  # as the build does: the results are long-lived
    gc.disable()
    clock = time.process_time
    least: dict[str, float] = {}
    counts: Counter[str] = Counter()

    def note(name: str, seconds: float) -> None:
        least[name] = min(least.get(name, seconds), seconds)

    for _ in range(rounds):
        started = clock()
        plan = plan_page_model(results)
        note("plan", clock() - started)
        make: Counter[str] = Counter()
        digest: Counter[str] = Counter()
        counts.clear()
        for entry in plan.pages:
            started = clock()
            page = made(entry)
            between = clock()
            page_digest("", page)
            make[page.template] += between - started
            digest[page.template] += clock() - between
            counts[page.template] += 1
        for kind in counts:
            note(f"{kind} make", make[kind])
            note(f"{kind} digest", digest[kind])
        note("all pages make", sum(make.values()))
        note("all pages digest", sum(digest.values()))
        started = clock()
        data_files(board.leaderboard, board.pairwise, gathered.signals)
        note("data files", clock() - started)
        del plan
        gc.collect()
    print(f"least CPU seconds of {rounds} rounds ({len(board.leaderboard.models)} evaluations, "
          f"{sum(counts.values())} pages):")
    for name, seconds in least.items():
        kind = name.rsplit(" ", 1)[0]
        label = f"{name} (n={counts[kind]})" if kind in counts else name
        print(f"  {label:36s} {seconds:.3f}")
    gc.enable()
    gc.unfreeze()  # let the interpreter free the results (and the store's handles) at exit
    return 0


if __name__ == "__main__":
    sys.exit(main())
