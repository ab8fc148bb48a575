"""The format registry of `reasonboard ingest`: which reader reads which input (INGEST.md section 6).

Formats are recognised by content, not by name: each reader module exposes
`detect(path) -> bool` and `read(path, options) -> Iterator[Run]`, and the first reader
(in `FORMATS` order) whose `detect` accepts a path reads it. Directories are walked in
sorted order; a directory that a reader accepts as a whole (a HELM run directory) is one
input and is not walked further. Inputs come out in sorted path order, the order in
which a later copy of a trial replaces an earlier one.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Iterator

from ...confined import is_inside
from . import eee, helm, inspect, lighteval, lmeval

#: (format name, reader module), in the order their `detect` is asked.
FORMATS: tuple[tuple[str, ModuleType], ...] = (
    ("inspect", inspect),
    ("helm", helm),
    ("lm-eval", lmeval),
    ("lighteval", lighteval),
    ("eee", eee),
)


@dataclass(frozen=True)
class Input:
    """One input: a file or a directory, and the format that reads it."""

    path: Path
    format: str
    reader: ModuleType


@dataclass(frozen=True)
class Ignored:
    """A file met while walking that no reader accepts, and why it is not an input."""

    path: Path
    reason: str


def detect(path: Path) -> tuple[str, ModuleType] | None:
    """The (format, reader) that accepts `path`, or None."""
    for name, module in FORMATS:
        if module.detect(path):
            return name, module
    return None


def discover(paths: list[Path]) -> tuple[list[Input], list[Ignored]]:
    """Every input under `paths` (files as given, directories walked), in sorted path order,
    and the files found that are not inputs. A path that does not exist is ignored with
    that reason."""
    inputs: dict[Path, Input] = {}
    ignored: dict[Path, Ignored] = {}
    for path in paths:
        if not path.exists():
            ignored[path] = Ignored(path, "no such file or directory")
            continue
        for item in _walk(path, path if path.is_dir() else path.parent, set()):
            if isinstance(item, Input):
                inputs.setdefault(item.path, item)
            else:
                ignored.setdefault(item.path, item)
    ordered = sorted(inputs.values(), key=lambda i: i.path.as_posix())
    return ordered, sorted(ignored.values(), key=lambda i: i.path.as_posix())


def _walk(path: Path, root: Path, seen: set[str]) -> Iterator[Input | Ignored]:
    """The inputs under `path`; a link found in a walked folder is followed only when its
    target stays inside `root`, the folder the user named (confined.py), and a folder is
    walked once (`seen`: real names), so a link to a parent is no endless walk."""
    if path.is_symlink() and path != root and not is_inside(path, root):
        yield Ignored(path, f"a symbolic link to {os.readlink(path)}, outside {root}: not followed")
        return
    found = detect(path)
    if found is not None:
        yield Input(path, found[0], found[1])
        return
    if path.is_dir():
        if os.path.realpath(path) in seen:
            return
        seen.add(os.path.realpath(path))
        try:
            children = sorted(os.scandir(path), key=lambda e: e.name)
        except OSError as exc:
            yield Ignored(path, f"cannot list directory ({exc.strerror})")
            return
        for child in children:
            if child.name.startswith("."):
                continue
            yield from _walk(Path(child.path), root, seen)
        return
    yield Ignored(path, _why_not(path))


def _why_not(path: Path) -> str:
    """A short reason a file is not an input, for the summary."""
    if eee.is_aggregate(path):
        return "EEE aggregate record (read with the instance-level file it describes)"
    if lmeval_results(path):
        return "harness results file (read with its per-sample files)"
    return "not a per-sample harness output"


def lmeval_results(path: Path) -> bool:
    return path.name.startswith("results") and path.suffix.lower() == ".json"
