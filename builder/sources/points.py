"""Points files as inputs: which files under `points/` are read (and which are named as
ignored), the columns a points file has, and the problems of its text named in the file's
own terms (the line an editor shows, the shape a spreadsheet gave it).

The store stages the rows with DuckDB's readers (`store.ingest`); when a file is not what
they expect, or a staged row fails a check, these functions read the file again to say
where and why. They run only on those paths, so a good build never reads a file twice.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

from ..confined import refuse_linked_folders
from ..errors import InputError, did_you_mean
from .limits import MAX_LINE_BYTES
from .text import read_text

REQUIRED = ("model", "template", "sampler", "base_task", "params", "total", "correct", "truncated", "guess", "tokens")
#: Label lists (`;`-separated in CSV), and the distinct samples of the point (SAMPLES.md
#: section 2: its design effect is then total / samples).
LABELS = ("tiers", "groups")
OPTIONAL = (*LABELS, "samples")
POINT_SUFFIXES = (".csv", ".jsonl", ".parquet")
# A cell may be as long as a line may (limits.py): Python's csv module stops at 128 KiB,
# which would leave a message about a long cell without its line.
csv.field_size_limit(MAX_LINE_BYTES)


def check_columns(path: Path, columns: list[str], line: int | None = 1) -> None:
    """Every column known and every required one present; `line` is where the names are
    (a CSV header, a JSONL line; None for Parquet, which has no lines)."""
    unknown = [c for c in columns if c not in REQUIRED and c not in OPTIONAL]
    if unknown:
        name = f"'{unknown[0]}'" if unknown[0] else f"with an empty name (column {columns.index('') + 1})"
        hint = did_you_mean(unknown[0], [c for c in REQUIRED + OPTIONAL if c not in columns]) if unknown[0] else ""
        raise InputError(path, f"unknown column {name}{hint} (expected {', '.join(REQUIRED + OPTIONAL)})", line=line)
    missing = [c for c in REQUIRED if c not in columns]
    if missing:
        raise InputError(path, f"missing column '{missing[0]}' (expected {', '.join(REQUIRED)})", line=line)


EXPECTED_CSV = f"comma-separated, with the header {','.join(REQUIRED)} (optionally ,tiers,groups,samples)"
CRCR = ("lines end in \\r\\r\\n (a doubled carriage return, as a file converted twice between Windows and Unix "
        "line ends has); expected \\r\\n or \\n line ends: save it again with Windows (CRLF) or Unix (LF) line ends")


def csv_header(path: Path) -> tuple[str, ...]:
    """The header row of a CSV file, checked against the known columns.

    The whole file is decoded here, not only its header: the encoding rule is checked
    in one place for every text input (`sources.text`), and a file in another encoding
    is named with its line rather than by DuckDB's byte offset; so is the line limit.
    """
    text = read_text(path, max_line=MAX_LINE_BYTES)
    end = text.find("\n")
    first = text if end < 0 else text[:end]
    sniff_header(path, first)
    header = [h.strip() for h in next(csv.reader([first.rstrip("\r")]), [])]
    check_columns(path, header)
    return tuple(header)


def sniff_header(path: Path, first: str) -> None:
    """The shapes spreadsheets give a CSV file that reasonboard does not read, each named
    for what the file looks like and what is expected, rather than accepted by guessing."""
    if first.endswith("\r\r"):
        raise InputError(path, CRCR, line=1)
    line = first.rstrip("\r")
    known = set(REQUIRED + OPTIONAL)
    for delimiter, name in ((";", "semicolon-separated"), ("\t", "tab-separated")):
        fields = [f.strip().strip('"') for f in line.split(delimiter)]
        if "," not in line and len(fields) > 1 and known.intersection(fields):
            shown = delimiter.join(fields[:3]) + delimiter + "..."
            raise InputError(path, f"the file looks {name} (header {shown!r}), as spreadsheets save in some "
                                   f"locales; expected {EXPECTED_CSV}: save it as \"CSV UTF-8 (comma delimited)\"",
                             line=1)
    names = [h.strip() for h in next(csv.reader([line]), [])]
    trailing = len(names) - len([n for n in names if n]) if names and not names[-1] else 0
    if trailing and all(names[:len(names) - trailing]) and not any(names[len(names) - trailing:]):
        empty = "an empty column" if trailing == 1 else f"{trailing} empty columns"
        raise InputError(path, f"the header ends with {empty} (a trailing comma, as spreadsheets "
                               f"write when cells beyond the table were touched); expected {EXPECTED_CSV}: remove "
                               "the trailing comma from every line", line=1)


def csv_problem(path: Path, header: tuple[str, ...]) -> InputError | None:
    """Why DuckDB could not read a CSV file, in the file's own terms when it is one of the
    shapes below; None leaves DuckDB's message. Only called on that failure path."""
    text = read_text(path)
    doubled = text.find("\r\r\n")
    if doubled >= 0:
        return InputError(path, CRCR, line=text.count("\n", 0, doubled) + 1)
    try:
        return field_count_problem(path, header, text)
    except csv.Error:
        return None  # not a shape named here: DuckDB's own message is shown


