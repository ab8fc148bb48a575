"""Render a `ScoreChangeReport` as Markdown for a GitHub job summary or pull-request comment.

PRODUCT.md, "Score-change report": a headline, the changed models sorted by |Δ| with a
significance mark, added and removed models and tasks, tie-group changes and Evaluation Card
changes; long lists collapsed in `<details>`; at most 60 KB. The marks follow asv compare
(STYLE.md): `++` / `!!` for a significant gain / drop, `~` for a change inside the intervals,
`=` when only the rank, rank range or band moved. Significant and not-significant changes are
separate tables, so a `~` row can never be mistaken for a real move.

The size limit is kept by cutting table rows, least important tables first, and the report
says exactly what it left out; the JSON format is never cut.
"""

from __future__ import annotations

from typing import Callable, Sequence

from .mdtext import TABLE_NAMES, Table, model_name, moved, percent, plural, rank, rule_note, score, signed, text
from .report import (
    NOT_COMPARABLE,
    NOT_SIGNIFICANT,
    SCORE_UNCHANGED,
    SIGNIFICANT_DROP,
    SIGNIFICANT_GAIN,
    WITHIN_INTERVALS,
    CompletenessChange,
    FlagChange,
    GapChange,
    ModelChange,
    ModelEntry,
    ModelRef,
    ScoreChangeReport,
)

#: GitHub rejects comments over 65 536 characters; 60 KB read as 60 000 bytes of UTF-8 is the
#: stricter reading of PRODUCT.md's limit and leaves room for the sticky-comment marker.
MAX_BYTES = 60_000


MARKS = {SIGNIFICANT_GAIN: "++", SIGNIFICANT_DROP: "!!", WITHIN_INTERVALS: "~", NOT_SIGNIFICANT: "~",
         SCORE_UNCHANGED: "=", NOT_COMPARABLE: "x"}

LEGEND = ("`++` significant gain, `!!` significant drop; `~` changed, not significant; `=` same score, rank or "
          "band moved; `x` not comparable (one side has no score, or the builds score differently). Each row's "
          "notes name its rule: *paired* (both builds publish per-sample outcomes: the ReasonScore change "
          "bootstrapped on the items both answered, significant after Holm's correction over the report's paired "
          "tests; its *effect* is the difference of the two ReasonScores recomputed on those items, so it can differ "
          "from Δ, the difference of the published centers, in the last digit) or *overlap* (the old and new "
          "ReasonScore intervals do not overlap).")

# Tables are cut in this order when the report outgrows MAX_BYTES: card and tie details first,
# then the not-significant moves, then added/removed models, the significant moves last.
CUT_ORDER: tuple[tuple[str, ...], ...] = (
    ("gaps_opened", "gaps_closed", "gaps_changed", "completeness", "flags_raised", "flags_cleared",
     "groups_formed", "groups_dissolved", "pairs_tied", "pairs_untied", "tasks_added", "tasks_removed"),
    ("not_significant",),
    ("added", "removed"),
    ("significant",),
)


def render_markdown(report: ScoreChangeReport, max_bytes: int = MAX_BYTES) -> str:
    """The report as Markdown of at most `max_bytes` bytes (UTF-8)."""
    caps: dict[str, int] = {}
    text = _Renderer(report, caps).render()
    if _size(text) <= max_bytes:
        return text
    for tier in CUT_ORDER:
        def with_cap(cap: int, tier: tuple[str, ...] = tier, base: dict[str, int] = caps) -> dict[str, int]:
            return {**base, **{name: cap for name in tier}}

        if _size(_Renderer(report, with_cap(0)).render()) <= max_bytes:
            # Largest number of rows per table of this tier that still fits.
            counts = _Renderer(report, {}).row_counts()
            low, high = 0, max(counts[name] for name in tier)
            while low < high:
                middle = (low + high + 1) // 2
                if _size(_Renderer(report, with_cap(middle)).render()) <= max_bytes:
                    low = middle
                else:
                    high = middle - 1
            return _Renderer(report, with_cap(low)).render()
        caps = with_cap(0)
    return _hard_cut(_Renderer(report, caps).render(), max_bytes)


def _size(text: str) -> int:
    return len(text.encode("utf-8"))


def _hard_cut(text: str, max_bytes: int) -> str:
    """Last resort for reports whose fixed parts alone are too large: cut at a line boundary."""
    note = "\n\n_The report was cut here to stay within the size limit; run `reasonboard diff --format json` for all of it._\n"
    budget = max_bytes - _size(note)
    lines, kept, used = text.splitlines(keepends=True), [], 0
    for line in lines:
        if used + _size(line) > budget:
            break
        kept.append(line)
        used += _size(line)
    return "".join(kept).rstrip("\n") + note


# -- text helpers ------------------------------------------------------------------------


