"""Paired comparisons on real logs: three frontier models on the same 100 Inspect `popularity`
samples (tests/data/per-instance), through ingest, the trials table and the batch engine,
against a second, plain reading of the logs (zipfile + json) and plain arithmetic."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from reasonboard.config import SiteConfig
from reasonboard.ingest import IngestOptions, run_ingest
from reasonboard.stats import pairing
from reasonboard.store.cache import open_store
from reasonboard.store.items import task_items
from test_ingest_inspect import SET, plain_samples

Z975 = 2.241402727604947
MODELS = {
    "2025-09-15T15-02-26-04-00_popularity_L8g2GLGDDfsiXvdJ8LyZNJ.eval": "openai/gpt-5",
    "2025-09-15T15-02-26-04-00_popularity_LthYhadZHuQjsMYHHKRep2.eval": "anthropic/claude-sonnet-4-20250514",
    "2025-09-15T15-02-26-04-00_popularity_eF3BogZE3jzpiWBjjDWbik.eval": "google/gemini-2.5-pro",
}


def plain_center(s: float, t: float) -> float:
    p = s / t
    return (p + Z975**2 / (2 * t)) / (1 + Z975**2 / t)


def plain_cp(correct: int, total: int) -> float:
    # Write-in answers (no guess), no truncation in these logs: A = W(n_e, n), U = W(n, n).
    return plain_center(correct, total) * plain_center(total, total)


def plain_mcnemar(b: int, c: int) -> float:
    n = b + c
    if n == 0:
        return 1.0
    return float(min(Fraction(1), 2 * sum(Fraction(math.comb(n, i), 2**n) for i in range(min(b, c) + 1))))


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    data = tmp_path_factory.mktemp("popularity") / "data"
    run_ingest(IngestOptions(paths=(SET,), data_dir=data))
    db, _ = open_store(data, data.parent / "cache", None, SiteConfig())
    yield db
    db.close()


def test_three_models_paired_on_the_same_hundred_samples(store):
    outcomes = {MODELS[path.name]: {str(s["id"]): s["scores"]["match"]["value"] == "C" for s in plain_samples(path)}
                for path in sorted(SET.iterdir())}
    names = sorted(outcomes)
    keys = [(m, "default", "default") for m in names]
    items = task_items(store.con, "popularity", keys)
    assert items.params == ("{}",)
    assert list(items.sample_ids[0]) == sorted(outcomes[names[0]])
    pairs = np.array([(0, 1), (0, 2), (1, 2)])
    tests = pairing.task_tests(items, pairs, draws=2000, seed=42, min_samples=20)
    for (a, b), test in zip(pairs.tolist(), tests):
        xa, xb = outcomes[names[a]], outcomes[names[b]]
        assert xa.keys() == xb.keys() and len(xa) == 100
        bb = sum(xa[i] and not xb[i] for i in xa)
        cc = sum(xb[i] and not xa[i] for i in xa)
        assert test is not None
        assert (test.shared, test.method) == (100, "mcnemar")
        assert test.effect == pytest.approx(plain_cp(sum(xa.values()), 100) - plain_cp(sum(xb.values()), 100), abs=1e-12)
        assert test.p == pytest.approx(plain_mcnemar(bb, cc), rel=1e-12)
        assert test.low <= test.effect <= test.high
