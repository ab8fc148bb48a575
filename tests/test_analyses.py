"""The per-sample analyses (SAMPLES.md section 6) on crafted trials, against values worked
by hand and plain Python written from the spec: compression quartiles and the looping flag,
the token hazard's bins, counts and Wilson intervals, and the budget sweep (its counters
at each budget, the design effect, and its last level equal to the board's own score).
Each edge the pages must speak to has its case: tokens not recorded, a single bin, every
trial truncated, a top edge that leaves no bin."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from helpers_points import Z95, ingest_rows, point, ref_estimate, ref_wilson
from reasonboard.config import SiteConfig
from reasonboard.stats.bands import load_bands
from reasonboard.stats.budget import DIVISORS, BudgetLevel, Sweep, budget_ranks, budget_sweep
from reasonboard.stats.compression import LOOP_RATIO, compression
from reasonboard.stats.hazard import hazard
from reasonboard.stats.leaderboard import compute_leaderboard
from reasonboard.store.pointsdb import PointsDB, named_statements
from reasonboard.store.trialsummary import install

EVAL = ("m", "tpl", "smp")


def trial(sample, tokens=None, compressed=None, correct=False, truncated=False, epoch=1, params="{}",
          task="t", model="m", options=None):
    return {"model": model, "template": "tpl", "sampler": "smp", "base_task": task, "params": params,
            "sample_id": str(sample), "epoch": epoch, "correct": correct, "truncated": truncated,
            "options": options, "tokens": tokens, "compressed": compressed}


def trials_db(trials, limits=(), db=None):
    """A PointsDB (its macros) with the relations the analyses read, numbered from the
    trials as named here."""
    db = db or PointsDB()
    db.con.execute("""CREATE TEMP TABLE named (model VARCHAR, template VARCHAR, sampler VARCHAR,
        base_task VARCHAR, params VARCHAR, sample_id VARCHAR, epoch INTEGER, correct BOOLEAN, truncated BOOLEAN,
        options INTEGER, tokens BIGINT, compressed BIGINT)""")
    db.con.execute("""CREATE TEMP TABLE limits (model VARCHAR, template VARCHAR, sampler VARCHAR,
        base_task VARCHAR, token_limit BIGINT, answer_cap BIGINT)""")
    names = ("model", "template", "sampler", "base_task", "params", "sample_id", "epoch", "correct", "truncated",
             "options", "tokens", "compressed")
    if trials:
        db.con.executemany(f"INSERT INTO named VALUES ({', '.join('?' * len(names))})",
                           [[t[k] for k in names] for t in trials])
    for model, task, limit in limits:
        db.con.execute("INSERT INTO limits VALUES (?, 'tpl', 'smp', ?, ?, NULL)", [model, task, limit])
    db.con.execute("""CREATE TEMP TABLE analysis_tasks AS
        SELECT (row_number() OVER (ORDER BY model, template, sampler, base_task))::INTEGER AS et, *
        FROM (SELECT DISTINCT model, template, sampler, base_task FROM named)
        LEFT JOIN limits USING (model, template, sampler, base_task)""")
    db.con.execute("""CREATE TEMP TABLE analysis_trials AS
        SELECT a.et, (dense_rank() OVER (ORDER BY n.model, n.template, n.sampler, n.base_task, n.params))::INTEGER
                   AS point,
               (dense_rank() OVER (ORDER BY n.sample_id))::INTEGER AS sample, n.epoch, n.correct, n.truncated, n.options,
               n.tokens, n.compressed
        FROM named n JOIN analysis_tasks a USING (model, template, sampler, base_task)""")
    # The store's sums of those trials (store/trialsummary.py), under the names the statistics read.
    install(db.con)
    statements = named_statements("analyses.sql")[1]
    for name in ("counts", "outcomes", "budgets"):
        db.con.execute(f"CREATE TEMP TABLE analysis_{name} AS {statements['sum_' + name]}")
    return db


# -- compression ---------------------------------------------------------------------------


def test_compression_quartiles_by_hand_and_the_looping_flag():
    good = [(100, 50), (100, 60), (200, 100), (50, 40), (100, 70)]     # bits 4.0 4.8 4.0 6.4 5.6
    loops = [(1000, 100), (1000, 120), (2000, 150), (1000, 90), (500, 60)]   # bits 0.8 0.96 0.6 0.72 0.96
    trials = [trial(i, t, c, correct=True) for i, (t, c) in enumerate(good)]
    trials += [trial(10 + i, t, c) for i, (t, c) in enumerate(loops)]
    trials += [trial(20, 4096, 30, truncated=True), trial(21, 4096, 40, truncated=True)]
    found = compression(trials_db(trials))[(EVAL, "t")]
    correct = found.outcome("correct")
    assert (correct.trials, correct.bits_trials, correct.size_trials) == (5, 5, 5)
    assert (correct.bits.q1, correct.bits.median, correct.bits.q3) == pytest.approx((4.0, 4.8, 5.6))
    assert (correct.size.q1, correct.size.median, correct.size.q3) == pytest.approx((50, 60, 70))
    wrong = found.outcome("incorrect")
    bits = sorted(8 * c / t for t, c in loops)
    assert (wrong.bits.q1, wrong.bits.median, wrong.bits.q3) == pytest.approx(tuple(np.quantile(bits, [0.25, 0.5, 0.75])))
    assert wrong.bits.median <= LOOP_RATIO * correct.bits.median
    # Two truncated trials compress even better, but two trials flag nothing.
    assert found.outcome("truncated").bits.median == pytest.approx((8 * 30 / 4096 + 8 * 40 / 4096) / 2)
    assert found.looping == ("incorrect",)
    assert [o.outcome for o in found.outcomes] == ["correct", "incorrect", "truncated"]


def test_compression_leaves_out_what_a_trial_cannot_give():
    trials = [trial(1, 100, 50, correct=True), trial(2, None, 60, correct=True), trial(3, 0, 20, correct=True),
              trial(4, 100, None, correct=True)]
    found = compression(trials_db(trials))[(EVAL, "t")].outcome("correct")
    assert (found.trials, found.bits_trials, found.size_trials) == (4, 1, 3)
    assert found.bits.median == 4.0 and found.size.median == 50
    # Without output text anywhere there is no compression at all (no chart, a sentence).
    assert compression(trials_db([trial(1, 100, None, correct=True)])) == {}


def test_no_flag_when_failures_compress_like_successes():
    trials = [trial(i, 100, 50 + i, correct=True) for i in range(6)] + [trial(10 + i, 100, 45 + i) for i in range(6)]
    assert compression(trials_db(trials))[(EVAL, "t")].looping == ()


# -- hazard --------------------------------------------------------------------------------


def wilson_interval(events, at_risk):
    _, low, high = ref_wilson(events, at_risk, Z95)
    return low, high


HAND = [(10, "c"), (40, "c"), (50, "i"), (70, "c"), (100, "i"), (120, "c"), (200, "c"), (256, "t"), (256, "t")]


def hand_trials(rows, task="t"):
    return [trial(k, tok, None, correct=o == "c", truncated=o == "t", task=task) for k, (tok, o) in enumerate(rows)]


def test_hazard_by_hand_with_a_limit():
    found = hazard(trials_db(hand_trials(HAND), [("m", "t", 256)]))[(EVAL, "t")]
    assert (found.top, found.limited) == (256, True)
    assert [(b.low, b.high, b.ending, b.events, b.at_risk) for b in found.bins] == [
        (32, 64, 2, 1, 8), (64, 128, 3, 1, 6), (128, 256, 3, 2, 3)]
    for b, (events, risk) in zip(found.bins, [(1, 8), (1, 6), (2, 3)]):
        assert b.hazard == pytest.approx(events / risk)
        assert (b.ci_low, b.ci_high) == pytest.approx(wilson_interval(events, risk))


def test_hazard_without_a_limit_stops_at_the_largest_power_of_two_reached():
    found = hazard(trials_db(hand_trials(HAND)))[(EVAL, "t")]
    assert (found.top, found.limited) == (256, False)
    shorter = [(t if t < 256 else 255, o) for t, o in HAND]
    found = hazard(trials_db(hand_trials(shorter)))[(EVAL, "t")]
    # Top edge 128: bins [32, 64) and [64, 128 and beyond), the longest trials in the last.
    assert found.top == 128
    assert [(b.low, b.high, b.ending, b.events, b.at_risk) for b in found.bins] == [(32, 64, 2, 1, 8), (64, 128, 6, 3, 6)]


def test_hazard_edges_with_a_limit_that_is_not_a_power_of_two_and_empty_bins():
    rows = [(40, "c"), (50, "c"), (3000, "t")]
    found = hazard(trials_db(hand_trials(rows), [("m", "t", 3000)]))[(EVAL, "t")]
    assert [(b.low, b.high) for b in found.bins] == [(32, 64), (64, 128), (128, 256), (256, 512), (512, 1024),
                                                    (1024, 2048), (2048, 3000)]
    assert [b.at_risk for b in found.bins] == [3, 1, 1, 1, 1, 1, 1]
    assert [b.hazard for b in found.bins] == [0, 0, 0, 0, 0, 0, 1]
    # A bin no trial reached has no hazard (never shown as a number).
    found = hazard(trials_db(hand_trials([(40, "c"), (50, "i")]), [("m", "t", 256)]))[(EVAL, "t")]
    assert [b.at_risk for b in found.bins] == [2, 0, 0]
    assert [b.hazard for b in found.bins] == [0.5, None, None] and found.bins[1].ci_low is None


def test_hazard_single_bin_all_truncated_and_no_bin():
    single = hazard(trials_db(hand_trials([(40, "c"), (64, "t"), (64, "t")]), [("m", "t", 64)]))[(EVAL, "t")]
    assert [(b.low, b.high, b.ending, b.events, b.at_risk) for b in single.bins] == [(32, 64, 3, 2, 3)]
    everything = hazard(trials_db(hand_trials([(128, "t")] * 5), [("m", "t", 128)]))[(EVAL, "t")]
    assert [(b.events, b.at_risk, b.hazard) for b in everything.bins] == [(0, 5, 0.0), (5, 5, 1.0)]
    assert everything.bins[-1].ci_low == pytest.approx(wilson_interval(5, 5)[0])
    none = hazard(trials_db(hand_trials([(10, "c"), (16, "t")]), [("m", "t", 16)]))[(EVAL, "t")]
    assert (none.top, none.bins) == (16, ())


def test_hazard_tokens_not_recorded():
    trials = [*hand_trials(HAND), trial(1, None, None, correct=True, task="u")]
    found = hazard(trials_db(trials, [("m", "t", 256), ("m", "u", 256)]))
    assert (EVAL, "t") in found and (EVAL, "u") not in found


# -- budget sweep ----------------------------------------------------------------------------


def ref_deff(samples):
    """SAMPLES.md section 2 for one point, written out: `samples` is a list of per-sample
    lists of (correct, truncated) pairs."""
    m = [len(s) for s in samples]
    n, c = sum(m), len(samples)
    mbar = n / c
    found = []
    for k in (0, 1):
        y = [sum(1 for t in s if t[k]) for s in samples]
        p = sum(y) / n
        v_srs = p * (1 - p) / n
        if v_srs <= 0:
            continue
        if c == 1:
            found.append(mbar)
            continue
        v_cluster = c / (c - 1) * sum((yi - mi * p) ** 2 for yi, mi in zip(y, m)) / n ** 2
        found.append(min(max(v_cluster / v_srs, 1.0), mbar))
    return max(found) if found else mbar


def ref_counters(samples, options=None):
    """(n/deff, n_t/deff, n_e/deff, g/deff) of one point."""
    deff = ref_deff(samples)
    flat = [t for s in samples for t in s]
    n, n_e, n_t = len(flat), sum(1 for t in flat if t[0]), sum(1 for t in flat if t[1])
    g = sum(1 / options for t in flat if not t[1]) if options else 0.0
    return n / deff, n_t / deff, n_e / deff, g / deff


def cut(rows, budget):
    """(correct, truncated) of (tokens, outcome) rows at a budget."""
    return [(o == "c" and tok <= budget, o == "t" or tok > budget) for tok, o in rows]


def test_budget_counters_by_hand():
    rows = [(10, "c"), (30, "c"), (60, "i"), (100, "t")]
    trials = [trial(k, tok, None, correct=o == "c", truncated=o == "t") for k, (tok, o) in enumerate(rows)]
    db = trials_db(trials, [("m", "t", 100)])
    sweep = budget_sweep(db, ["t"], {EVAL: ["t"]})[EVAL]
    assert sweep.limits == {"t": 100} and sweep.limit == 100
    # L/16 = 6.25 cuts all four; L/8 = 12.5 keeps the 10; L/4 = 25 the same; L/2 = 50 keeps 10 and 30.
    expected = {16: (4, 4, 0), 8: (4, 3, 1), 4: (4, 3, 1), 2: (4, 2, 2), 1: (4, 1, 2)}
    for level in sweep.levels:
        n, n_t, n_e = expected[level.divisor]
        assert level.tasks["t"] == pytest.approx(ref_estimate("C_P", n, n_t, n_e, 0.0))
    assert [level.divisor for level in sweep.levels] == list(DIVISORS)
    assert sweep.levels[0].ci_low <= sweep.levels[-1].ci_low


def test_budget_design_effect_with_epochs_and_guesses():
    # Point 1: three samples x two epochs; point 2 ("{"x":"2"}"): one sample x three epochs.
    spec = {"a": [(40, "c"), (60, "c")], "b": [(50, "c"), (300, "t")], "c": [(90, "i"), (400, "t")]}
    trials = [trial(s, tok, None, correct=o == "c", truncated=o == "t", epoch=e + 1, options=4)
              for s, rows in spec.items() for e, (tok, o) in enumerate(rows)]
    lone = [(20, "c"), (70, "i"), (45, "c")]
    trials += [trial("z", tok, None, correct=o == "c", truncated=o == "t", epoch=e + 1, params='{"x":"2"}', options=4)
               for e, (tok, o) in enumerate(lone)]
    db = trials_db(trials, [("m", "t", 400)])
    sweep = budget_sweep(db, ["t"], {EVAL: ["t"]})[EVAL]
    for level in sweep.levels:
        budget = 400 / level.divisor
        one = ref_counters([cut(rows, budget) for rows in spec.values()], options=4)
        two = ref_counters([cut(lone, budget)], options=4)
        n, n_t, n_e, g = (a + b for a, b in zip(one, two))
        assert level.tasks["t"] == pytest.approx(ref_estimate("C_P", n, n_t, n_e, g), abs=1e-12)


def test_ref_deff_cases_from_the_spec():
    # Three samples x two epochs, correct (2, 1, 0) of 2: V_cluster / V_srs = 2 = m-bar.
    assert ref_deff([[(1, 0), (1, 0)], [(1, 0), (0, 0)], [(0, 0), (0, 0)]]) == pytest.approx(2.0)
    # Nothing varies: count samples. One sample: m-bar.
    assert ref_deff([[(1, 0), (1, 0)], [(1, 0), (1, 0)]]) == 2.0
    assert ref_deff([[(1, 0), (0, 0), (1, 0)]]) == 3.0


def test_budget_sweep_needs_a_limit_and_tokens_on_every_trial_of_every_task():
    trials = [trial(1, 50, None, correct=True), trial(2, 70, None), trial(1, 50, None, correct=True, task="u"),
              trial(2, None, None, task="u")]
    db = trials_db(trials, [("m", "t", 100), ("m", "u", 100)])
    assert budget_sweep(db, ["t", "u"], {EVAL: ["t", "u"]}) == {}
    assert EVAL in budget_sweep(db, ["t", "u"], {EVAL: ["t"]})
    db = trials_db(trials[:2])
    assert budget_sweep(db, ["t"], {EVAL: ["t"]}) == {}


def simulated_trials(rng, model, tasks, samples=40, limit=1024):
    out = []
    for task in tasks:
        skill = rng.uniform(0.3, 0.9)
        for s in range(samples):
            tokens = int(min(rng.lognormal(5.5, 0.8), limit))
            truncated = tokens >= limit
            correct = (not truncated) and rng.random() < skill
            out.append(trial(s, tokens, None, correct=correct, truncated=truncated, task=task, model=model,
                             params=f'{{"level":"{s % 3}"}}', options=4 if task == "t" else None))
    return out


def board_points(trials):
    """The points ingest makes of one-epoch trials (INGEST.md section 2), as a points file's rows."""
    points = {}
    for t in trials:
        key = (t["model"], t["base_task"], t["params"])
        p = points.setdefault(key, point(model=t["model"], base_task=t["base_task"], params=t["params"], total=0,
                                         correct=0, truncated=0, guess=0.0, tokens=0))
        p["total"] += 1
        p["correct"] += bool(t["correct"])
        p["truncated"] += bool(t["truncated"])
        p["guess"] += (1 / t["options"]) if t["options"] and not t["truncated"] else 0.0
        p["tokens"] += t["tokens"]
    for p in points.values():
        p["guess"] = round(p["guess"], 9)
        p["params"] = p["params"]
    return list(points.values())


