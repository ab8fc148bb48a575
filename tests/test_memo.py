"""The statistics' memo between builds (stats/memo.py): a memoised interval or win
rate is, bit for bit, what computing it afresh gives, whichever rows the memo already knew;
a memo of other settings, or a damaged file, is not used; and a memo is really consulted
(a wrong entry shows, so these tests could fail)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from helpers_points import ingest_rows, point
from reasonboard.config import SiteConfig
from reasonboard.stats.bands import load_bands
from reasonboard.stats.leaderboard import memo_salt, rank_board, read_board
from reasonboard.stats.memo import Memo, RankMemo, row_keys
from reasonboard.stats.pairwise import beta_parameters, neighbour_win_rates, pair_win_rates, pairwise
from reasonboard.stats.reasonscore import reasonscore_v2

ROOT = Path(__file__).resolve().parent.parent
TASKS = ("arith", "logic", "spell", "words")


def points(models: int, better: str = "") -> list[dict]:
    """Two difficulty levels of four tasks per model; `better` answers more correctly."""
    rng = np.random.default_rng(5)
    rows = []
    for k in range(models):
        for task in TASKS:
            for level in (1, 2):
                total = int(rng.integers(40, 200))
                correct = int(rng.integers(0, total + 1))
                if f"m{k}" == better:
                    correct = min(total, correct + total // 4)
                rows.append(point(model=f"m{k}", base_task=task, params={"level": level}, total=total,
                                  correct=correct, guess=0.1 * total, tokens=float(total * 300)))
    return rows


def board(m: int = 40, t: int = 6, seed: int = 1) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(center, low, high, present) of `m` models' tasks: some tasks absent, one model with
    none, and some wide intervals against 0 (Beta shapes below 1/2, the fine grids of
    pairwise.py)."""
    rng = np.random.default_rng(seed)
    center = rng.uniform(0.05, 0.95, (m, t))
    half = rng.uniform(0.005, 0.2, (m, t))
    low, high = np.clip(center - half, 0, 1), np.clip(center + half, 0, 1)
    skewed = rng.random(m) < 0.3
    center[skewed, 0], low[skewed, 0], high[skewed, 0] = 0.02, 0.0, 0.4
    present = rng.random((m, t)) > 0.15
    present[3] = False
    center[~present], low[~present], high[~present] = np.nan, np.nan, np.nan
    return center, low, high, present


def same(a: np.ndarray, b: np.ndarray) -> None:
    """Equal to the last bit, NaN where NaN."""
    np.testing.assert_array_equal(np.asarray(a).view(np.uint64) if np.asarray(a).dtype == float else a,
                                  np.asarray(b).view(np.uint64) if np.asarray(b).dtype == float else b)


@pytest.mark.parametrize("known_rows", [slice(0, 0), slice(0, 40), slice(5, 17), slice(None, None, 3)])
def test_memoised_reasonscores_are_the_computed_ones(known_rows):
    _, low, high, present = board()
    fresh = reasonscore_v2(low, high, present, draws=400, seed=7)
    memo = Memo(2)
    # An earlier build that saw only some of these rows (and other rows besides).
    _, other_low, other_high, other_present = board(seed=9)
    mixed = np.arange(40)[known_rows]
    reasonscore_v2(np.concatenate([low[mixed], other_low]), np.concatenate([high[mixed], other_high]),
                   np.concatenate([present[mixed], other_present]), draws=400, seed=7, memo=memo)
    memo = Memo(2, memo.used)
    found = reasonscore_v2(low, high, present, draws=400, seed=7, memo=memo)
    same(found.ci_low, fresh.ci_low)
    same(found.ci_high, fresh.ci_high)
    assert set(memo.used) == set(row_keys(low, high, present))


def test_a_memo_entry_is_used_as_it_is():
    """A wrong value in the memo comes out: the memo is consulted, not recomputed."""
    _, low, high, present = board()
    key = row_keys(low, high, present)[10]
    found = reasonscore_v2(low, high, present, draws=400, seed=7, memo=Memo(2, {key: (1.0, 2.0)}))
    assert (found.ci_low[10], found.ci_high[10]) == (1.0, 2.0)
    fresh = reasonscore_v2(low, high, present, draws=400, seed=7)
    same(np.delete(found.ci_low, 10), np.delete(fresh.ci_low, 10))


