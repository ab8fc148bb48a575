"""The batch engine against the one-pair functions it must equal, pair by pair: evaluations
answering different subsets of a task's items, some with epochs, in several strata."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from reasonboard.stats import boardtests, paired, pairing
from reasonboard.stats.paired import Side, Stratum
from reasonboard.store.items import TaskItems


def random_task(rng: np.random.Generator, task: str, evaluations: int, epochs: set[int],
                complete: tuple[int, ...] = ()) -> TaskItems:
    params = ('{"d": 1}', '{"d": 2}', '{"d": 3}')
    sample_ids = tuple(tuple(sorted(f"{task}-{s}-{i}" for i in range(12 + 4 * s))) for s in range(len(params)))
    rows = []
    for e in range(evaluations):
        skill = rng.random()
        for s, ids in enumerate(sample_ids):
            answered = np.flatnonzero(rng.random(len(ids)) < (0.7 if e % 3 and s not in complete else 1.0))
            for i in answered.tolist():
                m = int(rng.integers(1, 4)) if e in epochs else 1
                t = int((rng.random(m) < 0.1).sum())
                c = int((rng.random(m - t) < skill).sum())
                opts = 4 if s == 1 else 0
                rows.append((e, s, i, m, c, t, (m - t) / opts if opts else 0.0))
    cols = list(zip(*rows))
    return TaskItems(task, params, sample_ids, *(np.array(col) for col in cols))


def strata_of(items: TaskItems, a: int, b: int) -> list[Stratum]:
    out = []
    def side_rows(e, s):
        rows = np.flatnonzero((items.evaluation == e) & (items.stratum == s))
        return {int(items.item[r]): r for r in rows}

    def side(rows, shared):
        idx = np.array([rows[i] for i in shared])
        return Side(items.trials[idx], items.correct[idx], items.truncated[idx], items.guess[idx])

    for s, ids in enumerate(items.sample_ids):
        ra, rb = side_rows(a, s), side_rows(b, s)
        shared = sorted(ra.keys() & rb.keys())
        if shared:
            out.append(Stratum(items.params[s], tuple(ids[i] for i in shared), side(ra, shared), side(rb, shared)))
    return out


@pytest.mark.parametrize(("epochs", "unit", "complete"),
                         [(set(), 12, ()), ({1, 4}, 12, ()), ({1, 4}, 0, ()), (set(), 7, ()), ({1}, 12, (0, 2))])
def test_engine_equals_one_pair_at_a_time(epochs, unit, complete, monkeypatch):
    """Packed sums (one trial per item, guess sums whole in units of 1/12), the design
    effect's columns (epochs; or guess sums not whole: 1/4 is not a multiple of 1/7), several
    blocks of evaluations, and strata every evaluation answers in full (no pair shares fewer
    items there)."""
    monkeypatch.setattr(pairing, "BLOCK_BYTES", 15_000)
    rng = np.random.default_rng(1)
    tasks = [replace(random_task(rng, name, 7, epochs, complete), guess_unit=unit) for name in ("alpha", "beta")]
    pairs = np.array([(0, 1), (1, 2), (2, 3), (5, 4), (0, 6), (3, 1), (6, 2), (4, 0), (2, 5)])
    draws, seed = 300, 42
    for items in tasks:
        got = pairing.task_tests(items, pairs, draws, seed, min_samples=5)
        for (a, b), test in zip(pairs.tolist(), got):
            strata = strata_of(items, a, b)
            want = paired.paired_task(items.task, strata, draws, seed)
            assert test is not None
            assert test.method == want.method
            assert test.shared == want.shared
            assert (test.effect, test.low, test.high, test.p) == pytest.approx((want.effect, want.low, want.high, want.p),
                                                                                 abs=1e-12)
    board = boardtests.board_tests(tasks, pairs, draws, seed, min_samples=5)
    for (a, b), test in zip(pairs.tolist(), board):
        want = paired.paired_board([(t.task, strata_of(t, a, b)) for t in tasks], draws, seed)
        assert test is not None
        assert (test.shared, test.method) == (want.shared, want.method)
        assert (test.effect, test.low, test.high, test.p) == pytest.approx((want.effect, want.low, want.high, want.p),
                                                                             abs=1e-9)


def test_too_few_shared_items_leave_the_overlap_rule():
    rng = np.random.default_rng(2)
    items = random_task(rng, "alpha", 3, set())
    pairs = np.array([(0, 1), (1, 2)])
    shared = [t.shared for t in pairing.task_tests(items, pairs, 50, 1, min_samples=1)]
    got = pairing.task_tests(items, pairs, 50, 1, min_samples=min(shared) + 1)
    assert [t is None for t in got] == [s < min(shared) + 1 for s in shared]
    assert boardtests.board_tests([items], pairs, 50, 1, min_samples=10**6) == [None, None]


@pytest.mark.parametrize("options", [True, False])
def test_packed_sums_in_float32_are_the_float64_ones(options, monkeypatch):
    """One-trial evaluations' sums are whole numbers: made in float32 (every sum below 2**24)
    they are bit for bit those of the float64 packing, with a guess column or without one (no
    item with answer options), and with several blocks of evaluations."""
    monkeypatch.setattr(pairing, "BLOCK_BYTES", 15_000)
    rng = np.random.default_rng(3)
    items = random_task(rng, "alpha", 9, {2})
    if not options:
        items = replace(items, guess=np.zeros_like(items.guess), guess_unit=1)
    pairs = np.array([(0, 1), (1, 2), (2, 3), (3, 4), (5, 4), (0, 6), (7, 8), (8, 1), (6, 2)])

    def sides() -> list[np.ndarray]:
        found = pairing.task_sides(items, pairs, 200, 7)
        return [found.cp, found.x, found.side, found.shared, found.b, found.c]

    single = sides()
    monkeypatch.setattr(pairing.resample, "EXACT32", 1.0)  # no sum fits: the float64 packing
    for got, want in zip(single, sides()):
        assert got.dtype == want.dtype
        assert np.array_equal(got, want)
