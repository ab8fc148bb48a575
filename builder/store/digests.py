"""Content digests of the input files, remembered by what `stat` says of each file (after
git's index): a weekly build would otherwise read a hundred megabytes of unchanged files
only to learn that they are unchanged.

A recorded digest is reused while the file's size, modification time, change time and
inode are the ones recorded beside it. On Linux and other POSIX systems every write to a
file moves its change time, which no tool can set back (`touch` and `rsync -t` set the
modification time only), so an edit is never missed, even one that keeps the size and
restores the modification time. (On Windows the "change time" is the creation time: there
an edit that keeps both the size and the modification time would be missed.) The one
race left, a write in the same tick of the file system's clock as the read that recorded
the digest, is closed by recording only files whose times were already `SETTLED_NS` old
when they were read (git calls the others "racily clean" and hashes them again).
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path

from ..atomic import write_atomically

#: How old a file's times must be before its digest is remembered: more than the coarsest
#: clock tick of a common file system (FAT's two seconds).
SETTLED_NS = 3_000_000_000
#: The memo's format; another version is ignored (every file is read again).
VERSION = 1

Stat = tuple[int, int, int, int]


def _stat_of(path: "Path | os.DirEntry[str]") -> Stat:
    """What the memo compares, always from `os.stat` (a directory entry's own stat has no
    inode on Windows, and is cached)."""
    st = os.stat(path)
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)


class FileDigests:
    """sha256 digests of files by name (a path relative to the data directory), read from
    and saved to `memo` (None: nothing remembered, every file read)."""

    def __init__(self, memo: Path | None) -> None:
        self.memo = memo
        self.recorded: dict[str, list] = {}
        if memo is not None:
            try:
                loaded = json.loads(memo.read_text(encoding="utf-8"))
                if loaded.get("version") == VERSION and isinstance(loaded.get("files"), dict):
                    self.recorded = loaded["files"]
            except (OSError, ValueError, AttributeError):
                pass  # no memo yet, or an unreadable one: every file is read
        self.seen: dict[str, list] = {}
        self.read = 0

    def digest(self, path: "Path | os.DirEntry[str]", name: str) -> bytes:
        """The sha256 of `path`'s content (`name` keys it in the memo)."""
        now = time.time_ns()  # before the stat: a slow read must not make a fresh file look settled
        stat = _stat_of(path)
        entry = self.recorded.get(name)
        if isinstance(entry, list) and len(entry) == 5 and tuple(entry[:4]) == stat:
            try:
                digest = bytes.fromhex(entry[4])
            except (TypeError, ValueError):  # a damaged memo: read the file
                pass
            else:
                self.seen[name] = entry
                return digest
        with open(path, "rb") as handle:
            content = hashlib.file_digest(handle, "sha256").digest()
        self.read += 1
        if max(stat[1], stat[2]) < now - SETTLED_NS and _stat_of(path) == stat:
            self.seen[name] = [*stat, content.hex()]
        return content

    def save(self) -> None:
        """Keep what this run saw (only the files that still exist), when it differs."""
        if self.memo is None or self.seen == self.recorded:
            return
        data = json.dumps({"version": VERSION, "files": self.seen}, sort_keys=True, separators=(",", ":"))
        try:
            self.memo.parent.mkdir(parents=True, exist_ok=True)
            write_atomically(self.memo, data.encode("utf-8"))
        except OSError:
            pass  # a read-only cache still builds; the next run reads the files again
