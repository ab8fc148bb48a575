"""A small lab project for the untrusted-checkout tests: made with `reasonboard init` and
`write_lab_data`, built through the CLI as a user (or a CI job) would build it."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from click.testing import CliRunner
from helpers_points import write_lab_data
from reasonboard.cli import main

REPO = Path(__file__).resolve().parent.parent
REPO_CARDS = REPO / "data" / "cards"


def make_lab(lab: Path) -> Path:
    """`init`, the lab data and one real card."""
    assert CliRunner().invoke(main, ["init", str(lab)]).exit_code == 0
    write_lab_data(lab / "data")
    shutil.copy(next(REPO_CARDS.glob("*.json")), lab / "data" / "cards")
    return lab


def cli(*argv: str):
    return CliRunner().invoke(main, list(argv))


def cli_ok(*argv: str) -> list[str]:
    """Run the command, which must succeed; its output's lines."""
    result = cli(*argv)
    assert result.exit_code == 0, result.output
    return list(result.output.splitlines())


def build(project: Path, cache: Path, *extra: str):
    return cli("build", "--project", str(project), "--cache", str(cache), "--quiet", *extra)


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def copy_lab(lab: Path, to: Path) -> Path:
    shutil.copytree(lab, to, symlinks=True)
    return to


def error_line(result) -> str:
    """The build's one-line error (the CLI adds a line saying nothing was written)."""
    assert result.exit_code != 0, result.output
    assert "Traceback" not in result.output
    line = result.output.strip().splitlines()[0]
    assert line.startswith("error: "), result.output
    return line


def mirror(source: Path, target: Path) -> Path:
    """`source` as a folder of its own at `target`: hard links where the file system allows
    (instant, no space), copies elsewhere. A symbolic link to it would be refused, as a link
    out of the project is (confined.py)."""
    def link_or_copy(src: str, dst: str) -> None:
        try:
            os.link(src, dst)
        except OSError:
            shutil.copy2(src, dst)

    shutil.copytree(source, target, copy_function=link_or_copy)
    return target


def built_lab(root: Path) -> tuple[Path, Path]:
    """A lab project made and built once under `root`, and its cache folder: what a module's
    tests copy (`lab_copy`) and then attack."""
    lab, cache = make_lab(root / "lab"), root / "cache"
    result = build(lab, cache)
    assert result.exit_code == 0, result.output
    return lab, cache


def lab_copy(built: tuple[Path, Path], to: Path) -> tuple[Path, Path, dict[str, bytes]]:
    """A copy of a built lab for one test, its cache, and its site as built."""
    project = copy_lab(built[0], to)
    return project, built[1], snapshot(project / "site")
