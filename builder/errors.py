"""The one error type a user ever sees from a build.

Bad input must stop the build before anything is written, with a message that names
the file, the line and the problem (PRODUCT.md, "Bad input"). Every reader raises
`InputError` with those three parts, and the CLI prints it without a traceback.
"""

from __future__ import annotations

import difflib
import json
from pathlib import Path
from typing import Any, Iterable

from .names import printable


class InputError(Exception):
    """An input file is unusable.

    `line` is the line number as an editor shows it (the header of a CSV file is line 1,
    its first data row line 2). `row` is for inputs without lines a user can open in an
    editor (a Parquet row, a JSON list index), and is shown only when there is no `line`.
    """

    def __init__(self, path: str | Path | None, problem: str, row: int | str | None = None,
                 line: int | None = None):
        self.path = str(path) if path is not None else None
        self.row = row
        self.line = line
        self.problem = problem
        super().__init__(self.message)

    def __reduce__(self) -> tuple[type, tuple[object, ...], dict[str, object]]:
        # Rebuilt from its parts (and its notes) when it crosses a pipe from a forked
        # render worker (site/workers.py); the default would call __init__ with the message alone.
        return (type(self), (self.path, self.problem, self.row, self.line), self.__dict__)

    @property
    def message(self) -> str:
        where = self.path or "<input>"
        if self.line is not None:
            where += f", line {self.line}"
        elif self.row is not None:
            where += f", row {self.row}"
        return printable(f"{where}: {self.problem}")


def did_you_mean(seen: str, known: Iterable[str]) -> str:
    """` (did you mean 'model'?)` for a name close to a known one (a typo), else ``."""
    close = difflib.get_close_matches(seen, list(known), n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""


def shortened(text: str) -> str:
    """A value quoted in a message, cut to 60 characters (a file may hold megabytes in a cell)."""
    return text if len(text) <= 60 else text[:57] + "..."


def shown(value: Any) -> str:
    """A value as the file spells it, for "got ..." in a message: `"5000", a string`."""
    kind = {str: "a string", bool: "true/false", int: "an integer", float: "a number", list: "a list",
            dict: "a table"}.get(type(value), type(value).__name__)
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return f"{shortened(text)}, {kind}"
