"""Every signal rule of EVALCARDS.md on small crafted records, including the rules the real
corpus never exercises (agentic rows, setups, percent units, first parties, placeholders)."""

from __future__ import annotations

import json
import math
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reasonboard.config import SiteConfig
from reasonboard.errors import InputError
from reasonboard.signals import Signals, compute_signals
from reasonboard.store.pointsdb import PointsDB
from reasonboard.store.reported import OwnResult, load_reported

# -- building crafted inputs ----------------------------------------------------------------


def result(bench: str = "Bench", score: Any = 0.5, *, name: str | None = None, args: dict | None = None,
           unit: str | None = None, lo: Any = 0.0, hi: Any = 1.0, metric: str | None = None,
           details: dict | None = None) -> dict:
    metric_config: dict[str, Any] = {"lower_is_better": False, "min_score": lo, "max_score": hi}
    if unit is not None:
        metric_config["metric_unit"] = unit
    if metric is not None:
        metric_config["metric_id"] = metric
    generation: dict[str, Any] = {}
    if args is not None:
        generation["generation_args"] = args
    if details is not None:
        generation["additional_details"] = details
    return {"evaluation_name": name or bench, "source_data": {"dataset_name": bench, "source_type": "url"},
            "metric_config": metric_config, "score_details": {"score": score},
            **({"generation_config": generation} if generation else {})}


def record(*results: dict, model: str = "org/model-a", org: Any = "Lab A", relationship: Any = "third_party",
           library: dict | None = None, model_details: dict | None = None, source_type: Any = "documentation") -> dict:
    source = {"source_name": "x", "source_type": source_type, "source_organization_name": org,
              "evaluator_relationship": relationship}
    doc: dict[str, Any] = {
        "schema_version": "0.2.0", "evaluation_id": f"{model}/{org}",
        "source_metadata": {k: v for k, v in source.items() if v is not None},
        "model_info": {"id": model, "name": model, **({"additional_details": model_details} if model_details else {})},
        "evaluation_results": list(results),
    }
    if library is not None:
        doc["eval_library"] = library
    return doc


def card(name: str, **sections: dict) -> dict:
    """A card whose every field says "Not specified" unless given."""
    base = {
        "benchmark_details": {f: "Not specified" for f in ("overview", "data_type", "domains", "languages",
                                                           "similar_benchmarks", "resources")} | {"name": name},
        "purpose_and_intended_users": {f: "Not specified" for f in ("goal", "audience", "tasks", "limitations",
                                                                    "out_of_scope_uses")},
        "data": {f: "Not specified" for f in ("source", "size", "format", "annotation")},
        "methodology": {f: "Not specified" for f in ("methods", "metrics", "calculation", "interpretation",
                                                     "baseline_results", "validation")},
        "ethical_and_legal_considerations": {f: "Not specified" for f in (
            "privacy_and_anonymity", "data_licensing", "consent_procedures", "compliance_with_regulations")},
        "possible_risks": [{"category": "Data bias", "description": ["Bias."], "url": "https://r"}],
    }
    for section, values in sections.items():
        base[section] = {**base.get(section, {}), **values} if isinstance(values, dict) else values
    return {"benchmark_card": base}


def data_dir(tmp_path: Path, records: list[dict] = (), cards: dict[str, dict] | None = None) -> Path:
    root = tmp_path / "data"
    for i, doc in enumerate(records):
        path = root / "eee" / "c" / f"{i:03d}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(doc if isinstance(doc, str) else json.dumps(doc), encoding="utf-8")
    for stem, doc in (cards or {}).items():
        path = root / "cards" / f"benchmark_card_{stem}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(doc), encoding="utf-8")
    root.mkdir(parents=True, exist_ok=True)
    return root


def signals(tmp_path: Path, records: list[dict] = (), cards: dict[str, dict] | None = None,
            config: SiteConfig | None = None, own: list[OwnResult] = ()) -> Signals:
    config = config or SiteConfig()
    with PointsDB() as db:
        load_reported(db, data_dir(tmp_path, records, cards), config, strict=False)
        return compute_signals(db, config, list(own))


def only_triple(s: Signals):
    assert len(s.triples) == 1, [t.key for t in s.triples]
    return s.triples[0]


FULL = {"temperature": 0.0, "max_tokens": 2048}

# -- reproducibility (section 4) -------------------------------------------------------------


