"""Pairwise win rates and Bradley–Terry strengths (STATISTICS.md §8, after seed 003).

Each (model, task) interval becomes a Beta distribution by moments. `P(A > B)` on a task
is computed by quadrature rather than by Monte Carlo (§8 allows "any numerical method
agreeing within 0.01"). Comparing X_A and X_B is the same as comparing logit(X_A) and
logit(X_B), and in logit space both densities are smooth and bounded (no pole at 0 or 1
when a shape parameter is below 1). Each distribution gets its own grid of `CELLS`
midpoints over mean ± `SPAN` sd in logit space (`FINE_CELLS` when a shape parameter is
below 1/2), normalised on it; `P(A > B)` sums the narrower one's cell masses times the
wider one's CDF interpolated at its midpoints. The normalisation cancels the Beta
function; the result is deterministic and seed-free. It is
vectorised over (pair, task) in chunks, which makes it cheap enough to give every ranked
model its win rates against its nearest neighbours, not just the top `pairwise_top`. The
overall win rate averages over the tasks both models have.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

Z95 = 1.959963984540054
MIN_K = 2.0
CELLS = 256
FINE_CELLS = 16384
SPAN = 12.0
#: (pair, task) combinations per chunk: 8192 x 256 cells x 8 bytes = 16 MB per temporary.
CHUNK = 8192
#: Cells per block of `_grids` rows: 64 K doubles (512 KB) per temporary, which stays in cache.
GRID_BLOCK = 65536


@dataclass(frozen=True)
class Pairwise:
    win_rate: np.ndarray       # (M, M) P(row beats column), NaN on the diagonal / no shared task
    tasks_shared: np.ndarray   # (M, M) int
    expected_wins: np.ndarray  # (M,)
    strength: np.ndarray       # (M,) Bradley–Terry, geometric mean 1
    iterations: int


def beta_parameters(center: np.ndarray, low: np.ndarray, high: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Method-of-moments Beta(α, β) with mean `center` and sd `(high - low) / 2 / z95`.

    When the moments admit no Beta (k <= 0) or the center sits on 0 or 1, σ is set so that
    k = 2, as STATISTICS.md §8 prescribes; centers are nudged inside (0, 1) by 1e-6 so both
    shape parameters stay positive.
    """
    c = np.clip(np.asarray(center, dtype=float), 1e-6, 1 - 1e-6)
    sigma = (np.asarray(high, dtype=float) - np.asarray(low, dtype=float)) / 2.0 / Z95
    sigma_cap = np.sqrt(c * (1 - c) / (MIN_K + 1.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        k = c * (1 - c) / sigma**2 - 1.0
    # §8: no Beta matches the moments (k <= 0), or the center sits on 0 or 1: cap σ so k = 2.
    raw = np.asarray(center, dtype=float)
    bad = (np.isfinite(k) & (k <= 0)) | (raw <= 0) | (raw >= 1)
    sigma = np.where(bad, sigma_cap, sigma)
    # A zero-width interval is certainty: a very narrow Beta, not an infinite k.
    sigma = np.maximum(sigma, 1e-6)
    k = c * (1 - c) / sigma**2 - 1.0
    return c * k, (1 - c) * k


def task_win_probability(alpha_a: np.ndarray, beta_a: np.ndarray, alpha_b: np.ndarray,
                         beta_b: np.ndarray) -> np.ndarray:
    """P(X_A > X_B) for independent Beta(α_a, β_a) and Beta(α_b, β_b), elementwise (1-D)."""
    alpha_a, beta_a, alpha_b, beta_b = (np.atleast_1d(np.asarray(v, dtype=float))
                                        for v in (alpha_a, beta_a, alpha_b, beta_b))
    p = len(alpha_a)
    alpha = np.concatenate([alpha_a, alpha_b])
    beta = np.concatenate([beta_a, beta_b])
    return _probabilities(alpha, beta, np.arange(p), np.arange(p, 2 * p))


def _probabilities(alpha: np.ndarray, beta: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """P(X_a > X_b) for pairs of indices into flat arrays of distributions.

    Every distribution's grid is built once and shared by all the pairs it is in; pairs
    with a very skewed member (a shape below 1/2) are redone on finer grids.
    """
    out = _beats(_grids(alpha, beta, CELLS), a, b)
    skewed = (np.minimum(alpha, beta) < 0.5)
    redo = skewed[a] | skewed[b]
    if redo.any():
        used, inverse = np.unique(np.concatenate([a[redo], b[redo]]), return_inverse=True)
        fine = _grids(alpha[used], beta[used], FINE_CELLS)
        k = int(redo.sum())
        out[redo] = _beats(fine, inverse[:k], inverse[k:])
    return out


def _digamma_trigamma(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """ψ(x) and ψ'(x) for x > 0: shift up by recurrence, then the asymptotic series."""
    x = np.asarray(x, dtype=float).copy()
    psi = np.zeros_like(x)
    psi1 = np.zeros_like(x)
    for _ in range(8):
        small = x < 8.0
        psi -= np.where(small, 1.0 / x, 0.0)
        psi1 += np.where(small, 1.0 / x**2, 0.0)
        x = np.where(small, x + 1.0, x)
    inv = 1.0 / x
    inv2 = inv * inv
    psi += np.log(x) - 0.5 * inv - inv2 * (1 / 12 - inv2 * (1 / 120 - inv2 / 252))
    psi1 += inv + 0.5 * inv2 + inv * inv2 * (1 / 6 - inv2 * (1 / 30 - inv2 / 42))
    return psi, psi1


def _logit_moments(alpha: np.ndarray, beta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and sd of logit(X) for X ~ Beta(α, β): ψ(α) - ψ(β) and sqrt(ψ'(α) + ψ'(β))."""
    pa, pa1 = _digamma_trigamma(alpha)
    pb, pb1 = _digamma_trigamma(beta)
    return pa - pb, np.sqrt(pa1 + pb1)


@dataclass(frozen=True)
class _Grids:
    """Each distribution's density on its own grid in logit space (one row each)."""

    lo: np.ndarray       # (D,) left edge
    width: np.ndarray    # (D,) cell width
    sd: np.ndarray       # (D,) sd in logit space
    mid: np.ndarray      # (D, C) cell midpoints
    weights: np.ndarray  # (D, C) probability mass per cell
    edges: np.ndarray    # (D, C + 1) CDF at the cell edges


def _grids(alpha: np.ndarray, beta: np.ndarray, cells: int) -> _Grids:
    """`cells` cells over mean ± SPAN sd of logit(X), masses by the midpoint rule.

    In logit space the Beta density is x^α (1-x)^β = exp(α y - (α + β) log(1 + e^y)):
    bounded and log-concave even when α or β is below 1, where the density in x has a pole
    at the edge. Normalising on the grid cancels the Beta function.
    """
    mean, sd = _logit_moments(alpha, beta)
    lo = mean - SPAN * sd
    width = 2.0 * SPAN * sd / cells
    d = len(alpha)
    steps = (np.arange(cells) + 0.5)[None, :]
    mid = np.empty((d, cells))
    weights = np.empty((d, cells))
    edges = np.empty((d, cells + 1))
    edges[:, 0] = 0.0
    # Rows are independent: a block of them at a time keeps the temporaries in cache, and
    # each row is computed exactly as a whole-array expression would compute it.
    rows = max(1, GRID_BLOCK // cells)
    for start in range(0, d, rows):
        block = slice(start, start + rows)
        a, total = alpha[block, None], (alpha + beta)[block, None]
        m = np.multiply(steps, width[block, None], out=mid[block])
        m += lo[block, None]  # lo + steps * width
        log_pdf = np.logaddexp(0.0, m)
        log_pdf *= total
        log_pdf = np.subtract(a * m, log_pdf, out=log_pdf)
        log_pdf -= log_pdf.max(axis=1, keepdims=True)
        w = np.exp(log_pdf, out=weights[block])
        w /= w.sum(axis=1, keepdims=True)
        np.cumsum(w, axis=1, out=edges[block, 1:])
    return _Grids(lo, width, sd, mid, weights, edges)


def _beats(g: _Grids, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """P(X_a > X_b), integrated over the narrower distribution's own grid, in chunks.

    The wider distribution's CDF is smooth on the narrower one's scale, so interpolating it
    (linearly within its cells) at the narrow one's midpoints is accurate; the other way
    round, the narrow one's step would fall inside one coarse cell.
    """
    out = np.empty(len(a))
    cells = g.weights.shape[1]
    for start in range(0, len(a), CHUNK):
        aa, bb = a[start:start + CHUNK], b[start:start + CHUNK]
        a_narrow = g.sd[aa] <= g.sd[bb]
        n = np.where(a_narrow, aa, bb)
        w = np.where(a_narrow, bb, aa)
        # The same expressions as whole arrays, with the temporaries reused in place.
        pos = g.mid[n]
        pos -= g.lo[w][:, None]
        pos /= g.width[w][:, None]
        cell = np.floor(pos).astype(np.int64)
        np.clip(cell, 0, cells - 1, out=cell)
        frac = np.subtract(pos, cell)
        np.clip(frac, 0.0, 1.0, out=frac)
        flat = cell
        flat += (w * cells)[:, None]  # (w, cell) in the flattened (D, C) weights
        cdf = np.take(g.weights, flat)
        cdf *= frac
        flat += w[:, None]  # (w, cell) in the flattened (D, C + 1) edges
        cdf += np.take(g.edges, flat)  # edges + frac * weights
        cdf[pos < 0] = 0.0
        cdf[pos >= cells] = 1.0
        n_beats_w = np.einsum("ij,ij->i", g.weights[n], cdf)
        out[start:start + CHUNK] = np.where(a_narrow, n_beats_w, 1.0 - n_beats_w)
    return out


def pair_win_rates(alpha: np.ndarray, beta: np.ndarray, present: np.ndarray,
                   pairs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean over shared tasks of P(X_a > X_b) for each row (a, b) of `pairs`.

    `alpha`, `beta`, `present` are (M, T). Returns the rates (NaN where no task is shared)
    and the shared-task counts.
    """
    pairs = np.asarray(pairs, dtype=int).reshape(-1, 2)
    m, t = alpha.shape
    a, b = pairs[:, 0], pairs[:, 1]
    both = present[a] & present[b]  # (P, T)
    p_idx, t_idx = np.nonzero(both)
    flat = np.flatnonzero(present.ravel())           # distributions that exist
    position = np.full(m * t, -1)
    position[flat] = np.arange(len(flat))
    probs = np.zeros(0)
    if len(p_idx):
        probs = _probabilities(alpha.ravel()[flat], beta.ravel()[flat],
                               position[a[p_idx] * t + t_idx], position[b[p_idx] * t + t_idx])
    total = np.bincount(p_idx, weights=probs, minlength=len(pairs))
    shared = both.sum(axis=1)
    rate = np.where(shared > 0, total / np.maximum(shared, 1), np.nan)
    return rate, shared


def win_rates(center: np.ndarray, low: np.ndarray, high: np.ndarray,
              present: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(M, M) overall win rates (row beats column; NaN on the diagonal) and shared-task counts.

    Each unordered pair is integrated once: for continuous distributions
    P(B > A) = 1 - P(A > B) on every task, hence also for the mean over tasks.
    """
    alpha, beta = beta_parameters(center, low, high)
    present = np.asarray(present, dtype=bool)
    m = len(alpha)
    rows, cols = np.triu_indices(m, k=1)
    upper, shared_upper = pair_win_rates(alpha, beta, present, np.stack([rows, cols], axis=1))
    rate = np.full((m, m), np.nan)
    shared = np.zeros((m, m), dtype=int)
    rate[rows, cols], rate[cols, rows] = upper, 1.0 - upper
    shared[rows, cols] = shared_upper
    shared[cols, rows] = shared_upper
    return rate, shared


#: Models on either side of each ranked model whose win rates (and, with trials, paired
#: tests) the statistics give: a model page's neighbours table lists these and no more.
NEIGHBOUR_REACH = 2


def neighbour_win_rates(center: np.ndarray, low: np.ndarray, high: np.ndarray, present: np.ndarray,
                        reach: int = NEIGHBOUR_REACH) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Win rates of each model (rows in rank order) against the `reach` models on either side.

    Returns `pairs` (P, 2) of row indices, the rate of the first over the second, and the
    shared-task counts; both directions are listed so each model can read its own.
    """
    alpha, beta = beta_parameters(center, low, high)
    m = len(alpha)
    forward = np.array([(i, i + d) for d in range(1, reach + 1) for i in range(m - d)], dtype=int).reshape(-1, 2)
    rate, shared = pair_win_rates(alpha, beta, np.asarray(present, dtype=bool), forward)
    pairs = np.concatenate([forward, forward[:, ::-1]])
    return pairs, np.concatenate([rate, 1.0 - rate]), np.concatenate([shared, shared])


def bradley_terry(wins: np.ndarray, tol: float = 1e-9, max_iter: int = 100_000) -> tuple[np.ndarray, int]:
    """Strengths maximising Σ w_AB log(π_A / (π_A + π_B)) by minorisation–maximisation.

    `wins[a, b]` is the (fractional) number of wins of a over b; NaN means no comparison.
    Update (Hunter 2004): π_A ← W_A / Σ_B n_AB / (π_A + π_B) with n_AB = w_AB + w_BA,
    iterated until the largest relative change is below `tol`; normalised to geometric
    mean 1.
    """
    w = np.nan_to_num(np.asarray(wins, dtype=float), nan=0.0)
    np.fill_diagonal(w, 0.0)
    n = w + w.T
    total_wins = w.sum(axis=1)
    pi = _newton_start(w, n, total_wins)
    it = 0
    for it in range(1, max_iter + 1):  # noqa: B007 (`it` is returned: the iterations used)
        denom = (n / (pi[:, None] + pi[None, :])).sum(axis=1)
        new = np.where(denom > 0, total_wins / np.where(denom > 0, denom, 1.0), pi)
        new = np.maximum(new, 1e-300)
        new /= np.exp(np.log(new).mean())
        change = np.max(np.abs(new - pi) / pi)
        pi = new
        if change < tol:
            break
    return pi, it


def _log_likelihood(theta: np.ndarray, w: np.ndarray) -> float:
    diff = theta[:, None] - theta[None, :]
    return float((w * -np.logaddexp(0.0, -diff)).sum())


def _newton_start(w: np.ndarray, n: np.ndarray, total_wins: np.ndarray, steps: int = 50) -> np.ndarray:
    """A warm start for the MM iterations: Newton's method on log-strengths.

    Plain MM converges linearly and needs tens of thousands of sweeps when strengths are
    spread out; a few Newton steps (with step halving, so the likelihood never drops) land
    next to the same maximum, and the MM loop then confirms it to the 1e-9 criterion.
    """
    m = len(w)
    theta = np.zeros(m)
    current = _log_likelihood(theta, w)
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-(theta[:, None] - theta[None, :])))
        grad = total_wins - (n * p).sum(axis=1)
        curv = n * p * p.T
        hess = curv - np.diag(curv.sum(axis=1))
        # The likelihood is flat along theta + c; pin the mean with a rank-one term.
        step = np.linalg.lstsq(hess - np.ones((m, m)) / m, -grad, rcond=None)[0]
        scale = 1.0
        while scale > 1e-6:
            candidate = theta + scale * step
            value = _log_likelihood(candidate, w)
            if value >= current:
                break
            scale /= 2
        else:
            break
        theta, improved = candidate - candidate.mean(), value - current
        current = value
        if improved < 1e-14 * max(1.0, abs(current)):
            break
    pi = np.exp(theta)
    strength: np.ndarray = pi / np.exp(np.log(pi).mean())
    return strength


def pairwise(center: np.ndarray, low: np.ndarray, high: np.ndarray, present: np.ndarray) -> Pairwise:
    rate, shared = win_rates(center, low, high, present)
    expected = np.nansum(rate, axis=1)
    strength, iterations = bradley_terry(rate)
    return Pairwise(rate, shared, expected, strength, iterations)
