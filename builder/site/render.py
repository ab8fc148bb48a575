"""Rendering: the page model through the Jinja templates into bytes, plus the assets.

`render_site` is the site stage of the build (STYLE.md data flow): it reads the content
pages, asks `plan_page_model` for every page (the model and benchmark pages are made by
the process that renders them, workers.py), renders each with its own `url()` helper
(relative to the page's depth, so `file://` works), and returns output path -> bytes in a
`SiteFiles`, which refuses a path claimed twice; `iter_site` gives the same files one at a
time (the build streams them to the writer). It writes nothing: the writer does.

A page is rendered from one frozen record, `PageInputs`, and nothing else the template can
reach but the templates and the code: so the record's digest, salted with those, is the
page's key, and a build keeps the previous build's file of a page whose key did not change
(reuse.py).

Templates and content pages are looked up along search paths, project first, then the
package (project.py): a project file with a built-in name replaces it, others are added.

Assets get content-hash names (`assets/style-3f2a9c1b0d.css`), so a browser or CDN cache can
never serve a stale stylesheet after a rebuild, and an unchanged asset keeps its name and
bytes (incremental deployments skip it).
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Callable, Iterable, Iterator, Sequence, TypeVar

import jinja2
from markupsafe import Markup

from ..confined import read_confined
from ..results import BuildResults
from ..slugs import is_safe_slug
from .charts import content_hash, specs_script, vega_bundle
from .fragments import Fragments, link_items, link_list
from .markdown import ContentPage, load_content_page, render_markdown
from .model import SiteModel, plan_page_model
from .releaserows import release_rows
from .reuse import PageReuse, page_key
from .search import search_script
from .templating import RUNAWAY, sandboxed, template_error
from .urls import Linker, check_output_path
from .views.base import Page
from .views.content import ContentView
from .workers import PageJob, can_fork, processes
from .writer import Output, SiteFiles, Stage, Staged

#: Which navigation entry a page belongs to (for `aria-current`).
SECTIONS = {"leaderboard.html": "index.html", "model.html": "index.html", "model_group.html": "index.html",
            "task.html": "index.html", "matrix.html": "matrix.html",
            "pairwise.html": "pairwise.html", "compare.html": "index.html", "signals.html": "signals.html",
            "benchmark.html": "signals.html",
            "benchmark_rows.html": "signals.html", "releases.html": "releases.html", "release.html": "releases.html",
            "release_changes.html": "releases.html", "cost.html": "cost.html"}


@dataclass(frozen=True)
class Assets:
    """Output paths of the shared assets, as the templates link them."""

    css: str
    js: str
    charts: str
    vega: str
    #: The compare page's script (it computes the paired tests in the browser).
    compare: str
    #: The leaderboard's search index (search.py); empty when the leaderboard is one page.
    search: str = ""


SearchPath = Path | Sequence[Path] | None


def search_path(dirs: SearchPath) -> tuple[Path, ...]:
    """One directory or a lookup order of them, first match wins."""
    if dirs is None:
        return ()
    if isinstance(dirs, (str, Path)):
        return (Path(dirs),)
    return tuple(Path(d) for d in dirs)


def content_files(content_dirs: SearchPath) -> list[Path]:
    """Every `*.md` page along the lookup order; a name found twice is the first one's."""
    found: dict[str, Path] = {}
    for folder in search_path(content_dirs):
        if folder.is_dir():
            for path in sorted(folder.glob("*.md")):
                found.setdefault(path.name, path)
    return [found[name] for name in sorted(found)]


def load_content(content_dirs: SearchPath) -> list[ContentPage]:
    """Every content page, ordered by front-matter `order`, then file name."""
    files = content_files(content_dirs)
    pages = [load_content_page(p) for p in files]
    for page, path in zip(pages, files):
        if not is_safe_slug(page.slug):
            from ..errors import InputError

            raise InputError(path, "content page file names must be lowercase letters, digits and hyphens")
    return sorted(pages, key=lambda p: (p.order, p.slug))