def test_a_plain_row_needs_temperature_and_max_tokens(tmp_path):
    s = signals(tmp_path, [record(result(args={"temperature": 0.7})), record(result(args=FULL), model="org/b")])
    a, b = s.rows
    assert (a.agentic, a.missing, a.gap) == (False, ("max_tokens",), True)
    assert (b.missing, b.gap) == ((), False)
    assert s.corpus.reproducibility.gap_rate == 0.5
    assert dict(s.corpus.reproducibility.field_missingness) == {
        "temperature": 0.0, "max_tokens": 0.5, "harness": None, "eval_plan": None, "eval_limits": None}


def test_a_base_fields_rate_is_over_all_triples_like_the_gap_rate(tmp_path):
    # One triple scored by log-likelihood (nothing sampled, nothing required) and one that
    # sampled without reporting its temperature: each rate is 1 of 2 triples.
    own = [OwnResult(model="org/a", evaluation_id="a", task="mmlu", score=0.5, sampled=False),
           OwnResult(model="org/b", evaluation_id="b", task="mmlu", score=0.6, generation_args={"max_tokens": 64})]
    s = signals(tmp_path, own=own)
    assert sorted(r.missing for r in s.rows) == [(), ("temperature",)]
    assert s.corpus.reproducibility.gap_rate == 0.5
    assert s.corpus.reproducibility.field_missingness["temperature"] == 0.5
    assert s.corpus.reproducibility.field_missingness["max_tokens"] == 0.0


def test_numeric_zero_counts_as_populated_and_placeholders_do_not(tmp_path):
    records = [
        record(result(args={"temperature": 0, "max_tokens": 0})),
        record(result(args={"temperature": "Not specified", "max_tokens": "unknown"}), model="org/b"),
    ]
    strict = signals(tmp_path / "s", records)
    assert [r.missing for r in strict.rows] == [(), ("temperature", "max_tokens")]
    presence = signals(tmp_path / "p", records, config=SiteConfig(populated_rule="presence"))
    assert [r.missing for r in presence.rows] == [(), ()]
    assert presence.to_json()["populated_rule"] == "presence"


AGENTIC_FIELDS = ("temperature", "max_tokens", "harness", "eval_plan", "eval_limits")


def test_agentic_by_card_task(tmp_path):
    cards = {"ToolBench": card("ToolBench", purpose_and_intended_users={"tasks": ["Multi-turn tool use"]})}
    s = signals(tmp_path, [record(result("ToolBench", args=FULL))], cards)
    row = s.rows[0]
    assert row.agentic and row.agentic_routes == ("card",)
    assert row.missing == ("harness", "eval_plan", "eval_limits")
    assert row.required == AGENTIC_FIELDS
    assert s.benchmark("toolbench").agentic


def test_agentic_by_agentic_eval_config(tmp_path):
    args = {**FULL, "agentic_eval_config": {"available_tools": [{"name": "bash"}]}, "eval_plan": {"steps": ["s"]}}
    s = signals(tmp_path, [record(result("Quiz", args=args), library={"name": "inspect_ai", "version": "1"})])
    row = s.rows[0]
    assert row.agentic_routes == ("agentic_eval_config",)
    assert row.missing == ("eval_limits",)
    triple = only_triple(s)
    assert triple.reproducibility.agentic and triple.reproducibility.missing == ("eval_limits",)
    assert s.corpus.reproducibility.field_missingness["eval_limits"] == 1.0
    assert s.corpus.reproducibility.field_missingness["harness"] == 0.0
    assert s.corpus.reproducibility.agentic_triples == 1


def test_an_empty_agentic_config_is_not_agentic_under_strict(tmp_path):
    s = signals(tmp_path, [record(result("Quiz", args={**FULL, "agentic_eval_config": {}}))])
    assert not s.rows[0].agentic
    p = signals(tmp_path / "p", [record(result("Quiz", args={**FULL, "agentic_eval_config": {}}))],
                config=SiteConfig(populated_rule="presence"))
    assert p.rows[0].agentic


