"""How numbers read on the page: one place, so every page prints a figure the same way.

The page model stores numbers; these functions turn them into the text a reader sees.
Missing values read as an em dash rather than "None", "nan" or 0, because a missing
figure and a zero are different statements.
"""

from __future__ import annotations

import json
import math
from typing import TypeGuard

MISSING = "—"


def _ok(x: float | None) -> TypeGuard[float]:
    return x is not None and isinstance(x, (int, float)) and math.isfinite(x)


def finite_floats(*xs: object) -> bool:
    """True when every value is a finite built-in float: the fast path of code that formats
    hundreds of thousands of numbers (`x - x` is 0 exactly when `x` is finite)."""
    for x in xs:  # noqa: SIM110 - a hot path: a loop, not a generator per call
        if type(x) is not float or x - x != 0.0:
            return False
    return True


def score(x: float | None) -> str:
    """A ReasonScore (10-1000): one decimal, enough to see a difference of half a point."""
    return f"{x:.1f}" if _ok(x) else MISSING


def probability(x: float | None) -> str:
    """A probability (0-1): three decimals."""
    if type(x) is float and x - x == 0.0:  # finite float: the common case, checked cheaply
        return f"{x:.3f}"
    return f"{x:.3f}" if _ok(x) else MISSING


def percent(x: float | None, digits: int = 1) -> str:
    """A share (0-1) as a percentage: `0.125` -> `12.5%`. A share that is not 0 never reads
    `0.0%`, nor one short of all `100.0%` (15 of 35,093 triples is `<0.1%`, not none)."""
    if not _ok(x):
        return MISSING
    text = f"{100 * x:.{digits}f}"
    step = f"{10 ** -digits:.{digits}f}"
    if x > 0 and float(text) == 0:
        return f"<{step}%"
    if x < 1 and float(text) == 100:
        return f">{100 - 10 ** -digits:.{digits}f}%"
    return f"{text}%"


def count(x: float | None) -> str:
    """An integer count with thousands separators: `12345` -> `12,345`."""
    return f"{int(round(x)):,}" if _ok(x) else MISSING


def samples_epochs(trials: int, samples: int | None) -> str | None:
    """"10 samples × 5 epochs" when samples were answered more than once on average
    (SAMPLES.md section 2), so a reader sees that the trials are not all distinct items;
    None otherwise. A mean that is not whole reads as such: "10 samples × 4.8 epochs on
    average"."""
    if not samples or trials <= samples:
        return None
    mean = trials / samples
    items = f"{samples:,} sample{'' if samples == 1 else 's'}"
    if mean == int(mean):
        return f"{items} × {int(mean)} epochs"
    return f"{items} × {mean:.1f} epochs on average"


def trials(trials: int, samples: int | None) -> str:
    """A trial count, with its samples and epochs when there are epochs: `50 (10 samples × 5 epochs)`."""
    epochs = samples_epochs(trials, samples)
    return count(trials) + (f" ({epochs})" if epochs else "")


def tokens(x: float | None) -> str:
    """Tokens per trial: whole tokens with separators."""
    return count(x)


def ratio(x: float | None) -> str:
    """score/token: three decimals (its bands are a tenth apart)."""
    return f"{x:.3f}" if _ok(x) else MISSING


def win_rate(x: float | None) -> str:
    """A win probability as a whole percentage, the precision the Monte Carlo supports."""
    return f"{100 * x:.0f}%" if _ok(x) else MISSING


def plain(x: object) -> str:
    """Any value from data as text (numbers compactly, lists joined, None as missing)."""
    if x is None:
        return MISSING
    if isinstance(x, bool):
        return "true" if x else "false"
    if isinstance(x, float):
        return f"{x:g}" if math.isfinite(x) else MISSING
    if isinstance(x, (list, tuple)):
        return ", ".join(plain(v) for v in x) if x else MISSING
    return str(x)


def setting(x: object) -> str:
    """A recorded setting as text a reader can see: `plain`, except that a string that would
    print as nothing or hide characters (empty, surrounding spaces, a newline or a tab, as a
    stop sequence of "\\n") is shown quoted with its escapes."""
    if isinstance(x, str) and (x != x.strip() or not x or any(ord(c) < 32 for c in x)):
        return json.dumps(x, ensure_ascii=False)
    if isinstance(x, (list, tuple)) and x:
        return ", ".join(setting(v) for v in x)
    return plain(x)


def usd(x: float | None) -> str:
    """US dollars: cents from a dollar up (`$1,234.50`), three significant digits below
    (`$0.00412`), so a cost per answer of a fraction of a cent is not printed as $0.00."""
    if not _ok(x):
        return MISSING
    if x >= 1 or x == 0:
        return f"${x:,.2f}"
    return f"${x:.3g}" if x >= 1e-4 else f"${x:.2e}"


def sort_keys(values: list[float | int | None]) -> list[str]:
    """The `data-sort` values of one column: each number with the fewest significant digits
    (the same count for the whole column) that order the column exactly as the numbers do,
    ties and all (`0.8127165000000001` becomes `0.813` when another row holds 0.8177);
    empty for a missing value. Sorting compares numbers, so fewer digits change nothing a
    reader sees, only the bytes."""
    present = [v for v in values if v is not None]
    if not all(isinstance(v, int) for v in present):
        exact = set(present)
        for digits in range(1, 18):
            if len({float(f"{v:.{digits}g}") for v in exact}) == len(exact):
                return ["" if v is None else _short(v, digits) for v in values]
    return ["" if v is None else str(v) for v in values]


def _short(value: float | int, digits: int) -> str:
    """A number to `digits` significant digits, as short as Python prints it (`0.81`, `5340.0`
    as `5340`)."""
    rounded = float(f"{value:.{digits}g}")
    return str(int(rounded)) if rounded.is_integer() and abs(rounded) < 1e15 else repr(rounded)
