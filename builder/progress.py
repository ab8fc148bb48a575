"""A progress bar on stderr that appears only when it is worth it.

Short commands (and tests, and pipes) show nothing: the bar is drawn only when stderr is
a terminal and the work has already taken more than `DELAY` seconds. Lines printed
meanwhile go to stdout, clearing the bar first so the two never interleave.
"""

from __future__ import annotations

import shutil
import sys
import time
from pathlib import Path
from typing import TextIO

import click

DELAY = 1.0
WIDTH = 30


class DelayedBar:
    def __init__(self, label: str, stream: TextIO | None = None) -> None:
        self.label = label
        self.stream = stream or sys.stderr
        self.start = time.monotonic()
        self.shown = False
        self.enabled = bool(getattr(self.stream, "isatty", lambda: False)())

    def update(self, done: int, total: int, current: Path) -> None:
        if not self.enabled or total <= 0 or time.monotonic() - self.start < DELAY:
            return
        filled = WIDTH * done // total
        name = current.name
        room = max(10, shutil.get_terminal_size((80, 20)).columns - WIDTH - len(self.label) - 20)
        text = f"\r{self.label} [{'#' * filled}{'-' * (WIDTH - filled)}] {done}/{total} {name[:room]}"
        self.stream.write(text + "\x1b[K")
        self.stream.flush()
        self.shown = True

    def echo(self, line: str) -> None:
        self._clear()
        click.echo(line)

    def close(self) -> None:
        self._clear()

    def _clear(self) -> None:
        if self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.shown = False