def test_budget_sweep_at_the_limit_is_the_boards_own_score(tmp_path):
    rng = np.random.default_rng(7)
    tasks = ["t", "u", "v"]
    trials = simulated_trials(rng, "m", tasks) + simulated_trials(rng, "n", tasks)
    db = ingest_rows(tmp_path, board_points(trials))
    config = SiteConfig()
    board = compute_leaderboard(db, config, load_bands(Path(__file__).resolve().parent.parent / "content" / "bands.toml")).leaderboard
    trials_db(trials, [(m, t, 1024) for m in ("m", "n") for t in tasks], db=db)
    sweeps = budget_sweep(db, tasks, {(m, "tpl", "smp"): tasks for m in ("m", "n")},
                          draws=config.bootstrap, seed=config.seed)
    for row in board.models:
        level = sweeps[row.evaluation.key].levels[-1]
        assert (round(level.ci_low, 3), round(level.ci_high, 3)) == (row.score.ci_low, row.score.ci_high)
        assert round(level.center, 3) == row.score.center
        for task, result in row.tasks.items():
            assert tuple(round(x, 6) for x in level.tasks[task]) == (result.estimate, result.low, result.high)
    # A smaller budget never scores higher here (truncation only takes correct trials away).
    for sweep in sweeps.values():
        centers = [level.center for level in sweep.levels]
        assert centers == sorted(centers)


