"""The signals on the real corpus (../shared/data), checked against plain computations
written here from the raw JSON files, and on the default data subset in data/."""

from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path

import pytest
from helpers_lab import mirror
from reasonboard.config import SiteConfig
from reasonboard.signals import Signals, compute_signals
from reasonboard.store.pointsdb import PointsDB
from reasonboard.store.reported import load_reported

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
CORPUS, CARDS = SHARED / "eee-2026-02", SHARED / "benchmark-cards"

needs_corpus = pytest.mark.skipif(
    not (CORPUS.is_dir() and CARDS.is_dir()),
    reason=f"real corpus not found: expected {CORPUS} and {CARDS} (the shared data folder beside the repository)",
)


def slug(text: str) -> str:
    return "-".join(re.findall(r"[a-z0-9]+", text.lower()))


def raw_results(root: Path):
    """(collection, folded model id, benchmark key, score, organisation, source metadata) per result."""
    for path in sorted(root.rglob("*.json")):
        if not path.is_file():
            continue
        doc = json.loads(path.read_text(encoding="utf-8"))
        meta = doc["source_metadata"]
        for r in doc["evaluation_results"]:
            name = (r.get("source_data") or {}).get("dataset_name") or r["evaluation_name"]
            yield (path.relative_to(root).parts[0], doc["model_info"]["id"].strip().casefold(), slug(name),
                   r["score_details"]["score"], meta.get("source_organization_name"), meta)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    data = tmp_path_factory.mktemp("corpus")
    mirror(CORPUS, data / "eee")
    mirror(CARDS, data / "cards")
    with PointsDB() as db:
        loaded = load_reported(db, data, SiteConfig(), strict=False)
        strict = compute_signals(db, SiteConfig(), [])
        presence = compute_signals(db, SiteConfig(populated_rule="presence"), [])
    return loaded, strict, presence


@pytest.fixture(scope="module")
def raw():
    return list(raw_results(CORPUS))


@needs_corpus
def test_everything_is_read(corpus):
    loaded, strict, _ = corpus
    assert (loaded.records, loaded.results, loaded.cards, loaded.dropped) == (5320, 35586, 16, 0)
    assert loaded.problems == ()
    assert len(strict.rows) == 35586 and strict.dropped_rows == 0
    assert len(strict.triples) == strict.corpus.triples


@needs_corpus
def test_helm_capabilities_and_open_llm_v2_agree_within_five_percent(corpus, raw):
    _, signals, _ = corpus
    by_party: dict[tuple[str, str], dict[str, float]] = defaultdict(dict)
    for collection, model, bench, score, _org, _meta in raw:
        if collection in ("helm_capabilities", "hfopenllm_v2") and bench in ("gpqa", "ifeval", "mmlu-pro"):
            by_party[(model, bench)][collection] = score
    both = {k: v for k, v in by_party.items() if len(v) == 2}
    models = {m for m, _ in both}
    assert 3 <= len(models) <= 10, models  # a handful
    assert {b for _, b in both} == {"gpqa", "ifeval", "mmlu-pro"}
    assert all(sum(1 for m, _ in both if m == model) == 3 for model in models)

    spreads = {}
    for (model, bench), scores in both.items():
        triple = signals.triple(model, bench, "score")
        cross = triple.comparability.cross_party
        assert triple.provenance.multi_party and triple.parties == ("crfm", "hugging face")
        assert cross.basis == "metric_config" and cross.score_range == 1.0
        expected = abs(scores["helm_capabilities"] - scores["hfopenllm_v2"])
        assert cross.spread == pytest.approx(expected, abs=1e-9)
        assert cross.flag is False and triple.comparability.flag is False
        assert triple.comparability.variant.flag is None
        spreads[(model, bench)] = expected
    closest = max(spreads, key=spreads.get)
    assert closest == ("allenai/olmoe-1b-7b-0125-instruct", "ifeval")
    assert 0.045 < spreads[closest] < 0.05
    # These are the only multi-party triples of the corpus.
    assert {t.key[:2] for t in signals.triples if t.provenance.multi_party} == set(both)
    assert signals.corpus.comparability.cross_party.flagged == 0
    assert signals.corpus.comparability.cross_party.within == len(both)


