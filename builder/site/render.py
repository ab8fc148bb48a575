"""Rendering: the page model through the Jinja templates into bytes, plus the assets.

`render_site` is the site stage of the build (STYLE.md data flow): it reads the content
pages, asks `plan_page_model` for every page (the model and benchmark pages are made by
the process that renders them, workers.py), renders each with its own `url()` helper
(relative to the page's depth, so `file://` works), and returns output path -> bytes in a
`SiteFiles`, which refuses a path claimed twice; `iter_site` gives the same files one at a
time (the build streams them to the writer). It writes nothing: the writer does.

Templates and content pages are looked up along search paths, project first, then the
package (project.py): a project file with a built-in name replaces it, others are added.

Assets get content-hash names (`assets/style-3f2a9c1b0d.css`), so a browser or CDN cache can
never serve a stale stylesheet after a rebuild, and an unchanged asset keeps its name and
bytes (incremental deployments skip it).
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Iterable, Iterator, Sequence, TypeVar

import jinja2
from markupsafe import Markup

from ..forking import Forked, can_fork, processes
from ..gcpause import no_cyclic_gc, settle
from ..results import BuildResults
from ..slugs import is_safe_slug
from . import format as fmt
from .charts import cached as charts_cached
from .charts import content_hash, specs_script, vega_bundle
from .fragments import Fragments, link_items, link_list
from .markdown import ContentPage, load_content_page, render_markdown
from .model import SiteModel, plan_page_model
from .reuse import PageReuse
from .search import search_script
from .urls import Linker, check_output_path
from .views.base import Deferred, Page
from .views.content import ContentView
from .workers import PageJob
from .writer import Output, SiteFiles, Stage

#: Which navigation entry a page belongs to (for `aria-current`).
SECTIONS = {"leaderboard.html": "index.html", "model.html": "index.html", "model_group.html": "index.html",
            "task.html": "index.html",
            "pairwise.html": "pairwise.html", "signals.html": "signals.html", "benchmark.html": "signals.html",
            "benchmark_rows.html": "signals.html", "releases.html": "releases.html", "release.html": "releases.html",
            "release_changes.html": "releases.html"}


@dataclass(frozen=True)
class Assets:
    """Output paths of the shared assets, as the templates link them."""

    css: str
    js: str
    charts: str
    vega: str
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


def environment(templates_dir: SearchPath, cache_dir: Path | None = None) -> jinja2.Environment:
    """Autoescaping on for every template (data never becomes markup); undefined names fail.

    With a `cache_dir`, compiled templates are kept between builds (Jinja checks each
    template's source before reusing it), which saves about half a second per build.
    """
    bytecode = None
    if cache_dir is not None:
        (Path(cache_dir) / "jinja").mkdir(parents=True, exist_ok=True)
        bytecode = jinja2.FileSystemBytecodeCache(str(Path(cache_dir) / "jinja"))
    env = jinja2.Environment(
        # Project templates first, then the package's (MkDocs' custom_dir).
        loader=jinja2.FileSystemLoader([str(d) for d in search_path(templates_dir)]),
        bytecode_cache=bytecode,
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        # One environment per build: a template read once cannot change during it, so
        # Jinja need not stat the file again on every page that uses it.
        auto_reload=False,
    )
    env.globals["fmt"] = fmt
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
    env.globals["task_rows"] = fragments.task_rows
    env.globals["estimator_rows"] = fragments.estimator_rows
    return env


def render_site(results: BuildResults, content_dirs: SearchPath, templates_dirs: SearchPath,
                cache_dir: Path | None = None, timings: dict[str, float] | None = None) -> SiteFiles:
    """Render every page and asset; returns relative output path -> bytes.

    `content_dirs` and `templates_dirs` are one directory or a lookup order (project, then
    package). `cache_dir` keeps the Vega bundle between builds (it takes ~2 s to produce);
    `timings`, when given, receives the seconds spent per phase.
    """
    files = SiteFiles()
    for path, body in iter_site(results, content_dirs, templates_dirs, cache_dir, timings):
        assert isinstance(body, bytes)  # no reuse: every page is rendered
        files.add(path, body)
    return files


def iter_site(results: BuildResults, content_dirs: SearchPath, templates_dirs: SearchPath,
              cache_dir: Path | None = None, timings: dict[str, float] | None = None,
              reuse: PageReuse | None = None, stage: Stage | None = None,
              alongside: Callable[[], Iterable[tuple[str, bytes]]] | None = None,
              workers: int | None = None, charts: Forked[None, None] | None = None) -> Iterator[tuple[str, Output]]:
    """`render_site` as a stream of (output path, bytes), one page at a time, so the build
    hands each page to the writer as it is made and never holds the whole site (issue 16).

    With `reuse`, a page whose inputs are those of the file on disk comes as `UNCHANGED`
    instead of being rendered (reuse.py). With more than one worker (`processes()`),
    forked processes take slices of the page list, decide reuse, render, and (given the
    writer's `stage`) stage their pages themselves, so a page comes as a `Staged` record;
    the files written are the same whatever the number of workers. `alongside` makes more
    files (the build's data files) in this process, while the workers render; with one
    worker they come first. `charts` is a `chart_warmup` the caller started earlier: waited
    for before the assets are written (without one, `_assets` makes the chart assets itself).
    `timings` count only the time spent in here."""
    with no_cyclic_gc():
        yield from _render_site(results, content_dirs, search_path(templates_dirs), cache_dir, _Clock(timings),
                                reuse, stage, alongside, processes() if workers is None else workers, charts)


@contextmanager
def chart_warmup(cache_dir: Path | None, workers: int | None = None) -> Iterator[Forked[None, None] | None]:
    """Altair's chart specifications and the Vega bundle (seconds from an empty cache) made
    into `cache_dir` by a forked process, while this one goes on; `_assets` then reads them
    from the cache. None when they are cached already, or when this machine renders in one
    process. A build starts it before it reads its inputs (build.py), so it runs beside the
    store and the statistics; the process ends with the block."""
    workers = processes() if workers is None else workers
    if cache_dir is None or not can_fork(workers) or charts_cached(cache_dir):
        yield None
        return
    warmup: Forked[None, None] = Forked(lambda _: _warm_chart_cache(cache_dir), "the chart warm-up")
    warmup.give(None)
    try:
        yield warmup
    finally:
        warmup.close()


def _render_site(results: BuildResults, content_dirs: SearchPath, templates_dir: tuple[Path, ...],
                 cache_dir: Path | None, clock: "_Clock", reuse: PageReuse | None, stage: Stage | None,
                 alongside: Callable[[], Iterable[tuple[str, bytes]]] | None,
                 workers: int, charts: Forked[None, None] | None) -> Iterator[tuple[str, Output]]:
    if alongside is not None and not can_fork(workers):
        yield from clock.paused(alongside())
        alongside = None
    content = load_content(content_dirs)
    model = plan_page_model(results, content)
    settle()  # the page model is acyclic and freed at the end of rendering: no collection need walk it
    clock.lap("page model")
    if charts is not None:
        try:
            charts.result()
        except Exception:  # noqa: BLE001 - `_assets` makes them here if the pages need them (and fails there)
            pass

    files = SiteFiles()
    assets = _assets(files, templates_dir, cache_dir, needs_charts=any(p.charts for p in model.pages))
    index = search_script(model.pages)
    if index is not None:
        assets = replace(assets, search=_hashed(files, "search", "js", index))
    clock.lap("assets")
    yield from clock.paused(files.items())

    env = environment(templates_dir, cache_dir)
    site = _SiteView(model, has_signals=results.signals is not None, footer_text=results.config.footer)
    shared = _shared_inputs(env, site, assets, model.pages) if reuse is not None else {}
    decide = decide_by_key = None
    if reuse is not None:
        def decide(page: Page) -> tuple[str | None, bool]:
            return reuse.decide(page, shared.get(page.template, shared[""]))

        def decide_by_key(entry: Deferred) -> tuple[str | None, bool, str | None]:
            return reuse.decide_by_key(entry, shared.get(entry.template, shared[""]))
    job = PageJob(model.pages, lambda page: render_page(env, site, page, assets), decide, stage, alongside,
                  decide_by_key)
    for path, digest, kept, out, key in job.run(workers):
        if reuse is not None:
            reuse.note(path, digest, kept, key)
        clock.lap("templates")
        yield path, out
        clock.skip()
    yield ".nojekyll", b""


def _warm_chart_cache(cache_dir: Path) -> None:
    """Makes the chart specs and the Vega bundle into the cache (`_assets` reads them there)."""
    specs_script(cache_dir)
    vega_bundle(cache_dir)


def _shared_inputs(env: jinja2.Environment, site: "_SiteView", assets: Assets,
                   pages: Sequence[Page | Deferred]) -> dict[str, str]:
    """What a page's template sees besides its own view model (for reuse.py), by template
    ("" for any other). The search index changes with every score, so it counts only for
    the page templates that name it, when no shared template (base, partial) does."""
    m = site.model
    common = (m.title, m.description, m.nav, m.simulated_any, m.base_url, m.organization,
              sorted(m.content.items()), m.logo, m.favicon, m.extra_css, site.has_signals, site.footer_text)
    users = {name for name in env.list_templates(extensions=["html"])
             if "assets.search" in env.loader.get_source(env, name)[0]}  # type: ignore[union-attr]
    if not users <= {p.template for p in pages}:
        return {"": repr((assets, *common))}
    without = repr((replace(assets, search=""), *common))
    return {"": without, **{name: repr((assets, *common)) for name in users}}


def render_page(env: jinja2.Environment, site: "_SiteView", page: Page, assets: Assets) -> bytes:
    template = env.get_template(page.template)
    url = _absolute_linker(site.model.base_url) if page.path == "404.html" and site.model.base_url else Linker(page.path)
    html = template.render(page=page, site=site.model, url=url, assets=assets, has_signals=site.has_signals,
                           current_section=_section(page), footer=site.footer(page.path))
    return html.encode("utf-8")


def _section(page: Page) -> str:
    if isinstance(page, ContentView):
        return page.path
    return SECTIONS.get(page.template, "")


@dataclass
class _SiteView:
    model: SiteModel
    has_signals: bool
    #: site.toml's `footer` (Markdown), rendered once per page depth.
    footer_text: str = ""
    _footers: dict[int, str] = field(default_factory=dict)

    def footer(self, page_path: str) -> Markup:
        """The footer's HTML for a page at this path (relative URLs climb to the root)."""
        if not self.footer_text:
            return Markup("")
        depth = page_path.count("/")
        if depth not in self._footers:
            self._footers[depth] = render_markdown(self.footer_text, allow_relative=True, prefix="../" * depth)
        return Markup(self._footers[depth])


def _absolute_linker(base_url: str):
    """Links for `404.html`, which a host serves at any depth: absolute from `base_url`."""
    base = base_url.rstrip("/") + "/"

    def url(to_path: str, fragment: str | None = None) -> str:
        check_output_path(to_path)
        return base + to_path + (f"#{fragment}" if fragment else "")

    return url


def _asset(templates_dirs: tuple[Path, ...], name: str) -> bytes:
    """`assets/<name>` along the template lookup order (a project may replace style.css)."""
    for folder in templates_dirs:
        if (folder / "assets" / name).is_file():
            return (folder / "assets" / name).read_bytes()
    raise FileNotFoundError(f"assets/{name} is in none of {', '.join(map(str, templates_dirs))}")


def _assets(files: SiteFiles, templates_dirs: tuple[Path, ...], cache_dir: Path | None, needs_charts: bool) -> Assets:
    css = _hashed(files, "style", "css", _asset(templates_dirs, "style.css"))
    js = _hashed(files, "site", "js", _asset(templates_dirs, "site.js"))
    charts = vega = ""
    if needs_charts:
        charts = _hashed(files, "charts", "js", specs_script(cache_dir))
        vega = _hashed(files, "vega", "js", vega_bundle(cache_dir))
    return Assets(css=css, js=js, charts=charts, vega=vega)


def _hashed(files: SiteFiles, stem: str, ext: str, data: bytes) -> str:
    path = f"assets/{stem}-{content_hash(data)}.{ext}"
    files.add(path, data)
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
