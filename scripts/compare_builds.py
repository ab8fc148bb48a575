"""Byte-identity check for refactors: build the same sites with a base revision's code and with
the working tree's code, and compare them file by file.

    python scripts/compare_builds.py [--base REV] [--eee PATH] [--models 2000] [--skip-large]

Two sites are built by each side, in temporary directories:

(a) the default site (`data/` and `content/` of the working tree), and
(b) a `reasonboard demo --models N` data set (made once, by the base code) plus the full Every
    Eval Ever corpus (`--eee`, default `../shared/data/eee-2026-02` beside the repository) as
    its `eee/` and the benchmark cards of `data/cards`.

The base revision (default: the merge-base with `main`) is unpacked with `git archive` and laid
out as an importable `reasonboard` package (builder/ plus templates/ and content/, the mapping
pyproject.toml makes), so no install is needed; the working tree is laid out the same way, and
each build runs in its own process with that package first on `sys.path`.

Files are compared by name and bytes; content-hashed asset names (`assets/style-<hash>.css`)
are paired by stem, so an asset whose bytes are equal pairs whatever its name. The one allowed
difference is the neighbour win-rate table on model pages that had none: such a page
passes when removing that table from the new page gives the old page byte for byte. Exit 0
when the sites are identical apart from that, 1 otherwise.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUN = """
import sys
root = sys.argv[1]
sys.path.insert(0, root)
import reasonboard
assert reasonboard.__file__.startswith(root), reasonboard.__file__
from reasonboard.cli import main
main(sys.argv[2:], prog_name="reasonboard")
"""
HASHED = re.compile(r"^(assets/[\w.]+?)-[0-9a-f]{8,}\.(\w+)$")
NEIGHBOURS = re.compile(rb'\n<div class="table-wrap" role="region" aria-labelledby="neighbours-caption".*?</div>',
                        re.S)


def layout(tree: Path, dest: Path) -> Path:
    """`dest/reasonboard`: the package as pyproject.toml maps it (builder/ + templates/ + content/)."""
    pkg = dest / "reasonboard"
    shutil.copytree(tree / "builder", pkg, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(tree / "templates", pkg / "templates", dirs_exist_ok=True)
    shutil.copytree(tree / "content", pkg / "content", dirs_exist_ok=True)
    return dest


def unpack(rev: str, dest: Path) -> Path:
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", rev,
                              "builder", "templates", "content"], check=True, capture_output=True).stdout
    tar_path = dest / "base.tar"
    tar_path.write_bytes(archive)
    tree = dest / "tree"
    with tarfile.open(tar_path) as tar:
        tar.extractall(tree, filter="data")
    return tree


def base_revision(given: str | None) -> str:
    """The revision to compare with: the one given, else the merge-base with main."""
    return given or subprocess.run(["git", "-C", str(ROOT), "merge-base", "HEAD", "main"], check=True,
                                   capture_output=True, text=True).stdout.strip()


def packages(base: str, tmp: Path, names: tuple[str, str] = ("base", "new")) -> dict[str, Path]:
    """The two packages a comparison runs, laid out under `tmp`: revision `base` and this work
    tree, keyed by `names`."""
    old, new = names
    return {old: layout(unpack(base, tmp), tmp / f"{old}-pkg"), new: layout(ROOT, tmp / f"{new}-pkg")}


def reasonboard(pkg_root: Path, *args: str, cwd: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run([sys.executable, "-c", RUN, str(pkg_root), *args], cwd=cwd, env=env,
                          capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"reasonboard {' '.join(args)} failed (in {pkg_root}):\n{proc.stdout}{proc.stderr}")


def files_of(site: Path) -> dict[str, bytes]:
    out = {}
    for path in sorted(site.rglob("*")):
        if path.is_file():
            out[path.relative_to(site).as_posix()] = path.read_bytes()
    return out


def paired(files: dict[str, bytes]) -> dict[str, bytes]:
    """Hashed asset names replaced by their stem (`assets/style-#.css`)."""
    return {(f"{m.group(1)}-#.{m.group(2)}" if (m := HASHED.match(k)) else k): v for k, v in files.items()}


def compare(old_site: Path, new_site: Path, label: str) -> list[str]:
    old, new = paired(files_of(old_site)), paired(files_of(new_site))
    problems = []
    added = 0
    for name in sorted(old.keys() | new.keys()):
        if name not in new:
            problems.append(f"{label}: missing in new: {name}")
        elif name not in old:
            problems.append(f"{label}: only in new: {name}")
        elif old[name] != new[name]:
            if name.startswith("models/") and NEIGHBOURS.sub(b"", new[name], count=1) == old[name] \
                    and not NEIGHBOURS.search(old[name]):
                added += 1  # the neighbour table that now appears on every ranked model's page
                continue
            problems.append(f"{label}: differs: {name} ({hashlib.sha256(old[name]).hexdigest()[:10]} → "
                            f"{hashlib.sha256(new[name]).hexdigest()[:10]})")
    print(f"{label}: {len(old)} files before, {len(new)} after, {len(problems)} differing, "
          f"{added} model pages gained their neighbour table", flush=True)
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", default=None, help="base revision (default: merge-base with main)")
    parser.add_argument("--eee", type=Path, default=ROOT.parent / "shared" / "data" / "eee-2026-02")
    parser.add_argument("--models", type=int, default=2000)
    parser.add_argument("--skip-large", action="store_true", help="compare the default site only")
    parser.add_argument("--keep", type=Path, default=None, help="keep the builds in this directory")
    args = parser.parse_args()
    base = base_revision(args.base)
    if not args.skip_large and not args.eee.is_dir():
        sys.exit(f"{args.eee}: EEE corpus not found (give --eee PATH, or --skip-large)")
    tmp = Path(tempfile.mkdtemp(prefix="rb-identity-"))
    try:
        sides = packages(base, tmp, ("old", "new"))
        data = ROOT / "data"
        problems = []
        for side, pkg in sides.items():
            reasonboard(pkg, "build", "--quiet", "--data", str(data), "--content", str(ROOT / "content"),
                        "--out", str(tmp / side / "default"), "--cache", str(tmp / side / "cache-default"),
                        cwd=tmp)
        problems += compare(tmp / "old" / "default", tmp / "new" / "default", "default")
        if not args.skip_large:
            large = tmp / "large-data"
            reasonboard(sides["old"], "demo", "--models", str(args.models), "--out", str(large), cwd=tmp)
            shutil.copytree(args.eee, large / "eee")  # a copy: a build reads no link out of the project
            shutil.copytree(data / "cards", large / "cards")
            for side, pkg in sides.items():
                reasonboard(pkg, "build", "--quiet", "--data", str(large), "--content", str(ROOT / "content"),
                            "--out", str(tmp / side / "large"), "--cache", str(tmp / side / "cache-large"),
                            cwd=tmp)
            problems += compare(tmp / "old" / "large", tmp / "new" / "large", f"{args.models} models + EEE")
        for line in problems:
            print(line)
        print(f"base {base[:12]}: {'IDENTICAL' if not problems else 'DIFFERENT'}"
              f" ({len(problems)} differing files)")
        return 1 if problems else 0
    finally:
        if args.keep:
            shutil.copytree(tmp, args.keep, dirs_exist_ok=True, symlinks=True)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
