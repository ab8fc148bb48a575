"""The benchmark-card reader and the card's completeness items (EVALCARDS.md sections 1, 5)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from reasonboard.sources.cards import CardRecord, read_cards
from reasonboard.store.cardfields import FIELDS, as_text, card_is_agentic, card_items, card_risks
from reasonboard.store.populated import ABSENT, EMPTY, POPULATED

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
CARDS = SHARED / "benchmark-cards"


def write(path: Path, document) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(document if isinstance(document, str) else json.dumps(document), encoding="utf-8")


def test_reads_cards_and_strips_the_prefix(tmp_path):
    write(tmp_path / "cards/benchmark_card_MATH_Level_5.json", {"benchmark_card": {"benchmark_details": {"name": "MATH"}}})
    write(tmp_path / "cards/plain.json", {"benchmark_card": {}, "evalcards": {"lifecycle_status": "active"}})
    read = read_cards(tmp_path / "cards", base=tmp_path)
    assert read.problems == ()
    assert [(c.path, c.stem) for c in read.cards] == [
        ("cards/benchmark_card_MATH_Level_5.json", "MATH_Level_5"), ("cards/plain.json", "plain")]
    assert read.cards[1].evalcards == {"lifecycle_status": "active"}


def test_evalcards_inside_the_card_wins(tmp_path):
    write(tmp_path / "c.json", {"benchmark_card": {"evalcards": {"preregistration_url": "https://p"}},
                                "evalcards": {"preregistration_url": "https://outer"}})
    (card,) = read_cards(tmp_path).cards
    assert card.evalcards == {"preregistration_url": "https://p"}


def test_unusable_cards_are_reported(tmp_path):
    write(tmp_path / "bad.json", "{nope")
    write(tmp_path / "other.json", {"card": {}})
    (tmp_path / "dir.json").mkdir()
    read = read_cards(tmp_path)
    assert read.cards == ()
    reasons = dict(read.problems)
    assert set(reasons) == {"bad.json", "other.json"}
    assert reasons["bad.json"].startswith("not valid JSON")
    assert "benchmark_card" in reasons["other.json"]


def test_card_items_levels_and_texts():
    card = CardRecord("p", "X", {
        "benchmark_details": {"name": "X", "domains": ["Not specified"], "languages": [], "resources": ["https://a", "b"]},
        "purpose_and_intended_users": {"goal": "Not specified.", "tasks": ["Multi-step tool use"]},
        "methodology": {"metrics": 0},
        "data": {"source": "web", "size": "unknown", "format": ""},
    }, {"lifecycle_status": "draft"})
    items = {(i.field, i.sub_item): i for i in card_items(card)}
    assert len(items) == 28  # fields 1-22, the four sub-items of `data`, fields 27-28 (24-26 are the reports')
    assert items[("benchmark_details.name", None)].level == POPULATED
    assert items[("benchmark_details.overview", None)].level == ABSENT
    assert items[("benchmark_details.domains", None)].level == EMPTY
    assert items[("benchmark_details.languages", None)].level == EMPTY
    assert items[("benchmark_details.resources", None)].text == "https://a; b"
    assert items[("purpose_and_intended_users.goal", None)].level == EMPTY
    assert items[("methodology.metrics", None)].level == POPULATED
    assert [(s, items[("data", s)].level) for s in ("annotation", "format", "size", "source")] == [
        ("annotation", ABSENT), ("format", EMPTY), ("size", EMPTY), ("source", POPULATED)]
    assert items[("evalcards.lifecycle_status", None)].level == POPULATED
    assert items[("evalcards.preregistration_url", None)].level == ABSENT
    assert card_is_agentic(card)


@pytest.mark.parametrize("tasks, agentic", [
    (["Question answering"], False), (["Agentic coding"], True), (["tool_use"], True),
    (["Tool use with APIs"], True), (["multi-step reasoning"], True), ("web agent", True), (None, False),
])
def test_agentic_tasks(tasks, agentic):
    card = CardRecord("p", "X", {"purpose_and_intended_users": {"tasks": tasks}}, {})
    assert card_is_agentic(card) is agentic


def test_text_forms():
    assert as_text(None) is None
    assert as_text(["a", " b ", None]) == "a; b"
    assert as_text({"k": "v"}) == "k: v"
    assert as_text(0) == "0"
    assert as_text(False) == "false"


def test_the_catalogue_has_28_fields_in_spec_order():
    assert [f.position for f in FIELDS] == list(range(1, 29))
    assert FIELDS[0].field == "benchmark_details.name" and FIELDS[22].field == "data"
    assert [f.coverage for f in FIELDS].count("partial") == 1
    assert [f.field for f in FIELDS if f.origin == "report"] == [
        "source_metadata.source_type", "source_metadata.source_organization_name",
        "source_metadata.evaluator_relationship"]
    assert [f.coverage for f in FIELDS[26:]] == ["reserved", "reserved"]


@pytest.mark.skipif(not CARDS.is_dir(), reason=f"real benchmark cards not found at {CARDS}")
def test_real_cards():
    read = read_cards(CARDS)
    assert read.problems == ()
    assert len(read.cards) == 16
    for card in read.cards:
        risks = list(card_risks(card))
        assert len(risks) == 5, card.path
        assert all(r.category and r.description for r in risks)
        assert not card_is_agentic(card)
