"""Comparability: do reports of the same triple agree? (EVALCARDS.md section 7.)

A row's *setup* is ten values: temperature, top_p, top_k, max_tokens, prompt_template,
reasoning, agentic_eval_config (from generation_args), the harness name and version, and
the agent scaffold. `canonical()` writes each as text so that equal setups compare equal
in SQL: numbers to 8 significant digits, strings trimmed, objects as sorted JSON, absent
as NULL. The scaffold is part of the setup on purpose (the reference backend ignores it and
so cannot see one model scoring 0.19 and 0.33 under two scaffolds).

Variant divergence compares setups within one party, cross-party divergence compares
parties; each is flagged when its spread over the metric range is strictly greater than
theta = 0.05, and is N/A (None, never False) when there is nothing to compare. The
grouping runs in SQL (`triple_signals`, `differing_setups`) over the canonical setup
columns the store wrote (store/setup.py); this module holds the result types the pages read.
"""

from __future__ import annotations

from contextlib import suppress
from dataclasses import dataclass
from typing import Any

from .rounding import r6

THETA = 0.05
#: Where a row's metric range came from (section 7).
BASES = ("metric_config", "percent", "fallback")
NOT_REPORTED = "not reported"


@dataclass(frozen=True)
class SetupDifference:
    """A setup field whose value differs between compared reports."""

    field: str
    #: The distinct canonical values, numbers in numeric order; None = not reported (last).
    values: tuple[str | None, ...]

    @property
    def text(self) -> str:
        """"max_tokens: 2048, 4096" (absent values read "not reported")."""
        return f"{self.field}: " + ", ".join(NOT_REPORTED if v is None else v for v in self.values)


def sorted_values(present: list[str], has_absent: bool) -> tuple[str | None, ...]:
    """Distinct values in a reader's order: numerically when all are numbers, else by text."""
    distinct = sorted(set(present))
    with suppress(ValueError):
        distinct.sort(key=float)
    return (*distinct, *((None,) if has_absent else ()))


@dataclass(frozen=True)
class PartyScore:
    """One party (organisation key) of a triple: its score and how many setups it reported."""

    party: str
    #: sigma(p): the mean over the party's setups of each setup's mean score.
    score: float
    setups: int
    #: max - min of the party's setup means, in score units (None with one setup).
    spread: float | None


@dataclass(frozen=True)
class Divergence:
    """One divergence check of a triple: `variant` (within parties) or `cross_party`.

    `flag` is True (diverges), False (checked, within threshold) or None (not applicable:
    nothing to compare). `spread` is the spread divided by the metric range (the number
    compared with `threshold`); `raw_spread` is the same in score units.
    """

    kind: str
    flag: bool | None
    spread: float | None
    raw_spread: float | None
    threshold: float
    basis: str
    score_range: float
    #: Setup fields that differ (within a party for `variant`, across all setups for
    #: `cross_party`), with their values.
    differing: tuple[SetupDifference, ...]
    #: Why the check does not apply ("one report", "one party", ...); None when checked.
    not_applicable_reason: str | None

    @property
    def status(self) -> str:
        """"flagged", "within" or "not_applicable" (for CSS classes and badges)."""
        return "not_applicable" if self.flag is None else ("flagged" if self.flag else "within")

    @property
    def summary(self) -> str:
        """The state in words; N/A never reads like "no divergence"."""
        if self.flag is None:
            return f"not checked: {self.not_applicable_reason}"
        assert self.spread is not None
        if self.flag:
            return (f"diverges: spread {self.spread:.1%} of the range exceeds "
                    f"{self.threshold:.0%}")
        return f"checked: within {self.threshold:.0%} (spread {self.spread:.1%} of the range)"

    @property
    def differing_text(self) -> tuple[str, ...]:
        return tuple(d.text for d in self.differing)

    def to_json(self) -> dict[str, Any]:
        """What both checks publish; `Comparability.to_json` adds each one's own detail."""
        return {"flag": self.flag, "spread": r6(self.spread), "threshold": self.threshold, "basis": self.basis}


@dataclass(frozen=True)
class Comparability:
    """A triple's comparability signal: both checks, the parties' scores, the combined flag."""

    variant: Divergence
    cross_party: Divergence
    #: Every party's score, sorted by party key.
    scores: tuple[PartyScore, ...]

    @property
    def flag(self) -> bool | None:
        """The larger of the two flags: True if either diverges, None only if both are N/A."""
        flags = (self.variant.flag, self.cross_party.flag)
        if True in flags:
            return True
        if False in flags:
            return False
        return None

    @property
    def checked(self) -> bool:
        return self.flag is not None

    def to_json(self) -> dict[str, Any]:
        return {
            "variant": {**self.variant.to_json(), "differing_fields": list(self.variant.differing_text)},
            "cross_party": {**self.cross_party.to_json(), "scores": self.scores_json()},
            "flag": self.flag,
        }

    def scores_json(self) -> dict[str, float | None]:
        return {p.party: r6(p.score) for p in self.scores}


@dataclass(frozen=True)
class DivergenceCounts:
    """How the compared triples (two or more reports) came out for one check."""

    flagged: int
    within: int
    not_applicable: int

    def to_json(self) -> dict[str, Any]:
        return {"flagged": self.flagged, "within": self.within, "not_applicable": self.not_applicable}


@dataclass(frozen=True)
class ComparabilityRollup:
    """Corpus counts: `compared` triples have two or more reports; the rest are not compared."""

    compared: int
    variant: DivergenceCounts
    cross_party: DivergenceCounts
    combined: DivergenceCounts

    def to_json(self) -> dict[str, Any]:
        return {"compared": self.compared, "variant": self.variant.to_json(),
                "cross_party": self.cross_party.to_json(), **self.combined.to_json()}
