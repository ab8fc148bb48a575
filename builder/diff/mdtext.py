"""Markdown text pieces of the score-change report: numbers and names as the report writes
them, and a table that can be capped to its first rows (with the rest in a collapsed
`<details>`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from ..stats.paired import NO_CROSSING, at_resolution
from .report import ModelChange, ModelRef

#: Rows a table shows before the rest is folded into `<details>`.
VISIBLE_ROWS = 10
TABLE_NAMES = {
    "significant": "significant changes",
    "not_significant": "non-significant changes",
    "added": "added models",
    "removed": "removed models",
    "tasks_added": "added tasks",
    "tasks_removed": "removed tasks",
    "groups_formed": "tie groups formed",
    "groups_dissolved": "tie groups dissolved",
    "pairs_tied": "new ties",
    "pairs_untied": "broken ties",
    "gaps_opened": "new reproducibility gaps",
    "gaps_closed": "closed reproducibility gaps",
    "gaps_changed": "changed reproducibility gaps",
    "completeness": "completeness changes",
    "flags_raised": "new divergence flags",
    "flags_cleared": "cleared divergence flags",
}


def text(value: object) -> str:
    """Escape data for Markdown table cells: no HTML, no broken tables, no stray emphasis."""
    out = str(value).replace("\r", " ").replace("\n", " ")
    out = out.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    for char in "\\`*_[]|#":
        out = out.replace(char, "\\" + char)
    return out


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}" + ("" if count == 1 else "s")


def score(center: float | None, margin: float | None) -> str:
    if center is None or margin is None:
        return "no score"
    return f"{center:.1f} ± {margin:.1f}"


def signed(value: float, digits: int = 1) -> str:
    return f"{value:+.{digits}f}"


def rank(position: int | None, positions: Sequence[int] | None) -> str:
    """`3`, or `3 (2–5)` when tied, or `unranked` for an incomplete model (STATISTICS.md 4, 7)."""
    if position is None:
        return "unranked"
    if positions and positions[0] != positions[1]:
        return f"{position} ({positions[0]}–{positions[1]})"
    return str(position)


def moved(old: str, new: str) -> str:
    return old if old == new else f"{old} → {new}"


def percent(value: float | None) -> str:
    return "—" if value is None else f"{value * 100:.1f} %"


def model_name(ref: ModelRef) -> str:
    return text(ref.label)


@dataclass
class Table:
    """A table (or bullet list) whose rows can be capped, and which folds when long.

    A row may stand for several items (`weights`: one gap row lists every benchmark of a
    model with the same missing fields), so counts of folded and omitted items stay exact.
    """

    name: str
    header: tuple[str, ...] | None  # None: a bullet list
    rows: list[str]
    cap: int | None
    weights: list[int] | None = None
    omitted: int = field(init=False, default=0)

    def lines(self) -> list[str]:
        weights = self.weights or [1] * len(self.rows)
        shown = len(self.rows) if self.cap is None else min(self.cap, len(self.rows))
        rows = self.rows[:shown]
        self.omitted = sum(weights[shown:])
        out: list[str] = []
        if rows:
            out += self._block(rows[:VISIBLE_ROWS])
            rest = rows[VISIBLE_ROWS:]
            if rest:
                folded = sum(weights[VISIBLE_ROWS:shown])
                out += ["", f"<details><summary>{folded} more {TABLE_NAMES[self.name]}</summary>", ""]
                out += self._block(rest)
                out += ["", "</details>"]
        if self.omitted:
            out += ["", f"_{self.omitted} more {TABLE_NAMES[self.name]} left out to keep this report "
                        "under 60 KB; `reasonboard diff --format json` lists them all._"]
        return out

    def _block(self, rows: list[str]) -> list[str]:
        if self.header is None:
            return [f"- {row}" for row in rows]
        return ["| " + " | ".join(self.header) + " |", "|" + "---|" * len(self.header), *rows]


def rule_note(c: ModelChange) -> str:
    """The rule that decided a change, with the paired test's figures when it was paired."""
    t = c.test
    if t is None:
        return "overlap"  # why (no per-sample outcomes, too few shared items): the JSON's rule_note
    verdict = "significant" if t.significant else "not significant"
    # "effect", not "Δ": the paired difference is of the two ReasonScores recomputed on the
    # shared items, which can differ from the Δ column (of the published centers) in its last digit.
    p = NO_CROSSING if at_resolution(t.p, t.method) else f"{t.p:.2g}"
    return (f"paired on {t.shared:,} shared items: effect {signed(t.effect)} (95% {signed(t.low)} to "
            f"{signed(t.high)}), p = {p}, {verdict} after Holm")
