"""HTML fragments that repeat on many rows: their markup in templates, rendered cheaply.

A result row's signal badges and its list of missing fields come from a small set of
values (a few badge states, a few field-name lists), yet a large site shows them on
hundreds of thousands of rows. Their partials (`partials/badges.html`, `band.html`,
`missing.html`) are rendered once per distinct value in a build and the `Markup` reused.
Table rows and intervals (`partials/result_row.html`, `task_row.html`, `estimator_row.html`,
`estimator_cell.html`, `interval.html`, `cibar.html`) differ in every value but come in a
few shapes: each is rendered once per shape with placeholders (`Stencil`) and filled per
row, by name, with strings the views formatted (`site/format.py`), every piece of data
escaped. Rendering each row through Jinja instead kept 0.27 of the page throughput
(measured with benchmarks/compare_throughput.py; docs/maintainers/performance.md). A project can override every
partial: an override that uses a value other than by placing it (`{% if score %}`,
`{{ score | upper }}`), which would render otherwise than in plain Jinja, is refused when
the build starts, naming the file (`check_placed`).
"""

from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache
from itertools import product
from typing import Any, Callable, Iterable, Iterator

import jinja2
from jinja2 import nodes
from markupsafe import Markup, escape

from ..errors import InputError
from . import format as fmt


def text(value: Any) -> str:
    """`escape(value)` as a plain string, memoised for plain strings: a row's organisation,
    metric, source, benchmark and model label recur on thousands of rows, and markupsafe's
    `escape` builds a `Markup` object each time. Only `str` itself is memoised (a dict
    lookup, half the cost of an `lru_cache` keyed by type), so a `Markup` (already safe,
    hence not escaped) never meets the escaped text of an equal plain string."""
    if type(value) is str:
        found = _TEXTS.get(value)
        if found is None:
            if len(_TEXTS) >= _TEXTS_MAX:
                _TEXTS.clear()
            found = _TEXTS[value] = str(escape(value))
        return found
    return str(escape(value))


_TEXTS: dict[str, str] = {}
_TEXTS_MAX = 1 << 16


def link_items(refs: Iterable[Any], url: Callable[..., str]) -> Markup:
    """`<li><a href=...>label</a></li>` per reference, for long link lists such as a model's
    statistically tied models (over a hundred per page on a large board)."""
    return Markup("".join(f"<li>{a}</li>" for a in _links(refs, url)))


def link_list(refs: Iterable[Any], url: Callable[..., str]) -> Markup:
    """The references' links separated by commas, for lists inside a sentence (the members
    of a tie group: thousands per leaderboard page on a large board)."""
    return Markup(", ".join(_links(refs, url)))


def _links(refs: Iterable[Any], url: Callable[..., str]) -> list[str]:
    """`<a href=...>label</a>` per reference. Pages in one directory link a reference the
    same way, so each (directory, reference) link is made once; `url` is the page's
    `Linker` (or any `url()` helper, then without the cache)."""
    start = getattr(url, "start", None)
    if start is None:
        return [_link(url(ref.path), ref.label) for ref in refs]
    return [_cached_link(start, ref, url) for ref in refs]


_LINKS: dict[tuple[str, str, str], str] = {}


def _cached_link(start: str, ref: Any, url: Callable[..., str]) -> str:
    key = (start, ref.path, ref.label)
    link = _LINKS.get(key)
    if link is None:
        link = _LINKS[key] = _link(url(ref.path), ref.label)
    return link


