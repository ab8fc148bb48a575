"""Per-model and per-pair results kept between builds, so a rebuild computes only what changed
(after Lektor's and coverage.py's incremental builds).

Two statistics are pure functions of a small part of the board, by design:

* a model's ReasonScore interval depends only on its own task bounds (the bootstrap's
  uniforms are shared by every model, reasonscore.py);
* a pair's win rate depends only on the two models' per-task Beta distributions
  (pairwise.py; each distribution's grid and each pair's integral are computed alone).

`Memo` maps a digest of exactly those inputs' bytes to the result. When one model's points
change, every other model's interval and every pair it is not in is found here, and the
computation runs on the changed rows only. Everything else (ranks, rank ranges, ties, the
Bradley–Terry strengths) is recomputed from the whole board on every build, since it
depends on every model. A hit returns the bytes the computation returned earlier for the
same input bytes, so a build is still byte-identical to a clean one (tests/test_memo.py
compares memoised and fresh results bit for bit).

The `salt` holds what decides the results besides the keyed rows: the bootstrap's draws,
seed and tasks, the package's code, and the libraries and machine that computed them
(`code_salt`); a memo with another salt is not used.
The file is numpy's `.npz` (read without pickle), kept in the cache directory; a build saves
the `fresh` memo, the entries it used, so the file does not grow with history.
"""

from __future__ import annotations

import hashlib
import io
import platform
import sys
import zipfile
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable

import duckdb
import numpy as np

from ..atomic import write_atomically
from ..resources import code_digest

#: Bytes of a row's digest (a pair's key is its two rows' digests).
KEY_BYTES = 16


@lru_cache(maxsize=1)
def code_salt() -> str:
    """What decides a memoised value besides its inputs: the package's code and SQL
    (`resources.code_digest`), Python, numpy and DuckDB with their versions, and the machine
    (numpy's kernels differ in the last bit between versions and CPU code paths). A memo made
    by other code, or in a cache copied from another machine, is never used."""
    features = getattr(getattr(np, "_core", None), "_multiarray_umath", None)
    return repr((code_digest(), sys.version, platform.machine(), platform.libc_ver(), np.__version__,
                 duckdb.__version__, sorted(getattr(features, "__cpu_features__", {}).items())))


def row_keys(*arrays: np.ndarray) -> list[bytes]:
    """One digest per row of the (M, ...) `arrays` together: the exact bytes of the row in
    each (so equal inputs give equal keys; -0.0 and 0.0, or two NaN payloads, only miss)."""
    rows = len(arrays[0]) if arrays else 0
    if rows == 0:
        return []
    blocks = [np.ascontiguousarray(a).reshape(rows, -1).view(np.uint8).reshape(rows, -1) for a in arrays]
    return [hashlib.blake2b(row.tobytes(), digest_size=KEY_BYTES).digest() for row in np.concatenate(blocks, axis=1)]


@dataclass
class Memo:
    """Results by key, each a row of `width` floats. `known` is what an earlier build left;
    `used` collects what this build looked up or computed (what `save` keeps)."""

    width: int
    known: dict[bytes, tuple[float, ...]] = field(default_factory=dict)
    used: dict[bytes, tuple[float, ...]] = field(default_factory=dict)

    def fill(self, keys: list[bytes], compute: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
        """The (len(keys), width) results: known ones from the memo, the others from
        `compute(positions)`, which returns the rows of the keys at those positions."""
        out = np.empty((len(keys), self.width))
        missing = []
        for i, key in enumerate(keys):
            found = self.known.get(key)
            if found is None:
                missing.append(i)
            else:
                out[i] = found
        if missing:
            at = np.asarray(missing, dtype=np.int64)
            out[at] = np.asarray(compute(at), dtype=float).reshape(len(at), self.width)
        for key, values in zip(keys, out.tolist()):
            self.used[key] = tuple(values)
        return out

    def arrays(self, name: str) -> dict[str, np.ndarray]:
        """`known` as two arrays: the keys (a row of bytes each) and the values."""
        keys = (np.frombuffer(b"".join(self.known), dtype=np.uint8).reshape(len(self.known), -1) if self.known
                else np.zeros((0, KEY_BYTES), dtype=np.uint8))
        values = np.array(list(self.known.values()), dtype=float).reshape(-1, self.width)
        return {f"{name}_keys": keys, f"{name}_values": values}

    @classmethod
    def from_arrays(cls, width: int, keys: np.ndarray, values: np.ndarray) -> Memo:
        if keys.ndim != 2 or values.shape != (len(keys), width):
            return cls(width)
        return cls(width, dict(zip((bytes(k) for k in keys), map(tuple, values.tolist()))))


@dataclass
class RankMemo:
    """The memo of `rank_board`: ReasonScore intervals per model, win rates per pair."""

    salt: str
    #: key: the model's (low, high, present) task rows -> (ci_low, ci_high)
    scores: Memo = field(default_factory=lambda: Memo(2))
    #: key: the two models' (alpha, beta, present) task rows -> (win rate, tasks shared)
    pairs: Memo = field(default_factory=lambda: Memo(2))

    def fresh(self) -> RankMemo:
        """What this build used, as the memo the next build will read."""
        return RankMemo(self.salt, Memo(2, dict(self.scores.used)), Memo(2, dict(self.pairs.used)))

    def to_bytes(self) -> bytes:
        buffer = io.BytesIO()
        arrays: dict[str, Any] = {"salt": np.array(self.salt), **self.scores.arrays("scores"),
                                  **self.pairs.arrays("pairs")}
        np.savez(buffer, **arrays)
        return buffer.getvalue()

    def save(self, path: Path) -> None:
        """The `known` entries, written atomically (save the `fresh` memo: only what this
        build used, so the file does not grow with history)."""
        write_atomically(path, self.to_bytes())

    @classmethod
    def load(cls, path: Path, salt: str) -> RankMemo:
        """The memo at `path` when its salt is `salt`; else (absent, damaged, other code or
        settings) an empty one: a memo only ever saves time."""
        try:
            with np.load(path, allow_pickle=False) as found:
                if str(found["salt"]) != salt:
                    return cls(salt)
                return cls(salt, Memo.from_arrays(2, found["scores_keys"], found["scores_values"]),
                           Memo.from_arrays(2, found["pairs_keys"], found["pairs_values"]))
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
            return cls(salt)
