"""A benchmark card as stored: the 28 completeness fields and how a card fills them
(EVALCARDS.md section 5).

`FIELDS` is the catalogue, in the spec's order, with each field's coverage type (full,
partial, reserved) and where it comes from: the benchmark card (fields 1-23, 27-28) or
the reports (24-26). `card_items()` turns one card into the per-item population levels and
texts the PointsDB stores; the scores are computed from those rows in SQL and in
signals/completeness.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator, Mapping

from ..sources.cards import CardRecord
from .populated import level

#: The four sub-items of the partial field `data` (field 23), alphabetical as in the spec.
DATA_SUB_ITEMS = ("annotation", "format", "size", "source")


@dataclass(frozen=True)
class FieldSpec:
    """One of the 28 completeness fields."""

    position: int
    #: Dotted path: "benchmark_details.name", "data", "source_metadata.source_type", ...
    field: str
    #: "full" and "reserved" score 0/1; "partial" scores the populated share of sub-items.
    coverage: str
    #: "card" (from the Auto-BenchmarkCards file) or "report" (from the EEE rows).
    origin: str
    sub_items: tuple[str, ...] = ()

    @property
    def items(self) -> int:
        return len(self.sub_items) or 1

    @property
    def section(self) -> str:
        """The card section a reader sees the field under ("Benchmark details")."""
        head = self.field.split(".", 1)[0] if "." in self.field else "data"
        return SECTION_TITLES[head]

    @property
    def label(self) -> str:
        """Human name of the field ("Out of scope uses", "Data")."""
        tail = self.field.rsplit(".", 1)[-1]
        return tail.replace("_", " ").capitalize()


SECTION_TITLES = {
    "benchmark_details": "Benchmark details",
    "purpose_and_intended_users": "Purpose and intended users",
    "methodology": "Methodology",
    "ethical_and_legal_considerations": "Ethical and legal considerations",
    "data": "Data",
    "source_metadata": "Source metadata (from the reports)",
    "evalcards": "Evaluation Cards (reserved)",
}


def _catalogue() -> tuple[FieldSpec, ...]:
    groups: list[tuple[str, tuple[str, ...], str, str]] = [
        ("benchmark_details", ("name", "overview", "data_type", "domains", "languages",
                               "similar_benchmarks", "resources"), "full", "card"),
        ("purpose_and_intended_users", ("goal", "audience", "tasks", "limitations", "out_of_scope_uses"),
         "full", "card"),
        ("methodology", ("methods", "metrics", "calculation", "interpretation", "baseline_results",
                         "validation"), "full", "card"),
        ("ethical_and_legal_considerations", ("privacy_and_anonymity", "data_licensing",
                                              "consent_procedures", "compliance_with_regulations"),
         "full", "card"),
    ]
    fields: list[FieldSpec] = []
    for section, names, coverage, origin in groups:
        for name in names:
            fields.append(FieldSpec(len(fields) + 1, f"{section}.{name}", coverage, origin))
    fields.append(FieldSpec(23, "data", "partial", "card", DATA_SUB_ITEMS))
    for name in ("source_type", "source_organization_name", "evaluator_relationship"):
        fields.append(FieldSpec(len(fields) + 1, f"source_metadata.{name}", "full", "report"))
    for name in ("lifecycle_status", "preregistration_url"):
        fields.append(FieldSpec(len(fields) + 1, f"evalcards.{name}", "reserved", "card"))
    return tuple(fields)


FIELDS: tuple[FieldSpec, ...] = _catalogue()
FIELD_BY_NAME: Mapping[str, FieldSpec] = {f.field: f for f in FIELDS}
assert len(FIELDS) == 28 and [f.position for f in FIELDS] == list(range(1, 29))


@dataclass(frozen=True)
class CardItem:
    """One stored completeness item of a card (a field, or a sub-item of `data`)."""

    position: int
    field: str
    sub_item: str | None
    level: int
    text: str | None


def card_items(record: CardRecord) -> Iterator[CardItem]:
    """The 28 card-sourced items of one card, in field order (fields 24-26 are the reports')."""
    card = record.card
    for spec in FIELDS:
        if spec.origin != "card":
            continue
        if spec.sub_items:
            data = card.get(spec.field)
            data = data if isinstance(data, dict) else {}
            for sub in spec.sub_items:
                value = data.get(sub)
                yield CardItem(spec.position, spec.field, sub, level(value), as_text(value))
        else:
            value = card_value(record, spec.field)
            yield CardItem(spec.position, spec.field, None, level(value), as_text(value))


def card_value(record: CardRecord, field: str) -> Any:
    """The value at a dotted path of the card (`evalcards.*` from the evalcards object)."""
    section, _, name = field.partition(".")
    holder = record.evalcards if section == "evalcards" else record.card.get(section)
    return holder.get(name) if isinstance(holder, dict) else None


def as_text(value: Any) -> str | None:
    """A card value as the text a benchmark page shows (lists joined with "; ")."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, (list, tuple)):
        parts = [as_text(v) for v in value]
        return "; ".join(p for p in parts if p)
    if isinstance(value, dict):
        pairs = [f"{k}: {as_text(v)}" for k, v in value.items() if as_text(v)]
        return "; ".join(pairs)
    return str(value)


#: Substrings of a card task that make its benchmark agentic (section 4, route 1).
AGENTIC_TASK_WORDS = ("agent", "tool use", "tool_use", "multi-step")


def card_is_agentic(record: CardRecord) -> bool:
    """Whether the card lists a task mentioning agents, tool use or multi-step work."""
    purpose = record.card.get("purpose_and_intended_users")
    tasks = purpose.get("tasks") if isinstance(purpose, dict) else None
    if isinstance(tasks, str):
        tasks = [tasks]
    if not isinstance(tasks, list):
        return False
    return any(isinstance(t, str) and any(w in t.casefold() for w in AGENTIC_TASK_WORDS) for t in tasks)


@dataclass(frozen=True)
class CardRisk:
    position: int
    category: str | None
    description: str | None
    url: str | None


def card_risks(record: CardRecord) -> Iterator[CardRisk]:
    """The card's `possible_risks`, in the card's order (descriptions joined by blank lines)."""
    risks = record.card.get("possible_risks")
    if not isinstance(risks, list):
        return
    for i, risk in enumerate(risks):
        if not isinstance(risk, dict):
            continue
        description = risk.get("description")
        if isinstance(description, list):
            description = "\n\n".join(d.strip() for d in description if isinstance(d, str) and d.strip())
        yield CardRisk(
            i + 1,
            category.strip() if isinstance(category := risk.get("category"), str) else None,
            description.strip() if isinstance(description, str) and description.strip() else None,
            risk.get("url") if isinstance(risk.get("url"), str) else None,
        )
