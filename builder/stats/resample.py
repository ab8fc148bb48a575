"""The paired bootstrap's machinery (SAMPLES.md sections 2 and 5): seeded draw matrices per
stratum, replicate sums of per-item counters, and the effective counters and `C_P` centers
that every replicate recomputes.

Why a draw matrix per stratum and not per pair: resampling a stratum's `n` items with
replacement, `draws` times, is one `(draws, n)` matrix of counts `w` (how often each item was
drawn). Every counter a replicate needs is a weighted sum `w @ feature` of per-item columns,
and the design effect's cluster variance expands into such sums too
(`Σ w (y - m p)² = Σ w y² - 2 p Σ w y m + p² Σ w m²`). So one matrix, seeded from the
stratum's own identity (the bootstrap seed, task, `params` and a digest of the shared items'
ids), serves every evaluation that answered exactly those items: their replicate sums are one
matrix product, and a pair's paired replicates are the two sides' rows of it, the same draw
for A and B. A pair's result depends on its two evaluations and their shared items only,
never on which other evaluations are on the board, and is byte-reproducible.

Draws are made from uniform doubles in fixed-size row chunks (`Generator.random()` consumes
one 64-bit output per value whatever the chunk), so memory stays bounded for large strata and
the counts are those of drawing the whole matrix at once.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np

Z975 = 2.241402727604947
#: Uniform doubles per chunk of a draw matrix (8 MB).
CHUNK_VALUES = 1 << 20

#: Per-item feature columns: trials `m`, correct `e`, truncated `t`, guess `g`, the epoch mean
#: of correct `x`, and the second moments the design effect needs (only with epochs).
BASIC = ("m", "e", "t", "g", "x")
MOMENTS = ("ee", "em", "mm", "tt", "tm")


def _entropy(label: int | str) -> int:
    if isinstance(label, int):
        return label % 2**64
    return int.from_bytes(hashlib.sha256(label.encode("utf-8")).digest()[:8], "big")


def items_digest(sample_ids: Sequence[str]) -> str:
    """A digest of a stratum's shared items (ids in the order the draws index them)."""
    h = hashlib.sha256()
    for sid in sample_ids:
        h.update(sid.encode("utf-8"))
        h.update(b"\0")
    return h.hexdigest()[:32]


def generator(seed: int, *labels: int | str) -> np.random.Generator:
    """The stream of one stratum: independent for each (seed, labels)."""
    entropy = [_entropy(seed), *map(_entropy, labels)]
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(entropy)))


