"""`reasonboard init DIR`: write a new leaderboard project (PRODUCT.md "A leaderboard project").

After `mkdocs new` and `hugo new site`: the files come from the package (`scaffold/`), so
the command works the same from a wheel as from a checkout. Names that must start with a
dot are stored with a `dot-` prefix (`dot-github/workflows/pages.yml` becomes
`.github/workflows/pages.yml`): a wheel carries them like any other file and no tool
treats them as hidden. `requirements.txt` is made here, pinned to the installed version,
so a project's CI builds with exactly the tool its author used.

A non-empty directory is refused unless `force`; even then a file that exists is never
overwritten (the caller is told which were kept). Each file is written to a temporary
name and renamed into place, so an interrupted `init` leaves no half-written file.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from . import __version__
from .resources import SCAFFOLD_DIR

#: Stored-name prefix that becomes a leading dot in the project.
DOT = "dot-"


class ProjectExists(Exception):
    """The target directory is not empty and `--force` was not given."""


@dataclass(frozen=True)
class Scaffolded:
    written: tuple[Path, ...]
    kept: tuple[Path, ...]


def requirement() -> str:
    """The one line that pins the tool: this very version."""
    return f"reasonboard=={__version__}"


def requirements_txt() -> str:
    return (
        "# The reasonboard version this leaderboard is built with: the Pages workflow and both\n"
        "# sides of a pull request's score-change report install exactly this line.\n"
        "# Upgrade on purpose (change it, run `reasonboard build`, commit both).\n"
        "# Before reasonboard is on the package index, pin a tagged release of its repository:\n"
        "#   reasonboard @ git+https://github.com/<owner>/reasonboard@v<version>\n"
        f"{requirement()}\n"
    )


def scaffold_files() -> dict[str, bytes]:
    """Project path -> bytes of every file `init` writes."""
    files: dict[str, bytes] = {}
    for source in sorted(SCAFFOLD_DIR.rglob("*")):
        if not source.is_file() or "__pycache__" in source.parts:
            continue
        parts = source.relative_to(SCAFFOLD_DIR).parts
        target = "/".join("." + p[len(DOT):] if p.startswith(DOT) else p for p in parts)
        files[target] = source.read_bytes()
    files["requirements.txt"] = requirements_txt().encode("utf-8")
    return files


def scaffold(directory: Path, force: bool = False) -> Scaffolded:
    """Write the project files into `directory`; existing files are kept untouched."""
    directory = Path(directory)
    if directory.exists() and not directory.is_dir():
        raise ProjectExists(f"{directory} exists and is not a directory")
    if directory.is_dir() and any(directory.iterdir()) and not force:
        raise ProjectExists(f"{directory} is not empty; use --force to add the project files that are missing "
                            "(existing files are never overwritten)")
    written, kept = [], []
    for rel, data in scaffold_files().items():
        target = directory / rel
        if target.exists() or target.is_symlink():
            kept.append(target)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(f".{target.name}.tmp-{os.getpid()}")
        tmp.write_bytes(data)
        try:
            os.link(tmp, target)  # fails if the file appeared meanwhile: still never overwrite
        except FileExistsError:
            kept.append(target)
            continue
        except OSError:  # a file system without hard links
            if target.exists():
                kept.append(target)
                continue
            os.replace(tmp, target)
        finally:
            tmp.unlink(missing_ok=True)
        written.append(target)
    return Scaffolded(tuple(written), tuple(kept))