def environment(templates_dir: SearchPath) -> jinja2.Environment:
    """The sandboxed environment (templating.py) with the page helpers below (compiled
    templates are never kept between builds)."""
    env = sandboxed(search_path(templates_dir))
    # Fragments that repeat on many rows (see fragments.py), called in templates as
    # `badges(items)`, `missing(names, none_text, inline=...)`, `band(b, full=...)` (their
    # partials rendered once per distinct value), `interval(iv, range=...)`, `cibar(iv)`,
    # and whole table bodies: `result_rows(...)`, `task_rows(...)`, `estimator_rows(...)`,
    # `link_items(...)`.
    fragments = Fragments(env)
    env.globals["badges"] = fragments.badges_html
    env.globals["missing"] = fragments.missing_html
    env.globals["interval"] = fragments.interval_html
    env.globals["cibar"] = fragments.cibar_html
    env.globals["band"] = fragments.band_html
    env.globals["link_items"] = link_items
    env.globals["link_list"] = link_list
    env.globals["result_rows"] = fragments.result_rows
    env.globals["badge_key"] = fragments.badge_key
    env.globals["task_rows"] = fragments.task_rows
    env.globals["estimator_rows"] = fragments.estimator_rows
    env.globals["release_rows"] = release_rows
    return env


def render_site(results: BuildResults, content_dirs: SearchPath, templates_dirs: SearchPath,
                timings: dict[str, float] | None = None) -> SiteFiles:
    """Render every page and asset; returns relative output path -> bytes.

    `content_dirs` and `templates_dirs` are one directory or a lookup order (project, then
    package); `timings`, when given, receives the seconds spent
    per phase.
    """
    files = SiteFiles()
    for path, body in iter_site(results, content_dirs, templates_dirs, timings):
        assert isinstance(body, bytes)  # no stage: every page comes as bytes
        files.add(path, body)
    return files


def iter_site(results: BuildResults, content_dirs: SearchPath, templates_dirs: SearchPath,
              timings: dict[str, float] | None = None,
              stage: Stage | None = None, alongside: Sequence[Callable[[], Iterable[tuple[str, Output]]]] = (),
              workers: int | None = None, reuse: PageReuse | None = None) -> Iterator[tuple[str, Output]]:
    """`render_site` as a stream of (output path, bytes), one page at a time, so the build
    hands each page to the writer as it is made and never holds the whole site.

    With more than one worker (`processes()`), forked processes take slices of the page
    list, render, and (given the writer's `stage`) stage their pages themselves, so a page
    comes as a `Staged` record; the files written are the same whatever the number of
    workers. `alongside` are jobs that make more files (the build's data files, the
    published samples files in parts), which the workers take while the pages render;
    with one worker they come first. Given `reuse` (and a `stage` to keep
    files in), a page whose key and file are the previous build's is kept, not rendered,
    and `reuse` records every page's key (reuse.py). `timings` count only the time spent
    in here."""
    clock = _Clock(timings)
    workers = processes() if workers is None else workers
    templates_dir = search_path(templates_dirs)
    if alongside and not can_fork(workers):
        for part in alongside:
            yield from clock.paused(part())
        alongside = ()
    content = load_content(content_dirs)
    model = plan_page_model(results, content)
    clock.lap("page model")

    assets, asset_files = _assets(templates_dir, needs_charts=any(p.charts for p in model.pages))
    index = search_script(model.pages)
    if index is not None:
        assets = replace(assets, search=_hashed(asset_files, "search", "js", index))
    clock.lap("assets")
    yield from clock.paused(asset_files)

    env = environment(templates_dir)
    # What every page's template receives besides its own view; the list of pages is not
    # (no template needs it, and each page's key would have to hold every other page).
    site, has_signals, footer = replace(model, pages=()), results.signals is not None, results.config.footer

    def inputs(page: Page) -> PageInputs:
        return PageInputs(page, site, assets, has_signals, footer)

    reused: Callable[[Page], tuple[str, Staged | None]] | None = None
    if reuse is not None and stage is not None:
        def reused(page: Page) -> tuple[str, Staged | None]:
            key = page_key(reuse.salt, inputs(page))
            return key, reuse.keep(page.path, key)

    job = PageJob(model.pages, lambda page: render_page(env, inputs(page)), stage, alongside, reused)
    for record in job.run(workers):
        clock.lap("templates")
        if record.key and reuse is not None:
            reuse.note(record.path, record.key, record.rendered)
        yield record.path, record.out
        clock.skip()
    yield ".nojekyll", b""


