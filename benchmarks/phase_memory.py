"""Peak resident memory of each build phase: a cold build in a child process, the resident
set of the build process and of all its descendants (the render workers) sampled every half
second, the largest of each kept per phase.

    python benchmarks/phase_memory.py --data DIR [--interval 0.5]

Each peak is charged to the phase that was running (the one whose progress line came
next), so the figure beside "store" is the one reached while the store was being built. The sum over the process tree counts pages
the workers share with the build process (forked) once per process, so the tree's figure is
an upper bound; the build process's own is exact. Used for the 10,000-evaluation figures of
docs/maintainers/performance.md (`reasonboard demo --models 8000` beside the EEE corpus).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SNIPPET = """
import sys, time
from pathlib import Path
from reasonboard.build import BuildOptions, run_build
data, out, cache = (Path(p) for p in sys.argv[1:4])
start = time.perf_counter()
def say(line):
    print(f"{time.perf_counter() - start:.1f} {line.split('] ', 1)[1].removesuffix(' done')}", flush=True)
run_build(BuildOptions(data_dir=data, out_dir=out, cache_dir=cache), progress=say)
"""


def children() -> dict[int, list[int]]:
    """Each process's children, from /proc."""
    found: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            found.setdefault(int(stat[1]), []).append(int(entry.name))
    return found


def resident(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def tree(pid: int) -> tuple[int, int]:
    """(the process's resident bytes, its own and every descendant's summed)."""
    kids, total, todo = children(), 0, [pid]
    while todo:
        current = todo.pop()
        total += resident(current)
        todo.extend(kids.get(current, []))
    return resident(pid), total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--interval", type=float, default=0.5)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="rb-phase-memory-"))
    try:
        proc = subprocess.Popen([sys.executable, "-c", SNIPPET, str(args.data.resolve()), str(work / "site"),
                                 str(work / "cache")], stdout=subprocess.PIPE, text=True, cwd=work)
        assert proc.stdout is not None
        os.set_blocking(proc.stdout.fileno(), False)
        peaks: list[tuple[str, int, int]] = []
        running, started = (0, 0), time.perf_counter()
        while True:
            own, total = tree(proc.pid)
            running = (max(running[0], own), max(running[1], total))
            for line in iter(proc.stdout.readline, ""):
                seconds, phase = line.strip().split(" ", 1)
                print(f"  {phase} ended at {float(seconds):.1f} s", flush=True)
                peaks.append((phase, *running))
                running = (0, 0)
            if proc.poll() is not None:
                break
            time.sleep(args.interval)
        peaks.append(("after the last phase", *running))
        if proc.returncode:
            sys.exit(f"the build failed (exit {proc.returncode})")
        print(f"cold build: {time.perf_counter() - started:.1f} s wall; peak resident memory while each phase ran:")
        for name, own, total in peaks:
            shown = (f"build process {own / 2**30:.2f} GB, with its workers {total / 2**30:.2f} GB" if own
                     else "not sampled (shorter than the interval)")
            print(f"  {name}: {shown}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
