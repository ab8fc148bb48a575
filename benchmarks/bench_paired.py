"""What paired comparisons cost a build (SAMPLES.md section 5).

    python benchmarks/bench_paired.py [--models 2000] [--boards 3] [--data DIR] [--keep DIR]

Builds the demo's data with per-sample trials (`reasonboard demo --models N`: about 2,500
evaluations at N = 2000), once, in a fresh process, and reads the build's own phase timings:
the "paired comparisons" phase (every ranked model's neighbours, every board's adjacent
pairs, the top `pairwise_top` matrix, each task page's adjacent rows) against everything else
the build does. With `--boards K` (K >= 2) the site has K boards: every task, then the tasks
split into K - 1 parts, so each task is on two boards (their shared pairs are resampled once).
Prints the pairs tested and the share of the build without pairing that the pairing costs
(the target: at most 25 %), in wall seconds of the phases and in CPU seconds (the pairing's
process time; the build's own and its worker processes'), and, on Linux, the build
process's resident memory when the pairing starts and at the pairing's peak.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

#: The build in a child process, its pairing's CPU time measured around `with_comparisons`
#: (threads included) and the whole build's from the process and its waited-for children;
#: on Linux also the process's resident memory when the pairing starts and its peak during
#: the pairing (`VmHWM`, reset at the start through `/proc/self/clear_refs`).
BUILD = """
import resource, sys, time
import reasonboard.build as build
from reasonboard.cli import main
cpu, rss = [0.0], {}
def status(key):
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            return next(int(line.split()[1]) / 1024 for line in fh if line.startswith(key + ":"))
    except (OSError, StopIteration):
        return None
inner = build.with_comparisons
def timed(*args, **kwargs):
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as fh:
            fh.write("5")
    except OSError:
        pass
    rss["before"] = status("VmRSS")
    start = time.process_time()
    try:
        return inner(*args, **kwargs)
    finally:
        cpu[0] += time.process_time() - start
        rss["peak"] = status("VmHWM")
build.with_comparisons = timed
try:
    main(sys.argv[1:], standalone_mode=False)
finally:
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    total = own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime
    print(f"cpu seconds: build {total:.1f}, paired {cpu[0]:.1f}")
    if rss.get("before") is not None and rss.get("peak") is not None:
        print(f"resident MB: before the pairing {rss['before']:.0f}, the pairing's peak {rss['peak']:.0f}")
"""


def boards_toml(data: Path, boards: int) -> str:
    """Every task, then the tasks split into `boards - 1` parts, as `[[boards]]`."""
    import duckdb

    with duckdb.connect() as con:
        tasks = [r[0] for r in con.execute("SELECT DISTINCT base_task FROM read_parquet(?) ORDER BY 1",
                                           [str(data / "trials" / "*.parquet")]).fetchall()]
    parts = [tasks[k::boards - 1] for k in range(boards - 1)]
    lines = ['[[boards]]', 'name = "All tasks"', f"tasks = {json.dumps(tasks)}"]
    for k, part in enumerate(parts, 1):
        lines += ["[[boards]]", f'name = "Part {k}"', f"tasks = {json.dumps(sorted(part))}"]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=int, default=2000)
    parser.add_argument("--boards", type=int, default=1, help="boards of the site (1: every task, no [[boards]])")
    parser.add_argument("--data", type=Path, help="an existing demo data directory (skips `reasonboard demo`)")
    parser.add_argument("--keep", type=Path, help="build here and keep the site")
    args = parser.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="bench-paired-"))
    data = args.data or work / "data"
    cli = [sys.executable, "-c", "from reasonboard.cli import main; main()"]
    if args.data is None:
        subprocess.run([*cli, "demo", "--models", str(args.models), "--out", str(data), "--force"], check=True)
    config = []
    if args.boards > 1:
        (work / "site.toml").write_text(boards_toml(data, args.boards), encoding="utf-8")
        config = ["--config", str(work / "site.toml")]
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", BUILD, "build", "--data", str(data), "--out", str(work / "site"),
                           "--cache", str(work / "cache"), *config], check=True, capture_output=True, text=True)
    wall = time.perf_counter() - start
    phases = {name: float(sec) for name, sec in re.findall(r"([a-z][a-z ]+) ([0-9.]+)s", done.stdout.split("phases:")[1])}
    paired = phases.get("paired comparisons", 0.0)
    total = sum(phases.values())
    doc = json.loads((work / "site" / "data" / "pairwise.json").read_text(encoding="utf-8")).get("paired", {})
    tested = {k: len(v) for k, v in doc.items() if isinstance(v, (list, dict)) and k != "boards"}
    tested.update({f"board {name}": len(v) for name, v in doc.get("boards", {}).items()})
    print(done.stdout.strip())
    print(f"wall {wall:.1f} s; phases {total:.1f} s; paired comparisons {paired:.1f} s; "
          f"the build without them {total - paired:.1f} s; pairing costs {100 * paired / max(total - paired, 1e-9):.0f} % "
          f"of it (target <= 25 %)")
    print(f"paired entries: {tested}")
    build_cpu, paired_cpu = map(float, re.findall(r"cpu seconds: build ([0-9.]+), paired ([0-9.]+)", done.stdout)[0])
    print(f"CPU: build {build_cpu:.1f} s; paired comparisons {paired_cpu:.1f} s; the build without them "
          f"{build_cpu - paired_cpu:.1f} s; pairing costs {100 * paired_cpu / max(build_cpu - paired_cpu, 1e-9):.0f} % "
          "of it (target <= 25 %)")
    memory = re.findall(r"resident MB: before the pairing ([0-9]+), the pairing's peak ([0-9]+)", done.stdout)
    if memory:
        before, peak = map(int, memory[0])
        print(f"memory: {before} MB resident when the pairing starts, {peak} MB at its peak (+{peak - before} MB)")


if __name__ == "__main__":
    main()