@needs_corpus
def test_livecodebench_pro_spellings_are_one_party(corpus, raw):
    _, signals, _ = corpus
    spellings = {org for collection, *_rest, org, _meta in raw if collection == "livecodebenchpro"}
    assert len(spellings) == 2 and len({" ".join(s.split()).casefold() for s in spellings}) == 1
    rows = [r for r in signals.rows if r.source_path.startswith("eee/livecodebenchpro/")]
    assert {r.organization for r in rows} == spellings
    assert len({r.org_key for r in rows}) == 1
    for key in {r.triple for r in rows}:
        triple = signals.triple(*key)
        assert len(triple.parties) == 1 and not triple.provenance.multi_party
        assert triple.comparability.cross_party.flag is None


@needs_corpus
def test_every_record_is_third_party(corpus, raw):
    _, signals, _ = corpus
    assert {meta["evaluator_relationship"] for *_x, meta in raw} == {"third_party"}
    assert not any(t.provenance.first_party_only for t in signals.triples)
    rollup = signals.corpus.provenance.to_json()
    assert rollup["first_party_only"] == 0 and rollup["first_party_only_rate"] == 0.0
    assert rollup["relationships"] == {"first_party": 0, "third_party": 35586, "collaborative": 0, "unspecified": 0}


@needs_corpus
def test_no_generation_args_means_every_triple_has_a_gap(corpus):
    _, signals, _ = corpus
    corpus_rates = signals.corpus.reproducibility
    assert corpus_rates.gap_rate == 1.0 and corpus_rates.agentic_triples == 0
    assert corpus_rates.field_missingness["temperature"] == 1.0
    assert corpus_rates.field_missingness["harness"] is None
    assert all(t.reproducibility.missing == ("temperature", "max_tokens") for t in signals.triples)


# -- completeness of the 16 cards, computed independently -----------------------------------------

PLACEHOLDER_WORDS = {"not specified", "no information found", "unknown", "n/a", "na", "none", "null", "tbd"}
CARD_FIELDS = [
    *(f"benchmark_details.{f}" for f in ["name", "overview", "data_type", "domains", "languages",
                                          "similar_benchmarks", "resources"]),
    *(f"purpose_and_intended_users.{f}" for f in ["goal", "audience", "tasks", "limitations", "out_of_scope_uses"]),
    *(f"methodology.{f}" for f in ["methods", "metrics", "calculation", "interpretation", "baseline_results",
                                    "validation"]),
    *(f"ethical_and_legal_considerations.{f}" for f in ["privacy_and_anonymity", "data_licensing",
                                                         "consent_procedures", "compliance_with_regulations"]),
]
REPORT_FIELDS = ["source_type", "source_organization_name", "evaluator_relationship"]


def is_populated(value, rule: str) -> bool:
    if value is None:
        return False
    if rule == "presence":
        return True
    if isinstance(value, str):
        text = value.strip().lower()
        if text.endswith("."):
            text = text[:-1].strip()
        return bool(text) and text not in PLACEHOLDER_WORDS
    if isinstance(value, list):
        return any(is_populated(v, rule) for v in value)
    if isinstance(value, dict):
        return len(value) > 0
    return True


def expected_completeness(card: dict, metas: list[dict], rule: str) -> dict[str, float]:
    scores = {}
    for dotted in CARD_FIELDS:
        section, name = dotted.split(".")
        scores[dotted] = float(is_populated(card.get(section, {}).get(name), rule))
    data = card.get("data", {})
    scores["data"] = sum(is_populated(data.get(s), rule) for s in ("annotation", "format", "size", "source")) / 4
    for name in REPORT_FIELDS:
        scores[f"source_metadata.{name}"] = sum(is_populated(m.get(name), rule) for m in metas) / len(metas) if metas else 0.0
    evalcards = card.get("evalcards", {})
    for name in ("lifecycle_status", "preregistration_url"):
        scores[f"evalcards.{name}"] = float(is_populated(evalcards.get(name), rule))
    return scores


