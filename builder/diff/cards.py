"""Evaluation Card changes between two builds' `signals.json` documents.

The card half of the score-change report (PRODUCT.md, "Score-change report"): reproducibility
gaps opened and closed (EVALCARDS.md section 4), reporting completeness per benchmark
(section 5), divergence flags raised and cleared (section 7), and the corpus rates. Pure, like
`compare.py`: two loaded documents in, a frozen `CardChanges` out; "not checked" is never
reported as "no divergence".
"""

from __future__ import annotations

from typing import Any, Mapping

from .report import (
    RATE_DECIMALS,
    CardChanges,
    CompletenessChange,
    CorpusChange,
    FlagChange,
    GapChange,
    TripleRef,
)


def compare_signals(base: Mapping[str, Any] | None, head: Mapping[str, Any] | None) -> CardChanges:
    """Evaluation Card changes: gaps (section 4), completeness (5), divergence flags (7)."""
    if base is None and head is None:
        return CardChanges(compared=False, note="neither build has a signals.json")
    if base is None:
        return CardChanges(compared=False, note="the base build has no signals.json")
    if head is None:
        return CardChanges(compared=False, note="the head build has no signals.json")

    old_triples, new_triples = _triples(base), _triples(head)
    opened, closed, changed = [], [], []
    for key in sorted(old_triples.keys() | new_triples.keys()):
        old_gap = _gap(old_triples.get(key))
        new_gap = _gap(new_triples.get(key))
        change = GapChange(TripleRef(*key), old_gap[1], new_gap[1])
        if new_gap[0] and not old_gap[0]:
            opened.append(change)
        elif old_gap[0] and not new_gap[0] and key in new_triples:
            closed.append(change)
        elif old_gap[0] and new_gap[0] and old_gap[1] != new_gap[1]:
            changed.append(change)

    raised, cleared = [], []
    for key in sorted(old_triples.keys() | new_triples.keys()):
        old_t, new_t = old_triples.get(key), new_triples.get(key)
        old_flag, new_flag = _flag(old_t), _flag(new_t)
        if new_flag is True and old_flag is not True:
            raised.append(_flag_change(key, old_t, new_t, flagged=new_t))
        elif old_flag is True and new_flag is not True:
            cleared.append(_flag_change(key, old_t, new_t, flagged=old_t))

    return CardChanges(
        compared=True,
        note="",
        gaps_opened=tuple(opened),
        gaps_closed=tuple(closed),
        gaps_changed=tuple(changed),
        completeness=_completeness_changes(base, head),
        flags_raised=tuple(raised),
        flags_cleared=tuple(cleared),
        triples_added=len(new_triples.keys() - old_triples.keys()),
        triples_removed=len(old_triples.keys() - new_triples.keys()),
        corpus=_corpus_change(base, head),
    )


def _triples(signals: Mapping[str, Any]) -> dict[tuple[str, str, str], Mapping[str, Any]]:
    return {(t["model"], t["benchmark"], t["metric"]): t for t in signals.get("triples") or ()}


def _gap(triple: Mapping[str, Any] | None) -> tuple[bool, tuple[str, ...] | None]:
    if triple is None:
        return False, None
    repro = triple.get("reproducibility") or {}
    return bool(repro.get("gap")), tuple(repro.get("missing") or ())


def _flag(triple: Mapping[str, Any] | None) -> bool | None:
    if triple is None:
        return None
    return (triple.get("comparability") or {}).get("flag")


def _flag_change(key: tuple[str, str, str], old: Mapping[str, Any] | None, new: Mapping[str, Any] | None,
                 flagged: Mapping[str, Any] | None) -> FlagChange:
    comparability = (flagged or {}).get("comparability") or {}
    kinds = tuple(k for k in ("variant", "cross_party") if (comparability.get(k) or {}).get("flag") is True)
    spreads = [comparability[k].get("spread") for k in kinds if comparability[k].get("spread") is not None]
    return FlagChange(
        triple=TripleRef(*key),
        old_flag=_flag(old),
        new_flag=_flag(new),
        old_present=old is not None,
        new_present=new is not None,
        kinds=kinds,
        spread=round(max(spreads), RATE_DECIMALS) if spreads else None,
    )


def _completeness_changes(base: Mapping[str, Any], head: Mapping[str, Any]) -> tuple[CompletenessChange, ...]:
    old = {b["benchmark"]: b for b in base.get("benchmarks") or ()}
    new = {b["benchmark"]: b for b in head.get("benchmarks") or ()}
    changes = []
    for name in sorted(old.keys() | new.keys()):
        a, b = old.get(name), new.get(name)
        old_c = a.get("completeness") if a else None
        new_c = b.get("completeness") if b else None
        old_fields, new_fields = _field_scores(a), _field_scores(b)
        gained = tuple(f for f in sorted(new_fields) if new_fields[f] > old_fields.get(f, 0.0))
        lost = tuple(f for f in sorted(old_fields) if old_fields[f] > new_fields.get(f, 0.0))
        if a is not None and b is not None and old_c == new_c and not gained and not lost \
                and bool(a.get("has_card")) == bool(b.get("has_card")):
            continue
        changes.append(CompletenessChange(
            benchmark=name,
            old=old_c,
            new=new_c,
            delta=round(new_c - old_c, RATE_DECIMALS) if old_c is not None and new_c is not None else None,
            old_fully_missing=a.get("fully_missing") if a else None,
            new_fully_missing=b.get("fully_missing") if b else None,
            old_has_card=bool(a.get("has_card")) if a else None,
            new_has_card=bool(b.get("has_card")) if b else None,
            fields_gained=gained,
            fields_lost=lost,
        ))
    # Largest completeness move first; appearing or vanishing benchmarks count as their whole C(b).
    changes.sort(key=lambda c: (-abs(c.delta if c.delta is not None else (c.new or c.old or 0.0)), c.benchmark))
    return tuple(changes)


def _field_scores(benchmark: Mapping[str, Any] | None) -> dict[str, float]:
    if benchmark is None:
        return {}
    return {f["field"]: float(f.get("score") or 0.0) for f in benchmark.get("fields") or ()}


def _corpus_change(base: Mapping[str, Any], head: Mapping[str, Any]) -> CorpusChange:
    old, new = base.get("corpus") or {}, head.get("corpus") or {}
    return CorpusChange(
        old_triples=old.get("triples"),
        new_triples=new.get("triples"),
        old_gap_rate=old.get("reproducibility_gap_rate"),
        new_gap_rate=new.get("reproducibility_gap_rate"),
        old_completeness_median=old.get("completeness_median"),
        new_completeness_median=new.get("completeness_median"),
    )
