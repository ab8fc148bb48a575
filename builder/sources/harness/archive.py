"""Archive members read within the limits (sources/limits.py): a zip bomb is refused by the
sizes its own headers state before anything is decompressed, and stopped while it is, since
the stated sizes may lie."""

from __future__ import annotations

import zipfile
from typing import IO

from ..limits import MAX_MEMBER_BYTES, MAX_RATIO, RATIO_FROM
from ..trials import UnreadableInput


def check_member(info: zipfile.ZipInfo) -> None:
    """A member's sizes as the archive states them, before anything is decompressed
    (sources/limits.py): a zip bomb is named by its own header."""
    if info.file_size > MAX_MEMBER_BYTES:
        raise UnreadableInput(f"member {info.filename} expands to {info.file_size:,} bytes, over the limit of "
                              f"{MAX_MEMBER_BYTES:,}")
    if info.file_size > RATIO_FROM and info.file_size > MAX_RATIO * max(info.compress_size, 1):
        raise UnreadableInput(f"member {info.filename} expands {info.file_size // max(info.compress_size, 1):,} times "
                              f"({info.compress_size:,} -> {info.file_size:,} bytes), over the limit of {MAX_RATIO} times")


def bounded(stream: IO[bytes], info: zipfile.ZipInfo) -> bytes:
    """A member decompressed by 1 MiB, stopped as soon as it passes its stated size or the
    limits (the stated sizes may lie)."""
    cap = min(info.file_size, MAX_MEMBER_BYTES)
    chunks, total = [], 0
    while chunk := stream.read(1 << 20):
        total += len(chunk)
        if total > cap or (total > RATIO_FROM and total > MAX_RATIO * max(info.compress_size, 1)):
            raise UnreadableInput(f"member {info.filename} expands past its stated {info.file_size:,} bytes or the "
                                  f"limits ({MAX_MEMBER_BYTES:,} bytes, {MAX_RATIO} times its compressed size)")
        chunks.append(chunk)
    return b"".join(chunks)