@pytest.mark.parametrize("known_pairs", [slice(0, 0), slice(None, None, 2), slice(3, 40)])
def test_memoised_win_rates_are_the_computed_ones(known_pairs):
    center, low, high, present = board()
    alpha, beta = beta_parameters(center, low, high)
    assert np.nanmin(np.minimum(alpha, beta)) < 0.5, "the board must exercise the fine grids"
    rng = np.random.default_rng(4)
    pairs = rng.integers(0, 40, (120, 2))
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    rate, shared = pair_win_rates(alpha, beta, present, pairs)
    memo = Memo(2)
    pair_win_rates(alpha, beta, present, pairs[known_pairs], memo)
    memo = Memo(2, memo.used)
    got_rate, got_shared = pair_win_rates(alpha, beta, present, pairs, memo)
    same(got_rate, rate)
    np.testing.assert_array_equal(got_shared, shared)


def test_memoised_neighbour_rates_and_matrix_after_one_model_changed():
    center, low, high, present = board()
    memo = Memo(2)
    neighbour_win_rates(center, low, high, present, memo=memo)
    pairwise(center[:12], low[:12], high[:12], present[:12], memo)
    low2, high2 = low.copy(), high.copy()
    low2[5], high2[5] = np.clip(low[5] + 0.05, 0, 1), np.clip(high[5] + 0.05, 0, 1)
    center2 = center.copy()
    center2[5] = (low2[5] + high2[5]) / 2
    again = Memo(2, memo.used)
    for got, fresh in zip(neighbour_win_rates(center2, low2, high2, present, memo=again),
                          neighbour_win_rates(center2, low2, high2, present)):
        same(got, fresh)
    got_pw = pairwise(center2[:12], low2[:12], high2[:12], present[:12], again)
    fresh_pw = pairwise(center2[:12], low2[:12], high2[:12], present[:12])
    same(got_pw.win_rate, fresh_pw.win_rate)
    same(got_pw.strength, fresh_pw.strength)


def test_rank_board_with_the_memo_of_an_earlier_board_equals_a_fresh_one(tmp_path):
    config = SiteConfig(bootstrap=300)
    bands = load_bands(ROOT / "content" / "bands.toml")
    with ingest_rows(tmp_path / "a", points(8)) as db:
        first = read_board(db, config)
    # One model changed, and one more model: rows move, ranks change.
    with ingest_rows(tmp_path / "b", points(9, better="m3")) as db:
        second = read_board(db, config)
    memo = RankMemo(memo_salt(config, first.tasks))
    rank_board(first, config, bands, memo)
    later = RankMemo.load(_saved(memo.fresh(), tmp_path), memo_salt(config, second.tasks))
    assert later.scores.known and later.pairs.known
    assert rank_board(second, config, bands, later) == rank_board(second, config, bands)
    with pytest.raises(ValueError):
        rank_board(second, replace(config, seed=config.seed + 1), bands, later)


def _saved(memo: RankMemo, folder) -> object:
    path = folder / "memo.npz"
    memo.save(path)
    return path


def test_a_memo_of_other_settings_or_a_damaged_file_is_not_used(tmp_path):
    memo = RankMemo("salt-a", Memo(2, {b"k" * 16: (1.0, 2.0)}), Memo(2, {b"p" * 32: (0.5, 3.0)}))
    path = _saved(memo, tmp_path)
    loaded = RankMemo.load(path, "salt-a")
    assert loaded.scores.known == {b"k" * 16: (1.0, 2.0)} and loaded.pairs.known == {b"p" * 32: (0.5, 3.0)}
    assert not RankMemo.load(path, "salt-b").scores.known
    path.write_bytes(path.read_bytes()[:40])
    assert not RankMemo.load(path, "salt-a").scores.known
    assert not RankMemo.load(tmp_path / "absent.npz", "salt-a").pairs.known
    empty = _saved(RankMemo("salt-a"), tmp_path)
    assert not RankMemo.load(empty, "salt-a").scores.known


def test_no_rows_no_keys():
    """An empty board (`--allow-empty`) has nothing to look up."""
    assert row_keys(np.zeros((0, 4)), np.zeros((0, 4), dtype=bool)) == []
    empty = reasonscore_v2(np.zeros((0, 3)), np.zeros((0, 3)), np.zeros((0, 3), dtype=bool), memo=Memo(2))
    assert len(empty.ci_low) == 0
