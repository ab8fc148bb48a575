"""Time the data files of a build (`outputs.data_files`: leaderboard.json, leaderboard.csv,
pairwise.json, signals.json) at 2,500 evaluations, against the plain encoding they replaced.

    python benchmarks/data_files.py [--data DIR] [--models 2000] [--eee PATH] [--cards PATH] [--rounds 5]

The build's results are gathered once (`build.gather`, as a build does before it renders;
`--data DIR` is read, never written: the cache goes to a temporary directory); without
`--data` the fixture is `reasonboard demo --models N` points with the Every Eval Ever corpus
and the benchmark cards linked in (as benchmarks/run.py makes it). Then, `--rounds` times
each, alternating so that a drift in the shared machine's speed hits both alike:

* before: the plain encoding (`plain_data_files` below: every element of
  every top-level list through its own `json.dumps`, signals.json from `Signals.to_json()`);
* after: `reasonboard.outputs.data_files`, which the build runs.

Printed: the medians of CPU time (what the work costs when other jobs share the cores) and
wall time, their ratio, and each file's median CPU time on each side; the two sides' bytes
are compared and the run fails if any file differs.
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

from reasonboard.build import BuildOptions, gather, load_settings
from reasonboard.outputs import data_files, dump_json, leaderboard_csv, leaderboard_document, pairwise_document, signals_json

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_EEE = ROOT.parent / "shared" / "data" / "eee-2026-02"
DEFAULT_CARDS = ROOT.parent / "shared" / "data" / "benchmark-cards"


def plain_dump_json(document: Any) -> bytes:
    """`dump_json` as plain `json.dumps`: one `json.dumps` call per list element."""
    def compact(value: Any) -> str:
        return json.dumps(value, sort_keys=True, ensure_ascii=False, allow_nan=False, separators=(",", ":"))

    parts = []
    for key in sorted(document):
        value = document[key]
        if isinstance(value, list) and value:
            body = ",\n  ".join(compact(item) for item in value)
            parts.append(f"{compact(key)}:[\n  {body}\n]")
        else:
            parts.append(f"{compact(key)}:{compact(value)}")
    return ("{\n" + ",\n".join(parts) + "\n}\n").encode("utf-8")


def plain_data_files(leaderboard, pairwise, signals) -> dict[str, bytes]:
    """`data_files` with the plain encoding."""
    files = {
        "data/leaderboard.json": plain_dump_json(leaderboard_document(leaderboard)),
        "data/leaderboard.csv": leaderboard_csv(leaderboard),
        "data/pairwise.json": plain_dump_json(pairwise_document(pairwise)),
    }
    if signals is not None:
        files["data/signals.json"] = plain_dump_json(signals.to_json())
    return files


def make_fixture(data: Path, models: int, eee: Path, cards: Path) -> None:
    subprocess.run([sys.executable, "-c", "from reasonboard.cli import main; main()", "demo", "--models",
                    str(models), "--out", str(data)], cwd=ROOT, check=True, capture_output=True)
    (data / "eee").symlink_to(eee.resolve(), target_is_directory=True)
    (data / "cards").symlink_to(cards.resolve(), target_is_directory=True)


def timed(run: Callable[[], Any]) -> tuple[float, float, Any]:
    """(CPU seconds, wall seconds, result) of one run, the cyclic GC paused as in the build."""
    gc.disable()
    try:
        cpu, wall = time.process_time(), time.perf_counter()
        result = run()
        return time.process_time() - cpu, time.perf_counter() - wall, result
    finally:
        gc.enable()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, help="a data directory to gather (default: make the fixture)")
    parser.add_argument("--models", type=int, default=2000, help="demo --models for the fixture")
    parser.add_argument("--eee", type=Path, default=DEFAULT_EEE)
    parser.add_argument("--cards", type=Path, default=DEFAULT_CARDS)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="reasonboard-datafiles-") as tmp:
        work = Path(tmp)
        data = args.data
        if data is None:
            if not (args.eee.is_dir() and args.cards.is_dir()):
                sys.exit(f"EEE corpus or cards not found ({args.eee}, {args.cards}): pass --eee/--cards or --data")
            data = work / "data"
            make_fixture(data, args.models, args.eee, args.cards)
        options = BuildOptions(data_dir=data, out_dir=work / "site", cache_dir=work / "cache")
        project, config, bands = load_settings(options)
        started = time.perf_counter()
        gathered = gather(options, project, config, bands)
        gc.freeze()  # as the build does: the results are long-lived
        board, signals = gathered.board, gathered.signals
        print(f"gathered {len(board.leaderboard.models)} evaluations, "
              f"{len(signals.triples) if signals else 0} triples in {time.perf_counter() - started:.1f} s")

        sides: dict[str, Callable[[], dict[str, bytes]]] = {
            "before": lambda: plain_data_files(board.leaderboard, board.pairwise, signals),
            "after": lambda: data_files(board.leaderboard, board.pairwise, signals),
        }
        cpu: dict[str, list[float]] = {name: [] for name in sides}
        wall: dict[str, list[float]] = {name: [] for name in sides}
        outputs: dict[str, dict[str, bytes]] = {}
        for _ in range(args.rounds):
            for name, run in sides.items():
                seconds, elapsed, outputs[name] = timed(run)
                cpu[name].append(seconds)
                wall[name].append(elapsed)

    gc.unfreeze()  # let the interpreter free the results (and the store's handles) at exit
    differing = sorted(p for p in outputs["before"].keys() | outputs["after"].keys()
                       if outputs["before"].get(p) != outputs["after"].get(p))
    sizes = ", ".join(f"{Path(p).name} {len(b) / 1e6:.1f} MB" for p, b in sorted(outputs["after"].items()))
    print(f"files: {sizes}")
    for name in sides:
        print(f"{name:6s} CPU {statistics.median(cpu[name]):.3f} s, wall {statistics.median(wall[name]):.3f} s "
              f"(medians of {args.rounds}; CPU runs: {', '.join(f'{s:.3f}' for s in cpu[name])})")
    print(f"after / before: CPU {statistics.median(cpu['after']) / statistics.median(cpu['before']):.2f}, "
          f"wall {statistics.median(wall['after']) / statistics.median(wall['before']):.2f} (target: CPU <= 0.5)")

    parts = {
        "leaderboard.json": (lambda: plain_dump_json(leaderboard_document(board.leaderboard)),
                             lambda: dump_json(leaderboard_document(board.leaderboard))),
        "pairwise.json": (lambda: plain_dump_json(pairwise_document(board.pairwise)),
                          lambda: dump_json(pairwise_document(board.pairwise))),
        "leaderboard.csv": (lambda: leaderboard_csv(board.leaderboard),) * 2,
    }
    if signals is not None:
        parts["signals.json"] = (lambda: plain_dump_json(signals.to_json()), lambda: signals_json(signals))
    def cpu_median(run: Callable[[], Any]) -> float:
        return statistics.median(timed(run)[0] for _ in range(args.rounds))

    print(f"per file, CPU before -> after (medians of {args.rounds}): " + ", ".join(
        f"{name} {cpu_median(before):.3f} -> {cpu_median(after):.3f} s" for name, (before, after) in parts.items()))
    if differing:
        print("DIFFERENT bytes: " + ", ".join(differing))
        return 1
    print("before and after: byte for byte the same")
    return 0


if __name__ == "__main__":
    sys.exit(main())
