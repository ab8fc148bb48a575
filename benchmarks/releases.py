"""What releases cost a build: 50 releases of about 2,500 evaluations.

    python benchmarks/releases.py [--models 2000] [--releases 50] [--rounds 2] [--work DIR]

Fixture: `reasonboard demo --models N` points beside the full Every Eval Ever corpus and the
16 cards (as `benchmarks/run.py`), built once. Its data files are then released
`--releases` times, each release a different board: a few evaluations regraded (their
scores and intervals moved), one joined and one left, the way a leaderboard changes month
to month. The snapshots are written by the release command's own code
(`release.snapshot_files`), without building the site fifty times (`make_releases` says
what the later ones share with the first).

Measured, each build clean (empty cache, empty output) in a fresh process, the two kinds
alternating `--rounds` times (this machine's speed drifts):

* build time without releases and with them (target: at most 20 % more), as wall time and
  as the CPU time of the build and its workers (the figure to trust on a shared machine);
* site bytes added by the releases, raw and gzip-compressed, against the snapshots' own
  bytes (gzip files; target: the site grows by no more than the snapshots' size);
* the largest file of the site and of the snapshots (target: under 100 MB);
* the time `reasonboard release` spends writing a snapshot (the first, with no previous
  release to compare with).
"""

from __future__ import annotations

import argparse
import gzip
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from run import DEFAULT_CARDS, DEFAULT_EEE, make_fixture, median  # noqa: E402

BUILD = """
import sys, time
from pathlib import Path
from reasonboard.build import BuildOptions, run_build
project, data, out, cache = map(Path, sys.argv[1:5])
start = time.perf_counter()
run_build(BuildOptions(project=project, data_dir=data, out_dir=out, cache_dir=cache))
print(time.perf_counter() - start)
"""


