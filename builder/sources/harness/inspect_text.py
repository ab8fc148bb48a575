"""What an Inspect log says besides a trial's score: the model's output text (a trial keeps
only its compressed size, SAMPLES.md section 1) and the harness's own headline figure for
the task (shown beside ours, INGEST.md section 3)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

#: The metrics that are a scorer's headline figure, in order of preference.
HEADLINE_METRICS = ("accuracy", "mean")


def headline(metrics: Mapping[str, Any]) -> tuple[str, float] | None:
    """A scorer's `accuracy`, else its `mean` (the mean F1 of drop); None when it records
    neither (lingoly's deltas are not a headline)."""
    for name in HEADLINE_METRICS:
        value = metrics.get(name)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
            return name, float(value)
    return None


def output_text(completion: str | None, content: str | Sequence[Any] | None) -> str | None:
    """The model's completion: `output.completion`, else the text parts of the first
    choice's message (`content`); reasoning parts a provider returns apart are left out."""
    if completion or content is None:
        return completion
    if isinstance(content, str):
        return content
    parts: Sequence[Any] = content
    return "".join(part.text or "" for part in parts if part.type == "text")
