"""Re-render only the pages whose inputs changed (issue 16, after Lektor and coverage.py).

Each page's inputs are its view model (a frozen dataclass tree: everything the template is
given about the page) plus what every page shares (the templates and the code, the config,
the asset names, the navigation). `page_digest` hashes them; the build state records each
page's digest beside its size and modification time. A later build that computes the same
digest for a page whose file is still exactly as the last build left it keeps that file and
skips the template: the template would have produced the same bytes, since rendering is a
pure function of those inputs.

Making the view model to digest it is most of that cost, so a page whose inputs can be
named without making it carries a key instead (`Deferred.key`: a benchmark's result rows
page names its rows by id and their model keys' digests, signals/memo.py); a page whose
key is the one recorded with its file is kept without being made at all.

The view model is hashed through `pickle`, which writes every field of every dataclass
and is about twice as fast as `repr` on these trees (2,500 evaluations: 2.4 s against 4.2 s
for 3,719 pages). Pickle is invertible, so two different view models never give the same
bytes; the same view model may (if objects are shared differently) give other bytes, which
only costs a render. A page that cannot be pickled (a function made at run time, say) is
always rendered.

The pickler writes a view (a dataclass) as its class and the tuple of its field values,
where pickle's default writes a dictionary of field names and values (`_Digest`): a fifth
fewer bytes, and about a sixth less time on a rebuild's ~3,700 pages. It stays
invertible: a class's fields are fixed (the code is in the salt) and a dataclass's
instance dictionary holds them in field order (`__init__` sets them so; a view holding
anything else, or without a dictionary, is written the default way).
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import pickle
from dataclasses import dataclass, field
from operator import attrgetter
from pathlib import Path
from typing import Any, Callable

from .views.base import Deferred, Page


def page_digest(salt: str, page: Any) -> str | None:
    """A hash of the page's view model and `salt` (what all pages share); None when the
    view model cannot be hashed by value."""
    buffer = io.BytesIO()
    try:
        _Digest(buffer, protocol=5).dump(page)
    except (pickle.PicklingError, TypeError, AttributeError):
        return None
    h = hashlib.sha256(salt.encode("utf-8"))
    h.update(b"\0")
    h.update(buffer.getbuffer())
    return h.hexdigest()[:32]


class _Reducers(dict[type, Callable[[Any], Any]]):
    """The digest's reduction of each dataclass, made on first sight of the class: the
    instance as `(its class, its field values in order)`. An instance holding anything
    else, or without an instance dictionary, is reduced the default way, except a slotted
    dataclass (the statistics' records, stats/board.py), whose slots are its fields."""

    def __missing__(self, cls: type) -> Callable[[Any], Any]:
        fields = getattr(cls, "__dataclass_fields__", None)
        if fields is None:
            raise KeyError(cls)  # pickle's own handling
        count = len(fields)
        names = tuple(f.name for f in dataclasses.fields(cls))
        slotted = len(names) > 1 and tuple(cls.__dict__.get("__slots__", ())) == names

        def reduce(obj: Any) -> Any:
            state = getattr(obj, "__dict__", None)
            if state is None or len(state) != count:
                return obj.__reduce_ex__(5)
            return cls, tuple(state.values())

        def reduce_slots(obj: Any, values: Callable[[Any], tuple[Any, ...]] = attrgetter(*names)) -> Any:
            return cls, values(obj)

        self[cls] = reduce_slots if slotted else reduce
        return self[cls]


class _Digest(pickle.Pickler):
    """A pickler for digests only (what it writes is never loaded). Pickle looks an
    object's class up in `dispatch_table` (a dictionary lookup in C) for every object but
    the built-in containers, strings and numbers, so only for the views."""

    dispatch_table = _Reducers()


@dataclass
class PageReuse:
    """Which existing page files a build may keep.

    `previous` is the last build's record of this output directory: path -> [size,
    mtime_ns, digest]. `salt` identifies the templates, code, config and content the pages
    were rendered with. `digests` collects this build's digest of every page it saw.
    """

    out_dir: Path
    previous: dict[str, list]
    salt: str
    digests: dict[str, str] = field(default_factory=dict)
    #: this build's key of every page that has one (`Deferred.key`, with what all pages share)
    keys: dict[str, str] = field(default_factory=dict)
    kept: int = 0

    def decide(self, page: Page, shared: str) -> tuple[str | None, bool]:
        """(this build's digest of `page`, whether its file may be kept), without recording
        anything: a forked render worker decides, the parent `note`s what it decided."""
        digest = page_digest(self.salt + "\0" + shared, page)
        if digest is None:
            return None, False
        record = self.previous.get(page.path)
        if record is None or len(record) < 3 or record[2] != digest:
            return digest, False
        return digest, self._intact(page.path, record)

    def decide_by_key(self, entry: Deferred, shared: str) -> tuple[str | None, bool, str | None]:
        """(this build's key of the deferred page `entry`, whether its file may be kept
        without making the page, the digest recorded with it): kept when the key (the
        page's inputs, `Deferred.key`, and what every page shares) is the one recorded
        with the file, and the file is as the last build left it."""
        inputs = entry.key() if entry.key is not None else None
        key = None if inputs is None else page_digest("\0".join((self.salt, shared, entry.template, "key")), inputs)
        if key is None:
            return None, False, None
        record = self.previous.get(entry.path)
        if record is None or len(record) < 4 or record[3] != key or not self._intact(entry.path, record):
            return key, False, None
        return key, True, record[2] or None

    def _intact(self, path: str, record: list) -> bool:
        try:
            stat = (self.out_dir / path).stat()
        except OSError:
            return False
        return stat.st_size == record[0] and stat.st_mtime_ns == record[1]

    def note(self, path: str, digest: str | None, kept: bool, key: str | None = None) -> None:
        if digest is not None:
            self.digests[path] = digest
        if key is not None:
            self.keys[path] = key
        self.kept += kept