def level(divisor, center):
    return BudgetLevel(divisor, center - 10, center + 10, {})


def test_budget_ranks_show_which_ranks_depend_on_the_budget():
    sweeps = {
        ("a",): Sweep({}, tuple(level(d, c) for d, c in zip(DIVISORS, (100, 200, 300, 400, 500)))),
        ("b",): Sweep({}, tuple(level(d, c) for d, c in zip(DIVISORS, (150, 250, 290, 350, 450)))),
        ("c",): Sweep({}, tuple(level(d, c) for d, c in zip(DIVISORS, (50, 60, 70, 80, 90)))),
    }
    ranks = budget_ranks(sweeps, [("a",), ("b",), ("c",), ("d",)])
    assert set(ranks) == {("a",), ("b",), ("c",)}
    assert ranks[("a",)].ranks == (2, 2, 1, 1, 1) and ranks[("a",)].depends
    assert ranks[("b",)].ranks == (1, 1, 2, 2, 2)
    assert ranks[("c",)].ranks == (3, 3, 3, 3, 3) and not ranks[("c",)].depends
    # At L/4, a (290-310) and b (280-300) overlap: both rank 1-2; c is 3-3.
    assert ranks[("a",)].ranges[2] == (1, 2) and ranks[("c",)].ranges[2] == (3, 3)


