"""A result row as the pages show it (`ResultView`): made once per row and process, for the
model page listing it and its benchmark's row pages.

A corpus has ~10^5 rows but few distinct parts: the parts rows share are made once and
shared (a benchmark's link, an own row's link to its evaluation, the badges).
"""

from __future__ import annotations

from typing import Any

from ...signals import ResultRow, Signals, TripleSignals
from ...signals.model import record_builder
from .. import format as fmt
from .badges import collection, comparability_badge, provenance_badge, row_repro_badge, score_text
from .base import Badge, Ref
from .cards import ResultView

#: `ResultView(...)` with every field given positionally, without the frozen dataclass's
#: per-field `object.__setattr__` (the same instances).
_result_view = record_builder(ResultView)


class ResultViews:
    """The views of one build's result rows, each made on first use (`view`)."""

    def __init__(self, signals: Signals, model_paths: dict[str, str], model_labels: dict[str, str],
                 bench_paths: dict[str, str], anchors: dict[Any, str]):
        self.signals = signals
        self.model_paths = model_paths
        self.model_labels = model_labels
        self.bench_paths = bench_paths
        #: The anchors of the comparisons the benchmark pages show, by triple key.
        self.anchors = anchors
        self._views: dict[int, ResultView] = {}
        self._triple_parts: dict[Any, tuple[str | None, Badge, Badge]] = {}
        self._provenance_badges: dict[int, tuple[Any, Badge]] = {}
        self._na_badges: dict[tuple[int, int], tuple[Any, Badge]] = {}
        self._badge_rows: dict[tuple[int, int, int], tuple[Badge, Badge, Badge]] = {}
        self._own_refs: dict[tuple[str, str], Ref | None] = {}
        self._bench_refs: dict[tuple[str, str], Ref] = {}

    def view(self, row: ResultRow) -> ResultView:
        found = self._views.get(row.row_id)
        if found is None:
            found = self._views[row.row_id] = self._new_view(row)
        return found

    def _new_view(self, row: ResultRow) -> ResultView:
        anchor, provenance, comparability = self._parts_of((row.model_key, row.benchmark_path, row.metric_key))
        own = row.own
        required, missing = row.required, row.missing
        r = row_repro_badge(missing, required)
        badges = self._badge_rows.get((id(r), id(provenance), id(comparability)))
        if badges is None:  # the key's badges are held by the tuple
            badges = self._badge_rows[(id(r), id(provenance), id(comparability))] = (r, provenance, comparability)
        return _result_view(
            f"r-{row.row_id}", self._own_ref(row.evaluation_id or "", row.model_id) if own else None, row.model_id,
            self._benchmark_ref(row.benchmark_path, row.benchmark_key), anchor, row.metric_name or row.metric_key,
            score_text(row.score, row.metric_unit), row.organization or "not named", row.relationship,
            "this leaderboard" if own else (row.source_path or fmt.MISSING),
            "this leaderboard" if own else collection(row.source_path), own, row.agentic, required, missing,
            badges,
        )

    def _own_ref(self, evaluation_id: str, model_id: str) -> Ref | None:
        """An own row's link to its evaluation's page (one for the evaluation's dozen rows),
        None when the evaluation has no page."""
        key = (evaluation_id, model_id)
        if key not in self._own_refs:
            path = self.model_paths.get(evaluation_id)
            self._own_refs[key] = Ref(self.model_labels.get(evaluation_id, model_id), path) if path else None
        return self._own_refs[key]

    def _benchmark_ref(self, name: str, key: str) -> Ref:
        """One `Ref` per benchmark name and key (a corpus has ~10^5 rows, ~10^2 of these)."""
        ref = self._bench_refs.get((name, key))
        if ref is None:
            ref = self._bench_refs[(name, key)] = Ref(name, self.bench_paths.get(key, ""))
        return ref

    def _parts_of(self, key: tuple[str, str, str]) -> tuple[str | None, Badge, Badge]:
        """A triple's anchor (when its comparison is shown) and its P and X badges, shared
        by the triple's rows."""
        parts = self._triple_parts.get(key)
        if parts is None:
            triple = self.signals.triple(*key)
            assert triple is not None, f"a result row of no triple: {key}"
            parts = self._triple_parts[key] = (self.anchors.get(key), *self._badges_of(triple))
        return parts

    def _badges_of(self, triple: TripleSignals) -> tuple[Badge, Badge]:
        """A triple's P and X badges. Most triples have one report and share their
        provenance and N/A checks with many others (signals/compute.py), so those badges are
        made once per shared object (by identity: the records are slow to hash; the memos
        hold them, so no id is reused)."""
        provenance = self._provenance_badges.get(id(triple.provenance))
        if provenance is None:
            provenance = self._provenance_badges[id(triple.provenance)] = (triple.provenance,
                                                                           provenance_badge(triple))
        c = triple.comparability
        checks = (id(c.variant), id(c.cross_party))
        comparability = self._na_badges.get(checks)
        if comparability is None:
            badge = comparability_badge(c)
            if badge.state != "na":  # a check that ran: the triple's own badge
                return provenance[1], badge
            comparability = self._na_badges[checks] = (c, badge)
        return provenance[1], comparability[1]
