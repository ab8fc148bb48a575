"""What paired comparisons cost a build (SAMPLES.md section 5).

    python benchmarks/bench_paired.py [--models 2000] [--data DIR] [--keep DIR]

Builds the demo's data with per-sample trials (`reasonboard demo --models N`: about 2,500
evaluations at N = 2000), once, in a fresh process, and reads the build's own phase timings:
the "paired comparisons" phase (every ranked model's neighbours, the board's adjacent pairs,
the top `pairwise_top` matrix, each task page's adjacent rows) against everything else the
build does. Prints the pairs tested and the share of the build without pairing that the
pairing costs (the target: at most 25 %).
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=int, default=2000)
    parser.add_argument("--data", type=Path, help="an existing demo data directory (skips `reasonboard demo`)")
    parser.add_argument("--keep", type=Path, help="build here and keep the site")
    args = parser.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="bench-paired-"))
    data = args.data or work / "data"
    cli = [sys.executable, "-c", "from reasonboard.cli import main; main()"]
    if args.data is None:
        subprocess.run([*cli, "demo", "--models", str(args.models), "--out", str(data), "--force"], check=True)
    start = time.perf_counter()
    done = subprocess.run([*cli, "build", "--data", str(data), "--out", str(work / "site"), "--cache", str(work / "cache")],
                          check=True, capture_output=True, text=True)
    wall = time.perf_counter() - start
    phases = {name: float(sec) for name, sec in re.findall(r"([a-z][a-z ]+) ([0-9.]+)s", done.stdout.split("phases:")[1])}
    paired = phases.get("paired comparisons", 0.0)
    total = sum(phases.values())
    doc = json.loads((work / "site" / "data" / "pairwise.json").read_text(encoding="utf-8")).get("paired", {})
    tested = {k: len(v) for k, v in doc.items() if isinstance(v, (list, dict))}
    print(done.stdout.strip())
    print(f"wall {wall:.1f} s; phases {total:.1f} s; paired comparisons {paired:.1f} s; "
          f"the build without them {total - paired:.1f} s; pairing costs {100 * paired / max(total - paired, 1e-9):.0f} % "
          f"of it (target <= 25 %)")
    print(f"paired entries: {tested}")


if __name__ == "__main__":
    main()