# -- rendering ---------------------------------------------------------------------------


class _Renderer:
    def __init__(self, report: ScoreChangeReport, caps: dict[str, int]):
        self.report = report
        self.caps = caps
        self.tables: dict[str, Table] = {}

    def table(self, name: str, header: tuple[str, ...] | None, rows: list[str],
              weights: list[int] | None = None) -> Table:
        table = Table(name, header, rows, self.caps.get(name), weights)
        self.tables[name] = table
        return table

    def row_counts(self) -> dict[str, int]:
        """Rows per table, for every table name (a table with no rows is never drawn: 0)."""
        self.render()
        return {name: len(self.tables[name].rows) if name in self.tables else 0 for name in TABLE_NAMES}

    def render(self) -> str:
        self.tables = {}
        body: list[str] = []
        for section in (self._models, self._added_removed, self._tasks, self._ties, self._cards):
            lines = section()
            if lines:
                body += ["", *lines]
        head = self._headline()
        omitted = {name: t.omitted for name, t in self.tables.items() if t.omitted}
        if omitted:
            parts = ", ".join(f"{count} {TABLE_NAMES[name]}" for name, count in omitted.items())
            head += ["", f"> **Shortened to fit 60 KB.** Left out: {parts}. "
                         "`reasonboard diff --format json` gives the full report."]
        return "\n".join(head + body).rstrip("\n") + "\n"

    # headline -----------------------------------------------------------------------------

    def _headline(self) -> list[str]:
        r, s = self.report, self.report.summary()
        significant = s["significant_gains"] + s["significant_drops"]
        lines = [f"## Score changes: {text(r.base_name)} → {text(r.head_name)}", ""]
        if not (r.changed or r.added or r.removed or r.tasks_added or r.tasks_removed or r.cards.count
                or r.config_changes):
            lines.append(f"**No changes.** {plural(s['unchanged'], 'model')} with the same score, rank and band.")
            return lines + self._card_note()
        parts = [
            f"**{s['changed']} changed**",
            f"**{significant} significant** ({plural(s['significant_gains'], '`++` gain')}, "
            f"{plural(s['significant_drops'], '`!!` drop')})",
            f"{s['within_intervals'] + s['not_significant']} not significant (`~`)",
        ]
        if s["score_unchanged"]:
            parts.append(f"{s['score_unchanged']} rank or band only (`=`)")
        if s["not_comparable"]:
            parts.append(f"{s['not_comparable']} not comparable (`x`)")
        parts += [f"{s['added']} added", f"{s['removed']} removed", f"{s['unchanged']} unchanged"]
        lines.append(" · ".join(parts))
        if r.tasks_added or r.tasks_removed:
            lines += ["", f"Tasks: {len(r.tasks_added)} added, {len(r.tasks_removed)} removed."]
        if r.cards.compared:
            cards = r.cards
            if cards.count or not (cards.triples_added or cards.triples_removed):
                lines += ["", f"Evaluation Cards: {plural(cards.count, 'change')}."]
            else:  # "0 changes" above a section of result triples added or removed would contradict it
                lines += ["", f"Evaluation Cards: no reproducibility gap, completeness or divergence flag changed; "
                              f"result triples {cards.triples_added} added, {cards.triples_removed} removed."]
        for change in r.config_changes:
            lines += ["", f"> **Configuration changed:** {text(change.key)} {text(change.old)} → "
                          f"{text(change.new)}. Every score is recomputed under the new setting."]
        return lines + self._card_note()

    def _card_note(self) -> list[str]:
        note = self.report.cards.note
        return ["", f"Evaluation Card changes not compared: {text(note)}."] if note else []

    # models -------------------------------------------------------------------------------

    def _models(self) -> list[str]:
        r = self.report
        lines: list[str] = []
        header = ("", "Model", "ReasonScore (old → new)", "Δ", "Rank (range)", "Band", "Notes")
        if r.significant:
            lines += ["### Significant changes", "",
                      "By the rule each row's notes name: the paired test on shared items, or intervals that "
                      "do not overlap.", ""]
            lines += self.table("significant", header, [self._change_row(c) for c in r.significant]).lines()
        if r.not_significant:
            if lines:
                lines.append("")
            not_comparable = bool(r.by_significance(NOT_COMPARABLE))
            lines += ["### Not significant" + (" or not comparable" if not_comparable else ""), "",
                      "`~` changed, not significant (by the paired test, or the old and new intervals overlap); "
                      "`=` same score, only the rank, rank range or band moved"
                      + ("; `x` not comparable: one side has no score, or the builds score differently."
                         if not_comparable else "."),
                      ""]
            lines += self.table("not_significant", header, [self._change_row(c) for c in r.not_significant]).lines()
        if lines:
            lines += ["", LEGEND]
        return lines

    def _change_row(self, c: ModelChange) -> str:
        cells = [
            f"`{MARKS[c.significance]}`",
            model_name(c.model),
            f"{score(c.old.center, c.old.margin)} → {score(c.new.center, c.new.margin)}",
            "—" if c.delta is None else signed(c.delta) if c.delta else "0",
            moved(rank(c.old_rank, c.old_rank_range), rank(c.new_rank, c.new_rank_range)),
            moved(text(c.old_band or "—"), text(c.new_band or "—")),
            self._notes(c),
        ]
        return "| " + " | ".join(cells) + " |"

    def _notes(self, c: ModelChange) -> str:
        notes = []
        if c.old_complete and not c.new_complete:
            notes.append("now incomplete, missing " + ", ".join(text(t) for t in c.new_missing_tasks))
        elif c.new_complete and not c.old_complete:
            notes.append("now complete")
        elif c.old_missing_tasks != c.new_missing_tasks:
            notes.append("missing " + moved(", ".join(text(t) for t in c.old_missing_tasks) or "none",
                                            ", ".join(text(t) for t in c.new_missing_tasks) or "none"))
        for direction, arrow in (("up", "↑"), ("down", "↓")):
            tasks = [text(m.task) for m in c.task_moves if m.direction == direction]
            if tasks:
                shown = ", ".join(tasks[:5]) + (f" and {len(tasks) - 5} more" if len(tasks) > 5 else "")
                notes.append(f"{arrow} {shown}")
        if c.significance not in (SCORE_UNCHANGED, NOT_COMPARABLE):
            notes.insert(0, rule_note(c))
        elif c.significance == NOT_COMPARABLE and c.old.center is not None and c.new.center is not None:
            notes.insert(0, text(c.rule_note))  # both scored, yet not comparable: scored differently
        return "; ".join(notes)

    # added / removed ----------------------------------------------------------------------

    def _added_removed(self) -> list[str]:
        lines: list[str] = []
        header = ("Model", "ReasonScore", "Rank (range)", "Band")
        for name, title, entries in (("added", "Added models", self.report.added),
                                     ("removed", "Removed models", self.report.removed)):
            if entries:
                if lines:
                    lines.append("")
                lines += [f"### {title}", ""]
                lines += self.table(name, header, [self._entry_row(e) for e in entries]).lines()
        return lines

    def _entry_row(self, e: ModelEntry) -> str:
        name = model_name(e.model) + ("" if e.complete else " \\*")
        cells = [name, score(e.score.center, e.score.margin), rank(e.rank, e.rank_range), text(e.band or "—")]
        return "| " + " | ".join(cells) + " |"

    # tasks and ties -----------------------------------------------------------------------

    def _tasks(self) -> list[str]:
        r = self.report
        lines: list[str] = []
        for name, title, tasks in (("tasks_added", "Added tasks", r.tasks_added),
                                   ("tasks_removed", "Removed tasks", r.tasks_removed)):
            if tasks:
                if lines:
                    lines.append("")
                lines += [f"### {title}", ""]
                lines += self.table(name, None, [text(t) for t in tasks]).lines()
        return lines

    def _ties(self) -> list[str]:
        ties = self.report.ties
        if not (ties.pairs_tied or ties.pairs_untied or ties.groups_formed or ties.groups_dissolved):
            return []
        lines = ["### Tie groups", "",
                 "Statistically tied = overlapping ReasonScore intervals (the site's methodology page, "
                 "`methodology.html#statistical-ties-and-ranks`)."]

        def pair(p: tuple[ModelRef, ModelRef], sign: str) -> str:
            return f"{model_name(p[0])} {sign} {model_name(p[1])}"

        def group(g: tuple[ModelRef, ...]) -> str:
            return ", ".join(model_name(m) for m in g)

        blocks: list[tuple[str, str, list[str]]] = [
            ("pairs_tied", "Now tied", [pair(p, "~") for p in ties.pairs_tied]),
            ("pairs_untied", "No longer tied", [pair(p, "≠") for p in ties.pairs_untied]),
            ("groups_formed", "Tie groups formed", [group(g) for g in ties.groups_formed]),
            ("groups_dissolved", "Tie groups dissolved", [group(g) for g in ties.groups_dissolved]),
        ]
        for name, title, rows in blocks:
            if rows:
                lines += ["", f"**{title}** ({len(rows)})", ""]
                lines += self.table(name, None, rows).lines()
        return lines

    # evaluation cards ---------------------------------------------------------------------

    def _cards(self) -> list[str]:
        cards = self.report.cards
        if not cards.compared or not (cards.count or cards.triples_added or cards.triples_removed):
            return []
        lines = ["### Evaluation Card changes", ""]
        corpus = cards.corpus
        summary = [f"result triples {cards.triples_added} added, {cards.triples_removed} removed"]
        if corpus is not None:
            if corpus.old_gap_rate != corpus.new_gap_rate:
                summary.append(f"reproducibility gap rate {moved(percent(corpus.old_gap_rate), percent(corpus.new_gap_rate))}")
            if corpus.old_completeness_median != corpus.new_completeness_median:
                summary.append("median completeness "
                               + moved(percent(corpus.old_completeness_median), percent(corpus.new_completeness_median)))
        lines.append("Corpus: " + "; ".join(summary) + ".")

        gap_header = ("Model", "Benchmarks", "Metric", "Missing fields")
        for name, title, gaps, show in (
            ("gaps_opened", "New reproducibility gaps", cards.gaps_opened, self._gap_opened),
            ("gaps_closed", "Closed reproducibility gaps", cards.gaps_closed, self._gap_closed),
            ("gaps_changed", "Changed reproducibility gaps", cards.gaps_changed, self._gap_changed),
        ):
            if gaps:
                lines += ["", f"**{title}** ({len(gaps)})", ""]
                rows, weights = self._gap_rows(gaps, show)
                lines += self.table(name, gap_header, rows, weights).lines()

        if cards.completeness:
            lines += ["", f"**Reporting completeness C(b)** ({plural(len(cards.completeness), 'benchmark')})", ""]
            header = ("Benchmark", "C(b) (old → new)", "Δ", "Fully missing fields", "Fields gained", "Fields lost")
            lines += self.table("completeness", header, [self._completeness_row(c) for c in cards.completeness]).lines()

        flag_header = ("Model", "Benchmark", "Metric", "Flag (old → new)", "Checks")
        for name, title, flags in (("flags_raised", "New divergence flags", cards.flags_raised),
                                   ("flags_cleared", "Cleared divergence flags", cards.flags_cleared)):
            if flags:
                lines += ["", f"**{title}** ({len(flags)})", ""]
                lines += self.table(name, flag_header, [self._flag_row(f) for f in flags]).lines()
        return lines

    @staticmethod
    def _gap_opened(g: GapChange) -> str:
        missing = ", ".join(text(f) for f in g.new_missing or ())
        return missing + (" (new result)" if g.old_missing is None else "")

    @staticmethod
    def _gap_closed(g: GapChange) -> str:
        return "now reported: " + ", ".join(text(f) for f in g.old_missing or ())

    @staticmethod
    def _gap_changed(g: GapChange) -> str:
        return moved(", ".join(text(f) for f in g.old_missing or ()), ", ".join(text(f) for f in g.new_missing or ()))

    @staticmethod
    def _gap_rows(gaps: Sequence[GapChange], show: Callable[[GapChange], str]) -> tuple[list[str], list[int]]:
        """One row per model, metric and missing-field story, listing its benchmarks.

        A model usually has the same gap on every benchmark it reports (the same generation
        settings), so one row per triple would repeat the same sentence a dozen times.
        """
        groups: dict[tuple[str, str, str], list[str]] = {}
        for g in gaps:
            groups.setdefault((g.triple.model, g.triple.metric, show(g)), []).append(g.triple.benchmark)
        rows = [f"| {text(model)} | {', '.join(text(b) for b in benchmarks)} | {text(metric)} | {story} |"
                for (model, metric, story), benchmarks in groups.items()]
        return rows, [len(benchmarks) for benchmarks in groups.values()]

    @staticmethod
    def _completeness_row(c: CompletenessChange) -> str:
        def fully(value: int | None) -> str:
            return "—" if value is None else str(value)

        old = percent(c.old) if c.old is not None else "absent"
        new = percent(c.new) if c.new is not None else "absent"
        if c.old_has_card is False and c.new_has_card:
            new += " (card added)"
        elif c.old_has_card and c.new_has_card is False:
            new += " (card removed)"
        delta = "—" if c.delta is None else f"{c.delta * 100:+.1f} pt"
        cells = [text(c.benchmark), f"{old} → {new}", delta,
                 moved(fully(c.old_fully_missing), fully(c.new_fully_missing)),
                 ", ".join(text(f) for f in c.fields_gained), ", ".join(text(f) for f in c.fields_lost)]
        return "| " + " | ".join(cells) + " |"

    @staticmethod
    def _flag_row(f: FlagChange) -> str:
        def state(flag: bool | None, present: bool) -> str:
            if not present:
                return "no result"
            if flag is None:
                return "not checked (N/A)"
            return "diverges" if flag else "within threshold"

        checks = ", ".join(k.replace("_", "-") for k in f.kinds)
        if f.spread is not None:
            checks += f", spread {f.spread:g}"
        t = f.triple
        cells = [text(t.model), text(t.benchmark), text(t.metric),
                 f"{state(f.old_flag, f.old_present)} → {state(f.new_flag, f.new_present)}", checks]
        return "| " + " | ".join(cells) + " |"
