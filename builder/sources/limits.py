"""How large or deep an input may be: each limit a one-line error naming the file and the limit.

An input from someone else can be shaped to exhaust the machine that builds it rather than
to be read (PRODUCT.md, "Untrusted checkouts"): a 103 KB archive member that expands to
3 GiB, JSON nested 200,000 levels deep (Python's parser stops with a `RecursionError`), a
1 GiB line, a `params` cell with 100,000 keys. The limits below are far above anything a
real harness or leaderboard writes, and each is checked before the input is held whole.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import InputError

#: Bytes of one line of a points file (CSV, JSONL) or of a harness's JSONL output.
MAX_LINE_BYTES = 16 * 1024 * 1024
#: Levels of nesting in a JSON document (a real EEE record or card has fewer than 10).
MAX_JSON_DEPTH = 64
#: Difficulty coordinates (keys of `params`) of one point, and the length of its cell.
MAX_PARAMS = 64
MAX_PARAMS_CHARS = 64 * 1024
#: Characters of a name (model, template, sampler, task) in a points or trials file or
#: `evals.json`: a name is a label shown in tables and a page's address (real ones are under
#: 100); 100,000 characters were accepted and rendered into every page.
MAX_NAME_CHARS = 500
#: Characters of a trials file's `sample_id`: an item's identifier (a number, a hash, a
#: dataset path; real ones are under 200). Without a limit 5 MB ids made DuckDB run out of
#: memory with a message naming no file.
MAX_SAMPLE_ID_CHARS = 4096
#: The largest epoch a trials file holds (its `epoch` column is a 32-bit INTEGER).
MAX_EPOCH = 2**31 - 1
#: Output tokens of one trial stay below this in a trials file (the build's check, and
#: ingest's before it writes one).
MAX_TOKENS = 10**12


def too_long(column: str, length: int | str, limit: int) -> str:
    """The problem of a name or sample id over its limit (`length` a number, or a
    placeholder the caller fills in)."""
    seen = f"{length:,}" if isinstance(length, int) else length
    return f"'{column}' is {seen} characters long; the limit is {limit:,} (shorten it)"
#: Uncompressed bytes of one archive member, and its expansion ratio (uncompressed bytes
#: per compressed byte) once it is larger than `RATIO_FROM` (JSON compresses about 10:1;
#: a zip bomb 1,000:1 or, with zstd, 30,000:1).
MAX_MEMBER_BYTES = 128 * 1024 * 1024
MAX_RATIO = 200
RATIO_FROM = 1024 * 1024

# A JSON string literal (the document has parsed, so each is well formed); linear time.
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)


def json_depth(text: str) -> int:
    """How deeply `text` (valid JSON) nests arrays and objects: brackets outside strings,
    counted with numpy over the bracket positions alone."""
    codes = np.frombuffer(_STRING.sub("", text).encode("utf-8"), dtype=np.uint8)
    opens = (codes == ord("[")) | (codes == ord("{"))
    steps = np.where(opens, 1, -1)[opens | (codes == ord("]")) | (codes == ord("}"))]
    return int(np.cumsum(steps, dtype=np.int64).max(initial=0))


def over_depth(text: str) -> bool:
    """Whether valid JSON `text` nests deeper than the limit (a text with few brackets is
    not measured)."""
    return text.count("[") + text.count("{") > MAX_JSON_DEPTH and json_depth(text) > MAX_JSON_DEPTH


def too_deep(path: str | Path, line: int | None = None) -> InputError:
    return InputError(path, f"JSON nested deeper than {MAX_JSON_DEPTH} levels (the limit); "
                            "no leaderboard input needs more", line=line)


class _NotANumber(Exception):
    pass


def _refuse(name: str) -> Any:
    raise _NotANumber(name)


def load_json(text: str, path: str | Path, line: int | None = None, nan_ok: bool = False) -> Any:
    """`json.loads(text)` within the depth limit, refusing `NaN` and `Infinity` (Python
    reads them, JSON has no such numbers: a value not recorded is `null`) with their line.
    Other syntax errors raise `json.JSONDecodeError` as they would, for the caller's message."""
    try:
        value = json.loads(text) if nan_ok else json.loads(text, parse_constant=_refuse)
    except RecursionError:
        raise too_deep(path, line) from None
    except _NotANumber as exc:
        outside_strings = _STRING.sub(lambda m: " " * len(m.group()), text)
        found = re.search(r"-?\b(?:NaN|Infinity)\b", outside_strings)
        at = line if line is not None else (text.count("\n", 0, found.start()) + 1 if found else None)
        raise InputError(path, f"{exc} is not a JSON number; write null for a value not recorded", line=at) from None
    if over_depth(text):
        raise too_deep(path, line)
    return value
