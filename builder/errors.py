"""The one error type a user ever sees from a build.

Bad input must stop the build before anything is written, with a message that names
the file, the row and the problem (PRODUCT.md, "Bad input"). Every reader raises
`InputError` with those three parts, and the CLI prints it without a traceback.
"""

from __future__ import annotations

from pathlib import Path


class InputError(Exception):
    """An input file is unusable. `row` is 1-based (a data row, a line or a JSON index)."""

    def __init__(self, path: str | Path | None, problem: str, row: int | str | None = None):
        self.path = str(path) if path is not None else None
        self.row = row
        self.problem = problem
        super().__init__(self.message)

    @property
    def message(self) -> str:
        where = self.path or "<input>"
        if self.row is not None:
            where += f", row {self.row}"
        return f"{where}: {self.problem}"
