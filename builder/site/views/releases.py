"""The releases' pages (PRODUCT.md "Releases and history"): `releases.html`, the list;
`releases/NAME.html`, the board as of a release; `releases/NAME-changes.html`, what changed
since the previous release, for readers.

A release's two pages are made from its snapshot alone (`sources/releases.py`), never from
the current build or from later releases: they are permalinks, and a later release leaves
them byte for byte as they were. Links from them to model pages go to the evaluation's
address, which is stable across builds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from ...sources.releasechanges import FlagNote, ModelMove, MoveTest, ReleaseChanges, Scored
from ...sources.releases import ReleaseBoard, ReleaseSnapshot
from ...stats.bands import Bands
from .. import format as fmt
from ..urls import evaluation_page_path
from .base import BandView, Interval, Page, Ref, p_text

LIST_PATH = "releases.html"


def board_path(name: str) -> str:
    return f"releases/{name}.html"


def changes_path(name: str) -> str:
    return f"releases/{name}-changes.html"


def model_link(slug: str) -> str:
    """The evaluation's page, or "" when the snapshot's slug could not be an address."""
    try:
        return evaluation_page_path(slug) if slug else ""
    except ValueError:
        return ""


@dataclass(frozen=True)
class ReleaseBoardPage(Page):
    """The board as of a release: its rows are written from the snapshot's columns
    (`site/releaserows.py`), thousands per page."""

    name: str
    date: str
    previous: str | None
    board: ReleaseBoard
    ranked: int
    #: band key -> label, for the rows
    band_labels: dict[str, str]

    @property
    def mode(self) -> str:
        return self.board.mode

    @property
    def tasks(self) -> tuple[str, ...]:
        return self.board.tasks


@dataclass(frozen=True)
class Move:
    """A model's move between two releases, as the changes page prints it."""

    label: str
    path: str
    kind: str
    old: Interval | None
    new: Interval | None
    delta: str
    old_rank: str
    new_rank: str
    old_band: str
    new_band: str
    joined_above: int
    left_above: int
    tasks: str
    #: For a change of its own score: the rule that decided it, in words ("" otherwise).
    rule: str = ""


@dataclass(frozen=True)
class Section:
    """One list of moves on the changes page: its anchor, heading and what it means."""

    id: str
    title: str
    text: str
    moves: tuple[Move, ...]

    @property
    def rules(self) -> bool:
        """Whether its moves changed their own score, so each names the rule that judged it."""
        return any(m.kind in OWN for m in self.moves)


@dataclass(frozen=True)
class ReleaseChangesPage(Page):
    name: str
    date: str
    #: the release compared with, and a link to its board while it is among the releases
    previous_name: str | None
    previous: Ref | None
    previous_date: str | None
    rule_text: str
    headline: str
    sections: tuple[Section, ...]
    config_changes: tuple[tuple[str, str, str], ...]
    tasks_added: tuple[str, ...]
    tasks_removed: tuple[str, ...]
    unchanged: int
    signals_compared: bool
    signals_note: str
    signal_counts: tuple[tuple[str, int], ...]
    completeness: tuple[tuple[str, str, str], ...]
    flags_raised: tuple[FlagNote, ...]
    flags_cleared: tuple[FlagNote, ...]
    flags_raised_total: int
    flags_cleared_total: int


@dataclass(frozen=True)
class ReleaseEntry:
    name: str
    date: str
    board: str
    changes: str
    evaluations: int
    ranked: int
    summary: str


@dataclass(frozen=True)
class ReleasesPage(Page):
    #: newest first
    releases: tuple[ReleaseEntry, ...]


#: The sections of a changes page, in reading order: (kinds, anchor, heading, meaning).
SECTIONS = (
    (("significant_gain", "significant_drop"), "significant", "Significant moves",
     "Evaluations whose own score moved by more than its uncertainty: {rule}"),
    (("within_intervals", "not_significant"), "within", "Changes that are not significant",
     "Evaluations whose own score changed, but not significantly by the rule each line names, so the data do not "
     "show a real difference."),
    (("not_comparable",), "not-comparable", "Changes not judged",
     "Evaluations whose two scores cannot be compared: one side has none, or the releases score differently "
     "(another estimator or board tasks), so the two are not the same quantity."),
    (("joined",), "joined", "Joined", "Evaluations in this release that were not in the previous one."),
    (("left",), "left", "Left", "Evaluations of the previous release that are not in this one."),
    (("others_joined",), "others-joined", "Moved only because others joined or left",
     "Their own score did not change: their rank, rank range or ties moved only because evaluations joined or left "
     "the ranking."),
    (("others_moved",), "others-moved", "Moved because other scores changed",
     "Their own score did not change: their rank, rank range or ties moved because other evaluations' scores "
     "changed."),
    (("own_status",), "status", "Status changes",
     "Their score did not change, but whether they are ranked, their missing tasks or their band did."),
)

