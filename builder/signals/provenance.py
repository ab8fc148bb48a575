"""Provenance: who reported a result, and did anyone else? (EVALCARDS.md section 6.)

`rho` (store/keys.py) normalised the reported evaluator relationship as it was stored. A triple is first-party-only when
every report is `first_party`, and multi-party when its reports come from more than one
organisation key (two uploads by one organisation are not corroboration; this differs from
the seed's |R| > 1). Risks are the benchmark card's risk categories: attention cues beside
results, never part of a number.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from ..vocabulary import PROVENANCE
from .rounding import r6

#: The four values of rho, in display order.
RELATIONSHIPS = PROVENANCE


@dataclass(frozen=True)
class Risk:
    """One `possible_risks[]` entry of a benchmark card."""

    category: str | None
    description: str | None
    url: str | None


@dataclass(frozen=True)
class Provenance:
    """A triple's provenance signal."""

    first_party_only: bool
    multi_party: bool
    #: Reports per relationship (only relationships that occur), e.g. {"third_party": 2}.
    relationships: Mapping[str, int]
    #: The organisation keys reporting the triple, sorted.
    parties: tuple[str, ...]
    #: Risk categories of the benchmark's card (attention cues; empty without a card).
    risks: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"first_party_only": self.first_party_only, "multi_party": self.multi_party,
                "relationships": dict(self.relationships)}


@dataclass(frozen=True)
class ProvenanceRollup:
    """Corpus counts and shares of first-party-only and multi-party triples, and the rows
    per relationship (all four values, zeros included)."""

    triples: int
    first_party_only: int
    multi_party: int
    rows_by_relationship: Mapping[str, int] = field(default_factory=dict)

    @property
    def first_party_only_rate(self) -> float | None:
        return self.first_party_only / self.triples if self.triples else None

    @property
    def multi_party_rate(self) -> float | None:
        return self.multi_party / self.triples if self.triples else None

    def to_json(self) -> dict[str, Any]:
        return {
            "first_party_only": self.first_party_only,
            "first_party_only_rate": r6(self.first_party_only_rate),
            "multi_party": self.multi_party,
            "multi_party_rate": r6(self.multi_party_rate),
            "relationships": {r: self.rows_by_relationship.get(r, 0) for r in RELATIONSHIPS},
        }