def test_unknown_mode_is_refused():
    with pytest.raises(ValueError):
        budget_sweep(trials_db([]), ["t"], {}, mode="X; DROP")


# -- a board's analyses, from the PointsDB's trials table ------------------------------------


def with_trials_table(db, trials):
    """The PointsDB's trials tables as ingest keeps them (SAMPLES.md section 1's columns,
    stored as numbers: store/trialcodes.py)."""
    from reasonboard.store.trialcodes import copy_named
    from reasonboard.store.trialsummary import summarise_budgets

    names = ("model", "template", "sampler", "base_task", "params", "sample_id", "epoch", "correct", "truncated",
             "options", "tokens", "compressed", "source", "source_row")
    db.con.execute("""CREATE TEMP TABLE named_trials (model VARCHAR, template VARCHAR, sampler VARCHAR,
        base_task VARCHAR, params VARCHAR, sample_id VARCHAR, epoch INTEGER, credit DOUBLE, correct BOOLEAN,
        truncated BOOLEAN, options INTEGER, tokens BIGINT, input_tokens BIGINT, compressed BIGINT, tiers VARCHAR,
        source VARCHAR, source_row BIGINT)""")
    db.con.executemany(f"INSERT INTO named_trials ({', '.join(names)}, credit) "
                       f"VALUES ({', '.join('?' * (len(names) + 1))})",
                       [[*(t[k] for k in names[:-2]), "trials/x.parquet", i, float(t["correct"])]
                        for i, t in enumerate(trials)])
    copy_named(db.con, "named_trials")
    summarise_budgets(db.con)


