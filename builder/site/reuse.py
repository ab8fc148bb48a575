"""Page reuse: a page's key is a digest of exactly what its template receives, and a page
whose key is the one the previous build recorded for its file, with that file untouched
since, is not rendered again (the writer keeps the file).

Complete by construction: the template receives one frozen record (`render.PageInputs`) and
helpers that are functions of their arguments, the code and the templates. `encode` walks
the record down to its scalars, with every value's exact type, as self-delimiting tokens (no
pickle, no `repr`: the same values give the same key in any process); a value it does not
know (a function, an object with an address) is an error, never left out. The key is salted
with the build's settings key (buildstate.py: the templates and content along their lookup
order, the config, the code and the template libraries' versions), which holds the rest."""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import os
import stat
from dataclasses import dataclass, field
from operator import attrgetter
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from .writer import Staged

#: Changes whenever the encoding below changes, so no key of another encoding is ever met.
ENCODING = "reasonboard-page-key/1"


def encode(value: object) -> bytes:
    """The structural encoding of `value` (see the module docstring); a value it cannot
    encode is a `TypeError` naming its type, with a note for each record it is in."""
    parts: list[str] = []
    _walk((value,), parts.append)
    return "".join(parts).encode("utf-8", "surrogatepass")


def _walk(values: Iterable[Any], put: Callable[[str], object]) -> None:
    """Encode each of `values` through `put`. The common kinds are tested first, by exact
    type (a page's record holds thousands of values: this loop is the key's cost)."""
    for value in values:
        kind = type(value)
        if kind is str:
            put(f"s{len(value)}:{value}")
        elif value is None:
            put("N")
        elif kind is float or kind is int:
            put(f"{kind.__name__[0]}{value!r};")
        elif kind is bool:
            put("T" if value else "F")
        elif kind is tuple or kind is list:
            put(f"{kind.__name__[0]}{len(value)}(")
            _walk(value, put)
        elif kind is dict:  # `_other`'s mapping, without its abstract-class test (a chart's rows)
            put(f"M{DICT}:{len(value)}(")
            for pair in value.items():
                _walk(pair, put)
        else:
            record = _RECORDS.get(kind) or _record(kind)
            if record is None:
                _other(value, put)
                continue
            head, fields_of = record
            put(head)
            try:
                _walk(fields_of(value), put)
            except TypeError as exc:
                exc.add_note(f"in a {_name(kind)}")
                raise


#: A dataclass's head (class and field names) and its field values' getter, found once per
#: class; None for a class that is no dataclass.
_RECORDS: dict[type, tuple[str, Callable[[Any], tuple[Any, ...]]] | None] = {}


def _record(kind: type) -> tuple[str, Callable[[Any], tuple[Any, ...]]] | None:
    if not dataclasses.is_dataclass(kind):
        _RECORDS[kind] = None
        return None
    names = tuple(f.name for f in dataclasses.fields(kind))
    head = f"D{_name(kind)}:{len(names)}(" + "".join(f"{len(n)}:{n}" for n in names)
    getter = attrgetter(*names)
    _RECORDS[kind] = found = (head, (lambda v: (getter(v),)) if len(names) == 1 else getter)
    return found


def _other(value: Any, put: Callable[[str], object]) -> None:
    """The rarer kinds: mappings (in the order a template iterates them), sets (sorted by
    encoding), enums, subclasses of str, int and float (`Markup` is never escaped again, so
    it differs from its text), bytes."""
    kind = type(value)
    if isinstance(value, Mapping):
        put(f"M{_name(kind)}:{len(value)}(")
        for pair in value.items():
            _walk(pair, put)
    elif isinstance(value, (set, frozenset)):
        encoded = sorted(encode(item) for item in value)
        put(f"S{_name(kind)}:{len(encoded)}(")
        for one in encoded:
            put(f"{len(one)}:" + one.decode("utf-8", "surrogatepass"))
    elif isinstance(value, enum.Enum):
        put(f"E{_name(kind)}:{len(value.name)}:{value.name}")
    elif isinstance(value, (str, int, float)):
        put(f"V{_name(kind)}:")
        base = str if isinstance(value, str) else float if isinstance(value, float) else int
        _walk((base(value),), put)
    elif isinstance(value, bytes):
        put(f"b{len(value)}:{value.hex()}")
    else:
        raise TypeError(f"a page's template would receive a {_name(kind)}, which its key cannot hold: "
                        "give views only dataclasses, tuples, mappings and plain values")


def _name(kind: type) -> str:
    return f"{kind.__module__}.{kind.__qualname__}"


DICT = _name(dict)


def page_key(salt: str, inputs: object) -> str:
    """The key of the page rendered from `inputs` with the settings of this `salt`."""
    return hashlib.sha256(salt.encode() + b"\0" + encode(inputs)).hexdigest()


@dataclass
class PageReuse:
    """What the previous build of this output folder recorded for its files, and what this
    build renders, keeps and records.

    `previous` maps an output path to what the build state recorded for it (buildstate.py):
    `[size, mtime_ns, key]` for a file made from a key (a page, a published samples file).
    A file is kept only when its key is that key and it is still that regular file,
    unchanged in size and time; anything else (no record, another key or shape, a touched or
    replaced file) is made again."""

    out_dir: Path
    previous: Mapping[str, list[Any]] = field(default_factory=dict)
    #: What every page's key is salted with: the build's settings key.
    salt: str = ""
    #: This build's key of every page, by output path (for the next build's state).
    keys: dict[str, str] = field(default_factory=dict)
    rendered: int = 0
    kept: int = 0

    def keep(self, path: str, key: str) -> Staged | None:
        """The previous build's file at `path`, to keep as it is, or None: make it."""
        was = self.previous.get(path)
        if was is None or len(was) != 3 or was[2] != key:
            return None
        try:
            info = os.lstat(self.out_dir / path)
        except OSError:
            return None
        if not stat.S_ISREG(info.st_mode) or [info.st_size, info.st_mtime_ns] != was[:2]:
            return None
        return Staged(info.st_size, written=False)

    def note(self, path: str, key: str, rendered: bool) -> None:
        """A page of this build: its key, and whether it was rendered or kept."""
        self.keys[path] = key
        if rendered:
            self.rendered += 1
        else:
            self.kept += 1
