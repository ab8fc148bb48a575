"""Each model key's rows and triples kept between builds, so a build computes the signals
of the model keys whose rows changed only (issue 16, after Lektor's build database).

A triple is one model key's rows on one benchmark and metric, so everything the signals
say of a model key's rows and triples (section 4's missing fields and agentic routes, 6's
parties, 7's divergences and differing setups) is a function of that key's rows alone,
given what the `salt` holds: the code and the libraries that ran it (`stats.memo.code_salt`),
the settings (populated rule, agentic pattern, threshold) and the cards as they bear on
rows (each benchmark's agentic flag and risk categories). The store gives each key a digest
of its rows (`model_digests`: the row count and combinations of every row's hash, row ids
included); a key whose digest matches the memo's takes its rows and triples from the memo,
the others are computed in SQL, scoped to them. What spans model keys (benchmark
completeness and counts, the corpus rollups) is computed from every key's rows and triples
on every build.

The memo is pickled in shards by a stable hash of the model key, so a change to one model
rewrites one shard. A row is kept as the tuple of its field values (loading a tuple and
filling a `ResultRow` from it takes a third of the time of loading the object), a triple
as itself. A shard with another salt, or damaged, or missing, only makes its keys computed
again: a memo only ever saves time. The files live in the cache directory, which is the
user's (like Python's bytecode caches, they are trusted to be what this code wrote).
"""

from __future__ import annotations

import dataclasses
import hashlib
import pickle
from dataclasses import dataclass, field
from operator import attrgetter
from pathlib import Path
from typing import Any, Iterable

from ..atomic import write_atomically
from .model import ResultRow, TripleSignals, record_builder

SHARDS = 32


@dataclass(frozen=True)
class KeySignals:
    """One model key's rows (by row id) and triples (by benchmark and metric), with the
    digest of the rows they were computed from."""

    digest: str
    rows: tuple[ResultRow, ...]
    triples: tuple[TripleSignals, ...]


#: A row as the tuple of its field values, in field order, and back.
_row_values = attrgetter(*(f.name for f in dataclasses.fields(ResultRow)))
_row = record_builder(ResultRow)


def _stored(entry: KeySignals) -> tuple[str, tuple[tuple[Any, ...], ...], tuple[TripleSignals, ...]]:
    return entry.digest, tuple(map(_row_values, entry.rows)), entry.triples


def _loaded(stored: tuple[str, tuple[tuple[Any, ...], ...], tuple[TripleSignals, ...]]) -> KeySignals:
    digest, rows, triples = stored
    return KeySignals(digest, tuple(_row(*values) for values in rows), triples)


def shard_of(model_key: str) -> int:
    return int.from_bytes(hashlib.blake2b(model_key.encode("utf-8"), digest_size=4).digest(), "big") % SHARDS


@dataclass
class SignalsMemo:
    """The memo in `folder` (None: no memo, every key is computed)."""

    folder: Path | None
    salt: str = ""
    #: What this build's signals were made of, by model key (`record`), for `save`.
    entries: dict[str, KeySignals] = field(default_factory=dict)
    #: The shards whose keys changed, appeared or went since the memo was read.
    touched: set[int] = field(default_factory=set)

    def load(self, salt: str) -> dict[str, KeySignals]:
        """Every key the memo holds with this salt."""
        self.salt = salt
        known: dict[str, KeySignals] = {}
        if self.folder is None:
            return known
        for number in range(SHARDS):
            try:
                found_salt, entries = pickle.loads((self.folder / f"{number:02d}.pickle").read_bytes())
            except Exception:  # noqa: BLE001 - absent, damaged or from other code: computed again
                self.touched.add(number)
                continue
            if found_salt != salt or not isinstance(entries, dict):
                self.touched.add(number)
                continue
            try:
                known.update({key: _loaded(entry) for key, entry in entries.items()})
            except (TypeError, ValueError):  # not what this code writes
                self.touched.add(number)
        return known

    def record(self, entries: dict[str, KeySignals], changed: Iterable[str]) -> None:
        """This build's entries; `changed` are the keys computed now or gone since the memo
        was read (their shards are written again)."""
        self.entries = entries
        self.touched.update(shard_of(k) for k in changed)

    def save(self) -> None:
        """Writes the touched shards (each atomically). A shard left as it was holds exactly
        this build's entries of its keys: none of them changed."""
        if self.folder is None or not self.touched:
            return
        shards: dict[int, dict[str, Any]] = {n: {} for n in self.touched}
        for key, entry in self.entries.items():
            shard = shards.get(shard_of(key))
            if shard is not None:
                shard[key] = _stored(entry)
        for number, entries in sorted(shards.items()):
            write_atomically(self.folder / f"{number:02d}.pickle",
                             pickle.dumps((self.salt, entries), protocol=pickle.HIGHEST_PROTOCOL))
        self.touched.clear()