def field_count_problem(path: Path, header: tuple[str, ...], text: str) -> InputError | None:
    """The first line whose field count differs from the header's, with the likely cause."""
    reader = csv.reader(io.StringIO(text, newline=""))
    start = 1
    for fields in reader:
        if fields and len(fields) != len(header):
            hint = ""
            if any("\n" in f or "\r" in f for f in fields):
                hint = "; a quoted value runs on past the end of the line: a quote (\") is not closed"
            elif len(fields) > len(header) and not fields[-1].strip():
                hint = "; the line ends with a comma: remove it"
            elif len(fields) == 1 and (";" in fields[0] or "\t" in fields[0]):
                hint = "; the line looks semicolon- or tab-separated: the file must be comma-separated"
            elif len(fields) > len(header):
                hint = ('; a value with a comma must be quoted, e.g. params as "{""size"": 4, ""len"": 8}"')
            return InputError(path, f"{len(fields)} fields where the header has {len(header)} "
                                    f"({','.join(header)}){hint}", line=start)
        start = reader.line_num + 1
    return None


def where(path: Path, source_row: int) -> str:
    """"line N" as an editor counts it for CSV and JSONL files, "row N" for Parquet."""
    line = line_of(path, source_row)
    return f"line {line}" if line is not None else f"row {source_row}"


def line_of(path: Path, source_row: int) -> int | None:
    """The editor line where a staged row starts: JSONL rows are staged by line already;
    a CSV data row is found by reading the file again (only when a message needs it), so
    quoted values that span lines are counted as an editor counts them."""
    suffix = path.suffix.lower()
    if suffix == ".jsonl":
        return source_row
    if suffix != ".csv":
        return None
    reader = csv.reader(io.StringIO(read_text(path), newline=""))
    try:
        next(reader, None)  # the header
        row, start = 0, reader.line_num + 1
        for fields in reader:
            if fields:  # DuckDB skips blank lines, so they have no row number
                row += 1
                if row == source_row:
                    return start
            start = reader.line_num + 1
    except csv.Error:
        pass
    return None


def error_at(path: Path, source_row: int, problem: str) -> InputError:
    line = line_of(path, source_row)
    return InputError(path, problem, line=line) if line is not None else InputError(path, problem, row=source_row)


def discover_point_files(data_dir: Path) -> list[Path]:
    """Points files under `data_dir/points`, sorted by relative path (later wins)."""
    root = data_dir / "points"
    if not root.is_dir():
        return []
    refuse_linked_folders(root, data_dir)
    return sorted(p for p in root.rglob("*") if p.is_file() and p.suffix.lower() in POINT_SUFFIXES)


def ignored_point_files(data_dir: Path) -> list[Path]:
    """Files under `data_dir/points` that are not read: a `.tsv` or `.xlsx` saved by a
    spreadsheet is an easy mistake that would otherwise pass unseen. Hidden files and
    READMEs are meant to sit there and are not listed."""
    root = data_dir / "points"
    if not root.is_dir():
        return []
    return sorted(p for p in root.rglob("*")
                  if p.is_file() and p.suffix.lower() not in POINT_SUFFIXES
                  and not p.name.startswith(".") and not p.name.lower().startswith("readme"))


def describe_ignored(files: list[Path], data_dir: Path) -> str:
    """`points/a.tsv, points/b.xlsx` (the first ten, then a count)."""
    names = [relative_path(p, data_dir) for p in files]
    return ", ".join(names[:10]) + (f" and {len(names) - 10} more" if len(names) > 10 else "")


def relative_path(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()