def _link(href: str, label: str) -> str:
    return f'<a href="{text(href)}">{text(label)}</a>'


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
        self._keyed_badges_of = lru_cache(maxsize=1 << 16)(self._render_keyed_badges)
        self._band_of = lru_cache(maxsize=1024)(self._render_band)
        self._missing_of = lru_cache(maxsize=1 << 16)(self._render_missing)
        self._interval = Stencil(env, "partials/interval.html", ("present", "range"), ("text", "range_text"),
                                 fragment=True)
        self._cibar = Stencil(env, "partials/cibar.html", ("present",), ("description", "left", "width", "center"),
                              fragment=True)
        self._result_row = Stencil(env, "partials/result_row.html",
                                   ("show_model", "has_model", "triple_anchor", "agentic", "titled_source"), (
            "anchor", "model_href", "model_label", "model_id", "bench_href", "bench_label", "metric", "score",
            "organization", "relationship", "source", "source_label", "missing", "badges"))
        self._task_row = Stencil(env, "partials/task_row.html", ("truncation_recorded", "tokens_recorded"), (
            "row_key", "task_href", "task_label", "center_sort", "interval", "band", "cibar", "total_sort", "total",
            "truncation_sort", "truncation", "truncation_note", "tokens_sort", "tokens", "tokens_note"))
        self._estimator_row = Stencil(env, "partials/estimator_row.html", (), ("task_label", "cells"))
        self._estimator_cell_of = Stencil(env, "partials/estimator_cell.html", ("present",),
                                          ("estimate", "low", "high", "missing"), fragment=True)
        self._interval_fill = self._interval.fillers()
        self._cibar_fill = self._cibar.fillers()
        self._result_fill = self._result_row.fillers()
        self._task_fill = self._task_row.fillers()
        self._cell_fill = self._estimator_cell_of(True)
        self._no_cell = self._estimator_cell_of(False)(estimate="", low="", high="", missing=fmt.MISSING)
        self._href_start: str | None = None
        self._href_cache: dict[tuple[str, str | None], str] = {}

    def badges_html(self, items: Iterable[Any] | None) -> Markup:
        """Evaluation Card signals (R, C, P, X) of a model or a result row."""
        return self._badges_of(_as_tuple(items))

    def missing_html(self, names: Iterable[str] | None, none_text: str = "none", inline: bool = False) -> Markup:
        """Field names a report or a card leaves out, listed by name (or `none_text`)."""
        return self._missing_of(_as_tuple(names), none_text, bool(inline))

    def band_html(self, b: Any, full: bool = False) -> Markup:
        """An interpretation band, its wording in the tooltip or written out (`full`)."""
        return self._band_of(b, bool(full)) if b else Markup("")

    def _render_badges(self, items: tuple[Any, ...]) -> Markup:
        return _partial(self._badges, badges=items, keyed=frozenset())

    def _render_keyed_badges(self, items: tuple[Any, ...], keyed: frozenset[Any]) -> Markup:
        return _partial(self._badges, badges=items, keyed=keyed)

    def _render_band(self, b: Any, full: bool) -> Markup:
        return _partial(self._band, band=b, full=full)

    def _render_missing(self, names: tuple[str, ...], none_text: str, inline: bool) -> Markup:
        return _partial(self._missing, names=names, none_text=none_text, inline=inline)

    def interval_html(self, iv: Any, range: bool = True) -> Markup:
        """An interval as `center ± margin`, with `[low, high]` beside it (or a dash)."""
        return Markup(self._interval_text(iv, range))

    def cibar_html(self, iv: Any) -> Markup:
        """The interval drawn on its whole scale (0-1000 or 0-1): nothing without one."""
        return Markup(self._cibar_text(iv))

    # An interval's texts are numbers this package formatted (digits, signs, "±", "—"),
    # never data, so they fill the partial as they are.

    def _interval_text(self, iv: Any, range: bool) -> str:
        if not iv:
            return self._interval_fill[(False, range)](text="", range_text="")
        return self._interval_fill[(True, range)](text=iv.text, range_text=iv.range_text)

    def _cibar_text(self, iv: Any) -> str:
        if not iv:
            return self._cibar_fill[(False,)](description="", left="", width="", center="")
        return self._cibar_fill[(True,)](description=iv.description, left=iv.bar_left, width=iv.bar_width,
                                         center=iv.bar_center)

    def result_rows(self, rows: Iterable[Any], show_model: bool, url: Callable[..., str]) -> Markup:
        """The `<tr>` of each result row with its signals (partials/result_row.html).

        A model page lists up to `page_size` of these and a benchmark's row pages list every
        result of the corpus, so the rows are the bulk of a large site's markup: the partial
        is rendered once per row shape and filled per row (`Stencil`), every value escaped.
        The loop is written out (no call per row) and links are made once per page
        directory (`_hrefs`): these rows were most of the cost of the result tables. A badge
        that more than one row carries points to its sentence in the table's key
        (`badge_key`), which says it once: a benchmark's row pages repeat a few dozen
        sentences over hundreds of rows. A sentence of one row stays in its row.
        """
        show_model = bool(show_model)
        fill, href, missing, badges = self._result_fill, self._hrefs(url), self._missing_of, self._keyed_badges_of
        rows = list(rows)
        shared = frozenset(self.badge_key(rows))
        out = []
        for r in rows:
            has_model = show_model and bool(r.model)
            triple = bool(r.triple_anchor)
            # A source named as it is written (this leaderboard's own rows) needs no tooltip.
            out.append(fill[(show_model, has_model, triple, bool(r.agentic), r.source != r.source_label)](
                anchor=text(r.anchor),
                model_href=href(r.model.path, None) if has_model else "",
                model_label=text(r.model.label) if has_model else "",
                model_id=text(r.model_id) if show_model and not has_model else "",
                bench_href=href(r.benchmark.path, r.triple_anchor) if triple or not show_model else "",
                bench_label=text(r.benchmark.label), metric=text(r.metric), score=text(r.score),
                organization=text(r.organization), relationship=text(r.relationship), source=text(r.source),
                source_label=text(r.source_label), missing=missing(_as_tuple(r.missing), "none", True),
                badges=badges(_as_tuple(r.badges), shared.intersection(r.badges)),
            ))
        return Markup("".join(out))

    @staticmethod
    def badge_key(rows: Iterable[Any]) -> tuple[Any, ...]:
        """The badges that more than one of result `rows` carries, in the order they first
        appear (rows, then each row's badges): the key under a result table, one sentence
        each."""
        seen = Counter(b for r in rows for b in r.badges)
        return tuple(b for b, n in seen.items() if n > 1)

    def _hrefs(self, url: Callable[..., str]) -> Callable[[str, str | None], str]:
        """`text(url(path, fragment))`, memoised for the page directory in use when `url`
        is a page's `Linker` (every page in a directory links a target the same way; the
        pages of a directory are rendered one after another, and only the last directory's
        links are kept, so the memory stays that of one directory's links)."""
        start = getattr(url, "start", None)
        if start is None:
            return lambda path, fragment: text(url(path, fragment))
        if start != self._href_start:
            self._href_start, self._href_cache = start, {}
        cache = self._href_cache

        def href(path: str, fragment: str | None) -> str:
            found = cache.get((path, fragment))
            if found is None:
                found = cache[(path, fragment)] = text(url(path, fragment))
            return found

        return href

    def task_rows(self, results: Iterable[Any], url: Callable[..., str]) -> Markup:
        """The `<tr>` of each task of a model page's per-task table (`TaskResult`s,
        partials/task_row.html): task link, C_P interval, band, interval bar, trials,
        truncation and tokens, with sort keys.

        Every model page has one row per task; as a Jinja loop this table and the estimator
        table below were most of a model page's escapes."""
        fill, href, interval, cibar, band = (self._task_fill, self._hrefs(url), self._interval_fill,
                                             self._cibar_fill, self._band_of)
        iv_none = interval[(False, True)](text="", range_text="")
        bar_none = cibar[(False,)](description="", left="", width="", center="")
        iv_fill, bar_fill = interval[(True, True)], cibar[(True,)]
        results = list(results)
        centers = fmt.sort_keys([t.interval.center if t.interval else None for t in results])
        rates = fmt.sort_keys([t.truncation_rate for t in results])
        per_trial = fmt.sort_keys([t.tokens_per_trial for t in results])
        out = []
        for i, t in enumerate(results):
            iv = t.interval
            truncated = t.truncation_note is None
            tokens = t.tokens_note is None
            label = t.task.label
            out.append(fill[(truncated, tokens)](
                row_key=text(label.lower()), task_href=href(t.task.path, None), task_label=text(label),
                center_sort=centers[i],
                interval=iv_fill(text=iv.text, range_text=iv.range_text) if iv else iv_none,
                band=band(iv.band, False) if iv.band else (
                    f'<span class="meta">{text(t.preliminary)}</span>' if t.preliminary else ""),
                cibar=bar_fill(description=iv.description, left=iv.bar_left, width=iv.bar_width,
                               center=iv.bar_center) if iv else bar_none,
                total_sort=_sort_key(t.total), total=text(t.trials_text),
                truncation_sort=rates[i] if truncated else "",
                truncation=text(fmt.percent(t.truncation_rate)) if truncated else "",
                truncation_note="" if truncated else text(t.truncation_note),
                tokens_sort=per_trial[i] if tokens else "",
                tokens=text(fmt.tokens(t.tokens_per_trial)) if tokens else "",
                tokens_note="" if tokens else text(t.tokens_note),
            ))
        return Markup("".join(out))

    def estimator_rows(self, results: Iterable[Any]) -> Markup:
        """The `<tr>` of each task of a model page's six-estimator table
        (partials/estimator_row.html): the task, then each estimator's estimate with its
        `[low, high]` (or a dash; partials/estimator_cell.html)."""
        row = self._estimator_row()
        cell = self._estimator_cell
        return Markup("".join([row(task_label=text(t.task.label), cells="".join(map(cell, t.modes))) for t in results]))

    def _estimator_cell(self, values: tuple[float, float, float] | None) -> str:
        if values is None:
            return self._no_cell
        est, low, high = values
        if fmt.finite_floats(est, low, high):
            # The common case, formatted inline (180,000 cells on a 2,500-model site): the
            # text `fmt.probability` gives.
            return self._cell_fill(estimate=f"{est:.3f}", low=f"{low:.3f}", high=f"{high:.3f}", missing="")
        return self._cell_fill(estimate=fmt.probability(est), low=fmt.probability(low), high=fmt.probability(high),
                               missing="")


