"""The R/C/P/X badges and the small texts of Evaluation Card views: one sentence per state,
so colour is never the only cue and N/A never reads like "no divergence" (EVALCARDS.md).
"""

from __future__ import annotations

import re
from functools import cache
from typing import Iterable

from ...signals import TripleSignals
from ...signals.comparability import Comparability, Divergence
from ...slugs import name_hash
from .. import format as fmt
from ..markdown import render_markdown
from .base import Badge
from .cards import DivergenceView

# The caches below are unbounded: their keys are a corpus's few thousand distinct values.


def median_of(values: Iterable[float]) -> float | None:
    ordered = sorted(values)
    if not ordered:
        return None
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2


@cache
def collection(path: str | None) -> str:
    """The EEE collection of a record path: `eee/helm_lite/org/model/x.json` -> `EEE helm_lite`."""
    if not path:
        return fmt.MISSING
    parts = path.split("/")
    if parts[0] == "eee" and len(parts) > 2:
        return f"EEE {parts[1]}"
    return parts[0] if len(parts) > 1 else path


def count_rate(count: int, rate: float | None) -> str:
    return f"{count:,} ({fmt.percent(rate)})"


def score_text(score: float, unit: str | None) -> str:
    text = f"{score:.4g}"
    return text + (" %" if unit == "percent" else "")


@cache
def row_repro_badge(missing: tuple[str, ...], required: tuple[str, ...]) -> Badge:
    """A result row's R badge (a few dozen distinct ones across a corpus: made once each)."""
    if missing:
        return Badge("R", "Reproducibility", "attention", "gap",
                     f"does not report {', '.join(missing)} (required: {', '.join(required)})")
    if not required:  # a task scored by log-likelihood: no sampling settings apply
        return Badge("R", "Reproducibility", "clear", "nothing sampled",
                     "scored by log-likelihood: nothing was sampled, so no temperature or max_tokens applies")
    return Badge("R", "Reproducibility", "clear", "reported",
                 f"reports every required field ({', '.join(required)})")


def provenance_badge(triple: TripleSignals) -> Badge:
    prov = triple.provenance
    return provenance(bool(prov.first_party_only), bool(prov.multi_party), tuple(prov.parties),
                       tuple(sorted(prov.relationships)))


@cache
def provenance(first_party_only: bool, multi_party: bool, parties: tuple[str, ...],
                relationships: tuple[str, ...]) -> Badge:
    """A triple's P badge, made once per distinct provenance (parties and relationships)."""
    if first_party_only:
        return Badge("P", "Provenance", "attention", "1st party only",
                     "reported only by the model's developer")
    if multi_party:
        return Badge("P", "Provenance", "clear", f"{len(parties)} parties",
                     f"reported by {len(parties)} organisations: {', '.join(parties)}")
    rels = ", ".join(relationships) or "unspecified"
    return Badge("P", "Provenance", "info", "one party", f"reported by one organisation ({rels})")


def comparability_badge(c: Comparability) -> Badge:
    if c.flag is True:
        return Badge("X", "Comparability", "attention", "diverges", checks_summary(c, flagged_only=True))
    if c.flag is False:
        return Badge("X", "Comparability", "clear", f"within {fmt.percent(c.cross_party.threshold, 0)}",
                     checks_summary(c, flagged_only=False))
    return not_checked(c.cross_party.not_applicable_reason or c.variant.not_applicable_reason or "nothing to compare")


@cache
def not_checked(reason: str) -> Badge:
    """The X badge of a triple with nothing to compare: most triples, a handful of reasons."""
    return Badge("X", "Comparability", "na", "not checked", f"not checked: {reason}")


def checks_summary(c: Comparability, flagged_only: bool) -> str:
    """The checks that ran (or only those that flagged), each named: "cross-party checked:
    within 5% (spread 1.8% of the range)"."""
    return "; ".join(f"{'variant' if d is c.variant else 'cross-party'} {d.summary}"
                     for d in (c.variant, c.cross_party) if (d.flag if flagged_only else d.flag is not None))


def divergence(d: Divergence) -> DivergenceView:
    return DivergenceView(
        status=d.status, summary=d.summary, basis=d.basis, threshold=fmt.percent(d.threshold, 0),
        spread=fmt.percent(d.spread) if d.spread is not None else fmt.MISSING,
        differing=tuple(d.differing_text),
    )


_URL = re.compile(r"(?<![<(])\bhttps?://[^\s<>;,]+[^\s<>;,.)]")


def text_html(text: str | None) -> str:
    """Card text as safe HTML: Markdown with raw HTML off; bare http(s) URLs become links."""
    if not text:
        return ""
    return render_markdown(_URL.sub(lambda m: f"<{m.group(0)}>", text))


def triple_anchor(model: str, benchmark: str, metric: str) -> str:
    """A stable fragment id for a triple on its benchmark page (ids from data are hashed)."""
    return "t-" + name_hash("\x1f".join((model, benchmark, metric)), 12)
