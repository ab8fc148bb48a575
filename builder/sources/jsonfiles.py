"""Reading a folder of JSON documents leniently: what is shared by the EEE and card readers.

Reported results and cards come from other people's pipelines, so a broken file must not
stop the build (EVALCARDS.md section 1): each unreadable or invalid file becomes a
(path, reason) problem and the rest are read.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

from ..confined import NotConfined
from ..errors import InputError
from .limits import load_json
from .text import read_text


def relative(path: Path, base: Path) -> str:
    """`path` relative to `base` in POSIX form, or as given when it is not below it."""
    try:
        return path.relative_to(base).as_posix()
    except ValueError:
        return path.as_posix()


def discover(root: Path, recursive: bool) -> list[Path]:
    """`*.json` files in `root` (below it when `recursive`), sorted; directories whose
    name ends in `.json` are not documents (the real EEE corpus has a few)."""
    if not root.is_dir():
        return []
    found = root.rglob("*.json") if recursive else root.glob("*.json")
    return sorted(p for p in found if p.is_file())


def read_documents(paths: list[Path], base: Path, problems: list[tuple[str, str]]) -> Iterator[tuple[Path, str, Any]]:
    """Yield (path, relative path, parsed document) for each readable JSON file; append
    (relative path, reason) to `problems` for each one that is not."""
    for path in paths:
        rel = relative(path, base)
        try:
            document = load_json(read_text(path, base), path, nan_ok=True)  # a NaN score: its row is dropped
        except NotConfined:
            raise
        except InputError as exc:  # not UTF-8, or unreadable: the same rule as every input
            where = f"line {exc.line}: " if exc.line is not None else ""
            problems.append((rel, where + exc.problem))
            continue
        except json.JSONDecodeError as exc:
            problems.append((rel, f"not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"))
            continue
        yield path, rel, document
