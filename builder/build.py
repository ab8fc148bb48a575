"""`reasonboard build`: sources → PointsDB → statistics and signals → page model → pages → writer.

After MkDocs' build: one readable function that first gathers everything, then writes.
Pages and data files are staged beside the site as they are made, and replace the previous
files only once every one is staged, so a failed build leaves the previous site untouched
(PRODUCT.md "Bad input, safety, nothing lost").
"""

from __future__ import annotations

import gc
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping

from .analysesoutputs import analyses_files
from .buildstate import build_key, clear_state, load_state, save_state, settings_key
from .compareoutputs import OutcomesReader, TaskOutcomes, compare_files
from .config import SiteConfig, load_config
from .errors import InputError
from .outputs import data_files
from .project import Project, resolve_project
from .results import BuildResults
from .sampleoutputs import samples_jobs, samples_keys
from .signals import Signals, compute_signals, own_results
from .site import publish
from .site.hosting import pages_limits
from .site.reuse import PageReuse
from .site.writer import Output, check_output_dir
from .sources.points import POINT_SUFFIXES, REQUIRED, describe_ignored
from .sources.releases import read_releases, releases_fingerprint
from .stats.bands import Bands, load_bands
from .stats.comparisons import with_comparisons
from .stats.history import basis_of, score_history
from .stats.leaderboard import LeaderboardResult, rank_board, read_board, with_analyses, with_curves
from .store.cache import Fingerprints, describe_ingest, fingerprints, open_store
from .store.parts import StoreReport
from .store.trialfiles import discover_trial_files

Progress = Callable[[str], None] | None


@dataclass(frozen=True)
class BuildOptions:
    """What the user asked for; `None` means "the project's own" (project.py)."""

    project: Path | None = None
    data_dir: Path | None = None
    out_dir: Path | None = None
    db_path: Path | None = None
    config_path: Path | None = None
    content_dir: Path | None = None
    cache_dir: Path | None = None
    strict: bool = False
    #: publish a site with no points instead of failing (an empty leaderboard in CI
    #: would otherwise replace the real one without anyone noticing)
    allow_empty: bool = False

    def resolve(self) -> Project:
        return resolve_project(self.project, data_dir=self.data_dir, out_dir=self.out_dir,
                               cache_dir=self.cache_dir, config_path=self.config_path,
                               content_dir=self.content_dir)


@dataclass
class BuildSummary:
    models: int = 0
    ranked: int = 0
    tasks: int = 0
    benchmarks: int = 0
    results: int = 0
    pages: int = 0
    files: int = 0
    seconds: float = 0.0
    #: the PointsDB parts ingested by this build ("points", "reported"; empty: cache reused)
    ingested: tuple[str, ...] = ()
    out_dir: str = ""
    timings: dict[str, float] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    changed: int = 0
    #: pages rendered, and pages kept as the previous build left them (site/reuse.py)
    rendered: int = 0
    kept: int = 0
    fresh: bool = True  # False when the output was already up to date

    FIGURES = ("models", "ranked", "tasks", "benchmarks", "results", "pages", "files")

    def recorded(self) -> dict[str, Any]:
        """What the build state keeps for a later build that finds nothing to do: the
        figures, and the warnings and skipped files, which stay true while the inputs do."""
        return {**{name: getattr(self, name) for name in self.FIGURES},
                "warnings": list(self.warnings), "skipped": [list(p) for p in self.skipped]}

    @classmethod
    def up_to_date(cls, recorded: dict[str, Any], out_dir: Path, seconds: float, timings: dict[str, float]) -> BuildSummary:
        known: dict[str, Any] = {k: int(v) for k, v in recorded.items() if k in cls.FIGURES}
        return cls(**known, seconds=seconds, out_dir=str(out_dir), timings=timings, fresh=False,
                   warnings=[str(w) for w in recorded.get("warnings", [])],
                   skipped=[(str(p), str(r)) for p, r in recorded.get("skipped", [])])

    def render(self) -> str:
        if not self.fresh:
            return "\n".join([
                f"{self.out_dir} is up to date: no input, template or setting changed since it was built "
                f"({self.pages} pages, {self.files} files; checked in {self.seconds:.2f} s)",
                *self._input_notes()])
        lines = [
            f"Built {self.out_dir}: {self.pages} pages, {self.files} files in {self.seconds:.2f} s "
            f"({self.changed} written, {self.files - self.changed} unchanged; "
            f"{self.rendered} pages rendered, {self.kept} kept)",
            f"  models {self.models} ({self.ranked} ranked), tasks {self.tasks}, "
            f"benchmarks {self.benchmarks}, reported results {self.results}",
            "  phases: " + ", ".join(f"{k} {v:.2f}s" for k, v in self.timings.items()),
            f"  PointsDB: {describe_ingest(self.ingested)}",
            *self._input_notes(),
        ]
        return "\n".join(lines)

    def _input_notes(self) -> list[str]:
        """Warnings and skipped files: repeated on every build until the inputs are fixed."""
        lines = [f"  warning: {w}" for w in self.warnings]
        if self.skipped:
            lines.append(f"  skipped {len(self.skipped)} malformed file(s) (--strict makes this an error):")
            lines += [f"    {path}: {reason}" for path, reason in self.skipped[:20]]
            if len(self.skipped) > 20:
                lines.append(f"    ... and {len(self.skipped) - 20} more")
        return lines


