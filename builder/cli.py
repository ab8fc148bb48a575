"""The `reasonboard` command line: init, build, release, ingest, diff, demo, export, serve.

Commands that read a project work in the current directory or in `--project DIR`
(project.py); explicit paths (`--data`, `--out`, ...) are read as given, relative to the
current directory. Each command is a thin shell over one module; every `InputError` becomes a one-line
message naming the file, the row and the problem, and exit status 2 (as does an output
directory the build refuses to replace); so does an error of the system (a full disk, a
read-only folder, a permission), in any command.
"""

from __future__ import annotations

import errno
import os
import sys
from pathlib import Path
from typing import Any, Callable, NoReturn, TypeVar

import click

from . import interrupt
from .errors import InputError
from .names import printable
from .vocabulary import RELATIONSHIPS


class _Commands(click.Group):
    """The command group: an `OSError` (or DuckDB's, which is not one) from any command is
    one line naming the file and what to do, never a traceback; a Ctrl-C in any command is
    one line and exit status 130."""

    def invoke(self, ctx: click.Context) -> Any:
        import duckdb

        interrupt.install()
        try:
            return super().invoke(ctx)
        except (KeyboardInterrupt, RuntimeError, duckdb.Error) as exc:
            if not interrupt.is_interrupt(exc):
                if isinstance(exc, (duckdb.IOException, duckdb.PermissionException, duckdb.OutOfMemoryException)):
                    self._system_error(ctx, exc)
                raise
            click.echo(f"\n{interrupt.message(ctx.invoked_subcommand)}", err=True)
            sys.exit(interrupt.EXIT_INTERRUPTED)
        except OSError as exc:
            self._system_error(ctx, exc)

    @staticmethod
    def _system_error(ctx: click.Context, exc: BaseException) -> NoReturn:
        click.echo(f"error: {system_error(exc)}", err=True)
        if ctx.invoked_subcommand == "build":
            click.echo("The previous site is untouched.", err=True)
        sys.exit(2)


#: What to do about the usual system errors, by `errno`.
ADVICE = {errno.ENOSPC: "the disk is full: free some space and run it again",
          errno.EDQUOT: "the disk quota is used up: free some space and run it again",
          errno.EROFS: "a read-only file system: choose a writable folder (--out, --cache)",
          errno.EACCES: "permission denied: choose a folder you may write to, or fix its permissions",
          errno.EPERM: "not permitted: choose a folder you may write to, or fix its permissions",
          errno.EEXIST: "a file is where a folder must be made: move the file away",
          errno.ENOTDIR: "a file is where a folder is expected: move the file away"}


def system_error(exc: BaseException) -> str:
    """`exc` as one line: the file, the system's reason, the advice."""
    if isinstance(exc, OSError):
        where = f"{exc.filename}: " if exc.filename else ""
        advice = ADVICE.get(exc.errno or 0)
        return printable(f"{where}{exc.strerror or exc}" + (f" ({advice})" if advice else ""))
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    if type(exc).__name__ == "OutOfMemoryException":
        return printable(f"{text} (the PointsDB's queries need more memory than this machine lets them use: "
                         "build on a machine with more memory, or with fewer evaluations or trials)")
    known = next((a for e, a in ADVICE.items() if os.strerror(e) in text), None)
    return printable(text + (f" ({known})" if known else ""))


@click.group(cls=_Commands)
@click.version_option(package_name="reasonboard", prog_name="reasonboard")
def main() -> None:
    """Build an honest LLM leaderboard site: ReasonScores with confidence intervals,
    significance overlaps and Evaluation Card signals."""


PROJECT_OPTION = click.option(
    "--project", "project_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
    help="The leaderboard project directory (data/, content/, templates/, static/). Default: the current directory.")

Decorated = TypeVar("Decorated", bound=Callable[..., Any])


def input_options(cache_help: str) -> Callable[[Decorated], Decorated]:
    """`--project --data --db --config --cache`: where a command that reads a project's
    inputs finds them (`build`, `export eee`), declared once so they cannot drift apart."""
    options = (
        PROJECT_OPTION,
        click.option("--data", "data_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
                     help="Input directory: trials/, points/, evals.json, eee/, cards/. Default: PROJECT/data."),
        click.option("--db", "db_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
                     help="Use this PointsDB file instead of building one in the cache."),
        click.option("--config", "config_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
                     help="Site config (TOML). Default: PROJECT/content/site.toml when it exists, else built-in defaults."),
        click.option("--cache", "cache_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
                     help=cache_help),
    )

    def apply(command: Decorated) -> Decorated:
        for option in reversed(options):
            command = option(command)
        return command

    return apply


@main.command()
@input_options(cache_help="Where the PointsDB and build state live. Default: PROJECT/.reasonboard-cache.")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Output directory, replaced only when the whole build succeeds. Default: PROJECT/site.")
@click.option("--content", "content_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Content pages and band wording, looked up before the built-in ones. Default: PROJECT/content.")
@click.option("--strict", is_flag=True, help="Treat malformed EEE or card files, and evals.json entries that do not "
              "match the points, as errors, not warnings.")
