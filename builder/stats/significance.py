"""Significance overlaps between intervals (STATISTICS.md §7).

Two models are statistically distinct when their intervals do not overlap, tied otherwise.
Everything here works on arrays of interval bounds and is O(n log n) except the explicit
tie lists and tie groups' member lists, whose size is the size of the answer (the build
publishes only counts, rank ranges and intervals: `tied_counts`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Significance:
    """For M ranked models given in rank order (best first)."""

    rank_best: np.ndarray   # (M,) int
    rank_worst: np.ndarray  # (M,) int
    tied_count: np.ndarray  # (M,) int: how many other models' intervals overlap each one
    distinct_from_next: list[bool | None]
    tie_groups: list[list[int]]         # maximal cliques of >= 2 members, in rank order


def rank_order(center: np.ndarray, names: list[str]) -> np.ndarray:
    """Indices sorted by center descending, ties in center broken by name."""
    return np.lexsort((np.array(names, dtype=object), -np.asarray(center, dtype=float)))


def rank_ranges(low: np.ndarray, high: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Best rank `1 + #{B: B.low > A.high}`, worst rank `#{B: B.high >= A.low}` (A counts itself)."""
    low = np.asarray(low, dtype=float)
    high = np.asarray(high, dtype=float)
    sorted_low = np.sort(low)
    sorted_high = np.sort(high)
    better = len(low) - np.searchsorted(sorted_low, high, side="right")
    not_worse = len(high) - np.searchsorted(sorted_high, low, side="left")
    return 1 + better, not_worse


def overlaps(low: np.ndarray, high: np.ndarray, i: int, j: int) -> bool:
    return not (low[i] > high[j] or low[j] > high[i])


def tied_counts(low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """For each interval, how many others it overlaps (closed intervals), by two binary searches:
    all, minus those entirely above it, minus those entirely below it, minus itself. The lists
    themselves grow with the square of the number of models (`tied_lists`); the count does not."""
    low = np.asarray(low, dtype=float)
    high = np.asarray(high, dtype=float)
    n = len(low)
    above = n - np.searchsorted(np.sort(low), high, side="right")   # B.low > A.high
    below = np.searchsorted(np.sort(high), low, side="left")        # B.high < A.low
    return (n - above - below - 1).astype(np.int64)


def tied_lists(low: np.ndarray, high: np.ndarray) -> list[list[int]]:
    """For each interval, the other intervals it overlaps (closed intervals), ascending index.

    Sorting by lower bound lets each interval find its overlapping partners with two binary
    searches: every B with B.low <= A.high, minus those with B.high < A.low.
    """
    low = np.asarray(low, dtype=float)
    high = np.asarray(high, dtype=float)
    by_low = np.argsort(low, kind="stable")
    low_sorted = low[by_low]
    ends = np.searchsorted(low_sorted, high, side="right")
    out: list[list[int]] = []
    for a in range(len(low)):
        candidates = by_low[: ends[a]]
        partners = candidates[(high[candidates] >= low[a]) & (candidates != a)]
        out.append(sorted(partners.tolist()))
    return out


def tie_groups(low: np.ndarray, high: np.ndarray) -> list[list[int]]:
    """Maximal cliques of the interval-overlap graph by one sorted sweep.

    Closed intervals: at equal coordinates openings come before closings, so touching
    intervals overlap. A clique is maximal exactly when a closing event follows an opening
    one; the set of open intervals at that moment is the clique. Singletons are dropped (a
    model tied with nobody is not a tie group).
    """
    low = np.asarray(low, dtype=float)
    high = np.asarray(high, dtype=float)
    n = len(low)
    coords = np.concatenate([low, high])
    kinds = np.concatenate([np.zeros(n, dtype=int), np.ones(n, dtype=int)])  # 0 open, 1 close
    ids = np.concatenate([np.arange(n), np.arange(n)])
    order = np.lexsort((ids, kinds, coords))
    active: set[int] = set()
    groups: list[list[int]] = []
    last_was_open = False
    for e in order.tolist():
        if kinds[e] == 0:
            active.add(int(ids[e]))
            last_was_open = True
        else:
            if last_was_open and len(active) >= 2:
                groups.append(sorted(active))
            active.discard(int(ids[e]))
            last_was_open = False
    return groups


def significance(low: np.ndarray, high: np.ndarray) -> Significance:
    """All overlap facts for intervals given in rank order."""
    best, worst = rank_ranges(low, high)
    tied = tied_counts(low, high)
    n = len(low)
    distinct_next: list[bool | None] = [
        (not overlaps(low, high, i, i + 1)) if i + 1 < n else None for i in range(n)
    ]
    groups = sorted(tie_groups(low, high))
    return Significance(best, worst, tied, distinct_next, groups)
