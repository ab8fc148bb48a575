"""Evaluation Card views: the signals (EVALCARDS.md) as the pages show them.

`Cards.build` reads a `builder.signals.Signals` and prepares, once per build:

* the benchmark pages (completeness ●/◐/○ per field with the card's text, fully missing
  fields by name, risks, result rows with R/P/X, comparability details per triple), each
  `Deferred`: made where it is rendered;
* the signals dashboard (corpus rates, field missingness and population, provenance,
  comparability counts, links down to benchmarks and flagged triples; `dashboard.py`);
* per leaderboard model: the R/C/P/X badges and the model's reported results;
* per task: a summary of the task's own Evaluation Card.

Signals are attention cues, not grades (EVALCARDS.md): badges say what was found in words
("gap: max_tokens", "not checked: one party"), and N/A never reads like "no divergence".
When a build has no signals (`results.signals is None`) the dashboard says so and no
benchmark pages exist.
"""

from __future__ import annotations

from collections import Counter
from functools import partial
from typing import Any, Sequence

from ...results import BuildResults
from ...signals import BenchmarkSignals, ResultRow, Signals, TripleSignals
from ...slugs import unique_slugs
from .. import format as fmt
from ..markdown import is_web_url
from ..urls import page_path
from .badges import (
    comparability_badge,
    divergence,
    median_of,
    score_text,
    text_html,
    triple_anchor,
)
from .base import Badge, Deferred, NavLink, Page, Pager, Ref
from .cards import (
    BenchmarkPage,
    BenchmarkRowsPage,
    BenchmarkSummary,
    FieldSection,
    FieldView,
    PartyView,
    ReportedResults,
    RiskView,
    SubItemView,
    TripleView,
)
from .dashboard import signals_page
from .resultviews import ResultViews

#: Result rows and comparisons on one page at most, unless the site config sets `page_size`
#: (a benchmark of the full EEE corpus has ~4,500 rows: they continue on numbered pages).
MAX_ROWS = 100


# -- assembly ---------------------------------------------------------------------------------



def _reproducibility_text(n: int, gaps: int, missing: Sequence[str], where: str, idle: int) -> str:
    """The R badge's sentence over a model's `n` results: `gaps` of them leave out the
    fields `missing` (`where`: in which of their reports), `idle` were scored by
    log-likelihood and sampled nothing. One result reads "its one result"."""
    if gaps:
        return ("its one result leaves out " if n == 1 else f"{gaps} of {n} results leave out ") + \
            ", ".join(missing) + where
    if idle == n:
        return ("its one result" if n == 1 else f"all {n} results") + \
            " scored by log-likelihood: nothing was sampled, so no temperature or max_tokens applies"
    if idle:
        return (f"all {n} results report every reproducibility field that applies ({idle} scored by "
                "log-likelihood sampled nothing)")
    return "its one result reports every reproducibility field" if n == 1 else \
        f"all {n} results report every reproducibility field"