def test_agentic_by_pattern_default_and_configured(tmp_path):
    records = [record(result("SWE-bench Verified", args=FULL)), record(result("tau2-bench", args=FULL)),
               record(result("CodeArena", args=FULL))]
    s = signals(tmp_path / "d", records)
    assert {r.benchmark_key: r.agentic_routes for r in s.rows} == {
        "swe-bench-verified": ("pattern",), "tau2-bench": (), "codearena": ()}
    custom = signals(tmp_path / "c", records, config=SiteConfig(agentic_pattern=r"^code|tau\d"))
    assert {r.benchmark_key: r.agentic for r in custom.rows} == {
        "swe-bench-verified": False, "tau2-bench": True, "codearena": True}
    assert custom.rows[2].missing == ("harness", "eval_plan", "eval_limits")


def test_triple_gap_is_the_union_of_its_rows(tmp_path):
    s = signals(tmp_path, [record(result(args={"temperature": 1})), record(result(args={"max_tokens": 9}), org="B")])
    assert only_triple(s).reproducibility.missing == ("temperature", "max_tokens")


# -- provenance (section 6) ------------------------------------------------------------------


def test_first_party_only_and_multi_party(tmp_path):
    s = signals(tmp_path, [
        record(result("A"), relationship="first_party", org="Maker"),
        record(result("A", 0.51), relationship="first_party", org="MAKER "),  # same party, two uploads
        record(result("B"), relationship="first_party", org="Maker"),
        record(result("B", 0.52), relationship="third_party", org="Auditor"),
        record(result("C"), relationship="other", org=None),
    ])
    a, b, c = (s.triple("org/model-a", k, "score") for k in ("a", "b", "c"))
    assert a.provenance.first_party_only and not a.provenance.multi_party
    assert a.parties == ("maker",) and a.reports == 2
    assert not b.provenance.first_party_only and b.provenance.multi_party
    assert dict(b.provenance.relationships) == {"first_party": 1, "third_party": 1}
    assert c.provenance.relationships == {"unspecified": 1} and c.parties == ("(unnamed)",)
    rollup = s.corpus.provenance
    assert (rollup.first_party_only, rollup.multi_party, rollup.triples) == (1, 1, 3)
    assert rollup.to_json()["relationships"] == {"first_party": 3, "third_party": 1, "collaborative": 0, "unspecified": 1}
    assert b.provenance.risks == ()


def test_risks_come_from_the_card(tmp_path):
    s = signals(tmp_path, [record(result("GPQA"))], {"GPQA": card("GPQA")})
    assert only_triple(s).provenance.risks == ("Data bias",)
    assert [r.category for r in s.benchmark("gpqa").risks] == ["Data bias"]
    assert s.to_json()["benchmarks"][0]["risks"] == ["Data bias"]


# -- comparability (section 7) ---------------------------------------------------------------


def test_variant_divergence_from_max_tokens(tmp_path):
    s = signals(tmp_path, [
        record(result(score=0.50, args={"temperature": 0, "max_tokens": 2048})),
        record(result(score=0.60, args={"temperature": 0, "max_tokens": 4096})),
        record(result(score=0.62, args={"temperature": 0.0, "max_tokens": 4096})),  # same setup as above
    ])
    c = only_triple(s).comparability
    assert c.variant.flag is True
    assert c.variant.spread == pytest.approx(0.11)
    assert c.variant.differing_text == ("max_tokens: 2048, 4096",)
    assert c.cross_party.flag is None and c.cross_party.not_applicable_reason == "one party"
    assert c.flag is True
    assert c.scores[0].setups == 2 and c.scores[0].score == pytest.approx((0.50 + 0.61) / 2)


def test_variant_divergence_from_the_agent_scaffold(tmp_path):
    s = signals(tmp_path, [
        record(result("Tasks", 0.19, args=FULL), model_details={"agent_scaffold": "ReAct"}),
        record(result("Tasks", 0.33, args=FULL), model_details={"agent_name": "Reflexion"}),
        record(result("Tasks", 0.19, args=FULL, details={"agent_scaffold": "ReAct"})),
    ])
    c = only_triple(s).comparability
    assert c.variant.flag is True and c.variant.spread == pytest.approx(0.14)
    assert c.variant.differing_text == ("agent_scaffold: ReAct, Reflexion",)


def test_same_setup_same_party_is_not_applicable(tmp_path):
    s = signals(tmp_path, [record(result(score=0.5)), record(result(score=0.9))])
    triple = only_triple(s)
    assert triple.comparability.variant.flag is None
    assert triple.comparability.variant.not_applicable_reason == "no party reports more than one setup"
    assert triple.comparability.flag is None
    doc = triple.to_json()["comparability"]
    assert doc["flag"] is None and doc["variant"]["flag"] is None and doc["cross_party"]["flag"] is None


