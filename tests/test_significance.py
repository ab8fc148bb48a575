"""Rank ranges, ties and tie groups (STATISTICS.md section 7) against brute force.

Closed intervals throughout: touching endpoints overlap (A and B are distinct only when
A.low > B.high or B.low > A.high).
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reasonboard.stats.significance import rank_order, rank_ranges, significance, tie_groups, tied_counts, tied_lists


def overlap(lo, hi, a, b):
    return not (lo[a] > hi[b] or lo[b] > hi[a])


def brute_rank_ranges(lo, hi):
    n = len(lo)
    best = [1 + sum(1 for b in range(n) if lo[b] > hi[a]) for a in range(n)]
    worst = [sum(1 for b in range(n) if hi[b] >= lo[a]) for a in range(n)]
    return best, worst


def brute_cliques_by_subsets(lo, hi):
    """Every maximal clique of >= 2 members, by checking all subsets (small n only)."""
    n = len(lo)
    cliques = [set(s) for k in range(2, n + 1) for s in combinations(range(n), k)
               if all(overlap(lo, hi, a, b) for a, b in combinations(s, 2))]
    maximal = [c for c in cliques if not any(c < d for d in cliques)]
    return sorted(sorted(c) for c in maximal)


def bron_kerbosch(lo, hi):
    """Maximal cliques of the overlap graph (Bron–Kerbosch with pivoting), >= 2 members."""
    n = len(lo)
    adj = {a: {b for b in range(n) if b != a and overlap(lo, hi, a, b)} for a in range(n)}
    out = []

    def expand(r, p, x):
        if not p and not x:
            if len(r) >= 2:
                out.append(sorted(r))
            return
        pivot = max(p | x, key=lambda v: len(adj[v] & p))
        for v in list(p - adj[pivot]):
            expand(r | {v}, p & adj[v], x & adj[v])
            p = p - {v}
            x = x | {v}

    expand(set(), set(range(n)), set())
    return sorted(out)


def test_hand_worked_example():
    # In rank order (best first):    A [90, 100]  B [85, 95]  C [80, 85]  D [79, 79]  E [60, 79]
    lo = np.array([90.0, 85.0, 80.0, 79.0, 60.0])
    hi = np.array([100.0, 95.0, 85.0, 79.0, 79.0])
    sig = significance(lo, hi)
    # A overlaps B only; C touches B at 85; D (zero width) touches E at 79; C and D are
    # distinct (80 > 79), so D and E have A, B and C certainly above them.
    assert sig.rank_best.tolist() == [1, 1, 2, 4, 4]
    assert sig.rank_worst.tolist() == [2, 3, 3, 5, 5]
    assert sig.tied_count.tolist() == [1, 2, 1, 1, 1]
    assert sig.distinct_from_next == [False, False, True, False, None]
    assert sig.tie_groups == [[0, 1], [1, 2], [3, 4]]


def test_no_overlap_and_full_overlap():
    lo, hi = np.array([9.0, 6.0, 3.0]), np.array([10.0, 7.0, 4.0])
    sig = significance(lo, hi)
    assert sig.rank_best.tolist() == sig.rank_worst.tolist() == [1, 2, 3]
    assert sig.tie_groups == [] and sig.tied_count.tolist() == [0, 0, 0]
    assert sig.distinct_from_next == [True, True, None]
    sig = significance(np.array([1.0, 2.0, 3.0]), np.array([5.0, 5.0, 3.0]))
    assert sig.tie_groups == [[0, 1, 2]] and sig.rank_best.tolist() == [1, 1, 1]
    assert sig.rank_worst.tolist() == [3, 3, 3]


def test_empty_and_single():
    sig = significance(np.array([]), np.array([]))
    assert sig.tie_groups == [] and sig.distinct_from_next == []
    sig = significance(np.array([5.0]), np.array([6.0]))
    assert sig.rank_best.tolist() == [1] and sig.rank_worst.tolist() == [1] and sig.distinct_from_next == [None]


def test_rank_order_breaks_ties_by_name():
    centers = np.array([500.0, 700.0, 500.0, 700.0, 100.0])
    names = ["delta", "bravo", "alpha", "charlie", "echo"]
    assert [names[i] for i in rank_order(centers, names)] == ["bravo", "charlie", "alpha", "delta", "echo"]


@st.composite
def intervals(draw, max_n=12, grid=12):
    """Intervals with endpoints on a coarse grid, so touching and equal endpoints and
    zero-width intervals are common."""
    n = draw(st.integers(0, max_n))
    a = draw(st.lists(st.integers(0, grid), min_size=n, max_size=n))
    b = draw(st.lists(st.integers(0, grid), min_size=n, max_size=n))
    lo = np.array([min(x, y) for x, y in zip(a, b)], dtype=float)
    hi = np.array([max(x, y) for x, y in zip(a, b)], dtype=float)
    return lo, hi


@settings(max_examples=120, deadline=None)
@given(iv=intervals(max_n=9))
def test_against_brute_force_small(iv):
    lo, hi = iv
    best, worst = rank_ranges(lo, hi)
    assert (best.tolist(), worst.tolist()) == brute_rank_ranges(lo, hi)
    n = len(lo)
    assert tied_lists(lo, hi) == [[b for b in range(n) if b != a and overlap(lo, hi, a, b)] for a in range(n)]
    assert tied_counts(lo, hi).tolist() == [sum(1 for b in range(n) if b != a and overlap(lo, hi, a, b)) for a in range(n)]
    assert sorted(tie_groups(lo, hi)) == brute_cliques_by_subsets(lo, hi)


@settings(max_examples=100, deadline=None)
@given(iv=intervals(max_n=30, grid=45))
def test_tie_groups_against_bron_kerbosch(iv):
    lo, hi = iv
    assert sorted(tie_groups(lo, hi)) == bron_kerbosch(lo, hi)


@settings(max_examples=100, deadline=None)
@given(iv=intervals(max_n=15, grid=30), names=st.lists(st.text("abc", min_size=1, max_size=3), min_size=15,
                                                       max_size=15, unique=True))
def test_significance_in_rank_order(iv, names):
    lo, hi = iv
    n = len(lo)
    order = rank_order((lo + hi) / 2, names[:n])
    lo, hi = lo[order], hi[order]
    sig = significance(lo, hi)
    # Rank (by center) lies within the rank range.
    for r in range(n):
        assert sig.rank_best[r] <= r + 1 <= sig.rank_worst[r]
    assert sig.distinct_from_next == [(not overlap(lo, hi, i, i + 1)) if i + 1 < n else None for i in range(n)]
    assert sig.tie_groups == sorted(sig.tie_groups)
    # Every tie lies in some tie group, and every group is a set of mutual ties.
    tied = [[b for b in range(n) if b != a and overlap(lo, hi, a, b)] for a in range(n)]
    assert sig.tied_count.tolist() == [len(t) for t in tied]
    for a in range(n):
        for b in tied[a]:
            assert any(a in g and b in g for g in sig.tie_groups)
    for g in sig.tie_groups:
        assert all(b in tied[a] for a, b in combinations(g, 2))


def test_real_valued_touching_endpoints():
    # Bounds from arithmetic that meet exactly still count as overlapping.
    lo = np.array([0.1 + 0.2, 0.0])
    hi = np.array([1.0, 0.30000000000000004])
    assert tie_groups(lo, hi) == [[0, 1]]
    assert rank_ranges(lo, hi)[1].tolist() == [2, 2]
    lo[0] = np.nextafter(hi[1], 1.0)
    assert tie_groups(lo, hi) == [] and rank_ranges(lo, hi)[0].tolist() == [1, 2]


@pytest.mark.parametrize("n", [200])
def test_many_nested_intervals_form_one_group(n):
    lo = np.arange(n, dtype=float)
    hi = 2 * n - lo
    assert tie_groups(lo, hi) == [list(range(n))]