def test_a_boards_analyses_from_its_trials(tmp_path):
    from reasonboard.analysesoutputs import analyses_document
    from reasonboard.stats.analyses import UNLIKE, compute_analyses

    rng = np.random.default_rng(11)
    tasks = ["t", "u", "v"]
    trials = simulated_trials(rng, "m", tasks) + simulated_trials(rng, "n", tasks)
    for k, t in enumerate(trials):
        t["compressed"] = 20 + t["tokens"] // (2 if t["correct"] else 8)
    # "o" records no tokens, "p" no limit, "r" a limit of one token (an answer letter's cap):
    # analyses without a sweep, each with its reason.
    bare = [dict(t, model="o", tokens=None) for t in simulated_trials(rng, "o", tasks)]
    unlimited = simulated_trials(rng, "p", tasks)
    lettered = simulated_trials(rng, "r", tasks)
    # "q" answers every sample twice alike: its effective counters halve, which points summed
    # without a design effect do not show, so its sweep would not end at its own score.
    twice = [dict(t, model="q", epoch=e) for t in trials if t["model"] == "m" for e in (1, 2)]
    everything = trials + bare + unlimited + twice + lettered
    args = {"p": {}, "r": {"max_tokens": 1}}
    evals = [{"model": m, "template": "tpl", "sampler": "smp", "label": m.upper(),
              "generation_args": args.get(m, {"max_tokens": 1024})} for m in "mnopqr"]
    db = ingest_rows(tmp_path, board_points([dict(t, tokens=t["tokens"] or 0) for t in everything]), evals=evals)
    config = SiteConfig()
    board = compute_leaderboard(db, config, load_bands(Path(__file__).resolve().parent.parent / "content" / "bands.toml"))
    with_trials_table(db, everything)
    found = compute_analyses(db, board.leaderboard)
    by_key = {row.evaluation.key: row for row in board.leaderboard.models}
    for m in "mn":
        row = by_key[(m, "tpl", "smp")]
        a = found.evaluations[row.evaluation.id]
        assert a.sweep is not None and a.sweep_note is None and a.sweep.limit == 1024
        assert (round(a.sweep.levels[-1].ci_low, 3), round(a.sweep.levels[-1].ci_high, 3)) == \
            (row.score.ci_low, row.score.ci_high)
        assert set(a.compression) == set(a.hazard) == set(tasks)
        for t in tasks:  # wrong answers compress four times better: flagged wherever five or more
            wrong = a.compression[t].outcome("incorrect")
            assert ("incorrect" in a.compression[t].looping) == (wrong is not None and wrong.bits_trials >= 5)
        assert a.recorded["t"].limit == 1024 and a.recorded["t"].with_text == a.recorded["t"].trials
    o = found.evaluations[by_key[("o", "tpl", "smp")].evaluation.id]
    assert o.sweep is None and o.hazard == {} and o.sweep_note == "the trials of task t do not record their output tokens"
    p = found.evaluations[by_key[("p", "tpl", "smp")].evaluation.id]
    assert p.sweep is None and p.sweep_note == "the run recorded no output-token limit"
    assert all(not h.limited for h in p.hazard.values())
    r = found.evaluations[by_key[("r", "tpl", "smp")].evaluation.id]
    assert r.sweep is None and {t.limit for t in r.recorded.values()} == {None}
    assert {t.cap for t in r.recorded.values()} == {1} and all(not h.limited for h in r.hazard.values())
    assert r.sweep_note == ("the run's limit of 1 output token caps the answer itself, not a line of reasoning, "
                            "so there is no smaller budget to re-count")
    q = found.evaluations[by_key[("q", "tpl", "smp")].evaluation.id]
    assert q.sweep is None and q.sweep_note == UNLIKE and q.hazard and q.compression
    ranked = {row.evaluation.id for row in board.leaderboard.models if row.rank is not None}
    assert set(found.ranks) == ranked & {by_key[(m, "tpl", "smp")].evaluation.id for m in "mn"}
    assert compute_analyses(ingest_rows(tmp_path / "x", board_points(trials)), board.leaderboard).evaluations == {}
    for row in board.leaderboard.models:
        if row.evaluation.id in found.evaluations:
            assert_columns_read_back(analyses_document(row.evaluation, found.evaluations[row.evaluation.id]),
                                     found.evaluations[row.evaluation.id])