class Stencil:
    """A partial for a repeated row or cell, rendered by Jinja once per *shape* and then
    filled in per value.

    Rows differ in their values but come in a handful of shapes (a result row with or
    without a model link, a task row with a recorded or a missing truncation rate): the
    partial's `switches`. For each shape the partial is rendered once with a placeholder for
    each of its `values`; the result becomes a compiled f-string, and each row is that
    pattern filled with its values, by name, escaped by the caller (`text`) or already
    `Markup`. The output is what plain Jinja renders with the same values, provided the
    partial only *places* each value (`{{ score }}`); `check_placed` refuses a partial that
    does anything else with one (a test, a filter, an expression), naming its file.
    """

    def __init__(self, env: jinja2.Environment, name: str, switches: tuple[str, ...], values: tuple[str, ...],
                 fragment: bool = False) -> None:
        self._template = env.get_template(name)
        check_placed(env, name, values)
        self._switches = switches
        self._values = values
        #: A fragment (a cell, an interval) leaves out its file's trailing newline; a row keeps it.
        self._fragment = fragment
        self._patterns: dict[tuple[bool, ...], Callable[..., str]] = {}

    def __call__(self, *shape: bool) -> Callable[..., str]:
        """The filler of one shape (the switches' values, in order): call it with the values by name."""
        found = self._patterns.get(shape)
        if found is None:
            found = self._patterns[shape] = self._compile(shape)
        return found

    def fillers(self) -> dict[tuple[bool, ...], Callable[..., str]]:
        """Every shape's filler, compiled now: a handful of renders per build, and a row then
        costs one dict lookup rather than a call (tens of thousands of rows per page set)."""
        for shape in product((False, True), repeat=len(self._switches)):
            self(*shape)
        return dict(self._patterns)

    def _compile(self, shape: tuple[bool, ...]) -> Callable[..., str]:
        """The shape's pattern as a compiled f-string of keyword-only parameters: `str.format`
        would parse the pattern again on every row. The markup enters only as the repr of a
        string literal (with its braces doubled), so no template text is ever evaluated as
        code; the parameter names are the declared values (identifiers of this module)."""
        holders = {name: Markup(f"\x00{i}\x00") for i, name in enumerate(self._values)}
        out = self._template.render(**dict(zip(self._switches, shape)), **holders)
        if self._fragment:
            out = out.removesuffix("\n")
        pattern = _HOLDER.sub(lambda m: "{" + self._values[int(m.group(1))] + "}",
                              out.replace("{", "{{").replace("}", "}}"))
        params = ", ".join(self._values)
        filler: Callable[..., str] = eval(f"lambda *, {params}: f{pattern!r}", {})
        return filler


