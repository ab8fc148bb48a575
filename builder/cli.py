"""The `reasonboard` command line: build, diff, demo, serve.

Each command is a thin shell over one module; every `InputError` becomes a one-line
message naming the file, the row and the problem, and exit status 2 (as does an output
directory the build refuses to replace).
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from .errors import InputError


@click.group()
@click.version_option(package_name="reasonboard")
def main() -> None:
    """Build an honest LLM leaderboard site: ReasonScores with confidence intervals,
    significance overlaps and Evaluation Card signals."""


@main.command()
@click.option("--data", "data_dir", type=click.Path(file_okay=False, path_type=Path), default=Path("data"),
              show_default=True, help="Input directory: points/, evals.json, eee/, cards/.")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), default=Path("site"),
              show_default=True, help="Output directory, replaced only when the whole build succeeds.")
@click.option("--db", "db_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Use this PointsDB file instead of building one in the cache.")
@click.option("--config", "config_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Site config (TOML). Default: content/site.toml when it exists.")
@click.option("--content", "content_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Content pages and band wording. Default: ./content, else the built-in content.")
@click.option("--cache", "cache_dir", type=click.Path(file_okay=False, path_type=Path),
              default=Path(".reasonboard-cache"), show_default=True, help="Where the PointsDB and build state live.")
@click.option("--strict", is_flag=True, help="Treat malformed EEE or card files, and evals.json entries that do not "
              "match the points, as errors, not warnings.")
@click.option("--allow-empty", is_flag=True, help="Publish a leaderboard with no points instead of failing.")
@click.option("--quiet", is_flag=True, help="No progress lines; the summary only.")
def build(data_dir: Path, out_dir: Path, db_path: Path | None, config_path: Path | None,
          content_dir: Path | None, cache_dir: Path, strict: bool, allow_empty: bool, quiet: bool) -> None:
    """Build the site from the data directory."""
    from .build import BuildOptions, run_build
    from .site.writer import OutputPathError

    options = BuildOptions(
        data_dir=data_dir, out_dir=out_dir, db_path=db_path, config_path=config_path,
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
@click.option("--models", type=click.IntRange(min=1), default=16, show_default=True, help="How many models to simulate.")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Directory to write points/ and evals.json into.")
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
    click.echo(f"wrote {written.points} points for {written.models} simulated models to {out_dir}")


def _register_commands() -> None:
    """Commands that live in their own modules (diff, serve) join the group here."""
    from .diff.command import diff
    from .serve import serve

    main.add_command(diff)
    main.add_command(serve)


_register_commands()
