"""When does a field count as reported? (EVALCARDS.md section 3.)

Every signal counts fields, so this one definition decides them all. A value gets a
*level* once, when it is loaded, and each rule is a threshold on the level:

* `ABSENT` (0): missing or null. Unpopulated under both rules.
* `EMPTY` (1): present but saying nothing: an empty or whitespace-only string, an empty
  list or object, a stand-in text such as "Not specified", a list with no populated element.
  Populated only under `presence`, the reference backend's "anything not null" rule.
* `POPULATED` (2): real content. Numbers (0 and 0.0 included) and booleans always are.

Storing the level rather than a yes/no keeps the PointsDB independent of the configured
rule: switching `populated_rule` needs no reload.
"""

from __future__ import annotations

from typing import Any

ABSENT = 0
EMPTY = 1
POPULATED = 2

#: Placeholder strings (section 3), compared trimmed, case-insensitive, trailing period ignored.
PLACEHOLDERS = frozenset({
    "not specified", "no information found", "unknown", "n/a", "na", "none", "null", "tbd",
})

#: The lowest level each rule counts as populated.
THRESHOLDS = {"strict": POPULATED, "presence": EMPTY}


def threshold(rule: str) -> int:
    """The level from which a field counts under `rule` ("strict" or "presence")."""
    try:
        return THRESHOLDS[rule]
    except KeyError:
        raise ValueError(f"unknown populated rule {rule!r} (known: {', '.join(THRESHOLDS)})") from None


def is_placeholder(text: str) -> bool:
    folded = text.strip().casefold()
    if folded.endswith("."):
        folded = folded[:-1].rstrip()
    return folded in PLACEHOLDERS


def level(value: Any) -> int:
    """The population level of one JSON value (see the module docstring)."""
    if value is None:
        return ABSENT
    if isinstance(value, (bool, int, float)):
        return POPULATED
    if isinstance(value, str):
        return EMPTY if not value.strip() or is_placeholder(value) else POPULATED
    if isinstance(value, (list, tuple)):
        # A list is populated when any element is; "[]" or ["Not specified"] says nothing.
        return POPULATED if any(level(v) == POPULATED for v in value) else EMPTY
    if isinstance(value, dict):
        return POPULATED if value else EMPTY
    return POPULATED


def populated(value: Any, rule: str = "strict") -> bool:
    """Whether `value` counts as populated under `rule`."""
    return level(value) >= threshold(rule)