def test_cross_party_within_is_false_not_null(tmp_path):
    s = signals(tmp_path, [record(result(score=0.50), org="A"), record(result(score=0.53), org="B")])
    c = only_triple(s).comparability
    assert c.cross_party.flag is False and c.flag is False
    assert c.cross_party.summary.startswith("checked: within 5%")
    assert c.variant.summary == "not checked: no party reports more than one setup"
    doc = json.loads(json.dumps(s.to_json()))["triples"][0]["comparability"]
    assert doc["cross_party"]["flag"] is False and doc["variant"]["flag"] is None and doc["flag"] is False
    assert doc["cross_party"]["scores"] == {"a": 0.5, "b": 0.53}


def test_cross_party_uses_party_means_of_setup_means(tmp_path):
    s = signals(tmp_path, [
        record(result(score=0.40, args={"max_tokens": 1}), org="A"),
        record(result(score=0.60, args={"max_tokens": 2}), org="A"),
        record(result(score=0.60, args={"max_tokens": 2}), org="A"),
        record(result(score=0.56), org="B"),
    ])
    c = only_triple(s).comparability
    a, b = c.scores
    assert a.score == pytest.approx(0.5)  # mean of setup means 0.4 and 0.6, not of three rows
    assert c.cross_party.spread == pytest.approx(0.06) and c.cross_party.flag is True
    assert c.variant.flag is True
    assert c.cross_party.differing_text == ("max_tokens: 1, 2, not reported",)


def test_threshold_is_strict(tmp_path):
    # 0.75 - 0.70 is 0.050000000000000044 in binary floating point: still not above 5 %.
    s = signals(tmp_path, [record(result(score=0.70), org="A"), record(result(score=0.75), org="B")])
    c = only_triple(s).comparability.cross_party
    assert c.flag is False and c.spread == pytest.approx(0.05)


def test_percent_units_and_infinite_bounds(tmp_path):
    s = signals(tmp_path, [
        record(result("P", 50.0, unit="percent", lo=None, hi=None), org="A"),
        record(result("P", 54.0, unit="Percent", lo="-Infinity", hi="Infinity"), org="B"),
        record(result("Q", 50.0, unit="percent", lo=0, hi=100), org="A"),
        record(result("Q", 56.0, unit="percent", lo=0, hi=100), org="B"),
        record(result("R", 10.0, lo=0, hi="Infinity"), org="A"),
        record(result("R", 10.03, lo=0, hi="Infinity"), org="B"),
        record(result("S", 2.0, lo=0, hi=5), org="A"),
        record(result("S", 2.2, lo=0, hi=10), org="B"),
    ])
    p, q, r, t = (s.triple("org/model-a", k, "score").comparability.cross_party for k in "pqrs")
    assert (p.basis, p.score_range, p.flag) == ("percent", 100.0, False)
    assert p.spread == pytest.approx(0.04)
    assert (q.basis, q.score_range, q.flag) == ("metric_config", 100.0, True)
    assert (r.basis, r.score_range) == ("fallback", 1.0) and r.flag is False
    assert (t.basis, t.score_range) == ("fallback", 1.0) and t.flag is True  # bounds disagree


def test_single_reports_are_not_compared(tmp_path):
    s = signals(tmp_path, [record(result())])
    c = only_triple(s).comparability
    assert (c.variant.flag, c.cross_party.flag, c.flag) == (None, None, None)
    assert c.cross_party.not_applicable_reason == "one report"
    rollup = s.corpus.comparability
    assert rollup.compared == 0 and rollup.to_json()["flagged"] == 0


def test_corpus_comparability_counts(tmp_path):
    s = signals(tmp_path, [
        record(result("A", 0.5), org="X"), record(result("A", 0.9), org="Y"),    # cross flagged
        record(result("B", 0.5), org="X"), record(result("B", 0.51), org="Y"),   # within
        record(result("C", 0.5), org="X"), record(result("C", 0.9), org="X"),    # N/A, two reports
        record(result("D", 0.5), org="X"),                                       # not compared
    ])
    rollup = s.corpus.comparability.to_json()
    assert rollup == {"compared": 3, "flagged": 1, "within": 1, "not_applicable": 1,
                      "variant": {"flagged": 0, "within": 0, "not_applicable": 3},
                      "cross_party": {"flagged": 1, "within": 1, "not_applicable": 1}}