def build(project: Path, data: Path, out: Path, cache: Path) -> tuple[float, float]:
    """Wall seconds and CPU seconds of one clean build in a fresh process.

    The CPU seconds are the build process's own (DuckDB's threads included) and its render
    workers', read from the children's resource usage: on a machine shared with other work,
    wall time measures the neighbours too."""
    shutil.rmtree(out, ignore_errors=True)
    shutil.rmtree(cache, ignore_errors=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run([sys.executable, "-c", BUILD, str(project), str(data), str(out), str(cache)], cwd=ROOT,
                          capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"build failed:\n{done.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return float(done.stdout.strip().splitlines()[-1]), cpu


def files_of(folder: Path) -> dict[str, int]:
    return {p.relative_to(folder).as_posix(): p.stat().st_size for p in folder.rglob("*") if p.is_file()}


def gzip_size(folder: Path, names: list[str]) -> int:
    return sum(len(gzip.compress((folder / n).read_bytes(), 6, mtime=0)) for n in names)


def vary(board: dict[str, Any], k: int) -> dict[str, Any]:
    """Release k's board: evaluations k*7.. regraded by a few points, one left, one joined
    (a copy of another under a new id), ranks as they were (the pages only show them)."""
    models = [dict(m) for m in board["models"]]
    n = len(models)
    for j in range(5):
        i = (k * 7 + j * 131) % n
        rs = dict(models[i]["reasonscore"])
        if rs.get("center") is not None:
            shift = 3.0 * ((k + j) % 5 - 2)
            rs = {key: round(value + shift, 3) if key != "margin" else value for key, value in rs.items()}
            models[i]["reasonscore"] = rs
    if k > 0:
        del models[(k * 13) % n]
        joined = dict(models[(k * 17) % len(models)])
        joined["id"], joined["slug"], joined["label"] = f"joined-{k}|t|s", f"joined-{k}", f"Joined {k}"
        models.append(joined)
    return {**board, "models": models}


def make_releases(site: Path, project: Path, count: int) -> float:
    """`count` snapshots in `project/releases/` from the build in `site`; seconds the first
    took to write (the release command's own work, comparison included).

    The first snapshot is written whole by `release.snapshot_files`. The data files of the
    others are the first's bytes (the build never reads them; their size is what counts
    here), and their board and changes are made from their own boards (the changes without
    the signals, which do not differ between these releases): comparing two signals files
    of this size takes seconds, and fifty of them would take minutes more."""
    from reasonboard.diff.releasenotes import release_changes
    from reasonboard.outputs import dump_json
    from reasonboard.release import snapshot_files, write_new
    from reasonboard.sources.releases import BOARD, CHANGES, MANIFEST, board_document, compress, read_release

    data = site / "data"
    documents = {n: json.loads((data / n).read_text(encoding="utf-8"))
                 for n in ("leaderboard.json", "signals.json", "pairwise.json")}
    first = None
    previous: dict[str, Any] | None = None
    seconds = 0.0
    for k in range(count):
        name, date = f"r{k + 1:03d}", f"2026-{1 + k // 28:02d}-{1 + k % 28:02d}"
        board = vary(documents["leaderboard.json"], k)
        start = time.perf_counter()
        if first is None:
            files = snapshot_files(name, date, {**documents, "leaderboard.json": board}, None, project, True, {})
            seconds = time.perf_counter() - start
            first = files
        else:
            files = {n: b for n, b in first.items() if n.endswith(".json.gz") and n != BOARD}
            files[BOARD] = compress(dump_json(board_document(board)))
            files[CHANGES] = dump_json(release_changes(previous, board, None, None, f"r{k:03d}", "2026-01-01"))
            manifest = json.loads(first[MANIFEST])
            manifest.update(name=name, date=date, previous=f"r{k:03d}")
            files[MANIFEST] = (json.dumps(manifest, indent=1, sort_keys=True) + "\n").encode("utf-8")
        write_new(project / "releases" / name, files)
        read_release(project / "releases" / name)  # as a build reads it
        previous = board
        print(f"  release {name}: {time.perf_counter() - start:.1f} s", file=sys.stderr)
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", type=int, default=2000)
    parser.add_argument("--releases", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--work", type=Path, default=None)
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="rb-releases-"))
    data, bare, released = work / "data", work / "bare", work / "released"
    if not (data / "evals.json").is_file():
        make_fixture(data, args.models, DEFAULT_EEE, DEFAULT_CARDS)
    bare.mkdir(parents=True, exist_ok=True)
    released.mkdir(parents=True, exist_ok=True)
    site, cache = work / "site", work / "cache"
    build(bare, data, site, cache)
    if not (released / "releases").is_dir():
        print(f"writing {args.releases} releases ...", file=sys.stderr)
        per_release = make_releases(site, released, args.releases)
        print(f"the first snapshot written in {per_release:.1f} s")
    without, with_ = [], []
    for _ in range(args.rounds):
        without.append(build(bare, data, work / "site-bare", work / "cache-bare"))
        with_.append(build(released, data, work / "site-released", work / "cache-released"))
        print(f"  build without releases {without[-1][0]:.2f} s ({without[-1][1]:.2f} CPU s), "
              f"with {with_[-1][0]:.2f} s ({with_[-1][1]:.2f} CPU s)", file=sys.stderr)
    for kind, index in (("wall", 0), ("CPU", 1)):
        a, b = median([w[index] for w in without]), median([w[index] for w in with_])
        print(f"build {kind} time, median of {args.rounds}: without releases {a:.2f} s, with {args.releases} "
              f"releases {b:.2f} s (+{100 * (b / a - 1):.1f} %; target at most +20 %)")

    bare_files, rel_files = files_of(work / "site-bare"), files_of(work / "site-released")
    added = [n for n in rel_files if n not in bare_files]
    grown = sum(rel_files.values()) - sum(bare_files.values())
    snapshots = files_of(released / "releases")
    snap_bytes = sum(snapshots.values())
    print(f"site: {sum(bare_files.values()):,} bytes without releases, {sum(rel_files.values()):,} with "
          f"(+{grown:,} bytes; {len(added)} files added, {gzip_size(work / 'site-released', added):,} bytes of them "
          f"gzip-compressed)")
    print(f"snapshots: {snap_bytes:,} bytes in {len(snapshots)} files (already compressed); the site grows by "
          f"{grown / snap_bytes:.2f} of that (target at most 1)")
    big_site = max(rel_files.items(), key=lambda kv: kv[1])
    big_snap = max(snapshots.items(), key=lambda kv: kv[1])
    print(f"largest files: site {big_site[0]} {big_site[1]:,} bytes; snapshots {big_snap[0]} {big_snap[1]:,} bytes "
          "(target: under 100 MB)")
    if args.work is None:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