@click.option("--allow-empty", is_flag=True, help="Publish a leaderboard with no points instead of failing.")
@click.option("--quiet", is_flag=True, help="No progress lines; the summary only.")
def build(project_dir: Path | None, data_dir: Path | None, out_dir: Path | None, db_path: Path | None,
          config_path: Path | None, content_dir: Path | None, cache_dir: Path | None, strict: bool,
          allow_empty: bool, quiet: bool) -> None:
    """Build the site of a leaderboard project."""
    from .build import BuildOptions, run_build
    from .site.writer import OutputPathError

    options = BuildOptions(
        project=project_dir, data_dir=data_dir, out_dir=out_dir, db_path=db_path, config_path=config_path,
        content_dir=content_dir, cache_dir=cache_dir, strict=strict, allow_empty=allow_empty,
    )
    progress = None if quiet else (lambda line: click.echo(line, err=True))
    try:
        summary = run_build(options, progress=progress)
    except (InputError, OutputPathError) as exc:
        click.echo(f"error: {exc}", err=True)  # an InputError's text is its message
        click.echo("Nothing was written; the previous site is untouched.", err=True)
        sys.exit(2)
    click.echo(summary.render())


@main.command()
@click.argument("name")
@click.option("--date", default=None, help="The release's date, YYYY-MM-DD. Default: SOURCE_DATE_EPOCH's date when set, "
              "else today.")
@input_options(cache_help="Where the PointsDB and build state live. Default: PROJECT/.reasonboard-cache.")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="The built site whose data files are released (built first). Default: PROJECT/site.")
@click.option("--quiet", is_flag=True, help="No progress lines; the summary only.")
def release(name: str, date: str | None, project_dir: Path | None, data_dir: Path | None, db_path: Path | None,
            config_path: Path | None, cache_dir: Path | None, out_dir: Path | None, quiet: bool) -> None:
    """Snapshot the current build's data files as release NAME in PROJECT/releases/NAME/.

    The site then shows the board as of each release at a permanent address, what changed
    since the previous release, and each model's score across releases. A release is never
    overwritten; commit its folder.
    """
    from .build import BuildOptions
    from .release import make_release
    from .site.writer import OutputPathError

    options = BuildOptions(project=project_dir, data_dir=data_dir, out_dir=out_dir, db_path=db_path,
                           config_path=config_path, cache_dir=cache_dir)
    progress = None if quiet else (lambda line: click.echo(line, err=True))
    try:
        released = make_release(options, name, date, progress=progress)
    except (InputError, OutputPathError) as exc:
        click.echo(f"error: {exc}", err=True)
        click.echo("No release was written.", err=True)
        sys.exit(2)
    click.echo(released.render())


@main.command()
@click.argument("directory", type=click.Path(file_okay=False, path_type=Path))
@click.option("--force", is_flag=True,
              help="Also scaffold into a non-empty directory; existing files are still never overwritten.")
def init(directory: Path, force: bool) -> None:
    """Write a new leaderboard project into DIRECTORY (see its README.md)."""
    from .newproject import ProjectExists, scaffold

    try:
        made = scaffold(directory, force=force)
    except ProjectExists as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)
    for path in made.kept:
        click.echo(f"kept {path} (exists; not overwritten)", err=True)
    click.echo(f"wrote {len(made.written)} files to {directory}; next: read {directory / 'README.md'}")


@main.command()
@click.option("--models", type=click.IntRange(min=1), default=16, show_default=True, help="How many models to simulate.")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Directory to write trials/ (one Parquet file per evaluation) and evals.json into.")
@click.option("--seed", type=int, default=0, show_default=True, help="Simulation seed.")
@click.option("--force", is_flag=True, help="Write into a directory that is not empty (replaces its evals.json).")
def demo(models: int, out_dir: Path, seed: int, force: bool) -> None:
    """Write a simulated (fictional) data directory that `build --data` accepts."""
    from .demo import write_demo

    try:
        written = write_demo(out_dir, models=models, seed=seed, force=force)
    except InputError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)
    click.echo(f"wrote {written.evaluations} trials files ({written.trials:,} trials in {written.points:,} points) "
               f"for {written.models} simulated models to {out_dir}")


@main.group()
def export() -> None:
    """Write the leaderboard's own results in formats other tools read."""


@export.command("eee")
@input_options(cache_help="Where the PointsDB lives. Default: PROJECT/.reasonboard-cache.")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), default=Path("eee-export"),
              show_default=True, help="Output directory (<source>/<developer>/<model>/<uuid>.json), replaced only "
                                      "when it holds nothing but an earlier export.")