# -- rows, keys, dropping, config aliases (sections 1-2) ---------------------------------------


def test_slices_metrics_and_model_case(tmp_path):
    s = signals(tmp_path, [
        record(result("MMLU-PRO", name="MMLU-PRO", metric="Accuracy"), model="Org/Model-A"),
        record(result("MMLU-Pro", name="MMLU-Pro", metric="accuracy"), model="org/model-a", org="Other"),
        record(result("helm_mmlu", name="Anatomy"), model="org/model-a"),
    ])
    keys = sorted(t.key for t in s.triples)
    assert keys == [("org/model-a", "helm-mmlu/anatomy", "score"), ("org/model-a", "mmlu-pro", "accuracy")]
    pro = s.triple("org/model-a", "mmlu-pro", "accuracy")
    assert pro.reports == 2 and pro.provenance.multi_party and pro.model_id == "Org/Model-A"
    anatomy = s.triple("org/model-a", "helm-mmlu/anatomy", "score")
    assert (anatomy.benchmark_key, anatomy.slice_key) == ("helm-mmlu", "anatomy")


def test_dropped_rows_are_counted(tmp_path):
    s = signals(tmp_path, [record(result(score=None), result(score="0.5"), result(score=float("nan")),
                                  result(score=True), result(score=0.25))])
    assert len(s.rows) == 1 and s.dropped_rows == 4
    assert s.to_json()["dropped_rows"] == 4


def test_malformed_files_are_skipped_or_fatal(tmp_path):
    root = data_dir(tmp_path, [record(result()), "{not json", {"no": "results"}], {"X": {"nope": 1}})
    with PointsDB() as db:
        loaded = load_reported(db, root, SiteConfig(), strict=False)
        assert (loaded.records, loaded.results, loaded.cards) == (1, 1, 0)
        assert [Path(p).relative_to(root).as_posix() for p, _ in loaded.problems] == [
            "eee/c/001.json", "eee/c/002.json", "cards/benchmark_card_X.json"]
        assert loaded.to_summary()["problems"][0][0] == (root / "eee/c/001.json").as_posix()
        assert db.con.execute("SELECT count(*) FROM reported_rows").fetchone()[0] == 1
    with PointsDB() as db:
        with pytest.raises(InputError) as err:
            load_reported(db, root, SiteConfig(), strict=True)
        stored = {r[0] for r in db.con.execute("SELECT table_name FROM duckdb_tables()").fetchall()}
    assert err.value.path == (root / "eee/c/001.json").as_posix() and "not valid JSON" in err.value.problem
    assert "reported_rows" not in stored  # nothing was stored


def test_config_aliases_merge_models_and_benchmarks(tmp_path):
    config = SiteConfig(model_aliases={"lab/model-a-v1": "lab/model-a"}, benchmark_aliases={"ifeval-v2": "IFEval"})
    s = signals(tmp_path, [
        record(result("IFEval-v2", 0.5), model="Lab/Model-A-v1", org="A"),
        record(result("IFEval", 0.9), model="lab/model-a", org="B"),
    ], {"IFEval": card("Instruction-Following Eval (IFEval)")}, config=config)
    triple = only_triple(s)
    assert triple.key == ("lab/model-a", "ifeval", "score") and triple.comparability.cross_party.flag is True
    assert s.model_key_for("LAB/Model-A-v1") == "lab/model-a"
    assert s.benchmark("ifeval").has_card


def test_card_matching_by_name_stem_and_duplicates(tmp_path):
    cards = {"IFEval": card("Instruction-Following Eval (IFEval)"), "Other": card("IFEval"),
             "Lonely": card("A Lonely Benchmark")}
    root = data_dir(tmp_path, [record(result("IFEval"))], cards)
    with PointsDB() as db:
        loaded = load_reported(db, root, SiteConfig(), strict=False)
        s = compute_signals(db, SiteConfig(), [])
    # "Other" names IFEval too; the earlier file wins and the later one is reported.
    assert loaded.cards == 2
    assert loaded.problems == (((root / "cards/benchmark_card_Other.json").as_posix(),
                                "describes benchmark 'ifeval' like cards/benchmark_card_IFEval.json, which is used instead"),)
    assert [b.key for b in s.benchmarks] == ["ifeval", "lonely"]
    assert s.benchmark("lonely").has_card and s.benchmark("lonely").rows == 0
    assert s.benchmark("ifeval").card_path == "cards/benchmark_card_IFEval.json"


