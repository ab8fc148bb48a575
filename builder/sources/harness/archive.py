"""Archive members read within the limits (sources/limits.py): a zip bomb is refused by the
sizes its own headers state before anything is decompressed, and stopped while it is, since
the stated sizes may lie."""

from __future__ import annotations

import struct
import zipfile
from pathlib import Path
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


def zstd_member(path: Path, info: zipfile.ZipInfo) -> bytes:
    """A zstd-compressed member (a method `zipfile` cannot read: Inspect writes them), read
    from its local header and decompressed within the limits (`bounded`)."""
    import zstandard

    with path.open("rb") as fh:
        fh.seek(info.header_offset)
        local = fh.read(30)
        if len(local) < 30 or local[:4] != b"PK\x03\x04":
            raise ValueError("bad local header")
        name_len, extra_len = struct.unpack("<HH", local[26:30])
        fh.seek(info.header_offset + 30 + name_len + extra_len)
        raw = fh.read(info.compress_size)
    try:
        with zstandard.ZstdDecompressor().stream_reader(raw, read_across_frames=True) as stream:
            return bounded(stream, info)
    except zstandard.ZstdError as exc:
        raise ValueError(f"zstd: {exc}") from None