def assert_columns_read_back(doc, a):
    """The published columns (one element per task, outcome and bin) give back every record:
    read with a plain loop over the records, not the writer's code."""
    tasks = doc["tasks"]
    assert tasks["name"] == sorted(a.recorded)
    for k, name in enumerate(tasks["name"]):
        rec = a.recorded[name]
        assert (tasks["trials"][k], tasks["with_tokens"][k], tasks["with_text"][k], tasks["token_limit"][k]) == \
            (rec.trials, rec.with_tokens, rec.with_text, rec.limit)
        c, comp = a.compression.get(name), tasks["compression"]
        if c is None:
            assert all(comp[f][k] is None for f in comp)
        else:
            assert comp["looping"][k] == list(c.looping)
            for j, outcome in enumerate(("correct", "incorrect", "truncated")):
                o = c.outcome(outcome)
                assert comp["trials"][k][j] == (o.trials if o else 0)
                assert comp["bits_trials"][k][j] == (o.bits_trials if o else 0)
                assert comp["size_trials"][k][j] == (o.size_trials if o else 0)
                for field, q in (("bits_per_token", o and o.bits), ("compressed", o and o.size)):
                    assert comp[field][k][j] == (None if not q else [round(q.q1, 6), round(q.median, 6),
                                                                     round(q.q3, 6)])
        h, haz = a.hazard.get(name), tasks["hazard"]
        if h is None:
            assert all(haz[f][k] is None for f in haz)
            continue
        assert (haz["top"][k], haz["top_is_limit"][k]) == (h.top, h.limited)
        edges = haz["low"][k] + [h.top]
        for n, b in enumerate(h.bins):  # a bin's upper edge is the next one's lower edge, the last one's `top`
            assert (edges[n], edges[n + 1], haz["ending"][k][n], haz["events"][k][n], haz["at_risk"][k][n]) == \
                (b.low, b.high, b.ending, b.events, b.at_risk)
            for field, v in (("hazard", b.hazard), ("ci_low", b.ci_low), ("ci_high", b.ci_high)):
                assert haz[field][k][n] == (None if v is None else round(v, 6))


