"""Page throughput of a base revision's code against the working tree's, on one fixture.

    python benchmarks/compare_throughput.py [--base REV] [--eee PATH] [--models 2000] [--rounds 5]

The figure `benchmarks/run.py` prints as "page throughput ours" (page model plus templates,
every HTML page, from the same `BuildResults`), measured for both sides in alternating fresh
processes, so the machine's drift (it changes by a tenth within minutes here) falls on both
alike. Each side's code is laid out as `scripts/compare_builds.py` does it, and each side
renders the results its own build made, in one process (`REASONBOARD_WORKERS=1`,
unless the environment sets it). Prints each run and the medians.
"""

from __future__ import annotations

import argparse
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
from run import DUMP_SNIPPET, OURS_SNIPPET, median  # noqa: E402


def child(pkg: Path, snippet: str, *args: object) -> str:
    # One render process unless told otherwise: this compares the code's speed per core (the
    # default uses every core, and the base revision may not).
    workers = os.environ.get("REASONBOARD_WORKERS", "1")
    # Both names: a base revision from before the rename reads the earlier one.
    env = {**os.environ, "PYTHONPATH": str(pkg), "REASONBOARD_WORKERS": workers,
           "REASONBOARD_RENDER_WORKERS": workers}
    proc = subprocess.run([sys.executable, "-c", snippet, *map(str, args)], cwd=ROOT, env=env,
                          capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"benchmark step failed ({pkg}):\n{proc.stderr}")
    return proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", default=None)
    parser.add_argument("--eee", type=Path, default=ROOT.parent / "shared" / "data" / "eee-2026-02")
    parser.add_argument("--models", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    import json

    base = compare_builds.base_revision(args.base)
    tmp = Path(tempfile.mkdtemp(prefix="rb-throughput-"))
    try:
        sides = compare_builds.packages(base, tmp)
        data = tmp / "data"
        compare_builds.reasonboard(sides["base"], "demo", "--models", str(args.models), "--out", str(data), cwd=tmp)
        shutil.copytree(args.eee, data / "eee", copy_function=os.link)  # hard links: a symbolic link is refused
        shutil.copytree(ROOT / "data" / "cards", data / "cards")
        dumps = {}
        for side, pkg in sides.items():
            dumps[side] = tmp / f"{side}.pickle"
            child(pkg, DUMP_SNIPPET, data, tmp / f"{side}-site", tmp / f"{side}-cache", dumps[side])
        runs: dict[str, list[float]] = {side: [] for side in sides}
        pages = {}
        for _ in range(args.rounds):
            for side, pkg in sides.items():
                result = json.loads(child(pkg, OURS_SNIPPET, dumps[side], tmp / f"{side}-cache"))
                runs[side].append(result["seconds"])
                pages[side] = result["pages"]
        for side in sides:
            rate = pages[side] / median(runs[side])
            print(f"{side} ({base[:12] if side == 'base' else 'working tree'}): "
                  + ", ".join(f"{s:.2f}" for s in runs[side])
                  + f" s for {pages[side]} pages; median {rate:.1f} pages/s")
        ratio = (pages["new"] / median(runs["new"])) / (pages["base"] / median(runs["base"]))
        print(f"new / base: {ratio:.3f}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