RULES = {
    "overlap": "the old and new 95% intervals do not overlap (the overlap rule; per-sample outcomes were "
               "not compared pairwise).",
    "paired": "a paired test on the items both releases share is significant after Holm's correction over the "
              "{tests} paired test{s} on this page, where both releases hold the evaluation's per-sample outcomes; "
              "otherwise the old and new 95% intervals do not overlap (the overlap rule). Each line names its rule.",
}
#: The kinds whose own score changed: their line names the rule that judged the change.
OWN = ("significant_gain", "significant_drop", "within_intervals", "not_significant", "not_comparable")


def rule_text(c: ReleaseChanges) -> str:
    """What "significant" means on the changes page of `c`."""
    tests = sum(1 for m in c.moves if m.test is not None)
    return RULES[c.rule].format(tests=tests, s="s" if tests != 1 else "")


def paired_move(t: MoveTest, significant: bool) -> str:
    """A move judged by the paired test, with its figures and Holm's verdict."""
    verdict = "significant after Holm" if significant else "not significant after Holm"
    p = p_text(t.p, t.method)
    return (f"paired test on {t.shared:,} shared items: {t.effect:+.1f} ({t.low:+.1f} to {t.high:+.1f}), "
            f"p {p if p.startswith('<') else '= ' + p}, {verdict}")


def move_rule(m: ModelMove) -> str:
    """The rule that judged a change of the move's own score, with its figures."""
    if m.kind not in OWN:
        return ""
    if m.rule == "paired" and m.test is not None:
        return paired_move(m.test, m.test.significant)
    if m.kind == "not_comparable":  # both scored, yet not comparable: the releases score differently
        return m.rule_note if m.old is not None and m.new is not None else ""
    why = f" ({m.rule_note})" if m.rule_note else ""
    return "overlap rule: intervals " + ("do not overlap" if m.kind in ("significant_gain", "significant_drop")
                                        else "overlap") + why


def _interval(bands: Bands, by_key: dict[str, BandView], scored: Scored | None, band: str | None) -> Interval | None:
    if scored is None:
        return None
    center, margin, low, high = scored
    return Interval(center, margin, low, high, "score", band=by_key.get(band or ""),
                    width=BandView.of("ci_width", bands.ci_width(margin)))


def _band_views(bands: Bands) -> dict[str, BandView]:
    return {b.key: view for b in bands.scales["reasonscore"]
            if (view := BandView.of("reasonscore", b)) is not None}


def board_page(r: ReleaseSnapshot, bands: Bands) -> ReleaseBoardPage:
    b: ReleaseBoard = r.board
    ranked = sum(1 for k in b.rank if k is not None)
    return ReleaseBoardPage(
        path=board_path(r.name), title=f"Release {r.name}", template="release.html", simulated=r.simulated,
        description=f"The board as published in release {r.name} on {r.date}: {ranked} ranked of {len(b)} "
                    "evaluations",
        name=r.name, date=r.date, previous=r.changes.previous, board=b, ranked=ranked,
        band_labels={band.key: band.label for band in bands.scales["reasonscore"]})


def _rank(rank: int | None, rank_range: tuple[int, int] | None) -> str:
    if rank is None:
        return "unranked"
    best, worst = rank_range or (rank, rank)
    return str(rank) if best == worst else f"{rank} ({best}–{worst})"


def _move(bands: Bands, by_key: dict[str, BandView], m: ModelMove) -> Move:
    delta = m.delta
    return Move(
        label=m.label, path=model_link(m.slug), kind=m.kind,
        old=_interval(bands, by_key, m.old, m.old_band), new=_interval(bands, by_key, m.new, m.new_band),
        delta=fmt.MISSING if delta is None else f"{delta:+.1f}",
        old_rank=_rank(m.old_rank, m.old_rank_range) if m.kind != "joined" else fmt.MISSING,
        new_rank=_rank(m.new_rank, m.new_rank_range) if m.kind != "left" else fmt.MISSING,
        old_band=m.old_band or fmt.MISSING, new_band=m.new_band or fmt.MISSING,
        joined_above=m.joined_above, left_above=m.left_above,
        tasks=", ".join(f"{t.task} {t.direction} ({fmt.probability(t.old)} → {fmt.probability(t.new)})"
                        for t in m.tasks), rule=move_rule(m))


