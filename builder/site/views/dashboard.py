"""The signals dashboard (`signals.html`): Evaluation Card signals across the whole corpus,
with links down to each benchmark's page and to the flagged comparisons (EVALCARDS.md)."""

from __future__ import annotations

from typing import Callable, Mapping

from ...signals import Signals, TripleSignals
from ...store.cardfields import FIELD_BY_NAME
from ...vocabulary import PROVENANCE
from .. import format as fmt
from ..charts import Chart
from .badges import checks_summary, count_rate
from .base import Ref
from .cards import BenchmarkSummary, CountRow, FlaggedView, RateRow, SignalsPage

#: Flagged triples linked from the dashboard at most.
MAX_FLAGGED = 100


def signals_page(s: Signals | None, summaries: Mapping[str, BenchmarkSummary], bench_paths: Mapping[str, str],
                 anchor: Callable[[TripleSignals], str | None], simulated_models: Mapping[str, bool]) -> SignalsPage:
    """`signals.html`: the corpus rates, field missingness and population, provenance and
    comparability counts, the flagged triples (linked to their comparison, at its `anchor`
    when the benchmark page shows it) and every benchmark's summary; or why there are none."""
    if s is None:
        return SignalsPage(
            path="signals.html", title="Evaluation Card signals", template="signals.html", simulated=False,
            description="Evaluation Card signals across every reported result", available=False,
            rows=0, triples=0, benchmark_count=0, dropped=0, populated_rule="", gap_rate=fmt.MISSING,
            missingness=(), missingness_chart=None, completeness_median=fmt.MISSING, population=(),
            population_chart=None, first_party_only=fmt.MISSING, multi_party=fmt.MISSING, relationships=(),
            compared=0, comparability=(), flagged=(), flagged_total=0, benchmarks=())
    corpus = s.corpus
    repro = corpus.reproducibility
    missingness = tuple(
        RateRow(f, rate, "" if rate is not None else "no agentic results")
        for f, rate in repro.field_missingness.items())
    population = tuple(
        RateRow(f"{FIELD_BY_NAME[f].position}. {FIELD_BY_NAME[f].label}" if f in FIELD_BY_NAME else f, rate, name=f)
        for f, rate in corpus.field_population.items())
    prov = corpus.provenance
    rel_total = sum(prov.rows_by_relationship.values()) or 1
    relationships = tuple((r, prov.rows_by_relationship.get(r, 0),
                           fmt.percent(prov.rows_by_relationship.get(r, 0) / rel_total))
                          for r in PROVENANCE)
    comp = corpus.comparability
    counts = (CountRow("Variant divergence (same party, different setups)", comp.variant.flagged,
                       comp.variant.within, comp.variant.not_applicable),
              CountRow("Cross-party divergence", comp.cross_party.flagged, comp.cross_party.within,
                       comp.cross_party.not_applicable),
              CountRow("Either (combined flag)", comp.combined.flagged, comp.combined.within,
                       comp.combined.not_applicable))
    flagged_triples = [t for t in s.triples if t.comparability.flag is True]
    flagged = tuple(FlaggedView(Ref(t.benchmark, bench_paths[t.benchmark_key]), anchor(t),
                                t.model_id, t.metric, checks_summary(t.comparability, flagged_only=True))
                    for t in flagged_triples[:MAX_FLAGGED])
    benchmarks = tuple(sorted(summaries.values(), key=lambda b: (not b.has_card, b.ref.label.lower(), b.key)))
    simulated = any(simulated_models.values()) and any(r.own for r in s.rows)
    pop_chart = Chart(
        kind="rates", id="population", twin="population-table",
        label=f"Share of benchmarks populating each of the {len(population)} Evaluation Card fields",
        rows=tuple({"label": r.label, "order": n, "rate": r.rate, "text": r.text} for n, r in enumerate(population)
                   if r.rate is not None)) if population else None
    miss_rows = [r for r in missingness if r.rate is not None]
    miss_chart = Chart(
        kind="rates", id="missingness", twin="missingness-table",
        label="Share of results missing each reproducibility field",
        rows=tuple({"label": r.label, "order": n, "rate": r.rate, "text": r.text}
                   for n, r in enumerate(miss_rows))) if miss_rows else None
    return SignalsPage(
        path="signals.html", title="Evaluation Card signals", template="signals.html", simulated=simulated,
        description="Reproducibility, completeness, provenance and comparability across every reported result",
        available=True, rows=corpus.rows, triples=corpus.triples, benchmark_count=corpus.benchmarks,
        dropped=s.dropped_rows, populated_rule=s.populated_rule, gap_rate=fmt.percent(repro.gap_rate),
        missingness=missingness, missingness_chart=miss_chart,
        completeness_median=fmt.percent(corpus.completeness_median), population=population,
        population_chart=pop_chart, first_party_only=count_rate(prov.first_party_only, prov.first_party_only_rate),
        multi_party=count_rate(prov.multi_party, prov.multi_party_rate), relationships=relationships,
        compared=comp.compared, comparability=counts, flagged=flagged, flagged_total=len(flagged_triples),
        benchmarks=benchmarks,
    )