# -- completeness (section 5) --------------------------------------------------------------------


def test_completeness_counts_fields_subitems_and_report_shares(tmp_path):
    c = card("Bench", benchmark_details={"overview": "An overview", "domains": ["Not specified", "math"]},
             data={"source": "web", "size": "10k"}, methodology={"metrics": ["accuracy"]})
    c["evalcards"] = {"lifecycle_status": "active"}
    s = signals(tmp_path, [
        record(result("Bench"), source_type="documentation"),
        record(result("Bench", 0.6), source_type="Not specified", org="Other", relationship=None),
    ], {"Bench": c})
    b = s.benchmark("bench")
    scores = {f.field: f.score for f in b.fields}
    # name, overview, domains, metrics, lifecycle_status = 5 full; data 2 of 4; reports 1/2, 1, 1/2.
    assert scores["data"] == 0.5 and scores["source_metadata.source_type"] == 0.5
    assert scores["source_metadata.source_organization_name"] == 1.0
    assert scores["source_metadata.evaluator_relationship"] == 0.5
    assert b.completeness == pytest.approx((5 + 0.5 + 0.5 + 1 + 0.5) / 28)
    data = next(f for f in b.fields if f.field == "data")
    assert (data.mark, data.count_text, data.status) == ("◐", "2 of 4", "partial")
    assert [(i.name, i.populated) for i in data.sub_items] == [
        ("annotation", False), ("format", False), ("size", True), ("source", True)]
    assert next(f for f in b.fields if f.field == "methodology.calculation").text == "Not specified"
    assert len(b.fully_missing) == 28 - 5 - 4
    doc = b.to_json()
    assert doc["fully_missing"] == 19 and len(doc["fields"]) == 28
    assert doc["fields"][22] == {"field": "data", "type": "partial", "score": 0.5}
    presence = signals(tmp_path / "p", [record(result("Bench"))], {"Bench": c},
                       config=SiteConfig(populated_rule="presence"))
    assert presence.benchmark("bench").completeness == pytest.approx((22 + 1 + 3 + 1) / 28)


def test_a_benchmark_without_a_card_scores_only_its_reports(tmp_path):
    s = signals(tmp_path, [record(result("Nocard"))])
    b = s.benchmark("nocard")
    assert not b.has_card and b.completeness == pytest.approx(3 / 28)
    assert s.corpus.completeness_median == pytest.approx(3 / 28)


# -- the leaderboard's own results (section 1) ----------------------------------------------------


def test_own_rows_carry_the_same_signals(tmp_path):
    own = [
        OwnResult(model="Demo-Lab/Aurora-7B", evaluation_id="aurora/chat/greedy", task="arithmetic", score=0.61,
                  organization=None, relationship="first_party",
                  generation_args={"temperature": 0.0, "max_tokens": 4096}, harness="reasonscape"),
        OwnResult(model="demo-lab/aurora-7b", evaluation_id="aurora/chat/t0.7", task="arithmetic", score=0.52,
                  organization=None, relationship="first_party",
                  generation_args={"temperature": 0.7, "max_tokens": 4096}, harness="reasonscape"),
        OwnResult(model="demo-lab/basalt", evaluation_id="basalt", task="dates", score=float("nan")),
    ]
    s = signals(tmp_path, [], own=own, config=SiteConfig(organization="Demo Lab"))
    assert s.dropped_rows == 1
    triple = only_triple(s)
    assert triple.key == ("demo-lab/aurora-7b", "arithmetic", "p-correct")
    assert triple.provenance.first_party_only and triple.parties == ("demo lab",)
    assert triple.comparability.variant.flag is True
    assert triple.comparability.variant.differing_text == ("temperature: 0, 0.7",)
    rows = s.rows_for_model("demo-lab/aurora-7b")
    assert [r.own for r in rows] == [True, True] and rows[0].source_path is None
    assert rows[0].evaluation_id == "aurora/chat/greedy" and rows[0].setup_fields["harness"] == "reasonscape"
    assert s.rows_for_evaluation("aurora/chat/t0.7") == (rows[1],) and s.rows_for_evaluation("basalt") == ()
    assert s.benchmark("arithmetic").completeness == pytest.approx(3 / 28)


