"""The pieces every page kind shares: a link, an interval with its band, a badge, a
pager, and `Page`, the fields every page has. Frozen, so a view can be shared by the
pages that show it; the texts are formatted here once (through `format`), never in a
template."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence, TypeVar

from ...slugs import name_hash
from ...stats.bands import Band
from ...stats.paired import NO_CROSSING, at_resolution
from ...stats.verdicts import PairedResult
from .. import format as fmt
from ..charts import Chart

T = TypeVar("T")


@dataclass(frozen=True)
class BandView:
    """An interpretation band as the reader sees it: label and the guide's wording."""

    scale: str
    key: str
    label: str
    text: str
    low: float | None = None
    high: float | None = None

    @classmethod
    def of(cls, scale: str, band: Band | None) -> BandView | None:
        """The one view of `band` on `scale` (a page shows a band for each of its ~40
        intervals, and a build has a dozen bands): made once, then shared."""
        if band is None:
            return None
        view = _BAND_VIEWS.get((scale, band))
        if view is None:
            view = _BAND_VIEWS[(scale, band)] = cls.of_band(scale, band)
        return view

    @classmethod
    def of_band(cls, scale: str, band: Band) -> BandView:
        return cls(scale, band.key, band.label, band.text, band.low, band.high)

    @property
    def range_text(self) -> str:
        """"700 to below 900", or "900 and above" for the open top band."""
        low = f"{self.low:g}" if self.low is not None else fmt.MISSING
        return f"{low} and above" if self.high is None else f"{low} to below {self.high:g}"


#: BandView.of's memo: (scale, band) -> its view.
_BAND_VIEWS: dict[tuple[str, Band], BandView] = {}


@dataclass(frozen=True)
class Interval:
    """A 95 % interval printed as `center ± margin`, with `[low, high]` and a bar.

    `scale` is "score" (ReasonScore, 0-1000) or "probability" (a task estimate, 0-1).
    `estimate` is the point estimate when it differs from the midpoint (C_P multiplies
    two Wilson centres, so its estimate sits off the middle: far off on a task with few samples).
    """

    center: float
    margin: float
    low: float
    high: float
    scale: str
    band: BandView | None = None
    width: BandView | None = None
    estimate: float | None = None

    @property
    def _fmt(self) -> Callable[[float | None], str]:
        return fmt.score if self.scale == "score" else fmt.probability

    @property
    def text(self) -> str:
        return f"{self._fmt(self.center)} ± {self._fmt(self.margin)}"

    @property
    def center_text(self) -> str:
        return self._fmt(self.center)

    @property
    def margin_text(self) -> str:
        return self._fmt(self.margin)

    @property
    def range_text(self) -> str:
        return f"[{self._fmt(self.low)}, {self._fmt(self.high)}]"

    @property
    def estimate_text(self) -> str:
        return self._fmt(self.estimate if self.estimate is not None else self.center)

    @property
    def axis_max(self) -> float:
        return 1000.0 if self.scale == "score" else 1.0

    def _pct(self, x: float) -> str:
        return f"{100 * min(max(x / self.axis_max, 0.0), 1.0):.2f}"

    @property
    def bar_left(self) -> str:
        return self._pct(self.low)

    @property
    def bar_width(self) -> str:
        return f"{max(float(self._pct(self.high)) - float(self._pct(self.low)), 0.0):.2f}"

    @property
    def bar_center(self) -> str:
        return self._pct(self.center)

    @property
    def description(self) -> str:
        top = "1000" if self.scale == "score" else "1"
        return f"{self.text}, 95% interval {self.range_text} on a scale from 0 to {top}"


@dataclass(frozen=True)
class Ref:
    """A link to another page: its output path and the text to show."""

    label: str
    path: str


@dataclass(frozen=True)
class TieMark:
    """How a row relates to the next row in rank order: by the paired test on their shared
    items when there is one (SAMPLES.md section 5: significant after Holm over the page's
    adjacent pairs), else by whether their intervals overlap (STATISTICS.md §7)."""

    tied: bool | None  # None for the last row
    paired: PairedResult | None = None
    #: "points" for ReasonScore differences, "rate" for a task's C_P.
    scale: str = "points"
    #: The site's estimator: the paired difference is always of C_P scores (SAMPLES.md
    #: section 5), so under another it is named as such.
    mode: str = "C_P"

    @classmethod
    def of(cls, tied: bool | None, paired: PairedResult | None, scale: str = "points", mode: str = "C_P") -> TieMark:
        if tied is None or paired is None:
            return cls(tied, None, scale, mode)
        return cls(not paired.significant, paired, scale, mode)

    @property
    def rule(self) -> str:
        return "paired" if self.paired is not None else "overlap"

    @property
    def text(self) -> str:
        if self.tied is None:
            return ""
        t = self.paired
        if t is None:
            return ("statistically tied with the next row (their intervals overlap)" if self.tied
                    else "statistically distinct from the next row (their intervals do not overlap)")
        verdict = "not distinguishable from the next row" if self.tied else "statistically distinct from the next row"
        holm = "significant" if t.significant else "not significant"
        what = "difference" if self.mode == "C_P" else "difference of C_P scores (not the shown " + self.mode + ")"
        return (f"{verdict}: paired test on {t.shared:,} shared items ({t.method}), {what} "
                f"{paired_number(t.effect, self.scale)} (95% {paired_number(t.low, self.scale)} to "
                f"{paired_number(t.high, self.scale)}), p = {p_text(t.p, t.method)}, {holm} after Holm's correction over the "
                "adjacent pairs tested")


