"""A column's `data-sort` keys: fewer digits, the same order (ties included) as the numbers."""

from __future__ import annotations

import random

from reasonboard.site.format import sort_keys


def _order(values):
    """Each value's rank among the column's distinct values (ties share a rank)."""
    distinct = sorted(set(values))
    return [distinct.index(v) for v in values]


def test_keys_sort_the_column_as_its_numbers_do():
    rng = random.Random(7)
    for _ in range(300):
        scale = rng.choice([1e-4, 1, 1000, 1e6])
        values = [rng.random() * scale for _ in range(rng.randint(1, 14))]
        values += rng.sample(values, rng.randint(0, len(values)))  # ties
        values += [values[0] + scale * 1e-12]                      # a near tie kept apart
        keys = sort_keys(values)
        assert _order([float(k) for k in keys]) == _order(values)


def test_keys_are_short_missing_is_empty_and_integers_stay_as_they_are():
    assert sort_keys([0.8127165000000001, 0.8177110000000001, None]) == ["0.81", "0.82", ""]
    assert sort_keys([1408, 1024]) == ["1408", "1024"]
    assert sort_keys([5339.673295454545, 3302.310546875]) == ["5000", "3000"]
    assert sort_keys([0.0, 0.0, 0.25]) == ["0", "0", "0.2"]
    assert sort_keys([]) == []