def test_own_rows_meet_reported_rows(tmp_path):
    own = [OwnResult(model="org/model-a", evaluation_id="e", task="GPQA", score=0.40, organization="Board",
                     relationship=None, generation_args={}, harness=None)]
    s = signals(tmp_path, [record(result("GPQA", 0.30, metric="p_correct"), org="Elsewhere")],
                {"GPQA": card("GPQA")}, own=own)
    triple = only_triple(s)
    assert triple.parties == ("board", "elsewhere") and triple.comparability.cross_party.flag is True
    assert [r.relationship for r in s.rows_for_triple(*triple.key)] == ["third_party", "third_party"]


def test_own_rows_do_not_touch_the_stored_database(tmp_path):
    root = data_dir(tmp_path, [record(result())])
    with PointsDB() as db:
        load_reported(db, root, SiteConfig(), strict=False)
        compute_signals(db, SiteConfig(), [OwnResult("m", "e", "t", 0.5)])
        again = compute_signals(db, SiteConfig(), [])
        assert db.con.execute("SELECT count(*) FROM reported_rows").fetchone()[0] == 1
    assert len(again.rows) == 1


# -- inputs present or absent, and the JSON contract (section 8) ------------------------------------


def test_nothing_to_read_is_fine(tmp_path):
    s = signals(tmp_path)
    doc = s.to_json()
    assert doc["triples"] == [] and doc["benchmarks"] == [] and doc["dropped_rows"] == 0
    corpus = doc["corpus"]
    assert corpus["triples"] == 0 and corpus["reproducibility_gap_rate"] is None
    assert corpus["completeness_median"] is None
    assert set(corpus["field_population"].values()) == {None}
    assert corpus["provenance"]["first_party_only_rate"] is None


def test_cards_without_results(tmp_path):
    s = signals(tmp_path, [], {"GPQA": card("GPQA", methodology={"metrics": "accuracy"})})
    (b,) = s.benchmarks
    assert b.key == "gpqa" and b.rows == 0 and b.completeness == pytest.approx(2 / 28)


def test_json_contract(tmp_path):
    s = signals(tmp_path, [
        record(result("Zeta", 1 / 3), model="b/model"), record(result("Alpha", 2 / 3), model="b/model"),
        record(result("Alpha", 0.1), model="a/model"),
    ])
    doc = s.to_json()
    assert set(doc) == {"schema", "populated_rule", "dropped_rows", "triples", "benchmarks", "corpus"}
    assert doc["schema"] == "reasonboard.signals/1" and doc["populated_rule"] == "strict"
    assert [(t["model"], t["benchmark"]) for t in doc["triples"]] == [
        ("a/model", "alpha"), ("b/model", "alpha"), ("b/model", "zeta")]
    assert [b["benchmark"] for b in doc["benchmarks"]] == ["alpha", "zeta"]
    triple = doc["triples"][2]
    assert set(triple) == {"model", "benchmark", "metric", "reports", "parties", "reproducibility",
                           "provenance", "comparability"}
    assert set(triple["comparability"]["variant"]) == {"flag", "spread", "threshold", "basis", "differing_fields"}
    assert set(triple["comparability"]["cross_party"]) == {"flag", "spread", "threshold", "basis", "scores"}
    assert triple["comparability"]["cross_party"]["scores"] == {"lab a": 0.333333}
    assert set(doc["corpus"]) == {"triples", "reproducibility_gap_rate", "field_missingness", "completeness_median",
                                  "field_population", "provenance", "comparability"}
    text = json.dumps(doc, sort_keys=True, allow_nan=False)
    assert json.dumps(s.to_json(), sort_keys=True) == text
    for value in _floats(doc):
        assert value == round(value, 6) and math.isfinite(value)


def _floats(value):
    if isinstance(value, float):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _floats(v)
    elif isinstance(value, list):
        for v in value:
            yield from _floats(v)


