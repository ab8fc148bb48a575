"""HTML fragments that repeat on many rows, each rendered once per distinct value.

A result row's signal badges and its list of missing fields come from a small set of
values (a few badge states, a few field-name lists), yet a large site shows them on
hundreds of thousands of rows. Their markup is in templates (`partials/badges.html`,
`partials/band.html`, `partials/missing.html`), which a project can override; `Fragments`
renders each partial once per distinct value in a build and reuses the `Markup`, which is
what keeps result tables cheap at scale (issue 6). The table bodies (`result_rows`,
`task_rows`, `estimator_rows`) and the interval texts are still assembled here, from
strings the views formatted, with every piece of data escaped.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Callable, Iterable

import jinja2
from markupsafe import Markup, escape

from . import format as fmt


@lru_cache(maxsize=1 << 16, typed=True)
def text(value) -> str:
    """`escape(value)` as a plain string, memoised: a row's organisation, metric, source,
    benchmark and model label recur on thousands of rows, and markupsafe's `escape` builds a
    `Markup` object each time. `typed` keeps a `Markup` (already safe, hence not escaped)
    apart from an equal plain string."""
    return str(escape(value))


def interval_html(iv, range: bool = True) -> Markup:  # noqa: A002 - the templates' keyword
    """An interval as `center ± margin`, with `[low, high]` beside it (or a dash)."""
    return Markup(_interval(iv, range))


def cibar_html(iv) -> Markup:
    """The interval drawn on its whole scale (0-1000 or 0-1): band for the interval, tick
    for the centre; nothing without an interval."""
    return Markup(_cibar(iv))


# An interval's texts are numbers this package formatted (digits, signs, "±", "—"), never
# data, so they go into markup as they are.

def _interval(iv, range: bool) -> str:  # noqa: A002
    if not iv:
        return '<span class="iv">—</span>'
    extra = f' <span class="iv-range" title="95% interval">{iv.range_text}</span>' if range else ""
    return f'<span class="iv"><span class="iv-text">{iv.text}</span>{extra}</span>'


def _cibar(iv) -> str:
    if not iv:
        return ""
    return (f'<span class="cibar" role="img" aria-label="{iv.description}">'
            f'<span class="cibar-range" style="left:{iv.bar_left}%;width:{iv.bar_width}%"></span>'
            f'<span class="cibar-point" style="left:{iv.bar_center}%"></span></span>')


def link_items(refs: Iterable, url) -> Markup:
    """`<li><a href=...>label</a></li>` per reference, for long link lists such as a model's
    statistically tied models (over a hundred per page on a large board)."""
    return Markup("".join(f"<li>{a}</li>" for a in _links(refs, url)))


def link_list(refs: Iterable, url) -> Markup:
    """The references' links separated by commas, for lists inside a sentence (the members
    of a tie group: thousands per leaderboard page on a large board)."""
    return Markup(", ".join(_links(refs, url)))


def _links(refs: Iterable, url) -> list[str]:
    """`<a href=...>label</a>` per reference. Pages in one directory link a reference the
    same way, so each (directory, reference) link is made once; `url` is the page's
    `Linker` (or any `url()` helper, then without the cache)."""
    start = getattr(url, "start", None)
    if start is None:
        return [_link(url(ref.path), ref.label) for ref in refs]
    return [_cached_link(start, ref, url) for ref in refs]


_LINKS: dict[tuple[str, str, str], str] = {}


def _cached_link(start: str, ref, url) -> str:
    key = (start, ref.path, ref.label)
    link = _LINKS.get(key)
    if link is None:
        link = _LINKS[key] = _link(url(ref.path), ref.label)
    return link


def _link(href: str, label: str) -> str:
    return f'<a href="{text(href)}">{text(label)}</a>'


_AGENTIC = '<div class="meta">agentic: harness, eval_plan and eval_limits are required too</div>'


class Fragments:
    """The repeated fragments of one build's templates: each partial rendered once per
    distinct value (values are frozen views, so they key a cache), then reused as `Markup`.
    One per Jinja environment, so a project's override of a partial applies to its build
    and to no other."""

    def __init__(self, env: jinja2.Environment) -> None:
        self._badges = env.get_template("partials/badges.html")
        self._band = env.get_template("partials/band.html")
        self._missing = env.get_template("partials/missing.html")
        self._badges_of = lru_cache(maxsize=1 << 16)(self._render_badges)
        self._band_of = lru_cache(maxsize=1024)(self._render_band)
        self._missing_of = lru_cache(maxsize=1 << 16)(self._render_missing)

    def badges_html(self, items: Iterable[Any] | None) -> Markup:
        """Evaluation Card signals (R, C, P, X) of a model or a result row."""
        return self._badges_of(tuple(items or ()))

    def missing_html(self, names: Iterable[str] | None, none_text: str = "none", inline: bool = False) -> Markup:
        """Field names a report or a card leaves out, listed by name (or `none_text`)."""
        return self._missing_of(tuple(names or ()), none_text, bool(inline))

    def band_html(self, b: Any, full: bool = False) -> Markup:
        """An interpretation band, its wording in the tooltip or written out (`full`)."""
        return self._band_of(b, bool(full)) if b else Markup("")

    def _render_badges(self, items: tuple[Any, ...]) -> Markup:
        return _partial(self._badges, badges=items)

    def _render_band(self, b: Any, full: bool) -> Markup:
        return _partial(self._band, band=b, full=full)

    def _render_missing(self, names: tuple[str, ...], none_text: str, inline: bool) -> Markup:
        return _partial(self._missing, names=names, none_text=none_text, inline=inline)

    def result_rows(self, rows: Iterable[Any], show_model: bool, url: Callable[..., str]) -> Markup:
        """The `<tr>` of each result row with its signals (partials/results.html's table body).

        A model page lists up to `page_size` of these and a benchmark's row pages list every
        result of the corpus, so the rows are the bulk of a large site's markup; as Python
        they cost a fraction of a Jinja loop. Same markup, every value escaped.
        """
        return Markup("".join(self._result_row(r, show_model, url) for r in rows))


    def _result_row(self, r: Any, show_model: bool, url: Callable[..., str]) -> str:
        if show_model:
            if r.model:
                who = f'<a href="{text(url(r.model.path))}">{text(r.model.label)}</a>'
            else:
                who = text(r.model_id)
            if r.triple_anchor:
                bench = (f'<a href="{text(url(r.benchmark.path, r.triple_anchor))}" title="comparison of its reports">'
                         f'{text(r.benchmark.label)}</a>')
            else:
                bench = str(escape(r.benchmark.label))
            head = (f'      <th scope="row">{who}</th>\n'
                    f'      <td data-label="Benchmark">{bench}</td>\n')
        else:
            head = (f'      <th scope="row"><a href="{text(url(r.benchmark.path, r.triple_anchor))}">'
                    f'{text(r.benchmark.label)}</a></th>\n')
        return (f'    <tr id="{escape(r.anchor)}">\n{head}'
                f'      <td data-label="Metric">{text(r.metric)}</td>\n'
                f'      <td class="num" data-label="Score">{text(r.score)}</td>\n'
                f'      <td data-label="Reported by">{text(r.organization)}<div class="meta">{text(r.relationship)} · '
                f'<span title="{text(r.source)}">{text(r.source_label)}</span></div></td>\n'
                f'      <td data-label="Missing for reproducibility">{self.missing_html(r.missing, "none", True)}'
                f'{_AGENTIC if r.agentic else ""}</td>\n'
                f'      <td class="signals">{self.badges_html(r.badges)}</td>\n'
                f'    </tr>\n')


    def task_rows(self, results: Iterable[Any], url: Callable[..., str]) -> Markup:
        """The `<tr>` of each task of a model page's per-task table (`TaskResult`s): task link,
        C_P interval, band, interval bar, trials, truncation and tokens, with sort keys.

        Every model page has one row per task; as a Jinja loop this table and the estimator
        table below were most of a model page's escapes (issue 6)."""
        return Markup("".join(self._task_row(t, url) for t in results))


    def _task_row(self, t: Any, url: Callable[..., str]) -> str:
        iv = t.interval
        return (f'    <tr data-row="{text(t.task.label.lower())}">\n'
                f'      <th scope="row"><a href="{text(url(t.task.path))}">{text(t.task.label)}</a></th>\n'
                f'      <td class="num" data-sort="{_sort_key(iv.center)}">{_interval(iv, True)}</td>\n'
                f'      <td>{self.band_html(iv.band)}</td>\n'
                f'      <td class="hide-narrow">{_cibar(iv)}</td>\n'
                f'      <td class="num" data-sort="{_sort_key(t.total)}">{text(fmt.count(t.total))}</td>\n'
                f'      {_observed_cell(t.truncation_rate, fmt.percent, t.truncation_note)}\n'
                f'      {_observed_cell(t.tokens_per_trial, fmt.tokens, t.tokens_note)}\n'
                '    </tr>\n')


def _partial(template: jinja2.Template, **values: Any) -> Markup:
    """A partial's markup; a trailing newline in its file is not part of the fragment."""
    return Markup(template.render(**values).removesuffix("\n"))


def _observed_cell(value: float | None, show, note: str | None) -> str:
    """A truncation or tokens cell: the figure, or "not recorded" (with the full note as its
    title) when the harness could not record it, so a missing figure never reads as 0."""
    if note is not None:
        return f'<td class="num meta" data-sort="" title="{text(note)}">not recorded</td>'
    return f'<td class="num" data-sort="{_sort_key(value)}">{text(show(value))}</td>'


def _sort_key(value: float | int | None) -> str:
    """A `data-sort` value: the number as Python prints it (digits, sign, point, `e`: nothing
    to escape), or empty when missing."""
    return "" if value is None else str(value)


def estimator_rows(results: Iterable) -> Markup:
    """The `<tr>` of each task of a model page's six-estimator table: the task, then each
    estimator's estimate with its `[low, high]` (or a dash)."""
    return Markup("".join(
        f'    <tr><th scope="row">{text(t.task.label)}</th>{"".join(map(_estimator_cell, t.modes))}</tr>\n'
        for t in results))


def _estimator_cell(values) -> str:
    if values is None:
        return f'<td class="num">{fmt.MISSING}<div class="iv-range"></div></td>'
    est, low, high = values
    if fmt.finite_floats(est, low, high):
        # The common case, formatted inline (180,000 cells on a 2,500-model site): the
        # text `fmt.probability` gives.
        return f'<td class="num">{est:.3f}<div class="iv-range">[{low:.3f}, {high:.3f}]</div></td>'
    return (f'<td class="num">{fmt.probability(est)}'
            f'<div class="iv-range">[{fmt.probability(low)}, {fmt.probability(high)}]</div></td>')