def adjacent_rule(tested: int, pairs: int, min_samples: int, where: str, mode: str = "C_P") -> str:
    """The sentence a page prints about which rule marks its adjacent rows; under an
    estimator other than C_P it says that the paired differences are of C_P scores."""
    overlap = "two rows are distinct when their 95% intervals do not overlap"
    if not tested:
        return f"Rank ranges and the tied/distinct mark both compare intervals: {overlap}."
    scope = "on every task" if where == "on the board" else where
    rest = (f" The other {pairs - tested} adjacent pair{'s' if pairs - tested != 1 else ''} share fewer items, so their "
            f"mark compares intervals: {overlap}.") if tested < pairs else ""
    return (f"Rank ranges compare intervals (they overlap or not). The tied/distinct mark of {tested} of the "
            f"{pairs} adjacent pair{'s' if pairs != 1 else ''} comes from a paired test on the items both rows "
            f"answered (at least {min_samples} shared {scope}): a difference is called distinct when it is "
            f"significant after Holm's correction over those {tested} tests.{rest}{_paired_basis(mode)}")


def _paired_basis(mode: str) -> str:
    if mode == "C_P":
        return ""
    return (f" The paired test always compares C_P scores on the shared items, so its difference is of C_P "
            f"scores, not of the {mode} scores shown.")


def paired_number(value: float, scale: str) -> str:
    """A paired difference: ReasonScore points to one decimal, a C_P difference to three."""
    return f"{value:+.1f}" if scale == "points" else f"{value:+.3f}"


def p_text(p: float, method: str = "") -> str:
    """A raw p as printed beside a verdict; a bootstrap's 0 as its floor (`NO_CROSSING`),
    not a probability of zero."""
    if at_resolution(p, method):
        return NO_CROSSING
    return "< 0.0001" if p < 0.0001 else f"{p:.4f}".rstrip("0").rstrip(".") if p < 1 else "1"


@dataclass(frozen=True)
class Badge:
    """One Evaluation Card signal (R, C, P or X) summarised for a model or a result.

    `state` drives styling only ("attention", "clear", "na"); `value` is the short
    wording shown in the badge and `text` the sentence a screen reader and tooltip get, so
    colour is never the only cue. Not a grade (EVALCARDS.md).
    """

    letter: str
    name: str
    state: str
    value: str
    text: str

    @property
    def note_id(self) -> str:
        """The id of this badge's sentence in the key under a result table: a table of many
        rows says each distinct sentence once, and each badge points to it (`aria-describedby`)."""
        return "b-" + name_hash("\x1f".join((self.letter, self.name, self.state, self.value, self.text)), 8)


@dataclass(frozen=True)
class NavLink:
    label: str
    path: str


@dataclass(frozen=True)
class Page:
    """What every page has. `template` names the Jinja page template."""

    path: str
    title: str
    template: str
    simulated: bool
    description: str

    @property
    def charts(self) -> tuple[Chart, ...]:
        return ()


@dataclass(frozen=True)
class Deferred:
    """A page made where it is rendered rather than with the rest of the page model.

    Model and benchmark pages are nine tenths of a site and most of the page model's cost
    (1.4 s of 1.5 s at 2,500 evaluations): made by the render workers (site/workers.py),
    they are made on every core, and each page is dropped once written, so no process
    holds them all (the parts several pages share, such as a result row's view, stay
    cached in the process that made them). What must be known before any page is made is
    known without making it: the output path and template (the writer's path checks) and
    whether the page draws a chart (the chart assets are written first). `page()` checks that the page made agrees with them.
    """

    path: str
    template: str
    make: Callable[[], Page]
    charts: bool = False

    def page(self) -> Page:
        page = self.make()
        if (page.path, page.template, bool(page.charts)) != (self.path, self.template, self.charts):
            raise RuntimeError(f"the deferred page {self.path} ({self.template}, charts: {self.charts}) was made as "
                               f"{page.path} ({page.template}, charts: {bool(page.charts)})")
        return page


def made(entry: Page | Deferred) -> Page:
    """The page of a page model entry, made now if it was deferred."""
    return entry.page() if isinstance(entry, Deferred) else entry


@dataclass(frozen=True)
class Pager:
    """Links between numbered pages (the leaderboard's `index.html`, `index-2.html`, ...;
    a benchmark's result rows).

    It links a window of pages, not all of them (`window`), so a page's size does not grow
    with the number of pages: a 5,000-model leaderboard has 50 index pages.
    """

    current: int
    pages: tuple[NavLink, ...]

    #: Pages shown on each side of the current one; the first and last are always shown.
    SPAN = 2

    @property
    def window(self) -> tuple[NavLink | None, ...]:
        """The pages to link, in order, with `None` where a run of pages is left out.

        All pages when there are few; otherwise the first, the last and `SPAN` pages on
        each side of the current one. A gap of a single page shows that page instead of
        an ellipsis, which would take as much room.
        """
        n = len(self.pages)
        keep = {1, n, *range(self.current - self.SPAN, self.current + self.SPAN + 1)}
        shown = sorted(k for k in keep if 1 <= k <= n)
        out: list[NavLink | None] = []
        prev = 0
        for k in shown:
            if out and k - prev == 2:
                out.append(self.pages[k - 2])
            elif out and k - prev > 2:
                out.append(None)
            out.append(self.pages[k - 1])
            prev = k
        return tuple(out)

    @property
    def previous(self) -> NavLink | None:
        return self.pages[self.current - 2] if self.current > 1 else None

    @property
    def next(self) -> NavLink | None:
        return self.pages[self.current] if self.current < len(self.pages) else None


def spread(items: Sequence[T], k: int) -> list[T]:
    """At most `k` items evenly spaced over `items`, always including the first and last."""
    if len(items) <= k:
        return list(items)
    picks = sorted({round(i * (len(items) - 1) / (k - 1)) for i in range(k)})
    return [items[i] for i in picks]