def test_lookups(tmp_path):
    s = signals(tmp_path, [record(result("A"), result("B", name="Split")), record(result("A"), model="x/y")])
    assert [r.benchmark_path for r in s.rows_for_model("org/model-a")] == ["a", "b/split"]
    assert len(s.rows_for_benchmark("a")) == 2 and len(s.rows_for_benchmark("b")) == 1
    assert len(s.triples_for_benchmark("b")) == 1 and len(s.triples_for_model("x/y")) == 1
    row = s.rows_for_benchmark("b")[0]
    assert s.triple_of(row).key == ("org/model-a", "b/split", "score") and s.row(row.row_id) is row
    assert s.benchmark("missing") is None and s.triple("no", "such", "triple") is None
    assert s.rows_for_model("nobody") == ()


# -- comparability against a plain computation, on random reports ----------------------------------

report = st.tuples(st.sampled_from(["A", "B", "C"]), st.sampled_from([None, 1024, 4096]),
                   st.integers(min_value=0, max_value=100))


@pytest.fixture(scope="module")
def shared_db():
    with PointsDB() as db:
        yield db


@settings(max_examples=25, deadline=None)
@given(st.lists(report, min_size=1, max_size=7))
def test_comparability_matches_a_plain_computation(shared_db, reports):
    setups: dict[str, dict[Any, list[float]]] = {}
    for org, max_tokens, score in reports:
        setups.setdefault(org.lower(), {}).setdefault(max_tokens, []).append(score / 100)
    means = {org: {k: sum(v) / len(v) for k, v in by.items()} for org, by in setups.items()}
    variant_spreads = [max(m.values()) - min(m.values()) for m in means.values() if len(m) >= 2]
    party = {org: sum(m.values()) / len(m) for org, m in means.items()}
    expected_variant = round(max(variant_spreads), 9) > 0.05 if variant_spreads else None
    expected_cross = round(max(party.values()) - min(party.values()), 9) > 0.05 if len(party) >= 2 else None

    with tempfile.TemporaryDirectory() as tmp:
        root = data_dir(Path(tmp), [record(result(score=score / 100, args={"max_tokens": mt}), org=org)
                                    for org, mt, score in reports])
        load_reported(shared_db, root, SiteConfig(), strict=False)  # replaces the previous example's rows
        s = compute_signals(shared_db, SiteConfig(), [])
    c = only_triple(s).comparability
    assert c.variant.flag is expected_variant
    assert c.cross_party.flag is expected_cross
    assert {p.party: p.score for p in c.scores} == pytest.approx(party)
    if variant_spreads:
        assert c.variant.spread == pytest.approx(max(variant_spreads), abs=1e-9)
    expected_flag = True if True in (expected_variant, expected_cross) else (
        None if expected_variant is None and expected_cross is None else False)
    assert c.flag is expected_flag
    assert only_triple(s).provenance.multi_party is (len(party) > 1)


def test_triples_equal_records_made_by_the_dataclass_constructors(tmp_path):
    """`_triples` builds its records with `record_builder`: each triple, its comparability,
    divergences and party scores equal (and hash like) the same fields given to the
    dataclasses' own constructors, and stay frozen."""
    import dataclasses

    from reasonboard.signals.comparability import Comparability, Divergence, PartyScore
    from reasonboard.signals.model import TripleSignals

    def plain(cls, record):
        return cls(**{f.name: getattr(record, f.name) for f in dataclasses.fields(cls)})

    s = signals(tmp_path, [
        record(result(score=0.50, args={"temperature": 0, "max_tokens": 2048})),
        record(result(score=0.60, args={"temperature": 0, "max_tokens": 4096})),
        record(result(score=0.90, args={"temperature": 0, "max_tokens": 4096}), org="Lab B"),
        record(result("Other", score=0.4)),
    ])
    assert len(s.triples) == 2
    for t in s.triples:
        c = t.comparability
        rebuilt = plain(TripleSignals, t)
        assert rebuilt == t and vars(rebuilt) == vars(t)
        assert plain(Comparability, c) == c and vars(plain(Comparability, c)) == vars(c)
        for d in (c.variant, c.cross_party):
            assert plain(Divergence, d) == d and vars(plain(Divergence, d)) == vars(d)
        for p in c.scores:
            assert plain(PartyScore, p) == p and hash(plain(PartyScore, p)) == hash(p)
        with pytest.raises(dataclasses.FrozenInstanceError):
            c.scores[0].score = 1.0  # type: ignore[misc]
    flagged = next(t for t in s.triples if t.reports == 3).comparability
    assert flagged.variant.flag is True and flagged.cross_party.flag is True
