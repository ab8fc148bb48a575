"""What the atomic switch costs a rebuild: the writer given a real site with one page
changed, timed two ways on the same files.

* `switch`: what builds do (site/writer.py): the complete new tree beside the old one, each
  unchanged file hard-linked, the changed one written, then one renameat2(RENAME_EXCHANGE)
  and the old tree removed;
* `in place`: what builds did before, for comparison: the changed file staged and renamed
  over its old copy, then one walk for stale files (a reader could see a mix of two builds).

    .venv/bin/python benchmarks/switch.py [--models N] [--rounds R]

The site is built once from `reasonboard demo --models N`; prints its file count and the
median seconds of each way over R rebuilds.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from reasonboard.site.writer import write_site


def in_place(files: dict[str, bytes], out_dir: Path) -> None:
    staging = Path(tempfile.mkdtemp(prefix=".site.new-", dir=out_dir.parent))
    changed = []
    for path, data in files.items():
        target = out_dir / path
        try:
            same = target.stat().st_size == len(data) and target.read_bytes() == data
        except OSError:
            same = False
        if not same:
            (staging / path).parent.mkdir(parents=True, exist_ok=True)
            (staging / path).write_bytes(data)
            changed.append(path)
    for path in changed:
        os.replace(staging / path, out_dir / path)
    for folder, _, names in os.walk(out_dir):  # the stale-file walk
        for name in names:
            rel = os.path.relpath(os.path.join(folder, name), out_dir)
            if rel not in files:
                os.unlink(os.path.join(folder, name))
    shutil.rmtree(staging)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="rb-switch-"))
    cli = [sys.executable, "-c", "from reasonboard.cli import main; main()"]
    subprocess.run([*cli, "demo", "--models", str(args.models), "--out", str(tmp / "data")], check=True,
                   capture_output=True)
    subprocess.run([*cli, "build", "--data", str(tmp / "data"), "--out", str(tmp / "built"), "--cache",
                    str(tmp / "cache"), "--quiet"], check=True, capture_output=True)
    files = {p.relative_to(tmp / "built").as_posix(): p.read_bytes()
             for p in sorted((tmp / "built").rglob("*")) if p.is_file()}
    size = sum(map(len, files.values()))
    page = next(p for p in files if p.startswith("models/"))
    times: dict[str, list[float]] = {"switch": [], "in place": []}
    for way, write in (("switch", lambda f, d: write_site(f, d)), ("in place", in_place)):
        out = tmp / way.replace(" ", "-") / "site"
        out.parent.mkdir()
        write_site(files, out)  # the previous build
        for round_ in range(args.rounds):
            changed = dict(files)
            changed[page] = files[page] + f"<!-- {round_} -->".encode()
            start = time.perf_counter()
            write(changed, out)
            times[way].append(time.perf_counter() - start)
    print(f"{len(files):,} files, {size / 1e6:.1f} MB ({args.models} models); one page changed; "
          f"median of {args.rounds} rebuilds; load {os.getloadavg()[0]:.1f}")
    for way, seconds in times.items():
        print(f"  {way:9s} {statistics.median(seconds):6.3f} s")
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
