"""Each evaluation's per-sample analyses kept between builds, so that a rebuild after one
model's trials changed runs the analyses' SQL over that model's trials only.

The statements of `store/sql/analyses.sql` give rows grouped by evaluation, and an
evaluation's rows depend on nothing but its own trials, its recorded generation arguments
(the token limit) and the site's estimator, besides the code, the libraries and the machine
(`code_salt`).
An entry is keyed by a digest of exactly those: the evaluation's name, its generation
arguments, the estimator, and each trials file it has rows in, with the digest the PointsDB
keeps of that file's bytes and of the store's code. A file's rows change only when that
digest does, so the key covers every input of the rows it keeps.

`split` says which evaluations the memo holds and which trials files are left to read: a
file is skipped only when every evaluation in it is found, so an evaluation not found is
read whole. `merge` puts the found rows and the computed ones back in the statements' order
(by evaluation, each evaluation's rows as the statement ordered them).

The file is JSON (data only), named with this machine's salt (cachekey.py) and holding the
salt it was made with; a build saves the entries it used, so the file does not grow with
history. A damaged or foreign file is an empty memo: a memo only saves time.
"""

from __future__ import annotations

import hashlib
import json
import platform
import sys
from contextlib import suppress
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping, Sequence

import duckdb
import numpy as np

from ..atomic import write_atomically
from ..resources import code_digest
from ..store.pointsdb import PointsDB
from ..store.trialfiles import TRIALS_DIR
from .analysissql import STATEMENTS, EvalKey, Rows

#: An entry: each statement's rows of one evaluation, without the evaluation's three names (lists as
#: read from the file, tuples as computed: JSON writes both as arrays).
Entry = dict[str, list[Sequence[Any]]]

#: Per evaluation with trials: its generation arguments and each trials file with its digest.
_INPUTS = f"""
SELECT r.model, r.template, r.sampler, min(e.generation_args) AS args,
       list([r.source, f.digest] ORDER BY r.source) AS files, bool_and(f.digest IS NOT NULL) AS known
FROM (SELECT DISTINCT model, template, sampler, source FROM point_rows
      WHERE starts_with(source, '{TRIALS_DIR}/')) r
LEFT JOIN point_files f USING (source)
LEFT JOIN evaluations e USING (model, template, sampler)
GROUP BY ALL ORDER BY ALL
"""


@lru_cache(maxsize=1)
def code_salt() -> str:
    """What decides an entry besides its inputs: the package's code and SQL, Python, numpy
    and DuckDB with their versions, and the machine (numeric kernels differ in the last bit
    between versions and CPU code paths). A memo of other code or another machine is unused."""
    features = getattr(getattr(np, "_core", None), "_multiarray_umath", None)
    return repr((code_digest(), sys.version, platform.machine(), platform.libc_ver(), np.__version__,
                 duckdb.__version__, sorted(getattr(features, "__cpu_features__", {}).items())))


@dataclass
class AnalysesMemo:
    """Entries by digest: `known` from the file, `used` what this build found or computed."""

    salt: str
    known: dict[str, Entry] = field(default_factory=dict)
    used: dict[str, Entry] = field(default_factory=dict)
    #: Each evaluation's digest, by `split` (those whose trials files all have a digest).
    digests: dict[EvalKey, str] = field(default_factory=dict)

    @classmethod
    def load(cls, path: Path, salt: str) -> AnalysesMemo:
        with suppress(OSError, ValueError, KeyError, TypeError):  # a damaged or foreign file: an empty memo
            found = json.loads(path.read_bytes())
            if found["salt"] == salt and isinstance(found["entries"], dict):
                return cls(salt, found["entries"])
        return cls(salt)

    def save(self, path: Path) -> None:
        """The entries this build used, written atomically; nothing when they are `known`."""
        if self.used != self.known:
            write_atomically(path, json.dumps({"salt": self.salt, "entries": self.used}, sort_keys=True,
                                              separators=(",", ":")).encode("utf-8"))

    def split(self, db: PointsDB, mode: str) -> tuple[dict[EvalKey, str], list[str]]:
        """The digests of the evaluations this memo holds, and the trials files every one of
        whose evaluations it holds (the files the statements need not read)."""
        digests: dict[EvalKey, str] = {}
        files_of: dict[EvalKey, list[str]] = {}
        for model, template, sampler, args, files, known in db.con.execute(_INPUTS).fetchall():
            key = (model, template, sampler)
            files_of[key] = [source for source, _ in files]
            if known:
                digests[key] = hashlib.sha256(json.dumps([mode, key, args, files]).encode("utf-8")).hexdigest()
        found = {key: digest for key, digest in digests.items() if _whole(self.known.get(digest))}
        needed = {source for key, sources in files_of.items() if key not in found for source in sources}
        self.digests = digests
        return found, sorted({source for sources in files_of.values() for source in sources} - needed)

    def merge(self, computed: Mapping[str, Rows], found: Mapping[EvalKey, str]) -> dict[str, Rows]:
        """Each statement's rows: the found evaluations' from the memo, the others' as
        computed, in the statements' order; every keyed evaluation's rows are `used`."""
        out = {}
        for name, (names, rows) in computed.items():
            by_key: dict[EvalKey, list[tuple[Any, ...]]] = {}
            for row in rows:
                key = (row[0], row[1], row[2])
                if key not in found:
                    by_key.setdefault(key, []).append(row)
            for key, digest in found.items():
                by_key[key] = [(*key, *row) for row in self.known[digest][name]]
            # A found entry is kept as read; a computed row as a tuple (JSON writes it as a list).
            for key, digest in self.digests.items():
                self.used.setdefault(digest, {})[name] = (self.known[digest][name] if key in found else
                                                          [row[3:] for row in by_key.get(key, [])])
            out[name] = (names, [row for key in sorted(by_key) for row in by_key[key]])
        return out


def _whole(entry: object) -> bool:
    """Whether a memo entry has the rows of every statement (else it is computed again)."""
    return isinstance(entry, dict) and all(isinstance(entry.get(name), list) for name in STATEMENTS)