def test_the_demo_simulates_a_model_that_loops_when_it_fails():
    from types import SimpleNamespace

    from reasonboard.democompress import BITS, GZIP_FRAME, LOOP_BITS, compressed_sizes, loops_when_failing

    rng = np.random.default_rng(3)
    tokens = rng.integers(200, 4000, 4000)
    correct = rng.random(4000) < 0.5
    looper, plain = SimpleNamespace(index=1, variant=0), SimpleNamespace(index=2, variant=0)
    assert loops_when_failing(looper) and not loops_when_failing(plain)
    for run in (looper, plain):
        sizes = compressed_sizes(run, 0, tokens, correct)
        assert (compressed_sizes(run, 0, tokens, correct) == sizes).all() and sizes.dtype == np.int64
        bits = 8 * (sizes - GZIP_FRAME) / tokens
        assert np.median(bits[correct]) == pytest.approx(BITS, rel=0.05)
        wrong = LOOP_BITS if run is looper else BITS
        assert np.median(bits[~correct]) == pytest.approx(wrong, rel=0.05)


def test_model_page_sections_say_what_was_not_recorded_and_draw_only_what_exists():
    from reasonboard.site.views.analyses import model_analyses
    from reasonboard.stats.analyses import EvaluationAnalyses, Recorded
    from reasonboard.stats.hazard import HazardBin, TaskHazard

    bare = EvaluationAnalyses(recorded={"t": Recorded(10, 0, 0, None)}, compression={}, hazard={}, sweep=None,
                              sweep_note="the trials of task t do not record their output tokens")
    view = model_analyses(bare, "M")
    assert view.charts == () and view.hazard_rows == () and view.compression_rows == ()
    assert view.hazard_notes == ("No hazard on task t: the trials do not record their output tokens.",)
    assert view.compression_notes == ("No compression on task t: the trials do not record their output text.",)
    assert view.sweep_rows == () and view.sweep_note.endswith("output tokens")
    # A single bin, every trial truncated in it: one series charted, h = 1 with its interval.
    one = TaskHazard(64, True, (HazardBin(32, 64, 5, 5, 5, 1.0, 0.566, 1.0),))
    single = EvaluationAnalyses(recorded={"t": Recorded(5, 5, 0, 64)}, compression={}, hazard={"t": one}, sweep=None,
                                sweep_note="x")
    view = model_analyses(single, "M")
    assert view.hazard_bins == ("32–64",) and view.hazard_rows[0].cells == ("1.000 [0.566, 1.000]",)
    assert view.hazard_chart is not None and view.hazard_chart.from_twin and view.hazard_charted == 1
    assert view.hazard_limited and view.hazard_notes == ()
    # A bound computed as 0 from below (-0.0) prints as 0.000, never "-0.000".
    zero = TaskHazard(64, True, (HazardBin(32, 64, 5, 0, 5, -0.0, -0.0, 0.434),))
    view = model_analyses(EvaluationAnalyses(recorded={"t": Recorded(5, 5, 0, 64)}, compression={},
                                             hazard={"t": zero}, sweep=None, sweep_note="x"), "M")
    assert view.hazard_rows[0].cells == ("0.000 [0.000, 0.434]",)
    # No recorded limit on two tasks: one sentence names each task's top edge, and the page
    # does not say that a last bin runs to a limit; a top of one token leaves no bin.
    free = {t: TaskHazard(top, False, (HazardBin(32, 64, 5, 2, 1, 0.5, 0.1, 0.9),)) for t, top in (("a", 64), ("b", 2048))}
    free["c"] = TaskHazard(1, False, ())
    unlimited = EvaluationAnalyses(recorded={t: Recorded(5, 5, 0, None) for t in "abc"}, compression={},
                                   hazard=free, sweep=None, sweep_note="x")
    view = model_analyses(unlimited, "M")
    assert not view.hazard_limited
    assert view.hazard_notes == (
        "Task c: every output is shorter than 2 tokens; the first bin starts at 32 tokens.",
        "No token limit recorded: on each task the bins stop at the largest power of two an output reached "
        "(a 64, b 2,048 tokens).")