def run_build(options: BuildOptions, progress: Progress = None) -> BuildSummary:
    say = progress or (lambda line: None)
    timings: dict[str, float] = {}
    started = time.perf_counter()
    clock = [started]

    def phase(name: str) -> None:
        now = time.perf_counter()
        timings[name] = now - clock[0]
        clock[0] = now
        say(f"[{now - started:6.2f}s] {name} done")

    project, config, bands = load_settings(options)
    data_dir, out_dir, cache_dir = project.data_dir, project.out_dir, project.cache_dir
    check_output_dir(out_dir)  # before the slow steps, not after them
    sources = fingerprints(data_dir, cache_salt(config)) if data_dir.is_dir() else None
    settings = settings_key(config_path=project.config_path, content_dirs=project.with_demo_content().content_dirs,
                            templates_dirs=project.templates_dirs, static_dir=project.static_dir,
                            strict=options.strict, allow_empty=options.allow_empty)
    # The releases' pages and each model's history are made from the release snapshots.
    key = build_key(settings, sources=f"{sources.whole if sources else ''}\0{releases_fingerprint(project.root)}",
                    db_path=options.db_path)
    previous = load_state(cache_dir, out_dir)
    phase("config")
    if previous is not None and previous.key == key and previous.matches(out_dir):
        return BuildSummary.up_to_date(previous.summary, out_dir, time.perf_counter() - started, timings)
    releases = read_releases(project.root)  # a bad snapshot stops the build before the slow steps

    gathered = gather(options, project, config, bands, sources, phase)
    board, signals, store, config, project = (
        gathered.board, gathered.signals, gathered.store, gathered.config, gathered.project)
    scored = board.leaderboard.settings
    results = BuildResults(
        config=config,
        leaderboard=board.leaderboard, pairwise=board.pairwise, curves=board.curves, analyses=board.analyses,
        signals=signals, evaluations=board.evaluations, bands=bands, task_rankings=board.task_rankings,
        boards=board.boards, timings=timings, releases=releases,
        history=score_history(releases, board.leaderboard.models, basis_of(scored.mode, scored.tasks)),
        comparisons=board.comparisons,
    )
    # The state is cleared first, so an interrupted write can never leave a state that
    # vouches for a half-replaced site.
    clear_state(cache_dir, out_dir)
    reuse = PageReuse(out_dir, previous.files if previous is not None else {}, salt=settings)
    sample_keys = samples_keys(board.evaluations.values(), sources.point_files if sources else {},
                               config.publish_samples)

    def data() -> Iterator[tuple[str, Output]]:
        """The data files, sorted (the per-sample outcomes follow, in jobs of their own)."""
        files = {**data_files(board.leaderboard, board.pairwise, signals, board.comparisons),
                 **analyses_files(board.analyses, board.evaluations)}
        files.update(compare_files(board.leaderboard, board.evaluations, board.comparisons, gathered.outcomes, config,
                                    board.boards))
        for path in sorted(files):
            yield path, files.pop(path)

    # Each evaluation's per-sample outcomes, the previous build's file kept when its key is unchanged.
    samples = samples_jobs(project.data_dir, board.evaluations.values(), config.publish_samples,
                           keep=lambda path: reuse.keep(path, sample_keys[path]) if path in sample_keys else None)

    # The results (hundreds of thousands of objects, no cycles) live until the build ends:
    # frozen, the collector never walks them while the pages allocate millions of objects.
    gc.freeze()
    try:
        written = publish(results, project, data=[data, *samples], reuse=reuse)
    finally:
        gc.unfreeze()
    phase("render and write")

    models = board.leaderboard.models
    pages = sum(1 for p in written.paths if p.endswith(".html"))
    summary = BuildSummary(
        models=len(models), ranked=sum(1 for m in models if m.rank is not None),
        tasks=len(board.task_rankings),
        benchmarks=len(signals.benchmarks) if signals else 0,
        results=sum(1 for r in signals.rows if not r.own) if signals else 0,
        pages=pages, files=written.files,
        seconds=time.perf_counter() - started, ingested=store.ingested, out_dir=str(out_dir),
        timings=timings,
        warnings=[*store.warnings, *board.advice, *project.cache_warnings(), *pages_limits(out_dir, written.paths)],
        skipped=[tuple(p) for p in store.reported.get("problems", [])],
        changed=written.files - written.unchanged, rendered=reuse.rendered, kept=reuse.kept,
    )
    save_state(cache_dir, out_dir, key, written.paths, summary.recorded(), {**reuse.keys, **sample_keys})
    return summary


