"""ReasonScore v1, the tiered view (STATISTICS.md section 5), through the PointsDB and the V1 macro."""

from __future__ import annotations

import numpy as np
import pytest
from helpers_points import ingest_rows, point, ref_estimate, ref_geomean
from reasonboard.stats.tiers import score_per_token_v1, tier_reasonscore, tokens_per_trial

EVAL = ("model", "template", "sampler")


def tier_scores(db, tasks):
    """{(model, tier): (ReasonScore, avg tokens)} computed the way the leaderboard does:
    V1 task scores from `aggregate`, then the tiers module."""
    agg = db.aggregate(group_by=(*EVAL, "tier", "base_task"), mode="V1")
    out = {}
    for model in sorted(set(agg["model"].tolist())):
        for tier in sorted({t for t in agg["tier"].tolist() if t is not None}):
            rows = [r for r in agg.rows() if r["model"] == model and r["tier"] == tier]
            if not rows:
                continue
            by_task = {r["base_task"]: r for r in rows}
            present = np.array([[t in by_task for t in tasks]])
            est = np.array([[by_task[t]["est"] if t in by_task else np.nan for t in tasks]])
            tok = np.array([[by_task[t]["tok"] if t in by_task else 0.0 for t in tasks]])
            n = np.array([[by_task[t]["n"] if t in by_task else 1.0 for t in tasks]])
            out[(model, tier)] = (float(tier_reasonscore(est, present)[0]), float(tokens_per_trial(tok, n, present)[0]))
    return out


@pytest.mark.parametrize("size", [1, 2, 7, 128, 10_000])
def test_a_perfect_model_scores_1000_at_any_sample_count(tmp_path, size):
    rows = []
    for task, guess_share in (("arith", 0.0), ("bool", 0.5), ("mcq", 0.25)):
        for level in range(3):
            n = size * (level + 1)  # points of different sizes within a task
            rows.append(point(model="perfect", base_task=task, params={"level": level}, total=n, correct=n,
                              truncated=0, guess=guess_share * n, tokens=10.0 * n,
                              tiers=["easy"] if level == 0 else ["medium", "hard"]))
    with ingest_rows(tmp_path, rows) as db:
        scores = tier_scores(db, ["arith", "bool", "mcq"])
    assert set(scores) == {("perfect", "easy"), ("perfect", "medium"), ("perfect", "hard")}
    for score, tokens in scores.values():
        assert score == pytest.approx(1000.0, abs=1e-9)
        assert round(score, 3) == 1000.0
        assert tokens == pytest.approx(10.0)


def test_the_seed_geometric_mean_is_0_7433():
    # [0.95]*11 + [0.05]: (0.95^11 * 0.05)^(1/12) = 0.7433 (seed 000's "0.618" is a slip).
    scores = np.array([[0.95] * 11 + [0.05]])
    got = tier_reasonscore(scores, np.ones_like(scores, dtype=bool))[0]
    assert round(got / 1000, 4) == 0.7433
    assert got == pytest.approx(1000 * ref_geomean([0.95] * 11 + [0.05]), abs=1e-9)
    assert got == pytest.approx(743.3, abs=0.05)


def test_tier_scores_match_an_independent_computation(tmp_path):
    rows = [
        point(model="a", base_task="t1", params={"l": 1}, total=100, correct=70, truncated=10, guess=20.0,
              tokens=5000.0, tiers=["easy"]),
        point(model="a", base_task="t1", params={"l": 2}, total=30, correct=5, truncated=12, guess=4.5,
              tokens=9000.0, tiers=["hard"]),
        point(model="a", base_task="t1", params={"l": 3}, total=50, correct=20, truncated=5, guess=0.0,
              tokens=2000.0, tiers=["easy", "hard"]),
        point(model="a", base_task="t2", params={"l": 1}, total=64, correct=60, truncated=0, guess=0.0,
              tokens=640.0, tiers=["easy"]),
        point(model="a", base_task="t2", params={"l": 2}, total=64, correct=2, truncated=40, guess=0.0,
              tokens=64000.0, tiers=["hard"]),
        point(model="a", base_task="t2", params={"l": 9}, total=64, correct=64, truncated=0, guess=0.0,
              tokens=1.0),  # no tier: part of no tier score
    ]
    with ingest_rows(tmp_path, rows) as db:
        got = tier_scores(db, ["t1", "t2"])
    for tier in ("easy", "hard"):
        task_scores, task_tokens = [], []
        for task in ("t1", "t2"):
            mine = [r for r in rows if r["base_task"] == task and tier in r.get("tiers", [])]
            n = sum(r["total"] for r in mine)
            sums = (n, sum(r["truncated"] for r in mine), sum(r["correct"] for r in mine),
                    sum(r["guess"] for r in mine))
            task_scores.append(ref_estimate("V1", *sums)[0])
            task_tokens.append(sum(r["tokens"] for r in mine) / n)
        score, tokens = got[("a", tier)]
        assert score == pytest.approx(1000 * ref_geomean(task_scores), abs=1e-9)
        assert tokens == pytest.approx(sum(task_tokens) / len(task_tokens), rel=1e-12)
    # The hard tier's t2 task score is floored (0.01): 2/24 correct, 40/64 truncated.
    assert ref_estimate("V1", 64, 40, 2, 0.0)[0] == 0.01


def test_truncation_is_subtracted_from_a_perfect_upper_bound(tmp_path):
    rows = [point(model="m", base_task=t, total=100, correct=90, truncated=10, tiers=["x"]) for t in ("t1", "t2")]
    with ingest_rows(tmp_path, rows) as db:
        score, _ = tier_scores(db, ["t1", "t2"])[("m", "x")]
    # Every completed trial correct: W(90, 100).high < 1, so v1 = W(90, 100).high - 0.1.
    assert score == pytest.approx(1000 * (ref_estimate("V1", 100, 10, 90, 0.0)[0]), abs=1e-9)
    assert score < 900


def test_tokens_are_task_balanced():
    # mean over tasks of Σtok/Σn: (1000/100 + 10/10) / 2 = 5.5, not the pooled 1010/110.
    tok = np.array([[1000.0, 10.0, 0.0]])
    n = np.array([[100.0, 10.0, 1.0]])
    present = np.array([[True, True, False]])
    assert tokens_per_trial(tok, n, present)[0] == pytest.approx(5.5, abs=1e-12)
    assert np.isnan(tokens_per_trial(tok, n, np.zeros_like(present))[0])


def test_score_per_token_v1():
    # mean(tier ReasonScores) / mean(tier average tokens)
    assert score_per_token_v1([850.0, 720.0, 580.0], [900.0, 1100.0, 1300.0]) == pytest.approx(
        (850 + 720 + 580) / 3 / ((900 + 1100 + 1300) / 3))
    assert score_per_token_v1([], []) is None
    assert score_per_token_v1([500.0], [0.0]) is None