def _plural(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else (many or one + 's')}"


def headline(c: ReleaseChanges) -> str:
    """The changes in one sentence, every count from `changes.json`."""
    if c.previous is None:
        return "The first release: there is no earlier release to compare with."
    gains, drops = len(c.of_kind("significant_gain")), len(c.of_kind("significant_drop"))
    parts = [f"{_plural(len(c.of_kind('joined')), 'evaluation')} joined",
             f"{len(c.of_kind('left'))} left",
             f"{_plural(gains + drops, 'significant move')} ({gains} up, {drops} down)",
             f"{_plural(len(c.of_kind('within_intervals', 'not_significant')), 'change')} not significant",
             f"{_plural(len(c.of_kind('others_joined')), 'evaluation')} moved only because others joined or left "
             "the ranking"]
    # Every evaluation is in one count: without these two, a sentence that reads as the whole
    # tally left out the evaluations that others' scores moved and those whose status changed.
    moved, status = len(c.of_kind("others_moved")), len(c.of_kind("own_status"))
    if c.of_kind("not_comparable"):
        parts.append(f"{_plural(len(c.of_kind('not_comparable')), 'change')} not judged (not comparable)")
    if moved:
        parts.append(f"{_plural(moved, 'evaluation')} moved because other scores changed")
    if status:
        parts.append(_plural(status, "status change"))
    parts.append(f"{c.unchanged} unchanged")
    return "Since " + c.previous + ": " + "; ".join(parts) + "."


def changes_page(r: ReleaseSnapshot, bands: Bands, known: Sequence[str]) -> ReleaseChangesPage:
    c = r.changes
    by_key = _band_views(bands)
    sections = []
    for kinds, anchor, title, text in SECTIONS:
        moves = tuple(_move(bands, by_key, m) for m in c.of_kind(*kinds))
        if moves:
            sections.append(Section(anchor, title, text.format(rule=rule_text(c)), moves))
    s = c.signals
    counts = (("reproducibility gaps opened", s.gaps_opened), ("reproducibility gaps closed", s.gaps_closed),
              ("reproducibility gaps that changed their missing fields", s.gaps_changed),
              ("reported results added", s.triples_added), ("reported results removed", s.triples_removed))
    previous = Ref(c.previous, board_path(c.previous)) if c.previous is not None and c.previous in known else None
    return ReleaseChangesPage(
        path=changes_path(r.name), title=f"What changed in {r.name}", template="release_changes.html",
        simulated=r.simulated, description=f"What changed in release {r.name} ({r.date}) since "
                                         + (c.previous or "nothing: the first release"),
        name=r.name, date=r.date, previous_name=c.previous, previous=previous, previous_date=c.previous_date,
        rule_text=rule_text(c),
        headline=headline(c), sections=tuple(sections), config_changes=c.config_changes,
        tasks_added=c.tasks_added, tasks_removed=c.tasks_removed, unchanged=c.unchanged,
        signals_compared=s.compared, signals_note=s.note, signal_counts=counts,
        completeness=tuple((n.benchmark, fmt.percent(n.old), fmt.percent(n.new)) for n in s.completeness),
        flags_raised=s.flags_raised, flags_cleared=s.flags_cleared, flags_raised_total=s.flags_raised_total,
        flags_cleared_total=s.flags_cleared_total)


def releases_pages(releases: Sequence[ReleaseSnapshot], bands: Bands) -> list[Page]:
    """The list and each release's two pages; none without a release."""
    if not releases:
        return []
    names = [r.name for r in releases]
    entries = []
    for r in reversed(releases):
        c = r.changes
        entries.append(ReleaseEntry(
            name=r.name, date=r.date, board=board_path(r.name), changes=changes_path(r.name),
            evaluations=len(r.board), ranked=sum(1 for k in r.board.rank if k is not None),
            summary=headline(c).removeprefix("Since " + (c.previous or "") + ": ")))
    pages: list[Page] = [ReleasesPage(
        path=LIST_PATH, title="Releases", template="releases.html", simulated=any(r.simulated for r in releases),
        description="Every release of this leaderboard: the board as of each, and what changed",
        releases=tuple(entries))]
    for r in releases:
        pages.append(board_page(r, bands))
        pages.append(changes_page(r, bands, names))
    return pages