@dataclass(frozen=True)
class PageInputs:
    """Everything a page's template receives, as one frozen record: the page's key is its
    digest (reuse.py), salted with the templates and the code, which make the rest of what
    the template sees (its `url()`, section and footer come from these fields)."""

    page: Page
    #: The site's facts (title, navigation, content pages, branding), without its pages.
    site: SiteModel
    assets: Assets
    has_signals: bool
    #: site.toml's `footer` (Markdown).
    footer: str


def render_page(env: jinja2.Environment, inputs: PageInputs) -> bytes:
    page, site = inputs.page, inputs.site
    url = _absolute_linker(site.base_url) if page.path == "404.html" and site.base_url else Linker(page.path)
    try:
        template = env.get_template(page.template)
        html = template.render(page=page, site=site, url=url, assets=inputs.assets, has_signals=inputs.has_signals,
                               current_section=_section(page), footer=_footer(inputs.footer, page.path.count("/")))
    except (jinja2.TemplateError, *RUNAWAY) as exc:
        raise template_error(exc, page.template) from None
    return unindented(html).encode("utf-8")


_INDENT = re.compile(r"\n[ \t]+(?=<)")


def unindented(html: str) -> str:
    """`html` without the templates' indentation before a tag: a line break alone is the
    same white space to a browser (a run collapses to one space), and on a model page's rows
    the indentation was about 3% of its bytes. A page holding `<pre>` or `<textarea>`, where
    white space is kept as written, is left as it is."""
    if "<pre" in html or "<textarea" in html:
        return html
    return _INDENT.sub("\n", html)


def _section(page: Page) -> str:
    if isinstance(page, ContentView):
        return page.path
    return SECTIONS.get(page.template, "")


@lru_cache(maxsize=64)
def _footer(text: str, depth: int) -> Markup:
    """The footer's HTML for a page `depth` folders down (relative URLs climb to the root)."""
    if not text:
        return Markup("")
    return Markup(render_markdown(text, allow_relative=True, prefix="../" * depth))


def _absolute_linker(base_url: str) -> Callable[..., str]:
    """Links for `404.html`, which a host serves at any depth: absolute from `base_url`."""
    base = base_url.rstrip("/") + "/"

    def url(to_path: str, fragment: str | None = None) -> str:
        check_output_path(to_path)
        return base + to_path + (f"#{fragment}" if fragment else "")

    return url


def _asset(templates_dirs: tuple[Path, ...], name: str) -> bytes:
    """`assets/<name>` along the template lookup order (a project may replace style.css)."""
    for folder in templates_dirs:
        path = folder / "assets" / name
        if path.is_file() or path.is_symlink():
            return read_confined(path, folder)
    raise FileNotFoundError(f"assets/{name} is in none of {', '.join(map(str, templates_dirs))}")


def _assets(templates_dirs: tuple[Path, ...], needs_charts: bool) -> tuple[Assets, list[tuple[str, bytes]]]:
    files: list[tuple[str, bytes]] = []
    css = _hashed(files, "style", "css", _asset(templates_dirs, "style.css"))
    js = _hashed(files, "site", "js", _asset(templates_dirs, "site.js"))
    compare = _hashed(files, "compare", "js", _asset(templates_dirs, "compare.js"))
    charts = vega = ""
    if needs_charts:
        charts = _hashed(files, "charts", "js", specs_script())
        vega = _hashed(files, "vega", "js", vega_bundle())
    return Assets(css=css, js=js, charts=charts, vega=vega, compare=compare), files


def _hashed(files: list[tuple[str, bytes]], stem: str, ext: str, data: bytes) -> str:
    path = f"assets/{stem}-{content_hash(data)}.{ext}"
    files.append((path, data))
    return path


_Item = TypeVar("_Item")


class _Clock:
    def __init__(self, timings: dict[str, float] | None):
        self.timings = timings
        self.last = time.perf_counter()

    def lap(self, name: str) -> None:
        now = time.perf_counter()
        if self.timings is not None:
            self.timings[name] = self.timings.get(name, 0.0) + now - self.last
        self.last = now

    def skip(self) -> None:
        """Restart the clock: the time since the last lap was the consumer's."""
        self.last = time.perf_counter()

    def paused(self, items: Iterable[_Item]) -> Iterator[_Item]:
        for item in items:
            yield item
            self.skip()
