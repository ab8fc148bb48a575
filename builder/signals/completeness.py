"""Reporting completeness: the score of each of the 28 fields (EVALCARDS.md section 5).

The catalogue (`FIELDS`) and the per-item levels and texts of each card are what the store
keeps (store/cardfields.py); the scores, C(b) and the corpus rollups are computed in SQL
(`benchmark_fields` and friends in `store/sql/results.sql`) and held here as `FieldScore`s.
The report fields 24-26 score the share of the benchmark's rows that populate them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .rounding import r6


@dataclass(frozen=True)
class SubItem:
    """One sub-item of the partial field `data`, as the benchmark page lists it."""

    name: str
    populated: bool
    text: str | None


@dataclass(frozen=True)
class FieldScore:
    """s(f) of one field for one benchmark, with what a reader needs to check it.

    `populated`/`items` count sub-items for `data` ("2 of 4"), the one item of a full or
    reserved card field ("1 of 1"), and rows for the report fields 24-26 ("120 of 120").
    """

    position: int
    field: str
    label: str
    section: str
    #: "full", "partial" or "reserved" (EVALCARDS.md section 5).
    coverage: str
    #: "card" or "report".
    origin: str
    score: float
    populated: int
    items: int
    #: The card's text for the field (None for report fields, absent values and `data`,
    #: whose texts are in `sub_items`).
    text: str | None
    #: The four sub-items of `data` (annotation, format, size, source); empty for other fields.
    sub_items: tuple[SubItem, ...] = ()

    @property
    def status(self) -> str:
        """"populated" (score 1), "partial" (between) or "missing" (score 0)."""
        return "populated" if self.score >= 1.0 else ("missing" if self.score <= 0.0 else "partial")

    @property
    def mark(self) -> str:
        """● populated, ◐ partial, ○ missing."""
        return {"populated": "●", "partial": "◐", "missing": "○"}[self.status]

    @property
    def count_text(self) -> str:
        """"2 of 4" (sub-items), "3 of 5 rows" (report fields), "1 of 1" (one-item fields)."""
        unit = " rows" if self.origin == "report" else ""
        return f"{self.populated} of {self.items}{unit}"

    def to_json(self) -> dict[str, Any]:
        return {"field": self.field, "type": self.coverage, "score": r6(self.score)}