def draw_chunks(size: int, draws: int, rng: np.random.Generator) -> list[np.ndarray]:
    """The `(draws, size)` count matrix of resampling `size` items with replacement, as row
    chunks of float32 counts (exact: a count is at most `size`): row `r` counts how often each
    item is drawn in replicate `r` (each row sums to `size`). Item `j` of a row's `i`-th draw
    is `floor(u * size)` for the stream's next `u`."""
    rows = max(1, CHUNK_VALUES // max(size, 1))
    return [_counts(min(rows, draws - start), size, rng).astype(np.float32) for start in range(0, draws, rows)]


def draw_matrix(size: int, draws: int, rng: np.random.Generator, dtype: type = np.float64) -> np.ndarray:
    """`draw_chunks`'s matrix whole, in float64 (or `dtype`: float32 holds every count
    exactly), with one more row of ones (its products give the observed sums beside the
    replicates')."""
    out: np.ndarray = np.empty((draws + 1, size), dtype=dtype)
    rows = max(1, CHUNK_VALUES // max(size, 1))
    for start in range(0, draws, rows):
        r = min(rows, draws - start)
        out[start:start + r] = _counts(r, size, rng)
    out[draws] = 1.0
    return out


def _counts(r: int, size: int, rng: np.random.Generator) -> np.ndarray:
    """`(r, size)` int64 counts of the stream's next `r * size` draws."""
    picks = (rng.random((r, size)) * size).astype(np.int64)
    np.minimum(picks, size - 1, out=picks)
    picks += (np.arange(r, dtype=np.int64) * size)[:, None]
    counts: np.ndarray = np.bincount(picks.ravel(), minlength=r * size).reshape(r, size)
    return counts


def replicate_sums(features: np.ndarray, draws: int, rng: np.random.Generator) -> np.ndarray:
    """`(draws, K)`: each replicate's weighted sums of the `(size, K)` item features."""
    return weighted_sums(draw_chunks(features.shape[0], draws, rng), features)


#: float32 adds integers exactly below 2**24.
EXACT32 = float(2**24)


def weighted_sums(chunks: list[np.ndarray], features: np.ndarray) -> np.ndarray:
    """`(draws, K)` sums `w @ features` over the chunks of a draw matrix. Columns of whole
    numbers whose largest possible sum stays below 2**24 are multiplied in float32 (twice the
    speed, and exact: every product and partial sum is a whole number float32 holds), the
    others (guess sums, epoch means) in float64; either way the result does not depend on
    the order in which BLAS adds."""
    size = features.shape[0]
    whole = np.all(features == np.round(features), axis=0) & (np.abs(features).max(axis=0, initial=0.0) * size < EXACT32)
    out = np.empty((sum(len(w) for w in chunks), features.shape[1]))
    exact, rest = np.flatnonzero(whole), np.flatnonzero(~whole)
    f32 = np.ascontiguousarray(features[:, exact], dtype=np.float32)
    f64 = np.ascontiguousarray(features[:, rest])
    start = 0
    for w in chunks:
        stop = start + len(w)
        if len(exact):
            out[start:stop, exact] = w @ f32
        if len(rest):
            out[start:stop, rest] = w.astype(np.float64) @ f64
        start = stop
    return out


def features(trials: np.ndarray, correct: np.ndarray, truncated: np.ndarray, guess: np.ndarray,
             moments: bool) -> np.ndarray:
    """`(items, K)` feature columns (BASIC, then MOMENTS when `moments`) of per-item counters."""
    m = np.asarray(trials, dtype=np.float64)
    e = np.asarray(correct, dtype=np.float64)
    t = np.asarray(truncated, dtype=np.float64)
    cols = [m, e, t, np.asarray(guess, dtype=np.float64), e / m]
    if moments:
        cols += [e * e, e * m, m * m, t * t, t * m]
    return np.stack(cols, axis=1)


def effective_counters(sums: np.ndarray, clusters: int) -> np.ndarray:
    """`(..., 4)` effective counters `(n, n_t, n_e, g) / deff` of one stratum from its feature
    sums `(..., K)` over `clusters` drawn items (SAMPLES.md section 2). Without the moment
    columns every item is one trial, `m̄ = 1` and the counters are the raw sums. Each column
    is computed apart (elementwise, the same numbers in any memory layout): `sums` whose
    feature axis is outermost in memory (a transposed view) gives contiguous columns, and so
    does the result."""
    n, e, t, g = sums[..., 0], sums[..., 1], sums[..., 2], sums[..., 3]
    raw = (n, t, e, g)
    if sums.shape[-1] == len(BASIC):
        return np.stack(raw, axis=-1)
    ee, em, mm, tt, tm = (sums[..., len(BASIC) + i] for i in range(len(MOMENTS)))
    mbar = n / clusters
    if clusters < 2:
        return _divided(raw, mbar)
    deff = np.zeros_like(n)
    varies_any = np.zeros(n.shape, dtype=bool)
    with np.errstate(divide="ignore", invalid="ignore"):
        for y, yy, ym in ((e, ee, em), (t, tt, tm)):
            p = y / n
            v_srs = p * (1.0 - p) / n
            v_cluster = clusters / (clusters - 1) * (yy - 2.0 * p * ym + p * p * mm) / (n * n)
            varies = v_srs > 0
            ratio = np.clip(np.where(varies, v_cluster / np.where(varies, v_srs, 1.0), 1.0), 1.0, mbar)
            deff = np.where(varies, np.maximum(deff, ratio), deff)
            varies_any |= varies
    return _divided(raw, np.where(varies_any, deff, mbar))


def _divided(columns: tuple[np.ndarray, ...], by: np.ndarray) -> np.ndarray:
    """`(..., len(columns))`: each column divided by `by`, stored column by column."""
    out = np.moveaxis(np.empty((len(columns), *by.shape)), 0, -1)
    for k, column in enumerate(columns):
        np.divide(column, by, out=out[..., k])
    return out


def wilson_center(s: np.ndarray, t: np.ndarray, z: float) -> np.ndarray:
    """STATISTICS.md section 1's center, elementwise; 0.5 where `t <= 0`."""
    t = np.asarray(t, dtype=np.float64)
    ok = t > 0
    tt = np.where(ok, t, 1.0)
    p = np.clip(np.asarray(s, dtype=np.float64), 0.0, tt) / tt
    z2 = z * z
    return np.where(ok, (p + z2 / (2.0 * tt)) / (1.0 + z2 / tt), 0.5)


def cp_center(counters: np.ndarray) -> np.ndarray:
    """The `C_P` estimate (STATISTICS.md section 2) of `(..., 4)` counters `(n, n_t, n_e, g)`."""
    n, nt, ne, g = (counters[..., i] for i in range(4))
    nu = n - nt
    product: np.ndarray = wilson_center(ne - g, nu - g, Z975) * wilson_center(nu, n, Z975)
    return product


def percentile_interval(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The 2.5 % and 97.5 % order statistics along the last axis, indices `floor(0.025 B)` and
    `floor(0.975 B)` of the sorted replicates (as STATISTICS.md section 4 takes them)."""
    b = values.shape[-1]
    k_low, k_high = int(np.floor(0.025 * b)), int(np.floor(0.975 * b))
    part = np.partition(values, (k_low, k_high), axis=-1)
    return part[..., k_low], part[..., k_high]


def two_sided_p(values: np.ndarray) -> np.ndarray:
    """`min(1, 2 · min(P*(d <= 0), P*(d >= 0)))` over the replicates on the last axis. A
    difference within 1e-9 of 0 counts as 0: sums of fractions (an epoch mean of 1/3) added
    in another order differ in the last bits, and a tie must not turn on which order."""
    values = np.round(values, 9)
    below = (values <= 0).mean(axis=-1)
    above = (values >= 0).mean(axis=-1)
    p: np.ndarray = np.minimum(1.0, 2.0 * np.minimum(below, above))
    return p
