"""Tests for the score-change report (`builder/diff/`): the comparison, the Markdown, the CLI.

Hand-made leaderboards and signal files follow the contracts (PRODUCT.md "Outputs",
EVALCARDS.md section 8) so every expected figure can be read off the fixture.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers_points import write_demo_points
from reasonboard.cli import main
from reasonboard.diff.compare import (
    NOT_COMPARABLE,
    SCORE_UNCHANGED,
    SIGNIFICANT_DROP,
    SIGNIFICANT_GAIN,
    WITHIN_INTERVALS,
    Score,
    compare,
    significance,
)
from reasonboard.diff.markdown import MAX_BYTES, render_markdown
from reasonboard.diff.mdtext import VISIBLE_ROWS

TASKS = ["arithmetic", "dates", "sort"]


def model(model_id: str, center: float, margin: float, rank: int | None = 1, rank_range=None, band="good",
          tied_with=(), tasks=None, missing=()) -> dict:
    """One leaderboard row with every contract field; tasks default to a flat 0.6 ± 0.05."""
    task_values = tasks or {t: (0.6, 0.55, 0.65) for t in TASKS if t not in missing}
    return {
        "id": model_id, "slug": model_id.lower().replace("/", "-"), "model": model_id.split("/")[0],
        "template": "zs", "sampler": "greedy", "label": model_id.split("/")[0],
        "complete": not missing, "missing_tasks": list(missing),
        "rank": None if missing else rank,
        "rank_range": None if missing else list(rank_range or (rank, rank)),
        "reasonscore": {"center": center, "margin": margin,
                        "ci_low": round(center - margin, 3), "ci_high": round(center + margin, 3)},
        "band": band, "avg_tokens": 500.0, "score_per_token": round(center / 500, 6), "truncation_rate": 0.01,
        "tied_with": list(tied_with), "distinct_from_next": None,
        "tasks": {t: {"total": 100, "truncated": 1, "correct": 60, "guess": 0.0, "tokens": 50000,
                      "estimate": e, "low": lo, "high": hi,
                      "modes": {m: [e, lo, hi] for m in ("E_I", "E_P", "E_O", "C_I", "C_P", "C_O")}}
                  for t, (e, lo, hi) in task_values.items()},
        "tiers": {}, "score_per_token_v1": None,
    }


def leaderboard(models: list[dict], tie_groups=(), tasks=TASKS, seed=42) -> dict:
    return {"schema": "reasonboard.leaderboard/1",
            "config": {"mode": "C_P", "bootstrap": 5000, "seed": seed, "tasks": list(tasks)},
            "models": models, "tie_groups": [list(g) for g in tie_groups]}


def triple(model_id: str, benchmark: str, missing=(), flag=None, kinds=()) -> dict:
    def check(kind: str) -> dict:
        on = kind in kinds
        return {"flag": True if on else flag if flag is None else False, "spread": 0.2 if on else 0.01,
                "threshold": 0.05, "basis": "fallback", "differing_fields": [], "scores": {}}

    return {"model": model_id, "benchmark": benchmark, "metric": "score", "reports": 2, "parties": ["a"],
            "reproducibility": {"gap": bool(missing), "missing": list(missing), "agentic": False},
            "provenance": {"first_party_only": False, "multi_party": False, "relationships": {}},
            "comparability": {"variant": check("variant"), "cross_party": check("cross_party"), "flag": flag}}


def benchmark(name: str, completeness: float, populated: list[str], has_card=True) -> dict:
    fields = ["benchmark_details.name", "benchmark_details.overview", "methodology.metrics"]
    return {"benchmark": name, "has_card": has_card, "completeness": completeness,
            "fully_missing": len([f for f in fields if f not in populated]),
            "fields": [{"field": f, "type": "full", "score": 1.0 if f in populated else 0.0} for f in fields],
            "risks": []}


def signals(triples: list[dict], benchmarks: list[dict], gap_rate=0.5) -> dict:
    return {"schema": "reasonboard.signals/1", "populated_rule": "strict", "dropped_rows": 0,
            "triples": triples, "benchmarks": benchmarks,
            "corpus": {"triples": len(triples), "reproducibility_gap_rate": gap_rate, "field_missingness": {},
                       "completeness_median": 0.5, "field_population": {}, "provenance": {}, "comparability": {}}}


@pytest.fixture()
def pair():
    """Base and head that differ in known ways.

    alpha: improves far beyond its interval (600 ± 10 -> 700 ± 10, significant gain), rank 2 -> 1;
    beta: moves inside its interval (650 ± 20 -> 655 ± 20), rank 1 -> 2, loses its band? no;
    gamma: unchanged; delta: removed; epsilon: added; zeta: drops significantly (400 -> 300).
    """
    base = leaderboard([
        model("beta/zs/greedy", 650.0, 20.0, rank=1, rank_range=(1, 2), band="good", tied_with=["alpha/zs/greedy"]),
        model("alpha/zs/greedy", 600.0, 10.0, rank=2, rank_range=(1, 2), band="good", tied_with=["beta/zs/greedy"]),
        model("gamma/zs/greedy", 500.0, 10.0, rank=3, band="good"),
        model("delta/zs/greedy", 450.0, 10.0, rank=4, band="limited"),
        model("zeta/zs/greedy", 400.0, 10.0, rank=5, band="limited"),
    ], tie_groups=[["alpha/zs/greedy", "beta/zs/greedy"]])
    head = leaderboard([
        model("alpha/zs/greedy", 700.0, 10.0, rank=1, rank_range=(1, 2), band="strong", tied_with=["beta/zs/greedy"],
              tasks={"arithmetic": (0.9, 0.85, 0.95), "dates": (0.6, 0.55, 0.65), "sort": (0.6, 0.55, 0.65)}),
        model("beta/zs/greedy", 655.0, 20.0, rank=2, rank_range=(1, 2), band="good", tied_with=["alpha/zs/greedy"]),
        model("epsilon/zs/greedy", 520.0, 15.0, rank=3, band="good"),
        model("gamma/zs/greedy", 500.0, 10.0, rank=3, band="good"),
        model("zeta/zs/greedy", 300.0, 10.0, rank=5, band="limited"),
    ], tie_groups=[["alpha/zs/greedy", "beta/zs/greedy"]])
    # gamma's rank is kept identical on purpose (3 in both) so it counts as unchanged.
    head["models"][3]["rank"] = 3
    return base, head


# -- significance -------------------------------------------------------------------------


def test_significance_is_interval_overlap():
    old = Score(600.0, 10.0, 590.0, 610.0)
    assert significance(old, Score(700.0, 10.0, 690.0, 710.0)) == SIGNIFICANT_GAIN
    assert significance(old, Score(500.0, 10.0, 490.0, 500.0)) == SIGNIFICANT_DROP
    assert significance(old, Score(605.0, 10.0, 595.0, 615.0)) == WITHIN_INTERVALS
    assert significance(old, old) == SCORE_UNCHANGED
    # Touching intervals overlap: distinct needs strictly greater (STATISTICS.md section 7).
    assert significance(old, Score(620.0, 10.0, 610.0, 630.0)) == WITHIN_INTERVALS
    assert significance(old, Score(620.001, 10.0, 610.001, 630.001)) == SIGNIFICANT_GAIN
    # Same center but a narrower interval is a change within the intervals, not "unchanged".
    assert significance(old, Score(600.0, 5.0, 595.0, 605.0)) == WITHIN_INTERVALS


# -- comparison ---------------------------------------------------------------------------


def test_compare_classifies_each_model(pair):
    base, head = pair
    report = compare(base, head)
    by_id = {c.model.id: c for c in report.changed}
    assert set(by_id) == {"alpha/zs/greedy", "beta/zs/greedy", "zeta/zs/greedy"}
    assert by_id["alpha/zs/greedy"].significance == SIGNIFICANT_GAIN
    assert by_id["alpha/zs/greedy"].delta == 100.0
    assert by_id["alpha/zs/greedy"].rank_move == 1
    assert (by_id["alpha/zs/greedy"].old_band, by_id["alpha/zs/greedy"].new_band) == ("good", "strong")
    assert by_id["beta/zs/greedy"].significance == WITHIN_INTERVALS
    assert by_id["beta/zs/greedy"].delta == 5.0
    assert by_id["zeta/zs/greedy"].significance == SIGNIFICANT_DROP
    assert [m.model.id for m in report.added] == ["epsilon/zs/greedy"]
    assert [m.model.id for m in report.removed] == ["delta/zs/greedy"]
    assert report.unchanged == 1  # gamma
    assert report.has_significant_drop
    # Sorted by |Δ|: alpha (+100) and zeta (-100) before beta (+5); equal |Δ| by places moved.
    assert [c.model.id for c in report.changed] == ["alpha/zs/greedy", "zeta/zs/greedy", "beta/zs/greedy"]
    assert report.summary() == {
        "changed": 3, "significant_gains": 1, "significant_drops": 1, "within_intervals": 1, "not_significant": 0, "paired": 0,
        "score_unchanged": 0, "not_comparable": 0, "added": 1, "removed": 1, "unchanged": 1, "tasks_added": 0,
        "tasks_removed": 0, "card_changes": 0,
    }


def test_task_moves_name_the_task_that_moved(pair):
    report = compare(*pair)
    alpha = next(c for c in report.changed if c.model.id == "alpha/zs/greedy")
    assert [(m.task, m.direction) for m in alpha.task_moves] == [("arithmetic", "up")]


def test_rank_only_move_is_score_unchanged():
    base = leaderboard([model("a/zs/greedy", 600.0, 10.0, rank=1), model("b/zs/greedy", 500.0, 10.0, rank=2)])
    head = leaderboard([model("a/zs/greedy", 600.0, 10.0, rank=2), model("b/zs/greedy", 500.0, 10.0, rank=2),
                        model("c/zs/greedy", 700.0, 10.0, rank=1)])
    report = compare(base, head)
    assert [(c.model.id, c.significance) for c in report.changed] == [("a/zs/greedy", SCORE_UNCHANGED)]
    assert report.unchanged == 1


def test_completeness_and_missing_tasks_count_as_changes():
    base = leaderboard([model("a/zs/greedy", 600.0, 10.0)])
    head = leaderboard([model("a/zs/greedy", 600.0, 10.0, missing=("sort",))])
    change = compare(base, head).changed[0]
    assert (change.old_complete, change.new_complete) == (True, False)
    assert change.new_missing_tasks == ("sort",)
    assert change.new_rank is None


def test_tasks_and_config_changes():
    base = leaderboard([model("a/zs/greedy", 600.0, 10.0)], tasks=["arithmetic", "dates", "sort"])
    head = leaderboard([model("a/zs/greedy", 600.0, 10.0, tasks={"arithmetic": (0.6, 0.55, 0.65),
                                                                   "dates": (0.6, 0.55, 0.65),
                                                                   "shapes": (0.6, 0.55, 0.65)})],
                       tasks=["arithmetic", "dates", "shapes"], seed=7)
    report = compare(base, head)
    assert report.tasks_added == ("shapes",)
    assert report.tasks_removed == ("sort",)
    assert [(c.key, c.old, c.new) for c in report.config_changes] == [("seed", 42, 7)]


def test_tie_changes_pairs_and_groups():
    base, head = _tie_base_head()
    ties = compare(base, head).ties
    assert [(p[0].id, p[1].id) for p in ties.pairs_tied] == [("b/zs/greedy", "c/zs/greedy")]
    assert [(p[0].id, p[1].id) for p in ties.pairs_untied] == [("a/zs/greedy", "b/zs/greedy")]
    assert [[m.id for m in g] for g in ties.groups_formed] == [["b/zs/greedy", "c/zs/greedy"]]
    assert [[m.id for m in g] for g in ties.groups_dissolved] == [["a/zs/greedy", "b/zs/greedy"]]
    assert [m.label for m in ties.groups_formed[0]] == ["b", "c"]



def as_v2(lb: dict) -> dict:
    """The same leaderboard in schema 2, converted by hand: each row's `tied_with`
    list becomes its length, each tie group's member list a record of its rank span, size and
    the largest lower bound among its members."""
    out = copy.deepcopy(lb)
    out["schema"] = "reasonboard.leaderboard/2"
    rows = {m["id"]: m for m in out["models"]}
    for m in out["models"]:
        m["tied_count"] = len(m.pop("tied_with"))
    out["tie_groups"] = [{"ranks": [min(rows[i]["rank"] for i in g), max(rows[i]["rank"] for i in g)], "size": len(g),
                          "at": max(rows[i]["reasonscore"]["ci_low"] for i in g)} for g in lb["tie_groups"]]
    return out


def _tie_base_head():
    base = leaderboard([
        model("a/zs/greedy", 600.0, 30.0, rank=1, rank_range=(1, 2), tied_with=["b/zs/greedy"]),
        model("b/zs/greedy", 580.0, 30.0, rank=2, rank_range=(1, 2), tied_with=["a/zs/greedy"]),
        model("c/zs/greedy", 400.0, 10.0, rank=3),
    ], tie_groups=[["a/zs/greedy", "b/zs/greedy"]])
    head = leaderboard([
        model("a/zs/greedy", 700.0, 10.0, rank=1),
        model("b/zs/greedy", 580.0, 30.0, rank=2, rank_range=(2, 3), tied_with=["c/zs/greedy"]),
        model("c/zs/greedy", 560.0, 10.0, rank=3, rank_range=(2, 3), tied_with=["b/zs/greedy"]),
    ], tie_groups=[["c/zs/greedy", "b/zs/greedy"]])
    return base, head


@pytest.mark.parametrize("versions", [(1, 2), (2, 1), (2, 2)])
def test_tie_changes_read_both_schema_versions(versions):
    """A schema 1 file (tie lists) and a schema 2 file (counts and records) give the same
    tie changes, whichever side each is on."""
    base, head = _tie_base_head()
    base = as_v2(base) if versions[0] == 2 else base
    head = as_v2(head) if versions[1] == 2 else head
    report = compare(base, head)
    ties = report.ties
    assert [(p[0].id, p[1].id) for p in ties.pairs_tied] == [("b/zs/greedy", "c/zs/greedy")]
    assert [(p[0].id, p[1].id) for p in ties.pairs_untied] == [("a/zs/greedy", "b/zs/greedy")]
    assert [[m.id for m in g] for g in ties.groups_formed] == [["b/zs/greedy", "c/zs/greedy"]]
    assert [[m.id for m in g] for g in ties.groups_dissolved] == [["a/zs/greedy", "b/zs/greedy"]]
    if versions[0] != versions[1]:
        assert next((c.key, c.old, c.new) for c in report.config_changes) == (
            "schema", f"reasonboard.leaderboard/{versions[0]}", f"reasonboard.leaderboard/{versions[1]}")
    else:
        assert report.config_changes == ()


def test_command_reads_a_v1_base_and_a_v2_head(tmp_path):
    base, head = _tie_base_head()
    old = _write_site(tmp_path / "old", base)
    new = _write_site(tmp_path / "new", as_v2(head))
    result = CliRunner().invoke(main, ["diff", str(old), str(new)])
    assert result.exit_code == 0, result.output
    assert "reasonboard.leaderboard/1" in result.output and "reasonboard.leaderboard/2" in result.output


# -- Evaluation Card changes ----------------------------------------------------------------


@pytest.fixture()
def signal_pair():
    base = signals(
        triples=[
            triple("m1", "gsm8k", missing=("max_tokens",)),                 # gap closed in head
            triple("m2", "gsm8k"),                                          # gap opened in head
            triple("m3", "gsm8k", missing=("temperature", "max_tokens")),   # gap narrowed
            triple("m4", "mmlu", flag=False),                               # flag raised in head
            triple("m5", "mmlu", flag=True, kinds=("cross_party",)),        # flag cleared -> N/A
            triple("m6", "mmlu", flag=True, kinds=("variant",)),            # flag cleared -> within
            triple("m7", "mmlu", missing=("max_tokens",)),                  # removed in head
        ],
        benchmarks=[benchmark("gsm8k", 0.25, ["benchmark_details.name"]),
                    benchmark("mmlu", 0.5, ["benchmark_details.name", "methodology.metrics"])],
        gap_rate=0.428571,
    )
    head = signals(
        triples=[
            triple("m1", "gsm8k"),
            triple("m2", "gsm8k", missing=("temperature",)),
            triple("m3", "gsm8k", missing=("max_tokens",)),
            triple("m4", "mmlu", flag=True, kinds=("cross_party",)),
            triple("m5", "mmlu", flag=None),
            triple("m6", "mmlu", flag=False),
            triple("m8", "boolq", missing=("temperature",)),                # new result with a gap
        ],
        benchmarks=[benchmark("gsm8k", 0.5, ["benchmark_details.name", "benchmark_details.overview"]),
                    benchmark("mmlu", 0.5, ["benchmark_details.name", "methodology.metrics"]),
                    benchmark("boolq", 0.1, [], has_card=False)],
        gap_rate=0.428571,
    )
    return base, head


def test_card_changes(signal_pair):
    lb = leaderboard([model("a/zs/greedy", 600.0, 10.0)])
    cards = compare(lb, lb, *signal_pair).cards
    assert cards.compared and cards.note == ""
    assert [(g.triple.model, g.old_missing, g.new_missing) for g in cards.gaps_opened] == [
        ("m2", (), ("temperature",)), ("m8", None, ("temperature",))]
    assert [(g.triple.model, g.old_missing, g.new_missing) for g in cards.gaps_closed] == [
        ("m1", ("max_tokens",), ())]
    assert [(g.triple.model, g.old_missing, g.new_missing) for g in cards.gaps_changed] == [
        ("m3", ("temperature", "max_tokens"), ("max_tokens",))]
    assert [(f.triple.model, f.old_flag, f.new_flag, f.kinds) for f in cards.flags_raised] == [
        ("m4", False, True, ("cross_party",))]
    assert [(f.triple.model, f.old_flag, f.new_flag, f.kinds) for f in cards.flags_cleared] == [
        ("m5", True, None, ("cross_party",)), ("m6", True, False, ("variant",))]
    assert [(c.benchmark, c.old, c.new, c.delta, c.fields_gained) for c in cards.completeness] == [
        ("gsm8k", 0.25, 0.5, 0.25, ("benchmark_details.overview",)),
        ("boolq", None, 0.1, None, ())]
    assert (cards.triples_added, cards.triples_removed) == (1, 1)
    assert cards.count == 9  # 2 opened, 1 closed, 1 changed, 2 completeness, 1 raised, 2 cleared


def test_card_changes_need_both_signal_files(signal_pair):
    lb = leaderboard([model("a/zs/greedy", 600.0, 10.0)])
    cards = compare(lb, lb, None, signal_pair[1]).cards
    assert not cards.compared and cards.count == 0
    assert "base" in cards.note
    assert "head" in compare(lb, lb, signal_pair[0], None).cards.note
    text = render_markdown(compare(lb, lb, signal_pair[0], None))
    assert "Evaluation Card changes not compared: the head build has no signals.json." in text


# -- Markdown -------------------------------------------------------------------------------


def _section(text: str, title: str) -> str:
    """The Markdown between a `### title` heading and the next `### ` heading."""
    match = re.search(rf"^### {re.escape(title)}\n(.*?)(?=^### |\Z)", text, flags=re.S | re.M)
    assert match, f"no section {title!r} in:\n{text}"
    return match.group(1)


def test_markdown_keeps_significant_and_within_apart(pair):
    text = render_markdown(compare(*pair, base_name="main", head_name="pr"))
    assert text.startswith("## Score changes: main → pr\n")
    assert "**3 changed** · **2 significant** (1 `++` gain, 1 `!!` drop) · 1 not significant (`~`)" in text
    assert "1 added · 1 removed · 1 unchanged" in text
    significant = _section(text, "Significant changes")
    within = _section(text, "Not significant")
    assert "| `++` | alpha | 600.0 ± 10.0 → 700.0 ± 10.0 | +100.0 | 2 (1–2) → 1 (1–2) | good → strong | overlap; ↑ arithmetic |" in significant
    assert "| `!!` | zeta | 400.0 ± 10.0 → 300.0 ± 10.0 | -100.0 | 5 | limited | overlap |" in significant
    assert "beta" not in significant
    assert "| `~` | beta | 650.0 ± 20.0 → 655.0 ± 20.0 | +5.0 | 1 (1–2) → 2 (1–2) | good | overlap |" in within
    assert "| epsilon | 520.0 ± 15.0 | 3 | good |" in _section(text, "Added models")
    assert "| delta | 450.0 ± 10.0 | 4 | limited |" in _section(text, "Removed models")
    assert "gamma" not in text
    assert len(text.encode()) <= MAX_BYTES


def test_markdown_card_section(signal_pair):
    lb = leaderboard([model("a/zs/greedy", 600.0, 10.0)])
    text = render_markdown(compare(lb, lb, *signal_pair))
    cards = _section(text, "Evaluation Card changes")
    assert "**New reproducibility gaps** (2)" in cards
    assert "| m8 | boolq | score | temperature (new result) |" in cards
    assert "| m1 | gsm8k | score | now reported: max\\_tokens |" in cards
    assert "| m3 | gsm8k | score | temperature, max\\_tokens → max\\_tokens |" in cards
    assert "| gsm8k | 25.0 % → 50.0 % | +25.0 pt | 2 → 1 | benchmark\\_details.overview |  |" in cards
    assert "| boolq | absent → 10.0 % | — |" in cards
    # N/A never reads like "no divergence" (EVALCARDS.md section 7).
    assert "| m5 | mmlu | score | diverges → not checked (N/A) | cross-party, spread 0.2 |" in cards
    assert "| m6 | mmlu | score | diverges → within threshold | variant, spread 0.2 |" in cards
    assert "| m4 | mmlu | score | within threshold → diverges | cross-party, spread 0.2 |" in cards


def test_markdown_no_changes():
    lb = leaderboard([model("a/zs/greedy", 600.0, 10.0)])
    text = render_markdown(compare(lb, copy.deepcopy(lb)))
    assert "**No changes.** 1 model with the same score, rank and band." in text


def test_markdown_escapes_data():
    base = leaderboard([model("x/zs/greedy", 600.0, 10.0)])
    head = copy.deepcopy(base)
    head["models"][0]["label"] = "Evil | <script>alert(1)</script>"
    head["models"][0]["reasonscore"].update(center=700.0, ci_low=690.0, ci_high=710.0)
    text = render_markdown(compare(base, head))
    assert "<script>" not in text
    assert "Evil \\| &lt;script&gt;alert(1)&lt;/script&gt;" in text
    row = next(line for line in text.splitlines() if "Evil" in line)
    cells = re.split(r"(?<!\\)\|", row)[1:-1]
    assert len(cells) == 7  # the label's pipe is escaped, so it does not open a cell


def _many(n: int, shift: float) -> dict:
    return leaderboard([model(f"model-{i:04d}/zs/greedy", 100.0 + i * 0.3 + shift * (i % 3), 2.0, rank=n - i)
                        for i in range(n)])


def test_long_tables_fold_into_details():
    text = render_markdown(compare(_many(30, 0.0), _many(30, 0.5)))
    within = _section(text, "Not significant")
    visible, _, folded = within.partition("<details>")
    assert visible.count("| `~` |") == VISIBLE_ROWS
    assert "<summary>10 more non-significant changes</summary>" in folded
    assert folded.count("| `~` |") == 10
    assert "</details>" in folded


def test_size_limit_says_what_was_left_out():
    base, head = _many(2000, 0.0), _many(2000, 10.0)
    report = compare(base, head)
    text = render_markdown(report)
    size = len(text.encode("utf-8"))
    assert size <= MAX_BYTES
    assert size > MAX_BYTES * 0.9  # it fills the budget instead of cutting everything
    shown = text.count("| `++` |")
    assert 0 < shown < len(report.changed)
    assert f"Left out: {len(report.changed) - shown} significant changes." in text
    assert f"_{len(report.changed) - shown} more significant changes left out to keep this report under 60 KB" in text


def test_size_limit_cuts_within_interval_rows_before_significant_ones():
    n = 1200
    base = leaderboard([model(f"model-{i:04d}/zs/greedy", 100.0 + i * 0.5, 2.0, rank=n - i) for i in range(n)])
    head = leaderboard([model(f"model-{i:04d}/zs/greedy", 100.0 + i * 0.5 + (10.0 if i % 2 else 1.0), 2.0,
                              rank=n - i) for i in range(n)])
    report = compare(base, head)
    assert len(report.significant) == len(report.not_significant) == n // 2
    text = render_markdown(report)
    assert len(text.encode("utf-8")) <= MAX_BYTES
    assert text.count("| `++` |") == n // 2
    within_shown = text.count("| `~` |")
    assert within_shown < n // 2
    assert f"Left out: {n // 2 - within_shown} non-significant changes." in text


def test_size_limit_with_only_some_tables_of_a_tier():
    """A tier to cut whose other tables are empty, so not drawn: only added models (of
    "added" and "removed"), then only new ties (of the twelve Evaluation Card and tie tables)."""
    added = compare(_many(5, 0.0), _many(2005, 0.0))
    assert len(added.added) == 2000 and not added.removed
    text = render_markdown(added)
    assert MAX_BYTES * 0.9 < len(text.encode("utf-8")) <= MAX_BYTES
    assert re.search(r"Left out: .*\b\d+ added models\.", text)

    n = 2000
    base = leaderboard([model(f"model-{i:04d}/zs/greedy", 100.0 + i, 2.0, rank=n - i) for i in range(n)])
    head = leaderboard([model(f"model-{i:04d}/zs/greedy", 100.0 + i, 2.0, rank=n - i,
                              tied_with=[f"model-{j:04d}/zs/greedy" for j in range(i - 3, i + 4) if 0 <= j < n and j != i])
                        for i in range(n)])
    text = render_markdown(compare(base, head))
    assert MAX_BYTES * 0.9 < len(text.encode("utf-8")) <= MAX_BYTES
    assert re.search(r"Left out: .*\b\d+ new ties\.", text)


def test_json_has_the_same_content(pair):
    data = compare(*pair).to_dict()
    assert json.loads(json.dumps(data)) == data
    assert data["schema"] == "reasonboard.diff/1"
    assert data["summary"]["significant_gains"] == 1
    alpha = data["changed"][0]
    assert alpha["model"] == {"id": "alpha/zs/greedy", "label": "alpha"}
    assert alpha["significance"] == "significant_gain"
    assert alpha["old"]["ci_high"] == 610.0 and alpha["new"]["ci_low"] == 690.0
    assert alpha["rank_move"] == 1 and alpha["old_rank_range"] == [1, 2]
    assert [e["model"]["id"] for e in data["added"]] == ["epsilon/zs/greedy"]


# -- the command ----------------------------------------------------------------------------


def _write_site(root: Path, lb: dict, sig: dict | None = None) -> Path:
    data = root / "data"
    data.mkdir(parents=True)
    (data / "leaderboard.json").write_text(json.dumps(lb), encoding="utf-8")
    if sig is not None:
        (data / "signals.json").write_text(json.dumps(sig), encoding="utf-8")
    return root


def test_command_markdown_json_and_output(tmp_path, pair, signal_pair):
    base = _write_site(tmp_path / "base", pair[0], signal_pair[0])
    head = _write_site(tmp_path / "head", pair[1], signal_pair[1])
    runner = CliRunner()
    result = runner.invoke(main, ["diff", str(base), str(head)])
    assert result.exit_code == 0, result.output
    assert "### Significant changes" in result.output
    assert "### Evaluation Card changes" in result.output

    result = runner.invoke(main, ["diff", str(base / "data" / "leaderboard.json"),
                                  str(head / "data" / "signals.json"), "--format", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["summary"]["card_changes"] == 9 and data["cards"]["compared"]

    out = tmp_path / "report.md"
    result = runner.invoke(main, ["diff", str(base), str(head), "--output", str(out)])
    assert result.exit_code == 0 and result.output == ""
    assert out.read_text(encoding="utf-8").startswith("## Score changes:")


@pytest.mark.parametrize("existing", ["site.toml", "notes.md", "link"])
def test_command_output_never_overwrites_a_file_it_did_not_write(tmp_path, pair, existing):
    """`--output content/site.toml` replaced the user's config with the report. Now any
    existing file that is not a report of `reasonboard diff` is left byte for byte, with a
    one-line error naming it and the fix; nothing is written."""
    base = _write_site(tmp_path / "base", pair[0])
    head = _write_site(tmp_path / "head", pair[1])
    out = tmp_path / existing
    kept = b'title = "Our board"\n'
    if existing == "link":
        (tmp_path / "target.md").write_bytes(kept)
        out.symlink_to(tmp_path / "target.md")
    else:
        out.write_bytes(kept)
    for fmt in ("markdown", "json"):
        result = CliRunner().invoke(main, ["diff", str(base), str(head), "--output", str(out), "--format", fmt])
        assert result.exit_code == 2, result.output
        assert "Traceback" not in result.output
        line = result.output.strip()
        assert line.startswith(f"error: {out}: exists and is not a report reasonboard diff wrote"), line
        assert "--output" in line and len(line.splitlines()) == 1
    assert out.read_bytes() == kept
    assert not list(tmp_path.glob(f".{existing}.*"))


def test_command_output_replaces_its_own_report_atomically(tmp_path, pair):
    """A workflow reruns the diff into the same file: its own report, Markdown or JSON,
    is replaced (through a temporary file renamed over it)."""
    base = _write_site(tmp_path / "base", pair[0])
    head = _write_site(tmp_path / "head", pair[1])
    out = tmp_path / "report" / "report.md"
    runner = CliRunner()
    for fmt in ("markdown", "json", "json", "markdown", "markdown"):
        result = runner.invoke(main, ["diff", str(base), str(head), "--output", str(out), "--format", fmt])
        assert result.exit_code == 0, result.output
        body = out.read_text(encoding="utf-8")
        assert body.startswith("## Score changes:") if fmt == "markdown" else json.loads(body)["schema"]
    assert sorted(p.name for p in out.parent.iterdir()) == ["report.md"]


def test_command_fail_on_significant_drop(tmp_path, pair):
    base = _write_site(tmp_path / "base", pair[0])
    head = _write_site(tmp_path / "head", pair[1])
    runner = CliRunner()
    assert runner.invoke(main, ["diff", str(base), str(head)]).exit_code == 0
    result = runner.invoke(main, ["diff", str(base), str(head), "--fail-on-significant-drop"])
    assert result.exit_code == 1
    # Without a drop the flag passes: compare head with itself plus a gain only.
    result = runner.invoke(main, ["diff", str(head), str(head), "--fail-on-significant-drop"])
    assert result.exit_code == 0


@pytest.mark.parametrize("content, problem", [
    (None, "no data/leaderboard.json here"),
    ("{not json", "invalid JSON"),
    ('{"schema": "something/1", "models": []}', "not a reasonboard leaderboard"),
    ('{"schema": "reasonboard.leaderboard/1", "models": [{"id": "a"}]}', "lacks numeric reasonscore"),
])
def test_command_bad_input_names_the_file(tmp_path, pair, content, problem):
    good = _write_site(tmp_path / "good", pair[0])
    bad = tmp_path / "bad"
    bad.mkdir()
    if content is not None:
        (bad / "leaderboard.json").write_text(content, encoding="utf-8")
    result = CliRunner().invoke(main, ["diff", str(good), str(bad)])
    assert result.exit_code == 2
    line = result.output.strip()
    assert len(line.splitlines()) == 1 and line.startswith("error: ") and problem in line
    assert str(bad) in line


def test_command_bad_signals_file(tmp_path, pair):
    good = _write_site(tmp_path / "good", pair[0])
    bad = _write_site(tmp_path / "bad", pair[1])
    (bad / "data" / "signals.json").write_text("[]", encoding="utf-8")
    result = CliRunner().invoke(main, ["diff", str(good), str(bad)])
    assert result.exit_code == 2
    assert "signals.json: not a reasonboard signals file" in result.output


def test_command_missing_path(tmp_path, pair):
    good = _write_site(tmp_path / "good", pair[0])
    result = CliRunner().invoke(main, ["diff", str(good), str(tmp_path / "nowhere")])
    assert result.exit_code == 2
    assert "nowhere: not found" in result.output


def test_gaps_of_one_model_share_a_row_and_counts_stay_exact():
    lb = leaderboard([model("a/zs/greedy", 600.0, 10.0)])
    base = signals([], [])
    head = signals([triple("m1", f"bench-{i:02d}", missing=("max_tokens",)) for i in range(30)]
                   + [triple(f"m{i}", "gsm8k", missing=("temperature",)) for i in range(2, 14)], [])
    text = render_markdown(compare(lb, lb, base, head))
    assert "**New reproducibility gaps** (42)" in text
    row = next(line for line in text.splitlines() if line.startswith("| m1 |"))
    assert row == ("| m1 | " + ", ".join(f"bench-{i:02d}" for i in range(30))
                   + " | score | max\\_tokens (new result) |")
    # 13 rows: 10 shown, 3 folded, each of those standing for one gap.
    assert "<summary>3 more new reproducibility gaps</summary>" in text


# -- two real builds that differ in known ways -------------------------------------------------

ADDED = "wren-9b-instruct"
BASE_CARD = {"benchmark_card": {"benchmark_details": {
    "name": "arithmetic", "overview": "Multi-step integer arithmetic with growing depth and length."}}}
HEAD_CARD_FIELDS = {
    "purpose_and_intended_users": {"goal": "Measure exact multi-step calculation.", "audience": ["Model developers"]},
    "methodology": {"metrics": ["C_P estimate of p(correct)"]},
}
GAINED_FIELDS = ("methodology.metrics", "purpose_and_intended_users.audience", "purpose_and_intended_users.goal")


def _points(path: Path) -> tuple[list[str], list[dict]]:
    import csv

    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        return list(reader.fieldnames), list(reader)


def _write_points(path: Path, columns: list[str], rows: list[dict]) -> None:
    import csv

    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


def _points_file(data: Path, model_name: str) -> Path:
    return next(p for p in sorted((data / "points").glob("*.csv")) if _points(p)[1][0]["model"] == model_name)


def _build(data: Path, out: Path, cache: Path) -> None:
    result = CliRunner().invoke(main, ["build", "--data", str(data), "--out", str(out), "--cache", str(cache),
                                       "--quiet"])
    assert result.exit_code == 0, result.output


@pytest.fixture(scope="module")
def two_builds(tmp_path_factory):
    """A small demo data set (base) and a copy (head) in which, and only in which:

    the weakest model answers everything correctly (far beyond its interval); a middle model
    gets three more correct answers (inside its interval); a model is added (a renamed copy of
    another's points); one is removed; the `arithmetic` card gains three fields; and one
    evaluation that did not report `max_tokens` now does (a closed reproducibility gap).
    """
    tmp = tmp_path_factory.mktemp("diff-builds")
    base_data, head_data = tmp / "base-data", tmp / "head-data"
    write_demo_points(base_data, 8, 0)  # points files, which the test edits by hand
    (base_data / "cards").mkdir()
    (base_data / "cards" / "benchmark_card_arithmetic.json").write_text(json.dumps(BASE_CARD), encoding="utf-8")
    _build(base_data, tmp / "base-site", tmp / "cache-base")
    base_lb = json.loads((tmp / "base-site" / "data" / "leaderboard.json").read_text(encoding="utf-8"))

    import shutil

    shutil.copytree(base_data, head_data)
    evals = json.loads((head_data / "evals.json").read_text(encoding="utf-8"))
    per_name: dict[str, list] = {}
    for e in evals:
        per_name.setdefault(e["model"], []).append(e)
    # Single-evaluation models only, so removing or copying a points file touches one row.
    single = sorted((m for m in base_lb["models"] if m["complete"] and len(per_name[m["model"]]) == 1),
                    key=lambda m: m["reasonscore"]["center"])
    assert len(single) >= 4, "the demo set needs four single-evaluation models"
    improved, removed, nudged, source = single[0], single[1], single[len(single) // 2], single[-1]

    path = _points_file(head_data, improved["model"])
    columns, rows = _points(path)
    for row in rows:
        row["correct"] = str(int(row["total"]) - int(row["truncated"]))
    _write_points(path, columns, rows)

    path = _points_file(head_data, nudged["model"])
    columns, rows = _points(path)
    nudges = 0
    for row in rows:
        if nudges < 3 and int(row["correct"]) < int(row["total"]) - int(row["truncated"]):
            row["correct"] = str(int(row["correct"]) + 1)
            nudges += 1
    _write_points(path, columns, rows)

    columns, rows = _points(_points_file(head_data, source["model"]))
    for row in rows:
        row["model"] = ADDED
    _write_points(head_data / "points" / f"{ADDED}.csv", columns, rows)
    donor = next(e for e in evals if {"temperature", "max_tokens"} <= set(e["generation_args"]))
    evals.append(dict(donor, model=ADDED, template=rows[0]["template"], sampler=rows[0]["sampler"],
                      label="Wren 9B Instruct", hf_id=f"demo-wren/{ADDED}"))

    _points_file(head_data, removed["model"]).unlink()
    evals = [e for e in evals if e["model"] != removed["model"]]

    gap = next(e for e in evals if "max_tokens" not in e["generation_args"])
    gap["generation_args"] = dict(gap["generation_args"], max_tokens=8192)
    (head_data / "evals.json").write_text(json.dumps(evals, indent=1), encoding="utf-8")

    card = copy.deepcopy(BASE_CARD)
    card["benchmark_card"].update(HEAD_CARD_FIELDS)
    (head_data / "cards" / "benchmark_card_arithmetic.json").write_text(json.dumps(card), encoding="utf-8")
    _build(head_data, tmp / "head-site", tmp / "cache-head")

    added_id = next(m["id"] for m in json.loads((tmp / "head-site" / "data" / "leaderboard.json")
                                                 .read_text(encoding="utf-8"))["models"] if m["model"] == ADDED)
    return {"tmp": tmp, "improved": improved, "nudged": nudged, "removed": removed, "added_id": added_id,
            "gap_model": gap["hf_id"].lower()}


def test_two_builds_report_exactly_the_known_changes(two_builds):
    from reasonboard.diff.command import load_build

    tmp = two_builds["tmp"]
    base, head = load_build(tmp / "base-site"), load_build(tmp / "head-site")
    report = compare(base.leaderboard, head.leaderboard, base.signals, head.signals)
    improved, nudged = two_builds["improved"]["id"], two_builds["nudged"]["id"]

    assert [(c.model.id, c.significance) for c in report.significant] == [(improved, SIGNIFICANT_GAIN)]
    assert [c.model.id for c in report.by_significance(WITHIN_INTERVALS)] == [nudged]
    nudge = next(c for c in report.changed if c.model.id == nudged)
    assert nudge.delta != 0 and nudge.task_moves == ()
    # Everyone else may change rank (a model left, one arrived, one climbed), never score.
    assert all(c.delta == 0 and c.old == c.new for c in report.by_significance(SCORE_UNCHANGED))
    assert [e.model.id for e in report.added] == [two_builds["added_id"]]
    assert [e.model.id for e in report.removed] == [two_builds["removed"]["id"]]
    assert report.tasks_added == report.tasks_removed == ()
    assert report.config_changes == ()

    cards = report.cards
    assert cards.compared
    assert [(c.benchmark, c.fields_gained, c.fields_lost) for c in cards.completeness] == [
        ("arithmetic", GAINED_FIELDS, ())]
    assert cards.completeness[0].delta == round(3 / 28, 6)
    assert {g.triple.model for g in cards.gaps_closed} == {two_builds["gap_model"]}
    assert len(cards.gaps_closed) == len(head.leaderboard["config"]["tasks"])
    assert cards.gaps_opened == cards.gaps_changed == ()
    assert cards.flags_raised == cards.flags_cleared == ()


def test_two_builds_markdown_and_json(two_builds):
    tmp = two_builds["tmp"]
    improved, nudged = two_builds["improved"], two_builds["nudged"]
    runner = CliRunner()
    result = runner.invoke(main, ["diff", str(tmp / "base-site"), str(tmp / "head-site"),
                                  "--fail-on-significant-drop"])
    assert result.exit_code == 0, result.output
    text = result.output
    assert "**1 significant** (1 `++` gain, 0 `!!` drops) · 1 not significant (`~`)" in text
    assert "1 added · 1 removed" in text
    significant = _section(text, "Significant changes")
    assert re.search(rf"^\| `\+\+` \| {re.escape(improved['label'])} \| ", significant, flags=re.M)
    assert significant.count("| `") == 1  # only the improved model
    within = _section(text, "Not significant")
    assert re.search(rf"^\| `~` \| {re.escape(nudged['label'])} \| ", within, flags=re.M)
    assert "Wren 9B Instruct" in _section(text, "Added models")
    assert two_builds["removed"]["label"] in _section(text, "Removed models")
    cards = _section(text, "Evaluation Card changes")
    assert re.search(r"^\| arithmetic \| [\d.]+ % → [\d.]+ % \| \+10\.7 pt \| ", cards, flags=re.M)
    assert "methodology.metrics".replace("_", "\\_") in cards
    assert f"| {two_builds['gap_model']} | " in cards.replace("\\_", "_").replace("\\-", "-")
    assert "now reported: max\\_tokens" in cards
    assert len(text.encode("utf-8")) <= MAX_BYTES

    result = runner.invoke(main, ["diff", str(tmp / "base-site"), str(tmp / "head-site"), "--format", "json"])
    data = json.loads(result.output)
    assert data["summary"] == {
        "changed": data["summary"]["changed"], "significant_gains": 1, "significant_drops": 0,
        "within_intervals": 1, "not_significant": 0, "paired": 0, "score_unchanged": data["summary"]["changed"] - 2, "not_comparable": 0,
        "added": 1, "removed": 1,
        "unchanged": data["summary"]["unchanged"], "tasks_added": 0, "tasks_removed": 0,
        "card_changes": 1 + len(data["cards"]["gaps_closed"]),
    }
    assert data["changed"][0]["model"]["id"] == improved["id"]  # the largest |Δ| comes first

    # The same comparison the other way round is a significant drop, and the flag fails on it.
    result = runner.invoke(main, ["diff", str(tmp / "head-site"), str(tmp / "base-site"),
                                  "--fail-on-significant-drop"])
    assert result.exit_code == 1
    assert "`!!`" in result.output


def test_the_documented_example_is_a_generated_report():
    """The example on docs/guide/pr-report.md comes from scripts/example_report.py and names real demo models."""
    root = Path(__file__).resolve().parents[1]
    section = (root / "docs" / "guide" / "pr-report.md").read_text(encoding="utf-8")
    example = section.split("<!-- diff-example:start -->", 1)[1].split("<!-- diff-example:end -->", 1)[0]
    assert "Generated by scripts/example_report.py" in example
    assert "### Score changes: base-site → head-site" in example
    for mark in ("`++`", "`!!`", "`~`"):
        assert f"| {mark} |" in example
    labels = [e["label"] for e in json.loads((root / "data" / "evals.json").read_text(encoding="utf-8"))]
    labels.append("Wren 9B Instruct")  # the model the script adds
    rows = [line for line in example.splitlines() if line.startswith("| `")]
    assert rows
    for row in rows:
        name = row.split(" | ")[1]
        assert any(name.startswith(label) for label in labels), f"{name!r} is not a demo model"


def test_a_model_without_score_is_not_comparable(tmp_path):
    """A model with none of the configured tasks has an all-null score (NaN in the data)."""
    base = leaderboard([model("a/zs/greedy", 600.0, 10.0), model("b/zs/greedy", 500.0, 10.0, rank=2)])
    head = copy.deepcopy(base)
    head["models"][1].update(complete=False, missing_tasks=TASKS, rank=None, rank_range=None, tasks={}, band=None,
                             reasonscore={"center": None, "margin": None, "ci_low": None, "ci_high": None})
    head["models"].append(model("c/zs/greedy", 0.0, 0.0, missing=TASKS))
    head["models"][2]["reasonscore"] = dict.fromkeys(("center", "margin", "ci_low", "ci_high"))
    report = compare(base, head)
    change = report.changed[0]
    assert (change.model.id, change.significance, change.delta) == ("b/zs/greedy", "not_comparable", None)
    assert not report.has_significant_drop
    text = render_markdown(report)
    assert "| `x` | b | 500.0 ± 10.0 → no score | — | 2 → unranked | good → — | now incomplete, missing " in text
    assert "| c \\* | no score | unranked | good |" in text
    assert "1 not comparable (`x`)" in text
    assert "### Not significant or not comparable" in text
    # The command accepts such a file: all four null is valid, a mix is not.
    site = _write_site(tmp_path / "head", head)
    assert CliRunner().invoke(main, ["diff", str(site), str(site)]).exit_code == 0
    head["models"][1]["reasonscore"]["center"] = 1.0
    (site / "data" / "leaderboard.json").write_text(json.dumps(head), encoding="utf-8")
    assert CliRunner().invoke(main, ["diff", str(site), str(site)]).exit_code == 2


def test_hard_cut_when_even_the_fixed_parts_are_too_large(pair):
    text = render_markdown(compare(*pair), max_bytes=600)
    assert len(text.encode("utf-8")) <= 600
    assert text.startswith("## Score changes: base → head\n")
    assert text.endswith("run `reasonboard diff --format json` for all of it._\n")


@pytest.mark.parametrize("version", [1, 2])
def test_a_model_that_leaves_the_ranking_is_not_no_longer_tied(version):
    """A model whose score is unchanged but which is no longer ranked (a task now under
    `min_samples`) still has an interval overlapping its old neighbours': the report must not
    print it as "no longer tied" with them ("a ≠ b" reads as: now told apart)."""
    base = leaderboard([
        model("a/zs/greedy", 600.0, 30.0, rank=1, rank_range=(1, 2), tied_with=["b/zs/greedy"]),
        model("b/zs/greedy", 580.0, 30.0, rank=2, rank_range=(1, 2), tied_with=["a/zs/greedy"]),
    ], tie_groups=[["a/zs/greedy", "b/zs/greedy"]])
    unranked = model("b/zs/greedy", 580.0, 30.0, rank=None)
    unranked["rank_range"] = None
    head = leaderboard([model("a/zs/greedy", 600.0, 30.0, rank=1), unranked])
    if version == 2:
        base, head = as_v2(base), as_v2(head)
    text = render_markdown(compare(base, head))
    assert "≠" not in text and "No longer tied" not in text, text
    assert "unranked" in text


def test_headline_does_not_say_no_card_changes_above_added_results():
    """A result added without a gap changes no signal, but the card section reports it (and
    the corpus's gap rate it moves): the headline must not read "0 changes" above that."""
    base = signals([triple("m1", "gsm8k", missing=("max_tokens",))], [benchmark("gsm8k", 0.25, [])], gap_rate=1.0)
    head = signals([triple("m1", "gsm8k", missing=("max_tokens",)), triple("m2", "gsm8k")],
                   [benchmark("gsm8k", 0.25, [])], gap_rate=0.5)
    old, new = leaderboard([model("a/zs/greedy", 600.0, 10.0)]), leaderboard([model("a/zs/greedy", 640.0, 10.0)])
    text = render_markdown(compare(old, new, base, head))
    assert "result triples 1 added, 0 removed" in _section(text, "Evaluation Card changes")
    assert "Evaluation Cards: 0 changes" not in text
    assert ("Evaluation Cards: no reproducibility gap, completeness or divergence flag changed; "
            "result triples 1 added, 0 removed.") in text


@pytest.mark.parametrize("change", ["mode", "tasks"])
def test_no_paired_verdict_where_the_builds_score_differently(change):
    """The paired test re-scores both sides' answers one way; when the builds use another
    estimator or other board tasks, the same answers give an effect of +0.0 and p = 1 beside a
    change of hundreds of points, and the report called that change "not significant"
    (noise). Where the builds score differently the two scores are not the same quantity:
    the change is not judged by either rule, and the row says why (the model page's history
    says the same of such a move)."""
    from reasonboard.stats.paired import PairedTest

    base = leaderboard([model("a/zs/greedy", 300.0, 10.0)])
    head = leaderboard([model("a/zs/greedy", 550.0, 15.0)])
    if change == "mode":
        head["config"]["mode"] = "E_P"
    else:
        head["config"]["tasks"] = ["arithmetic"]
    same_answers = {"a/zs/greedy": PairedTest(shared=300, effect=0.0, low=0.0, high=0.0, p=1.0, method="bootstrap")}
    report = compare(base, head, paired=same_answers)
    [c] = report.changed
    assert c.test is None and c.significance == NOT_COMPARABLE and not report.significant
    assert "builds score differently" in c.rule_note
    text = render_markdown(report)
    assert "paired on" not in text and "not significant after Holm" not in text and "| `++` |" not in text
    row = next(line for line in text.splitlines() if line.startswith("| `x` | a |"))
    assert "the builds score differently" in row and "not the same quantity" in row


def test_a_board_cut_over_the_same_data_is_a_configuration_change():
    """The data keep three tasks, the board keeps one: every score is recomputed, and the
    report says why (its "Tasks:" line counts the data's tasks, which did not change)."""
    every = {"arithmetic": (0.6, 0.55, 0.65), "dates": (0.6, 0.55, 0.65), "sort": (0.6, 0.55, 0.65)}
    base = leaderboard([model("a/zs/greedy", 600.0, 10.0, tasks=every)], tasks=["arithmetic", "dates", "sort"])
    head = leaderboard([model("a/zs/greedy", 600.0, 10.0, tasks=every)], tasks=["dates"])
    report = compare(base, head)
    assert report.tasks_added == report.tasks_removed == ()
    assert [(c.key, c.old, c.new) for c in report.config_changes] == [("board tasks", "arithmetic, dates, sort",
                                                                        "dates")]
    assert "**Configuration changed:** board tasks arithmetic, dates, sort → dates." in render_markdown(report)