def check_placed(env: jinja2.Environment, name: str, values: tuple[str, ...]) -> None:
    """Refuse the partial `name` (InputError naming its file and line) when it uses one of
    its per-row `values` other than by placing it in the output (`{{ value }}`): a test,
    filter, comparison or attribute on a value would see the placeholder, not the row's
    value, so the row would read otherwise than the same template in plain Jinja."""
    assert env.loader is not None
    source, filename, _ = env.loader.get_source(env, name)
    wanted = set(values)
    for node, parent in _walk(env.parse(source, name, filename)):
        if isinstance(node, nodes.Name) and node.name in wanted and not isinstance(parent, nodes.Output):
            raise InputError(filename or name, f"uses the value '{node.name}' other than by placing it as "
                                              f"{{{{ {node.name} }}}}: a row partial is rendered once per shape "
                                              f"and filled per row, so a test, filter or expression on a value "
                                              f"would not see the row's value; place it as it is "
                                              f"(templates/README.md of a project says which partials and values)",
                             line=node.lineno)


def _walk(node: nodes.Node, parent: nodes.Node | None = None) -> Iterator[tuple[nodes.Node, nodes.Node | None]]:
    yield node, parent
    for child in node.iter_child_nodes():
        yield from _walk(child, node)


_HOLDER = re.compile("\x00([0-9]+)\x00")


def _partial(template: jinja2.Template, **values: Any) -> Markup:
    """A partial's markup; a trailing newline in its file is not part of the fragment."""
    return Markup(template.render(**values).removesuffix("\n"))


def _as_tuple(items: Iterable[Any] | None) -> tuple[Any, ...]:
    """The cache key `badges_html` and `missing_html` make, without a copy of a tuple."""
    return items if type(items) is tuple else tuple(items or ())


def _sort_key(value: float | int | None) -> str:
    """A `data-sort` value: the number as Python prints it (digits, sign, point, `e`: nothing
    to escape), or empty when missing."""
    return "" if value is None else str(value)
