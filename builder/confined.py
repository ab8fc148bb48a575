"""Opening a project's files when the project may be someone else's.

A pull request's data or a project downloaded from elsewhere is untrusted input (PRODUCT.md,
"Untrusted checkouts"): `static/notes.txt -> ../.git/config` or `content/x.md -> /etc/passwd`
would otherwise be read and published. Every file of a project is read through `open_confined`,
which accepts only a regular file whose real location is inside the folder it was found in
(`root`: the data, content, templates or static folder), and says which link led where.

The check is made on the opened file descriptor, not on the name before opening it, so a
link swapped in between the check and the read cannot slip through: on Linux the kernel
names the file the descriptor holds (`/proc/self/fd/N`); elsewhere the resolved name must
still be the same file (device and inode) as the one opened. The open itself never blocks
(a FIFO named `points/a.csv` is refused, not waited on) and never takes a terminal.
"""

from __future__ import annotations

import os
import stat
from io import BufferedReader
from pathlib import Path

from .errors import InputError


class NotConfined(InputError):
    """A file that is not a regular file inside its folder: never skipped as a malformed
    input would be (a link planted to read the machine's files is not a broken record)."""


_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
_PROC_FD = Path("/proc/self/fd")


def is_inside(path: str | Path, root: str | Path) -> bool:
    """Whether the real location of `path` is `root`'s real location or below it."""
    real, top = os.path.realpath(path), os.path.realpath(root)
    return real == top or real.startswith(top.rstrip(os.sep) + os.sep)


def open_confined(path: str | Path, root: str | Path | None = None) -> BufferedReader:
    """`path` opened for reading in binary, when it is a regular file inside `root` (default:
    the folder it sits in); otherwise an `InputError` naming the file, and for a link, its
    target."""
    path = Path(path)
    top = os.path.realpath(root if root is not None else path.parent)
    try:
        fd = os.open(path, _FLAGS)
    except FileNotFoundError:
        link = _dangling(path)
        raise (NotConfined(path, link) if link else InputError(path, "file not found")) from None
    except OSError as exc:
        raise InputError(path, f"cannot read the file ({exc.strerror or exc})") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotConfined(path, f"not a regular file ({_kind(info.st_mode)}); only regular files are read")
        real = _real_name(fd, path, info)
        if not (real == top or real.startswith(top.rstrip(os.sep) + os.sep)):
            raise NotConfined(path, outside(path, real, top))
        if _FLAGS & getattr(os, "O_NONBLOCK", 0):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_confined(path: str | Path, root: str | Path | None = None, max_line: int | None = None) -> bytes:
    """The bytes of `path`, opened by `open_confined`; with `max_line`, read in chunks and
    refused at the first line longer than that many bytes, before the rest is held."""
    with open_confined(path, root) as handle:
        try:
            if max_line is None:
                return handle.read()
            return _lines_within(handle, Path(path), max_line)
        except OSError as exc:
            raise InputError(path, f"cannot read the file ({exc.strerror or exc})") from None


def _lines_within(handle: BufferedReader, path: Path, max_line: int) -> bytes:
    """The rest of `handle`, read by 1 MiB; each chunk's line lengths measured with numpy."""
    import numpy as np

    chunks: list[bytes] = []
    run = done = 0  # bytes of the line read so far; lines ended before it

    def too_long(line: int) -> InputError:
        return InputError(path, f"a line longer than {max_line:,} bytes (the limit); is this the right file?",
                          line=line)

    while chunk := handle.read(1 << 20):
        ends = np.flatnonzero(np.frombuffer(chunk, dtype=np.uint8) == 10)
        if ends.size:
            lengths = np.diff(ends, prepend=-1) - 1
            lengths[0] += run
            over = np.flatnonzero(lengths > max_line)
            if over.size:
                raise too_long(done + int(over[0]) + 1)
            done += int(ends.size)
            run = len(chunk) - int(ends[-1]) - 1
        else:
            run += len(chunk)
        if run > max_line:
            raise too_long(done + 1)
        chunks.append(chunk)
    return b"".join(chunks)


def checked_name(path: str | Path, root: str | Path | None = None) -> str:
    """The real name of `path`, once `open_confined` accepts it: for readers that open the
    file themselves (DuckDB's `read_csv` and `read_parquet`), which then follow no link."""
    with open_confined(path, root) as handle:
        return _real_name(handle.fileno(), Path(path), os.fstat(handle.fileno()))


def refuse_linked_folders(root: Path, top: Path) -> None:
    """Folders below `root` are searched without following links (pathlib's `rglob`), so a
    link to a folder is never read through; one whose target leaves `top` is an error naming
    it, not data dropped without a word (a lab's `trials/more -> /mnt/disk/trials`, a pull
    request's `points/x -> /home/runner`)."""
    for folder, names, _ in os.walk(root):
        names.sort()
        for name in names:
            path = Path(folder) / name
            if path.is_symlink() and not is_inside(path, top):
                raise NotConfined(path, outside(path, os.path.realpath(path), os.path.realpath(top),
                                                "replace the link with the folder itself"))


def outside(path: Path, real: str, top: str, fix: str = "replace the link with the file itself") -> str:
    """The problem of a file (or folder) whose real location `real` is not inside `top`,
    with `fix`."""
    try:
        target = os.readlink(path)
        how = f"a symbolic link to {target}"
    except OSError:  # a folder on the way is the link
        how = f"reached through a symbolic link, really {real}"
    return f"{how}, which is outside {top}; only files inside the project are read ({fix})"


def _real_name(fd: int, path: Path, info: os.stat_result) -> str:
    """Where the opened file really is: the kernel's name for the descriptor where it has one,
    else the resolved name, which must still lead to the very file opened."""
    try:
        return os.readlink(_PROC_FD / str(fd))
    except OSError:
        pass
    real = os.path.realpath(path)
    try:
        now = os.stat(real)
    except OSError:
        now = None
    if now is None or (now.st_dev, now.st_ino) != (info.st_dev, info.st_ino):
        raise InputError(path, "the file changed while it was opened; build again")
    return real


def _dangling(path: Path) -> str | None:
    try:
        return f"a symbolic link to {os.readlink(path)}, which does not exist"
    except OSError:
        return None


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a named pipe"), (stat.S_ISCHR, "a device"),
                       (stat.S_ISBLK, "a device"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a plain file"