@needs_corpus
@pytest.mark.parametrize("rule", ["strict", "presence"])
def test_completeness_of_the_16_cards(corpus, raw, rule):
    _, strict, presence = corpus
    signals: Signals = strict if rule == "strict" else presence
    metas: dict[str, list[dict]] = defaultdict(list)
    for _collection, _model, bench, _score, _org, meta in raw:
        metas[bench].append(meta)
    checked = 0
    for path in sorted(CARDS.glob("*.json")):
        card = json.loads(path.read_text(encoding="utf-8"))["benchmark_card"]
        bench = slug(path.stem.removeprefix("benchmark_card_"))
        expected = expected_completeness(card, metas[bench], rule)
        assert len(expected) == 28
        found = signals.benchmark(bench)
        assert found is not None and found.has_card and found.card_path == f"cards/{path.name}"
        assert {f.field: f.score for f in found.fields} == pytest.approx(expected)
        assert found.completeness == pytest.approx(sum(expected.values()) / 28)
        assert len(found.fully_missing) == sum(1 for v in expected.values() if v == 0)
        checked += 1
    assert checked == 16
    if rule == "presence":
        # Under the reference backend's rule, "Not specified" counts: only the two reserved
        # fields stay empty.
        assert all(b.completeness == pytest.approx(26 / 28) for b in signals.benchmarks if b.has_card)
    else:
        # The strict rule sees the gaps the cards write as "Not specified".
        assert sum(b.completeness < 26 / 28 for b in signals.benchmarks if b.has_card) >= 12


@needs_corpus
def test_corpus_completeness_rollups(corpus):
    _, signals, _ = corpus
    values = sorted(b.completeness for b in signals.benchmarks)
    n = len(values)
    median = values[n // 2] if n % 2 else (values[n // 2 - 1] + values[n // 2]) / 2
    assert signals.corpus.completeness_median == pytest.approx(median)
    for field, rate in signals.corpus.field_population.items():
        mean = sum(next(f.score for f in b.fields if f.field == field) for b in signals.benchmarks) / n
        assert rate == pytest.approx(mean), field


# -- the default data subset ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def default_data():
    data = ROOT / "data"
    if not (data / "eee").is_dir():
        pytest.skip("data/eee not present")
    with PointsDB() as db:
        loaded = load_reported(db, data, SiteConfig(), strict=True)
        return loaded, compute_signals(db, SiteConfig(), [])


@needs_corpus
def test_default_records_follow_the_documented_rule():
    """data/eee holds exactly what scripts/default_eee.py chooses from the corpus, unchanged."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("default_eee", ROOT / "scripts" / "default_eee.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    chosen = script.choose(CORPUS)
    target = ROOT / "data" / "eee"
    assert sorted(p.relative_to(target) for p in target.rglob("*.json")) == chosen
    assert all((target / p).read_bytes() == (CORPUS / p).read_bytes() for p in chosen)
    assert sum((target / p).stat().st_size for p in chosen) < 5_000_000  # "a few MB"


def test_default_data_keeps_the_cross_party_checks_and_every_card(default_data):
    loaded, signals = default_data
    assert loaded.problems == () and loaded.cards == 16 and loaded.records == 286
    multi = [t for t in signals.triples if t.provenance.multi_party]
    assert len(multi) == 15 and {t.benchmark for t in multi} == {"gpqa", "ifeval", "mmlu-pro"}
    assert all(t.comparability.cross_party.flag is False for t in multi)
    with_cards = [b for b in signals.benchmarks if b.has_card]
    assert len(with_cards) == 16 and all(b.rows > 0 for b in with_cards)