@click.option("--strict", is_flag=True, help="Treat malformed EEE or card files as errors, not warnings.")
def export_eee(project_dir: Path | None, out_dir: Path, data_dir: Path | None, db_path: Path | None,
               config_path: Path | None, cache_dir: Path | None, strict: bool) -> None:
    """The leaderboard's own results as Every Eval Ever records (schema 0.3.0), one per
    evaluation, ready for a pull request to the shared corpus. SOURCE_DATE_EPOCH, when set,
    is their timestamp."""
    import os

    from . import __version__
    from .build import BuildOptions, gather, load_settings
    from .export.eee import eee_records, source_date_epoch
    from .export.writer import ExportPathError, check_export_dir, write_export

    options = BuildOptions(project=project_dir, data_dir=data_dir, db_path=db_path, config_path=config_path,
                           cache_dir=cache_dir, strict=strict)
    try:
        check_export_dir(out_dir)  # before the slow steps, not after them
        timestamp = source_date_epoch(os.environ.get("SOURCE_DATE_EPOCH"))
        project, config, bands = load_settings(options)
        gathered = gather(options, project, config, bands)
        board = gathered.board
        exported = eee_records(board.leaderboard, gathered.config, __version__, timestamp)
        write_export(exported.files(), out_dir)
    except (InputError, ExportPathError) as exc:
        click.echo(f"error: {exc}", err=True)
        click.echo("Nothing was written; the previous export is untouched.", err=True)
        sys.exit(2)
    click.echo(f"Exported {len(exported.records)} EEE records ({exported.results} results) to {out_dir}")
    for warning in exported.warnings:
        click.echo(f"  warning: {warning}")
    if exported.simulated:
        click.echo(f"  note: {exported.simulated} of them are simulated demo data: never contribute those")
    if exported.records:
        click.echo(f"  to contribute: copy {out_dir}/{exported.records[0].path.split('/')[0]}/ into the corpus's "
                   "data/ directory and open a pull request (see the README)")


@main.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@PROJECT_OPTION
@click.option("--data", "data_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Data directory to write trials/ and evals.json into. Default: PROJECT/data.")
@click.option("--model", default=None, help="Model name for every input (default: as the harness names it).")
@click.option("--template", default=None, help="Template name (default: from the harness, else 'default').")
@click.option("--sampler", default=None, help="Sampler name (default: from the recorded generation settings).")
@click.option("--organization", default=None, help="Organization written into the evals.json entries.")
@click.option("--relationship", type=click.Choice(RELATIONSHIPS), default=None,
              help="Relationship of the evaluator to the model, written into the evals.json entries.")
@click.option("--scorer", default=None, help="Scorer or metric to take credit from (default: the harness's primary one).")
@click.option("--params", "param_keys", default=None,
              help="Sample metadata keys that are difficulty coordinates, comma-separated. [default: level,difficulty]")
@click.option("--partial", is_flag=True, help="Read the samples of logs that did not finish (cancelled, error).")
@click.option("--strict", is_flag=True, help="Fail, writing nothing, when any input or task is skipped.")
def ingest(paths: tuple[Path, ...], project_dir: Path | None, data_dir: Path | None, model: str | None,
           template: str | None, sampler: str | None,
           organization: str | None, relationship: str | None, scorer: str | None, param_keys: str | None,
           partial: bool, strict: bool) -> None:
    """Turn per-sample harness outputs (Inspect AI, lm-evaluation-harness, HELM, lighteval,
    Every Eval Ever instance-level JSONL) into trials files (one Parquet file per
    evaluation, under DATA/trials/) and evals.json entries."""
    from .ingest import IngestOptions, run_ingest
    from .progress import DelayedBar
    from .project import resolve_project
    from .sources.trials import DEFAULT_PARAM_KEYS, ReadOptions

    keys = tuple(k.strip() for k in param_keys.split(",") if k.strip()) if param_keys is not None else DEFAULT_PARAM_KEYS
    from .config import load_config
    from .store.keys import PointAliases

    try:
        project = resolve_project(project_dir, data_dir=data_dir)
        config = load_config(project.config_path)
    except InputError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)
    options = IngestOptions(
        paths=paths, data_dir=project.data_dir, model=model, template=template, sampler=sampler,
        organization=organization, relationship=relationship, strict=strict,
        aliases=PointAliases.from_tables(config.model_aliases, config.benchmark_aliases),
        read=ReadOptions(scorer=scorer, params=keys, partial=partial),
    )
    bar = DelayedBar("ingesting")
    try:
        result = run_ingest(options, on_line=lambda line: bar.echo(line.render()), progress=bar.update)
    except InputError as exc:
        bar.close()
        click.echo(f"error: {exc}", err=True)
        click.echo("Nothing was written.", err=True)
        sys.exit(2)
    bar.close()
    click.echo(result.summary())


def _register_commands() -> None:
    """Commands that live in their own modules (diff, serve) join the group here."""
    from .diff.command import diff
    from .serve import serve

    main.add_command(diff)
    main.add_command(serve)


_register_commands()
