"""`compute_leaderboard` on small crafted points: the leaderboard.json contract (PRODUCT.md
"Outputs") with every figure recomputed independently from the points."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pytest
from helpers_points import ingest_rows, plain_bootstrap, point, ref_estimate, ref_geomean
from reasonboard.config import SiteConfig
from reasonboard.outputs import dump_json, leaderboard_document, pairwise_document
from reasonboard.stats.bands import load_bands
from reasonboard.stats.leaderboard import compute_leaderboard
from reasonboard.stats.reasonscore import reasonscore_v2
from reasonboard.store.pointsdb import MODES

BANDS = load_bands(Path(__file__).resolve().parent.parent / "content" / "bands.toml")
TASKS = ["t1", "t2", "t3"]
GUESS = {"t1": 0.0, "t2": 0.25, "t3": 0.5}  # t2: 4 options, t3: yes/no, t1: write-in

# (model, template, accuracy per task (None: task missing), truncation share)
EVALS = [
    ("alpha", "tpl", (0.95, 0.9, 0.97), 0.01),
    ("beta", "tpl", (0.62, 0.58, 0.7), 0.05),
    ("gamma", "tpl", (0.6, 0.6, 0.69), 0.05),
    ("delta", "tpl", (0.8, 0.85, None), 0.0),
    ("eps", "a", (0.3, 0.35, 0.6), 0.2),
    ("eps", "b", (0.33, 0.3, 0.62), 0.25),
    ("zero", "tpl", (0.0, 0.0, 0.0), 0.0),
]
LABELS = [{"model": "alpha", "template": "tpl", "sampler": "smp", "label": "Alpha One"},
          {"model": "eps", "template": "a", "sampler": "smp", "label": "Epsilon"}]
MODEL_KEYS = {"id", "slug", "model", "template", "sampler", "label", "complete", "missing_tasks", "rank",
              "rank_range", "reasonscore", "band", "avg_tokens", "score_per_token", "truncation_rate",
              "tied_count", "distinct_from_next", "tasks", "tiers", "score_per_token_v1", "status", "preliminary_tasks"}
TASK_KEYS = {"total", "truncated", "correct", "guess", "tokens", "estimate", "low", "high", "modes", "trials", "samples",
             "effective_trials", "partial", "preliminary"}


def make_points():
    rows = []
    for model, template, accuracy, trunc in EVALS:
        for task, acc in zip(TASKS, accuracy):
            if acc is None:
                continue
            for level, n in ((1, 120), (2, 280)):
                n_t = int(round(trunc * n * level / 1.5))
                n_u = n - n_t
                g = GUESS[task] * n_u
                n_e = min(n_u, int(round(g + acc * (n_u - g))))
                rows.append(point(model=model, template=template, base_task=task, params={"level": level},
                                  total=n, truncated=n_t, correct=n_e, guess=g, tokens=float(n * (300 + 100 * level)),
                                  tiers=["easy"] if level == 1 else ["hard"]))
    return rows


# A tiny evaluation: 4 trials per task, none correct. W(0, 4).low is -2.8e-17 in floating
# point (center - margin of two equal numbers), which must not be published as "-0.0".
TINY = [point(model="tiny", template="tpl", base_task=task, params={"level": 1}, total=4, correct=0,
              truncated=0, guess=GUESS[task] * 4, tokens=40.0, tiers=["easy", "hard"]) for task in TASKS]
POINTS = make_points() + TINY


def build(tmp_path, config=SiteConfig(bootstrap=5000, min_samples=4)):  # "tiny" has 4 samples a task
    with ingest_rows(tmp_path, POINTS, evals=LABELS) as db:
        return compute_leaderboard(db, config, BANDS)


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    return build(tmp_path_factory.mktemp("lb"))


@pytest.fixture(scope="module")
def doc(result):
    """The published `leaderboard.json` document, written from the typed result."""
    return leaderboard_document(result.leaderboard)


def by_id(doc):
    return {m["id"]: m for m in doc["models"]}


def sums(model, template, task, tier=None):
    mine = [p for p in POINTS if (p["model"], p["template"], p["base_task"]) == (model, template, task)
            and (tier is None or tier in p["tiers"])]
    return mine, (sum(p["total"] for p in mine), sum(p["truncated"] for p in mine),
                  sum(p["correct"] for p in mine), sum(p["guess"] for p in mine))


def test_document_shape(doc):
    assert set(doc) == {"schema", "config", "models", "tie_groups"}
    assert doc["schema"] == "reasonboard.leaderboard/2"
    assert doc["config"] == {"mode": "C_P", "bootstrap": 5000, "seed": 42, "tasks": TASKS, "min_samples": 4}
    assert len(doc["models"]) == len(EVALS) + 1
    for m in doc["models"]:
        assert set(m) == MODEL_KEYS, set(m) ^ MODEL_KEYS
        assert set(m["reasonscore"]) == {"center", "margin", "ci_low", "ci_high"}
        assert m["id"] == f"{m['model']}|{m['template']}|{m['sampler']}"
        for t in m["tasks"].values():
            assert set(t) == TASK_KEYS and set(t["modes"]) == set(MODES)
            assert all(len(v) == 3 for v in t["modes"].values())
    json.dumps(doc, allow_nan=False)  # plain JSON: no NaN, no numpy types left


def test_task_figures_are_the_estimators_on_summed_counters(doc):
    for m in doc["models"]:
        for task, t in m["tasks"].items():
            mine, (n, n_t, n_e, g) = sums(m["model"], m["template"], task)
            assert (t["total"], t["truncated"], t["correct"]) == (n, n_t, n_e)
            assert t["guess"] == pytest.approx(g, abs=1e-6)
            assert t["tokens"] == pytest.approx(sum(p["tokens"] for p in mine), abs=1e-6)
            for mode in MODES:
                assert t["modes"][mode] == pytest.approx(list(ref_estimate(mode, n, n_t, n_e, g)), abs=1e-6)
            assert [t["estimate"], t["low"], t["high"]] == t["modes"]["C_P"]


def test_reasonscores_come_from_the_task_bounds(doc):
    for m in doc["models"]:
        present = np.array([[task in m["tasks"] for task in TASKS]])
        bounds = [ref_estimate("C_P", *sums(m["model"], m["template"], task)[1]) if task in m["tasks"]
                  else (np.nan, np.nan, np.nan) for task in TASKS]
        lows, highs = np.array([[b[1] for b in bounds]]), np.array([[b[2] for b in bounds]])
        rs = m["reasonscore"]
        # Assembly: exactly the bootstrap of this model's own C_P bounds over the task set
        # (the uniforms are drawn for all tasks; a missing one is masked), rounded to 3.
        direct = reasonscore_v2(lows, highs, present, draws=5000, seed=42)
        assert [rs["ci_low"], rs["ci_high"]] == pytest.approx([direct.ci_low[0], direct.ci_high[0]], abs=6e-4)
        lows, highs = lows[present], highs[present]
        # And an independent bootstrap (other generator). These crafted tasks have only 400
        # trials each, so margins reach 28 points and Monte Carlo noise grows with them
        # (about 5 % of the margin between generators at B = 5000); the 0.5-point agreement
        # of seed 001 holds for margins near 8 (test_reasonscore.py).
        center, margin = plain_bootstrap(lows, highs)
        tolerance = max(0.5, 0.05 * margin)
        assert rs["center"] == pytest.approx(center, abs=tolerance), m["id"]
        assert rs["margin"] == pytest.approx(margin, abs=tolerance), m["id"]
        assert rs["center"] == pytest.approx((rs["ci_low"] + rs["ci_high"]) / 2, abs=1e-3)
        assert 10 <= rs["ci_low"] <= rs["ci_high"] <= 1000
        # An unranked evaluation's score is over other tasks than the board's: never banded.
        assert m["band"] == (BANDS.reasonscore(rs["center"]).key if m["rank"] is not None else None)
    assert by_id(doc)["zero|tpl|smp"]["reasonscore"]["ci_low"] >= 10


def test_ranking_incomplete_models_and_ties(doc):
    models = doc["models"]
    ranked = [m for m in models if m["rank"] is not None]
    unranked = [m for m in models if m["rank"] is None]
    assert models == ranked + unranked  # incomplete models listed after ranked ones
    assert [m["id"] for m in unranked] == ["delta|tpl|smp"]
    delta = unranked[0]
    assert (delta["complete"], delta["missing_tasks"], delta["rank_range"], delta["tied_count"],
            delta["distinct_from_next"]) == (False, ["t3"], None, 0, None)
    assert delta["reasonscore"]["center"] is not None and set(delta["tasks"]) == {"t1", "t2"}
    assert all(m["complete"] and m["missing_tasks"] == [] for m in ranked)
    assert [m["rank"] for m in ranked] == list(range(1, len(ranked) + 1))
    centers = [m["reasonscore"]["center"] for m in ranked]
    assert centers == sorted(centers, reverse=True)
    # Rank ranges, ties and tie groups, by brute force on the published intervals.
    lo = [m["reasonscore"]["ci_low"] for m in ranked]
    hi = [m["reasonscore"]["ci_high"] for m in ranked]
    ids = [m["id"] for m in ranked]
    k = len(ranked)
    over = lambda a, b: not (lo[a] > hi[b] or lo[b] > hi[a])
    for a, m in enumerate(ranked):
        best = 1 + sum(lo[b] > hi[a] for b in range(k))
        worst = sum(hi[b] >= lo[a] for b in range(k))
        assert m["rank_range"] == [best, worst]
        assert m["tied_count"] == sum(1 for b in range(k) if b != a and over(a, b))
        assert m["distinct_from_next"] == (None if a == k - 1 else not over(a, a + 1))
    # Schema 2: a group is a record; its members are the ranked models holding its score `at`.
    members = []
    for group in doc["tie_groups"]:
        assert set(group) == {"ranks", "size", "at"}
        idx = [a for a in range(k) if lo[a] <= group["at"] <= hi[a]]
        assert len(idx) == group["size"] >= 2 and group["ranks"] == [idx[0] + 1, idx[-1] + 1]
        assert all(over(a, b) for a in idx for b in idx)
        assert not any(all(over(c, a) for a in idx) for c in range(k) if c not in idx)  # maximal
        members.append({ids[a] for a in idx})
    # Every tied pair sits in some group (the groups are all the maximal cliques).
    assert all(any({ids[a], ids[b]} <= g for g in members) for a in range(k) for b in range(k) if a != b and over(a, b))
    # The crafted near-twins beta and gamma are tied; alpha stands alone at the top.
    assert any({"beta|tpl|smp", "gamma|tpl|smp"} <= g for g in members)
    assert ranked[0]["id"] == "alpha|tpl|smp" and ranked[0]["distinct_from_next"] is True


def test_tokens_truncation_and_score_per_token(doc):
    for m in doc["models"]:
        per_task, n_all, nt_all = [], 0, 0
        for task in m["tasks"]:
            mine, (n, n_t, _, _) = sums(m["model"], m["template"], task)
            per_task.append(sum(p["tokens"] for p in mine) / n)
            n_all, nt_all = n_all + n, nt_all + n_t
        avg = sum(per_task) / len(per_task)
        assert m["avg_tokens"] == pytest.approx(avg, abs=1e-3)
        assert m["truncation_rate"] == pytest.approx(nt_all / n_all, abs=1e-6)
        # center / avg_tokens from unrounded values; the published center is rounded to 3.
        assert m["score_per_token"] == pytest.approx(m["reasonscore"]["center"] / avg, abs=1e-6 + 5e-4 / avg)


def test_v1_tiers(doc):
    for m in doc["models"]:
        assert set(m["tiers"]) == {"easy", "hard"}
        means = []
        for tier, values in m["tiers"].items():
            scores, tokens = [], []
            for task in m["tasks"]:
                mine, counters = sums(m["model"], m["template"], task, tier)
                scores.append(ref_estimate("V1", *counters)[0])
                tokens.append(sum(p["tokens"] for p in mine) / counters[0])
            assert values["reasonscore"] == pytest.approx(1000 * ref_geomean(scores), abs=1e-3)
            assert values["avg_tokens"] == pytest.approx(sum(tokens) / len(tokens), abs=1e-3)
            means.append((1000 * ref_geomean(scores), sum(tokens) / len(tokens)))
        expected = (sum(s for s, _ in means) / len(means)) / (sum(t for _, t in means) / len(means))
        assert m["score_per_token_v1"] == pytest.approx(expected, abs=1e-6)


def test_labels_and_slugs(doc):
    models = by_id(doc)
    assert models["alpha|tpl|smp"]["label"] == "Alpha One"
    assert models["beta|tpl|smp"]["label"] == "beta"
    assert models["eps|a|smp"]["label"] == "Epsilon (a, smp)"
    assert models["eps|b|smp"]["label"] == "eps (b, smp)"
    slugs = [m["slug"] for m in doc["models"]]
    assert len(set(slugs)) == len(slugs)
    # "model" (the model's own page) or "model/evaluation" when the model has several.
    assert all(re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*(/[a-z0-9]+(-[a-z0-9]+)*)?", s) for s in slugs)
    assert models["alpha|tpl|smp"]["slug"] == "alpha"
    assert (models["eps|a|smp"]["slug"], models["eps|b|smp"]["slug"]) == ("eps/a-smp", "eps/b-smp")


def walk(value, path=""):
    if isinstance(value, dict):
        for k, v in value.items():
            yield from walk(v, f"{path}/{k}")
    elif isinstance(value, list):
        for k, v in enumerate(value):
            yield from walk(v, f"{path}/{k}")
    else:
        yield path, value


def test_rounding(doc):
    for path, value in walk(doc):
        if not isinstance(value, float):
            continue
        digits = 3 if ("/reasonscore/" in path or path.endswith("avg_tokens")
                       or re.search(r"/tiers/[^/]+/reasonscore$", path)) else 6
        assert round(value, digits) == value, (path, value)
        assert not (value == 0 and math.copysign(1, value) < 0), f"negative zero at {path}"
    for m in doc["models"]:
        for t in m["tasks"].values():
            for est, low, high in t["modes"].values():
                assert 0 <= low <= est <= high <= 1


def test_deterministic(tmp_path, result):
    again = build(tmp_path)
    assert again.leaderboard == result.leaderboard and again.pairwise == result.pairwise
    assert dump_json(leaderboard_document(again.leaderboard)) == dump_json(leaderboard_document(result.leaderboard))
    assert dump_json(pairwise_document(again.pairwise)) == dump_json(pairwise_document(result.pairwise))


def test_config_task_set_and_evaluation_choice(tmp_path):
    config = SiteConfig(bootstrap=1000, tasks=("t2", "t1"), evaluations={"eps": "b/smp"}, pairwise_top=2)
    doc = leaderboard_document(build(tmp_path, config).leaderboard)
    assert doc["config"]["tasks"] == ["t1", "t2"]
    models = by_id(doc)
    assert "eps|a|smp" not in models and models["eps|b|smp"]["label"] == "eps"
    # With t3 out of the task set, delta is complete and ranked.
    assert models["delta|tpl|smp"]["complete"] and models["delta|tpl|smp"]["rank"] is not None
    # The task set decides the ranking, never which results are published: t3 stays.
    assert any("t3" in m["tasks"] for m in doc["models"])
    assert all(set(m["missing_tasks"]) <= {"t1", "t2"} for m in doc["models"])


@pytest.mark.parametrize("config, named", [
    (SiteConfig(tasks=("t1", "nonesuch"), path="site.toml"), "'tasks' names 'nonesuch'"),
    (SiteConfig(evaluations={"eps": "c/smp"}, path="site.toml"), "'evaluations.eps' = 'c/smp'"),
])
def test_config_choices_that_match_nothing_are_errors(tmp_path, config, named):
    """A task or evaluation choice naming nothing would silently unrank or drop models."""
    from reasonboard.errors import InputError

    with pytest.raises(InputError) as err:
        build(tmp_path, config)
    assert err.value.path == "site.toml" and named in err.value.problem


def test_ties_in_center_are_broken_by_model_name():
    from reasonboard.stats.significance import rank_order

    # "a-b" sorts before "a" as text with the separator, after it by model name.
    names = ["a-b\x00t\x00s", "a\x00t\x00s"]
    assert rank_order(np.array([500.0, 500.0]), names).tolist() == [1, 0]
