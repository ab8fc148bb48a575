"""CPU seconds of each build phase: a base revision's code against the working tree's, on
one data folder, clean builds (and optionally a one-model rebuild) alternating.

    python benchmarks/phase_cpu.py --data DIR [--base REV] [--rounds 2] [--rebuild] [--only new]

On a machine shared with other work, wall time measures the neighbours; the CPU time a
build process and its render workers spend does not (much). Each build runs in a fresh
process with the side's package first on `sys.path` (laid out as `scripts/compare_builds.py`
does it); the phases are the build's own (its progress lines), each charged the CPU time
of the process (DuckDB's threads included) and of the workers it reaped. With `--rebuild`,
each clean build is followed by `change_one_model` (benchmarks/run.py) on a copy of the
data and a rebuild with that build's cache: the one-model rebuild a lab waits for.
Prints each build and, per side, the median of each phase.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "benchmarks"))

import compare_builds  # noqa: E402
from run import change_one_model, median  # noqa: E402

SNIPPET = """
import json, resource, sys, time
sys.path.insert(0, sys.argv[1])
from pathlib import Path
from reasonboard.build import BuildOptions, run_build

def cpu():
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime

phases, last = {}, [cpu()]
def say(line):
    now = cpu()
    phases[line.split("] ", 1)[1].removesuffix(" done")] = now - last[0]
    last[0] = now
data, out, cache = (Path(p) for p in sys.argv[2:5])
run_build(BuildOptions(data_dir=data, out_dir=out, cache_dir=cache), progress=say)
phases["whole build"] = cpu()
print(json.dumps(phases))
"""


def build(pkg: Path, data: Path, out: Path, cache: Path) -> dict[str, float]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    # Run outside any project: a build takes the templates and content of the project it runs
    # in (the current directory by default), and a base revision's code must render its own.
    proc = subprocess.run([sys.executable, "-c", SNIPPET, str(pkg), str(data), str(out), str(cache)],
                          env=env, capture_output=True, text=True, cwd=out.parent)
    if proc.returncode != 0:
        sys.exit(f"build failed ({pkg}):\n{proc.stderr}")
    found: dict[str, float] = json.loads(proc.stdout.strip().splitlines()[-1])
    return found


def show(label: str, phases: dict[str, float]) -> None:
    print(f"{label}: " + ", ".join(f"{name} {seconds:.1f}" for name, seconds in phases.items()), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--base", default=None, help="default: the merge-base with main")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--rebuild", action="store_true")
    parser.add_argument("--only", choices=("base", "new"), help="build one side only")
    args = parser.parse_args()
    base = compare_builds.base_revision(args.base)
    tmp = Path(tempfile.mkdtemp(prefix="rb-phase-cpu-"))
    try:
        sides = compare_builds.packages(base, tmp)
        sides = {side: pkg for side, pkg in sides.items() if args.only in (None, side)}
        runs: dict[str, list[dict[str, float]]] = {f"{side} {kind}": [] for side in sides
                                                    for kind in ("clean", "rebuild")}
        for _ in range(args.rounds):
            for side, pkg in sides.items():
                data, out, cache = tmp / "data", tmp / f"site-{side}", tmp / f"cache-{side}"
                shutil.rmtree(data, ignore_errors=True)
                shutil.copytree(args.data, data)
                for folder in (out, cache):
                    shutil.rmtree(folder, ignore_errors=True)
                runs[f"{side} clean"].append(build(pkg, data, out, cache))
                show(f"{side} clean", runs[f"{side} clean"][-1])
                if args.rebuild:
                    change_one_model(data / "trials")
                    runs[f"{side} rebuild"].append(build(pkg, data, out, cache))
                    show(f"{side} rebuild", runs[f"{side} rebuild"][-1])
        print(f"medians of {args.rounds} round(s), CPU seconds (base {base[:10]}, new: the working tree):")
        for label, found in runs.items():
            if found:
                show(f"  {label}", {name: median([r[name] for r in found]) for name in found[0]})
        if args.rebuild:
            for side in sides:
                clean, rebuild = runs[f"{side} clean"], runs[f"{side} rebuild"]
                ratio = median([r["whole build"] / c["whole build"] for c, r in zip(clean, rebuild)])
                print(f"  {side}: one-model rebuild / clean build = {ratio:.2f}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
