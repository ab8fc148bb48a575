"""The one rule for every text input: UTF-8, with or without a byte-order mark.

Points CSV and JSONL, `evals.json`, `site.toml`, `bands.toml`, Markdown pages, EEE records
and cards are all read through `read_text` (or `decode_text` for bytes already read), so a
BOM is accepted everywhere or nowhere, and a file saved in another encoding (Latin-1,
cp1252, UTF-16: what Excel and older editors write) is one line naming the file, the line
an editor shows and what to do, never a `UnicodeDecodeError` traceback or a byte offset.
"""

from __future__ import annotations

import codecs
from pathlib import Path

from ..confined import read_confined
from ..errors import InputError

#: Byte-order marks of encodings that are not UTF-8, named for the message.
_OTHER_BOMS = (
    (codecs.BOM_UTF32_LE, "UTF-32"), (codecs.BOM_UTF32_BE, "UTF-32"),
    (codecs.BOM_UTF16_LE, "UTF-16"), (codecs.BOM_UTF16_BE, "UTF-16"),
)
ADVICE = "save it as UTF-8"


def read_text(path: Path, root: Path | None = None, max_line: int | None = None) -> str:
    """The text of `path` decoded by the rule; `InputError` when it is not UTF-8, or not a
    regular file inside `root` (default: its own folder; confined.py), or has a line longer
    than `max_line` bytes."""
    return decode_text(path, read_confined(path, root, max_line))


def decode_text(path: str | Path, data: bytes) -> str:
    """`data` as text: UTF-8 with its BOM (if any) removed. Anything else raises an
    `InputError` naming the line of the first byte that is not UTF-8."""
    for bom, name in _OTHER_BOMS:
        if data.startswith(bom):
            raise InputError(path, f"the file is {name} text, not UTF-8; {ADVICE}", line=1)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line_start = data.rfind(b"\n", 0, exc.start) + 1
        line = data.count(b"\n", 0, exc.start) + 1
        column = len(data[line_start:exc.start].decode("utf-8", errors="replace")) + 1
        byte = data[exc.start]
        # Bytes from 0x80 up are where Latin-1 and Windows-1252 put accented letters.
        guess = " (probably Latin-1 or Windows-1252, as Excel and older editors save)" if byte >= 0x80 else ""
        raise InputError(path, f"not UTF-8 text: byte 0x{byte:02X} at column {column}{guess}; {ADVICE}",
                         line=line) from None

