"""Numbers in `signals.json` are rounded to 6 decimals (EVALCARDS.md section 8), so two
builds of the same inputs write the same bytes and `git diff` shows only real changes."""

from __future__ import annotations

DECIMALS = 6


def r6(value: float | None) -> float | None:
    """`value` rounded to 6 decimals; None stays None; -0.0 becomes 0.0."""
    if value is None:
        return None
    rounded = round(value, DECIMALS)
    return rounded if rounded != 0 else 0.0
