"""Evaluation Card view models: what the benchmark pages, the signals dashboard, a model's
reported results and a task's card summary show (`evalcards.Cards` builds them). Frozen;
every text is formatted when the view is made, never in a template.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import format as fmt
from ..charts import Chart
from .base import Badge, Page, Pager, Ref


@dataclass(frozen=True)
class ResultView:
    """One reported result row with its signals."""

    anchor: str
    model: Ref | None           # the leaderboard model page, when the row is the board's own
    model_id: str
    benchmark: Ref
    triple_anchor: str | None  # its comparison on the benchmark page, when it has one
    metric: str
    score: str
    organization: str
    relationship: str
    source: str        # the EEE file (relative to the data directory) or "this leaderboard"
    source_label: str  # short form: the EEE collection ("helm_capabilities")
    own: bool
    agentic: bool
    required: tuple[str, ...]
    missing: tuple[str, ...]
    badges: tuple[Badge, ...]


@dataclass(frozen=True)
class ReportedResults:
    """Result rows for one model or one benchmark: `rows` is one page of `total`, starting
    at row `first` (1-based); `more` links the page holding the rest, if any."""

    rows: tuple[ResultView, ...] = ()
    total: int = 0
    first: int = 1
    more: Ref | None = None

    @property
    def shown(self) -> int:
        return len(self.rows)

    @property
    def last(self) -> int:
        return self.first + len(self.rows) - 1


@dataclass(frozen=True)
class DivergenceView:
    status: str          # "flagged", "within", "not_applicable"
    summary: str         # "not checked: one party" / "checked: within 5% ..." / "diverges: ..."
    basis: str
    threshold: str
    spread: str
    differing: tuple[str, ...]


@dataclass(frozen=True)
class PartyView:
    party: str
    score: str
    setups: int
    #: The party's reports of the triple: with several of one setup, its score is their mean,
    #: a figure no report gave, and the page says so.
    reports: int = 1


@dataclass(frozen=True)
class TripleView:
    """Comparability details of one (model, benchmark path, metric) with two or more reports."""

    anchor: str
    model_id: str
    models: tuple[Ref, ...]     # the leaderboard rows whose own results are among the reports
    benchmark: str
    metric: str
    reports: int
    parties: tuple[PartyView, ...]
    variant: DivergenceView
    cross_party: DivergenceView
    combined: Badge
    missing: tuple[str, ...]


@dataclass(frozen=True)
class SubItemView:
    name: str
    mark: str
    status: str
    html: str


@dataclass(frozen=True)
class FieldView:
    position: int
    field: str
    label: str
    mark: str
    status: str
    count_text: str
    coverage: str
    origin: str
    html: str
    sub_items: tuple[SubItemView, ...]

    @property
    def status_text(self) -> str:
        return {"populated": "populated", "partial": "partial", "missing": "missing"}[self.status]


@dataclass(frozen=True)
class FieldSection:
    title: str
    fields: tuple[FieldView, ...]


@dataclass(frozen=True)
class RiskView:
    category: str
    html: str
    url: str | None


@dataclass(frozen=True)
class BenchmarkSummary:
    """One benchmark in a list (dashboard, task page): name, completeness, cues."""

    ref: Ref
    key: str
    has_card: bool
    completeness: float
    fully_missing: int
    rows: int
    triples: int
    risks: tuple[str, ...]

    @property
    def completeness_text(self) -> str:
        return fmt.percent(self.completeness, 0)


@dataclass(frozen=True)
class BenchmarkPage(Page):
    summary: BenchmarkSummary
    name: str
    card_path: str | None
    agentic: bool
    fully_missing: tuple[str, ...]
    sections: tuple[FieldSection, ...]
    risks: tuple[RiskView, ...]
    results: ReportedResults
    compared: tuple[TripleView, ...]
    compared_total: int
    task: Ref | None
    #: Over the pages of result rows, or None when they fit on this one.
    pager: Pager | None


@dataclass(frozen=True)
class BenchmarkRowsPage(Page):
    """Result rows of a benchmark beyond the first page (`benchmarks/<slug>/rows-2.html`, ...)."""

    card: Ref
    results: ReportedResults
    pager: Pager


@dataclass(frozen=True)
class RateRow:
    label: str
    rate: float | None
    note: str = ""
    name: str = ""  # the dotted field name, when `label` is its reader-facing name

    @property
    def text(self) -> str:
        return fmt.percent(self.rate) if self.rate is not None else "not applicable"


@dataclass(frozen=True)
class CountRow:
    label: str
    flagged: int
    within: int
    not_applicable: int


@dataclass(frozen=True)
class FlaggedView:
    benchmark: Ref
    anchor: str | None
    model_id: str
    metric: str
    summary: str


@dataclass(frozen=True)
class SignalsPage(Page):
    available: bool
    rows: int
    triples: int
    benchmark_count: int
    dropped: int
    populated_rule: str
    gap_rate: str
    missingness: tuple[RateRow, ...]
    missingness_chart: Chart | None
    completeness_median: str
    population: tuple[RateRow, ...]
    population_chart: Chart | None
    first_party_only: str
    multi_party: str
    relationships: tuple[tuple[str, int, str], ...]
    compared: int
    comparability: tuple[CountRow, ...]
    flagged: tuple[FlaggedView, ...]
    flagged_total: int
    benchmarks: tuple[BenchmarkSummary, ...]

    @property
    def charts(self) -> tuple[Chart, ...]:
        return tuple(c for c in (self.population_chart, self.missingness_chart) if c is not None)