class Cards:
    """The Evaluation Card side of the page model, prepared once per build."""

    def __init__(self, signals: Signals | None, model_paths: dict[str, str], model_labels: dict[str, str],
                 model_keys: dict[str, str], task_paths: dict[str, str], simulated: dict[str, bool],
                 page_size: int = MAX_ROWS):
        self.signals = signals
        self.page_size = max(1, page_size)
        self.model_paths = model_paths
        self.model_labels = model_labels
        self.model_keys = model_keys          # leaderboard id -> signals model key
        self.task_paths = task_paths
        self.simulated = simulated
        self.bench_paths: dict[str, str] = {}
        self.task_by_key: dict[str, str] = {}
        self._summaries: dict[str, BenchmarkSummary] = {}
        if signals is None:
            return
        keys = [b.key for b in signals.benchmarks]
        self.bench_paths = {k: page_path("benchmarks", s) for k, s in zip(keys, unique_slugs(keys))}
        from ...store.keys import key as signal_key

        self.task_by_key = {signal_key(t): t for t in task_paths}
        self._summaries = {b.key: self._summary(b) for b in signals.benchmarks}
        self._compared = {b.key: self._compared_triples(b.key) for b in signals.benchmarks}
        # Anchors that exist: a link to a comparison the page does not show would be broken.
        self._anchors = {t.key: triple_anchor(*t.key) for ts in self._compared.values() for t in ts}
        # A result row appears on its model's page and on its benchmark's row pages: its
        # view is made once (resultviews.py).
        self._rows = ResultViews(signals, model_paths, model_labels, self.bench_paths, self._anchors)
        self._benchmark_rows: dict[str, list[ResultRow]] = {}
        self._simulated_benchmarks: dict[str, bool] = {}

    @property
    def _signals(self) -> Signals:
        """The signals, in the methods that run only when the build has them."""
        assert self.signals is not None
        return self.signals

    @classmethod
    def build(cls, results: BuildResults, model_paths: dict[str, str], task_paths: dict[str, str],
              model_labels: dict[str, str] | None = None, simulated: dict[str, bool] | None = None) -> Cards:
        signals = results.signals
        model_keys: dict[str, str] = {}
        if signals is not None:
            for m in results.leaderboard.models:
                model_keys[m.id] = signals.model_key_for(m.evaluation.hf_id or m.model)
        return cls(signals, model_paths, model_labels or {}, model_keys, task_paths, simulated or {},
                   page_size=getattr(results.config, "page_size", MAX_ROWS))

    # -- per model ----------------------------------------------------------------------

    def _own_triples(self, model_id: str) -> list[Any]:
        """Every triple of this evaluation's model key (its own results and anyone else's).

        Two evaluations of one model (two samplers) share the model key, so their own rows
        meet in one triple: exactly the "same party, different setups" case of variant
        divergence, which both leaderboard rows then show.
        """
        if self.signals is None or model_id not in self.model_keys:
            return []
        return list(self._signals.triples_for_model(self.model_keys[model_id]))

    def model_badges(self, model_id: str) -> tuple[Badge, ...]:
        """R, C, P, X for the leaderboard row of one evaluation, over all results of its model."""
        if self.signals is None:
            return ()
        triples = self._own_triples(model_id)
        if not triples:
            return ()
        n = len(triples)
        # A model with one result reads "its one result ...": "all 1 results" and "each of the
        # 1 results" count what is not there.
        one = n == 1
        gaps = [t for t in triples if t.reproducibility.gap]
        missing = sorted({f for t in gaps for f in t.reproducibility.missing})
        # A result with several reports has a gap when any of them leaves a field out: the
        # others may state it (two samplers of one model, one recording max_tokens).
        several = any(t.reports > 1 for t in gaps)
        where = (" in at least one of its reports" if one else " in at least one of their reports") if several else ""
        # A result scored by log-likelihood samples nothing: no field applies, none is reported.
        idle = sum(1 for t in triples if not t.reproducibility.gap
                   and all(not (row := self._signals.row(i)) or not row.sampled for i in t.row_ids))
        r = Badge("R", "Reproducibility", "attention" if gaps else "clear",
                  f"{len(gaps)}/{n} gaps" if gaps else "nothing sampled" if idle == n else "reported",
                  _reproducibility_text(n, len(gaps), missing, where, idle))
        completeness = [self._summaries[t.benchmark_key].completeness for t in triples
                        if t.benchmark_key in self._summaries]
        median = median_of(completeness)
        benchmarks = len(set(t.benchmark_key for t in triples))
        c = Badge("C", "Reporting completeness", "info", fmt.percent(median, 0),
                  ("completeness C(b) of the one benchmark" if benchmarks == 1
                   else f"median completeness C(b) of the {benchmarks} benchmarks")
                  + f" this model has results on: {fmt.percent(median, 0)}")
        first_only = sum(1 for t in triples if t.provenance.first_party_only)
        multi = sum(1 for t in triples if t.provenance.multi_party)
        if first_only == n:
            p = Badge("P", "Provenance", "attention", "1st party only",
                      "its one result is reported by the model's own developer only" if one
                      else f"all {n} results are reported by the model's own developer only")
        elif multi:
            p = Badge("P", "Provenance", "clear", f"{multi} multi-party",
                      "its one result is reported by more than one organisation" if one
                      else f"{multi} of {n} results {'is' if multi == 1 else 'are'} reported by more than one "
                      "organisation")
        else:
            p = Badge("P", "Provenance", "info", "single party",
                      ("its one result is reported by one organisation only" if one
                       else f"each of the {n} results is reported by one organisation only")
                      + (f" ({first_only} by the developer itself)" if first_only else ""))
        flags = [t.comparability.flag for t in triples]
        flagged = sum(1 for f in flags if f is True)
        checked = sum(1 for f in flags if f is not None)
        if flagged:
            x = Badge("X", "Comparability", "attention", f"{flagged} diverge",
                      f"{flagged} of {checked} checked results diverge by more than the threshold")
        elif checked:
            x = Badge("X", "Comparability", "clear", "within",
                      "checked: 1 result with several reports agrees within the threshold" if checked == 1
                      else f"checked: {checked} results with several reports agree within the threshold")
        else:
            x = Badge("X", "Comparability", "na", "not checked",
                      "not checked: no result has a second report to compare with")
        return (r, c, p, x)

    def reported_for(self, model_id: str) -> ReportedResults:
        """Every result row of this evaluation's model key (own rows and reported ones)."""
        if self.signals is None or model_id not in self.model_keys:
            return ReportedResults()
        rows = self._signals.rows_for_model(self.model_keys[model_id])
        # The board's own rows of *other* evaluations of the same model belong on their pages.
        return self._results([r for r in rows if not r.own or r.evaluation_id == model_id])

    # -- per task ------------------------------------------------------------------------

    def summary_for_task(self, task: str) -> BenchmarkSummary | None:
        if self.signals is None:
            return None
        from ...store.keys import key as signal_key

        return self._summaries.get(signal_key(task))

    # -- pages ----------------------------------------------------------------------------

    def pages(self) -> list[Page | Deferred]:
        """The signals dashboard, then each benchmark's pages (made where they are rendered)."""
        pages: list[Page | Deferred] = [signals_page(self.signals, self._summaries, self.bench_paths, self.anchor,
                                                                self.simulated)]
        if self.signals is not None:
            for b in self._signals.benchmarks:
                pages += [Deferred(path, "benchmark.html" if k == 0 else "benchmark_rows.html",
                                   partial(self._benchmark_page_at, b, k))
                          for k, path in enumerate(self._benchmark_paths(b))]
        return pages

    # -- builders --------------------------------------------------------------------------

    def _summary(self, b: BenchmarkSignals) -> BenchmarkSummary:
        return BenchmarkSummary(Ref(b.name, self.bench_paths[b.key]), b.key, b.has_card, b.completeness,
                                len(b.fully_missing), b.rows, b.triples, tuple(b.risk_categories))

    def _compared_triples(self, benchmark_key: str) -> list[Any]:
        """Triples with two or more reports, flagged first, then checked, then not applicable
        (what needs attention leads), at most one page of them; the rest are counted."""
        compared = [t for t in self._signals.triples_for_benchmark(benchmark_key) if t.reports >= 2]
        compared.sort(key=lambda t: ({True: 0, False: 1, None: 2}[t.comparability.flag], t.key))
        return compared[: self.page_size]

    def anchor(self, t: TripleSignals) -> str | None:
        """The HTML id of the triple's comparison on its benchmark page, when it is shown there."""
        return self._anchors.get(t.key)

    def _results(self, rows: Sequence[Any], first: int = 1, more: Ref | None = None) -> ReportedResults:
        """One page of result rows: `rows[first - 1 : first - 1 + page_size]`."""
        shown = rows[first - 1: first - 1 + self.page_size]
        return ReportedResults(tuple(map(self._rows.view, shown)), len(rows), first, more)

    def _triple_view(self, t: TripleSignals) -> TripleView:
        c = t.comparability
        rows = self._signals.rows_for_triple(*t.key)
        own_ids = sorted({r.evaluation_id for r in rows if r.own and r.evaluation_id})
        reports = Counter(r.org_key for r in rows)
        models = tuple(Ref(self.model_labels.get(i, i), self.model_paths[i]) for i in own_ids if i in self.model_paths)
        return TripleView(
            anchor=triple_anchor(*t.key), model_id=t.model_id, models=models, benchmark=t.benchmark,
            metric=t.metric, reports=t.reports,
            parties=tuple(PartyView(p.party, score_text(p.score, None), p.setups, reports.get(p.party, 1))
                          for p in c.scores),
            variant=divergence(c.variant), cross_party=divergence(c.cross_party),
            combined=comparability_badge(c), missing=t.reproducibility.missing,
        )

    def _benchmark_paths(self, b: BenchmarkSignals) -> list[str]:
        """The Evaluation Card page, then one page per further `page_size` result rows, so
        every row is on the site and no page lists them all."""
        card_path = self.bench_paths[b.key]
        pages = max(1, -(-len(self._signals.rows_for_benchmark(b.key)) // self.page_size))
        return [card_path] + [f"{card_path[:-len('.html')]}/rows-{k + 1}.html" for k in range(1, pages)]

    def _sorted_rows(self, b: BenchmarkSignals) -> list[ResultRow]:
        """The benchmark's result rows, best score first (sorted once per process)."""
        rows = self._benchmark_rows.get(b.key)
        if rows is None:
            rows = self._benchmark_rows[b.key] = sorted(self._signals.rows_for_benchmark(b.key),
                                                        key=lambda r: (-r.score, r.model_key, r.row_id))
        return rows

    def _benchmark_page_at(self, b: BenchmarkSignals, k: int) -> Page:
        """Page `k` of `_benchmark_paths(b)`: the card with the first rows, or rows only."""
        rows = self._sorted_rows(b)
        paths = self._benchmark_paths(b)
        starts = [1 + n * self.page_size for n in range(len(paths))]
        links = tuple(NavLink(str(n + 1), p) for n, p in enumerate(paths))
        more = (Ref(f"rows {starts[k + 1]}–{min(starts[k + 1] + self.page_size - 1, len(rows))}", paths[k + 1])
                if k + 1 < len(paths) else None)
        results = self._results(rows, starts[k], more)
        if k == 0:
            return self._benchmark_page(b, results, Pager(1, links) if len(links) > 1 else None)
        return BenchmarkRowsPage(
            path=paths[k], title=f"Result rows of {b.name}, page {k + 1}", template="benchmark_rows.html",
            simulated=self._benchmark_simulated(b),
            description=f"Result rows {starts[k]} onwards of {b.name} with their signals",
            card=Ref(b.name, paths[0]), results=results, pager=Pager(k + 1, links))

    def _benchmark_simulated(self, b: BenchmarkSignals) -> bool:
        """A benchmark's pages show simulated data when any of its own rows is simulated
        (found once per benchmark and process: every page of the benchmark asks)."""
        found = self._simulated_benchmarks.get(b.key)
        if found is None:
            found = self._simulated_benchmarks[b.key] = any(
                self.simulated.get(r.evaluation_id or "", False) for r in self._signals.rows_for_benchmark(b.key)
                if r.own)
        return found

    def _benchmark_page(self, b: BenchmarkSignals, results: ReportedResults, pager: Pager | None) -> BenchmarkPage:
        summary = self._summaries[b.key]
        sections: dict[str, list[FieldView]] = {}
        for f in b.fields:
            sections.setdefault(f.section, []).append(FieldView(
                position=f.position, field=f.field, label=f.label, mark=f.mark, status=f.status,
                count_text=f.count_text, coverage=f.coverage, origin=f.origin, html=text_html(f.text),
                sub_items=tuple(SubItemView(s.name, "●" if s.populated else "○",
                                            "populated" if s.populated else "missing", text_html(s.text))
                                for s in f.sub_items)))
        task = self.task_by_key.get(b.key)
        return BenchmarkPage(
            path=self.bench_paths[b.key], title=f"Evaluation Card: {b.name}", template="benchmark.html",
            simulated=self._benchmark_simulated(b),
            description=f"Reporting completeness, risks and result signals of {b.name}",
            summary=summary, name=b.name, card_path=b.card_path, agentic=b.agentic,
            fully_missing=tuple(b.fully_missing),
            sections=tuple(FieldSection(title, tuple(fields)) for title, fields in sections.items()),
            risks=tuple(RiskView(r.category or "uncategorised risk", text_html(r.description),
                                 r.url if r.url and is_web_url(r.url) else None) for r in b.risks),
            results=results,
            compared=tuple(self._triple_view(t) for t in self._compared[b.key]),
            compared_total=sum(1 for t in self._signals.triples_for_benchmark(b.key) if t.reports >= 2),
            pager=pager,
            task=Ref(task, self.task_paths[task]) if task else None,
        )