@dataclass(frozen=True)
class Gathered:
    """The computed results of a project, before any page exists: what `build` renders and
    `export` writes as records."""

    #: The site config with its task set made explicit (and the demo's defaults for demo data).
    config: SiteConfig
    #: The project, with the demo's content pages added for demo data.
    project: Project
    board: LeaderboardResult
    signals: Signals | None
    store: StoreReport
    #: Per task, the per-item outcomes the compare view reads (none without trials, or when
    #: per-sample outcomes are not published).
    outcomes: Mapping[str, TaskOutcomes] = field(default_factory=dict)


def load_settings(options: BuildOptions) -> tuple[Project, SiteConfig, Bands]:
    """The project, config and band wording a build of `options` uses."""
    project = options.resolve()
    config = load_config(project.config_path)
    project.check_branding(config)
    bands_path = project.find_content("bands.toml")
    assert bands_path is not None, "the package always ships content/bands.toml"
    return project, config, load_bands(bands_path)


def gather(options: BuildOptions, project: Project, config: SiteConfig, bands: Bands,
           sources: Fingerprints | None = None, phase: Callable[[str], None] = lambda name: None) -> Gathered:
    """Config -> PointsDB -> statistics -> signals: everything a build computes before it
    renders. `sources` are the data directory's fingerprints when the caller has them.

    The per-sample analyses read the sums the store keeps with each task's trials
    (store/trialsummary.py), summed again only when those trials change; everything else
    is computed on every build."""
    data_dir = project.data_dir
    db, store = open_store(data_dir, project.cache_dir, options.db_path, config, options.strict,
                           salt=cache_salt(config), known=sources)
    try:
        check_inputs(options, data_dir, store)
        phase("store")
        inputs = read_board(db, config)
        board = with_analyses(db, with_curves(db, rank_board(inputs, config, bands), config))
        phase("statistics")
        # Demo data (`reasonboard demo` marks it simulated) gets the demo's name and about
        # page, and its organisation names the board's own results; a lab's data never does.
        site_config, site_project = config, project
        if any(e.simulated for e in inputs.evaluations):
            site_config, site_project = config.with_demo_defaults(), project.with_demo_content()
        signals = compute_signals(db, site_config, own_results(inputs, site_config))
        phase("signals")
        # The compare view's outcomes are made from the trials the paired tests read, as read.
        reader = OutcomesReader(db, board.evaluations.values()) if config.publish_samples else None
        board = with_comparisons(db, board, config, reader)
        phase("paired comparisons")
        outcomes = reader.outcomes if reader is not None else {}
        phase("compare data")
    finally:
        db.close()
    return Gathered(site_config.with_tasks(board.leaderboard.settings.tasks), site_project, board, signals, store,
                    outcomes)


def cache_salt(config: SiteConfig) -> str:
    """What besides the files and the store's own code decides the reported part of the
    PointsDB: the alias tables (the store's code is in its key already)."""
    return repr((config.model_aliases, config.benchmark_aliases))


def check_inputs(options: BuildOptions, data_dir: Path, store: StoreReport) -> None:
    """Stop before anything is computed or written when the inputs would publish something
    false: no points at all (unless `--allow-empty`), or, with `--strict`, a malformed
    reported-results file or an evals.json entry that does not match the points."""
    if store.points == 0 and not options.allow_empty:
        raise empty_error(options, data_dir, store)
    if not options.strict:
        return
    if store.mismatches:
        first = store.mismatches[0]
        more = f" (and {len(store.mismatches) - 1} more)" if len(store.mismatches) > 1 else ""
        raise InputError(first.path, first.problem + more, line=first.line)
    if store.reported.get("problems"):
        path, reason = store.reported["problems"][0]
        raise InputError(path, reason)


def empty_error(options: BuildOptions, data_dir: Path, store: StoreReport) -> InputError:
    """Why there is nothing to publish, saying where the build looked and what it skipped."""
    advice = "; pass --allow-empty to publish an empty leaderboard anyway"
    if options.db_path is not None:
        return InputError(options.db_path, "the database holds no points" + advice)
    folder = data_dir / "points"
    # The store counts trials files among the files it read; they are named apart below.
    trials = len(discover_trial_files(data_dir))
    if not folder.is_dir():
        found = "the folder does not exist"
    elif store.ignored:
        found = f"ignored {describe_ignored([data_dir / p for p in store.ignored], data_dir)}"
    elif store.point_files > trials:
        found = f"{store.point_files - trials} points file(s) read, none with a data row"
    else:
        found = "the folder holds no files"
    # A lab that ran `reasonboard ingest` has trials files, not points files: both are named.
    there = f"{trials} found there, none with a trial" if trials else "none found there"
    return InputError(folder, f"no points to publish ({found}); reasonboard reads {', '.join(POINT_SUFFIXES)} files "
                              f"here with the columns {','.join(REQUIRED)}, and the trials files that reasonboard ingest "
                              f"writes under {(data_dir / 'trials').as_posix()}/ ({there}){advice}")