def test_the_sweep_and_its_note_speak_of_the_boards_tasks_only(tmp_path):
    """A board of some of the tasks: an evaluation's task off the board (here "v", whose
    trials record no tokens) neither blocks its sweep over the board's tasks nor is named
    as the reason it has none."""
    from reasonboard.stats.analyses import compute_analyses

    rng = np.random.default_rng(5)
    board_tasks = ["t", "u"]
    kept = simulated_trials(rng, "m", board_tasks)
    off = [dict(t, tokens=None) for t in simulated_trials(rng, "m", ["v"])]
    unlimited = simulated_trials(rng, "p", [*board_tasks, "v"])
    everything = kept + off + unlimited
    evals = [{"model": "m", "template": "tpl", "sampler": "smp", "generation_args": {"max_tokens": 1024}},
             {"model": "p", "template": "tpl", "sampler": "smp", "generation_args": {}}]
    db = ingest_rows(tmp_path, board_points([dict(t, tokens=t["tokens"] or 0) for t in everything]), evals=evals)
    config = SiteConfig(tasks=tuple(board_tasks))
    board = compute_leaderboard(db, config, load_bands(Path(__file__).resolve().parent.parent / "content" / "bands.toml"))
    with_trials_table(db, everything)
    found = compute_analyses(db, board.leaderboard)
    by_key = {row.evaluation.key: row for row in board.leaderboard.models}
    m = found.evaluations[by_key[("m", "tpl", "smp")].evaluation.id]
    assert "v" in by_key[("m", "tpl", "smp")].tasks  # the row lists the off-board task
    assert m.sweep is not None and m.sweep_note is None and set(m.sweep.limits) == set(board_tasks)
    p = found.evaluations[by_key[("p", "tpl", "smp")].evaluation.id]
    assert p.sweep is None and p.sweep_note == "the run recorded no output-token limit"


def test_the_looping_note_names_the_other_reason_an_output_compresses_well():
    """Real Inspect logs of GPT-5 and Gemini on `popularity` count hundreds of reasoning
    tokens beside a one-word answer whose text alone is kept: bits per output token far
    below the correct answers' without any loop. The trials cannot tell the two apart, so
    the note may not call it "the mark of repetitive or looping output" alone."""
    from reasonboard.site.views.analyses import model_analyses
    from reasonboard.stats.analyses import EvaluationAnalyses, Recorded
    from reasonboard.stats.compression import OutcomeCompression, Quartiles, TaskCompression

    found = TaskCompression((OutcomeCompression("correct", 10, 10, Quartiles(5.0, 6.0, 7.0), 10, Quartiles(20, 22, 24)),
                             OutcomeCompression("incorrect", 10, 10, Quartiles(0.5, 0.7, 0.9), 10,
                                                Quartiles(20, 22, 24))), ("incorrect",))
    a = EvaluationAnalyses(recorded={"popularity": Recorded(20, 20, 20, None)}, compression={"popularity": found},
                           hazard={}, sweep=None, sweep_note="")
    (note,) = [n for n in model_analyses(a, "M").compression_notes if n.startswith("Looping")]
    assert "the mark of" not in note
    assert "reasoning whose text the log does not keep" in note and "cannot tell apart" in note
