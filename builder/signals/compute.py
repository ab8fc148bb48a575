"""Computing every signal from the PointsDB: the SQL does the grouping, Python assembles.

Order of work (EVALCARDS.md sections 4-7): the leaderboard's own rows join the reported
ones; cards are matched to benchmarks; per-row reproducibility and agentic status; per-
triple reproducibility, provenance and comparability; the differing setup fields of the
compared triples; per-benchmark completeness; corpus rollups. Each step is one named
statement in `store/sql/results.sql`; this module binds parameters and turns the result
rows into the frozen dataclasses of `model.py`.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import fields
from operator import itemgetter
from typing import Any, Callable, Iterable

from ..config import SiteConfig
from ..store.cardfields import FIELDS
from ..store.keys import Aliases
from ..store.pointsdb import PointsDB
from ..store.populated import threshold as level_threshold
from ..store.reported import OwnResult, own_row_columns
from ..store.results import (
    BenchmarkCompleteness,
    BenchmarkOverview,
    CardRiskRow,
    CardText,
    CorpusTriples,
    FieldPopulation,
    FieldScoreRow,
    RelationshipRows,
    ResultsStore,
    SetupDifferenceRow,
    TripleDetail,
)
from ..store.setup import SETUP_FIELDS
from .comparability import (
    THETA,
    Comparability,
    ComparabilityRollup,
    Divergence,
    DivergenceCounts,
    PartyScore,
    SetupDifference,
    sorted_values,
)
from .completeness import FieldScore, SubItem
from .model import BenchmarkSignals, CorpusSignals, ResultRow, Signals, TripleSignals, record_builder
from .provenance import RELATIONSHIPS, Provenance, ProvenanceRollup, Risk
from .reproducibility import AGENTIC_ROUTES, Reproducibility, ReproducibilityRollup, pattern_keys
from .reproducibility import FIELDS as REPRO_FIELDS


def compute_signals(db: PointsDB, config: SiteConfig, own_rows: Iterable[OwnResult]) -> Signals:
    """All signals of the reported rows the store holds (`store.reported`) plus `own_rows`.

    The own rows go to a temporary table for this connection, so the stored PointsDB is
    not changed and a read-only database works too.
    """
    store = ResultsStore(db)
    aliases = Aliases.from_tables(config.model_aliases, config.benchmark_aliases)
    level = level_threshold(config.populated_rule)

    store.run("own_rows_table")
    own, own_dropped = own_row_columns(own_rows, config, aliases, store.next_row_id())
    store.insert("own_rows", own.arrays())
    store.run("card_benchmarks")

    keys = [k for (k,) in store.fetch("benchmark_keys")]
    store.run("row_signals", {"threshold": level, "pattern_keys": pattern_keys(keys, config.agentic_pattern)})
    store.run("triple_signals", {"theta": THETA})
    store.run("completeness_catalogue")
    store.insert("completeness_catalogue", {
        "position": [f.position for f in FIELDS], "field": [f.field for f in FIELDS],
        "coverage": [f.coverage for f in FIELDS], "origin": [f.origin for f in FIELDS],
        "items": [f.items for f in FIELDS],
    })
    store.run("benchmark_fields", {"threshold": level})

    rows = _rows(store)
    benchmarks = _benchmarks(store, level)
    risks = {b.key: b.risk_categories for b in benchmarks}
    triples = _triples(store, risks)
    corpus = _corpus(store, len(rows), len(benchmarks))
    dropped = int(store.scalar("dropped_count")) + own_dropped
    return Signals(
        populated_rule=config.populated_rule, threshold=THETA, dropped_rows=dropped,
        rows=rows, triples=triples, benchmarks=benchmarks, corpus=corpus, aliases=aliases,
    )


# -- rows ----------------------------------------------------------------------------------


def _rows(store: ResultsStore) -> tuple[ResultRow, ...]:
    """One `ResultRow` per row, each field read from the `row_details` column of its name;
    the agentic routes, missing fields and setup are made from their columns here."""
    routes = {flags: tuple(r for r, on in zip(AGENTIC_ROUTES, flags) if on)
              for flags in itertools.product((False, True), repeat=3)}
    fields_of = _field_lists()
    at, rows = store.columns("row_details")
    derived = ("agentic_routes", "missing", "setup")
    assert tuple(f.name for f in fields(ResultRow))[-3:] == derived, "ResultRow's derived fields come last"
    plain = itemgetter(*(at[f.name] for f in fields(ResultRow) if f.name not in derived))
    flags = itemgetter(at["agentic_card"], at["agentic_config"], at["agentic_pattern"])
    setup = itemgetter(*(at[name] for name in SETUP_FIELDS))
    missing_at = at["missing"]
    make = record_builder(ResultRow)  # the plain fields, then the derived ones, in field order
    return tuple(make(*plain(r), routes[flags(r)], fields_of(r[missing_at]), setup(r)) for r in rows)


def _field_lists() -> Callable[[str], tuple[str, ...]]:
    """Comma-joined field names (as the store gives a row's missing fields) as a tuple, one
    shared tuple per distinct text: a few hundred lists recur across ~10^5 rows."""
    seen: dict[str, tuple[str, ...]] = {}

    def fields_of(text: str) -> tuple[str, ...]:
        found = seen.get(text)
        if found is None:
            found = seen[text] = tuple(text.split(",")) if text else ()
        return found

    return fields_of


# -- triples -------------------------------------------------------------------------------


def _differences(store: ResultsStore) -> dict[tuple[str, str, str, str], tuple[SetupDifference, ...]]:
    """{(scope, model, benchmark, metric): differing fields in `SETUP_FIELDS` order}."""
    order = {f: i for i, f in enumerate(SETUP_FIELDS)}
    found: dict[tuple[str, str, str, str], list[SetupDifference]] = {}
    for d in store.fetch_records("differing_setups", SetupDifferenceRow):
        found.setdefault((d.scope, d.model_key, d.benchmark_path, d.metric_key), []).append(
            SetupDifference(d.setup_field, sorted_values(json.loads(d.present_values or "[]"), bool(d.has_absent))))
    return {k: tuple(sorted(v, key=lambda d: order[d.field])) for k, v in found.items()}


def _triples(store: ResultsStore, risks: dict[str, tuple[str, ...]]) -> tuple[TripleSignals, ...]:
    """One `TripleSignals` per triple. Most triples have one report, so their N/A checks,
    reproducibility and provenance repeat: equal values share one (immutable) object,
    which keeps the full corpus (35,026 triples) fast to assemble."""
    differences = _differences(store)
    shared: dict[tuple[Any, ...], object] = {}
    fields_of = _field_lists()

    def once(kind: type, *args: Any) -> Any:
        key = (kind, *args)
        found = shared.get(key)
        if found is None:
            found = shared[key] = kind(*args)
        return found

    # The generated __init__ of a frozen dataclass sets each field through
    # object.__setattr__; record_builder fills the instance at once (same instances).
    make_triple, make_comparability = record_builder(TripleSignals), record_builder(Comparability)
    make_party, make_divergence = record_builder(PartyScore), record_builder(Divergence)
    triples = []
    for t in store.fetch_records("triple_details", TripleDetail):
        model, bench, metric, benchmark_key, reports = t.model_key, t.benchmark_path, t.metric_key, t.benchmark_key, t.reports
        basis, score_range = t.basis, t.score_range
        parties, party_scores, party_setups, party_spreads = t.party_columns()
        scores = tuple(map(make_party, parties, party_scores, party_setups, party_spreads))
        missing = fields_of(t.missing)
        one_report = "one report" if reports < 2 else None
        # Only compared triples (two or more reports) can have differing setups.
        differ_v: tuple[SetupDifference, ...] = ()
        differ_c: tuple[SetupDifference, ...] = ()
        if one_report is None:
            differ_v = differences.get(("variant", model, bench, metric), ())
            differ_c = differences.get(("cross_party", model, bench, metric), ())
        if t.variant_flag is None:
            variant = once(Divergence, "variant", None, None, None, THETA, basis, score_range, differ_v,
                           one_report or "no party reports more than one setup")
        else:
            variant = make_divergence("variant", t.variant_flag, t.variant_relative, t.variant_spread, THETA, basis,
                                 score_range, differ_v, None)
        if t.cross_flag is None:
            cross = once(Divergence, "cross_party", None, None, None, THETA, basis, score_range, differ_c,
                         one_report or "one party")
        else:
            cross = make_divergence("cross_party", t.cross_flag, t.cross_relative, t.cross_spread, THETA, basis,
                               score_range, differ_c, None)
        counts = tuple((r, n) for r, n in zip(RELATIONSHIPS, (t.first_party, t.third_party, t.collaborative,
                                                              t.unspecified)) if n)
        provenance_key = ("provenance", t.first_party_only, t.multi_party, counts, parties, benchmark_key)
        provenance = shared.get(provenance_key)
        if not isinstance(provenance, Provenance):
            provenance = Provenance(t.first_party_only, t.multi_party, dict(counts), parties,
                                    risks.get(benchmark_key, ()))
            shared[provenance_key] = provenance
        triples.append(make_triple(
            model, t.model_id, bench, benchmark_key, t.slice_key, metric, reports, parties, t.row_id_tuple(),
            once(Reproducibility, bool(missing), missing, t.agentic),
            provenance,
            make_comparability(variant, cross, scores),
        ))
    return tuple(triples)


# -- benchmarks ----------------------------------------------------------------------------


def _benchmarks(store: ResultsStore, level: int) -> tuple[BenchmarkSignals, ...]:
    specs = {f.field: f for f in FIELDS}
    texts: dict[tuple[str, str], str | None] = {}
    subs: dict[tuple[str, str], list[SubItem]] = {}
    for t in store.fetch_records("card_texts", CardText):
        if t.sub_item is None:
            texts[(t.benchmark_key, t.field)] = t.text
        else:
            subs.setdefault((t.benchmark_key, t.field), []).append(SubItem(t.sub_item, t.level >= level, t.text))
    fields: dict[str, list[FieldScore]] = {}
    for f in store.fetch_records("benchmark_field_scores", FieldScoreRow):
        spec, at = specs[f.field], (f.benchmark_key, f.field)
        fields.setdefault(f.benchmark_key, []).append(FieldScore(
            position=f.position, field=f.field, label=spec.label, section=spec.section, coverage=f.coverage,
            origin=f.origin, score=float(f.score), populated=int(f.populated), items=int(f.items),
            text=texts.get(at), sub_items=tuple(subs.get(at, ())),
        ))
    risks: dict[str, list[Risk]] = {}
    for r in store.fetch_records("card_risk_list", CardRiskRow):
        risks.setdefault(r.benchmark_key, []).append(Risk(r.category, r.description, r.url))
    completeness = {c.benchmark_key: c.completeness
                    for c in store.fetch_records("benchmark_completeness", BenchmarkCompleteness)}
    out = []
    for b in store.fetch_records("benchmark_overview", BenchmarkOverview):
        bench = b.benchmark_key
        out.append(BenchmarkSignals(
            key=bench, name=b.name or b.reported_name or bench, has_card=b.card_id is not None,
            card_path=b.source_path, completeness=float(completeness[bench]), fields=tuple(fields[bench]),
            risks=tuple(risks.get(bench, ())), rows=int(b.n_rows), triples=int(b.n_triples), agentic=bool(b.agentic),
        ))
    return tuple(out)


# -- corpus --------------------------------------------------------------------------------


def _corpus(store: ResultsStore, n_rows: int, n_benchmarks: int) -> CorpusSignals:
    c = store.fetch_records("corpus_triples", CorpusTriples)[0]
    missingness = {f: getattr(c, f) for f in REPRO_FIELDS}
    relationships = {r.relationship: r.rows for r in store.fetch_records("corpus_relationships", RelationshipRows)}
    population = {p.field: p.rate for p in store.fetch_records("corpus_field_population", FieldPopulation)}
    if not population:
        population = {f.field: None for f in FIELDS}
    triples, compared = c.triples, c.compared
    return CorpusSignals(
        triples=triples, rows=n_rows, benchmarks=n_benchmarks,
        reproducibility=ReproducibilityRollup(gap_rate=c.gap_rate, field_missingness=missingness,
                                              agentic_triples=c.agentic_triples),
        completeness_median=store.scalar("corpus_completeness"),
        field_population=population,
        provenance=ProvenanceRollup(triples=triples, first_party_only=c.first_party_only, multi_party=c.multi_party,
                                    rows_by_relationship={r: relationships.get(r, 0) for r in RELATIONSHIPS}),
        comparability=ComparabilityRollup(
            compared=compared,
            variant=DivergenceCounts(c.variant_flagged, c.variant_within,
                                     compared - c.variant_flagged - c.variant_within),
            cross_party=DivergenceCounts(c.cross_flagged, c.cross_within, compared - c.cross_flagged - c.cross_within),
            combined=DivergenceCounts(c.flagged, c.within, compared - c.flagged - c.within),
        ),
    )
