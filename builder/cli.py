"""The `reasonboard` command line: build, ingest, diff, demo, serve.

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
@click.option("--strict", is_flag=True, help="Treat malformed EEE or card files as errors, not warnings.")
@click.option("--quiet", is_flag=True, help="No progress lines; the summary only.")
def build(data_dir: Path, out_dir: Path, db_path: Path | None, config_path: Path | None,
          content_dir: Path | None, cache_dir: Path, strict: bool, quiet: bool) -> None:
    """Build the site from the data directory."""
    from .build import BuildOptions, run_build
    from .site.writer import OutputPathError

    options = BuildOptions(
        data_dir=data_dir, out_dir=out_dir, db_path=db_path, config_path=config_path,
        content_dir=content_dir, cache_dir=cache_dir, strict=strict,
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
def demo(models: int, out_dir: Path, seed: int) -> None:
    """Write a simulated (fictional) data directory that `build --data` accepts."""
    from .demo import write_demo

    written = write_demo(out_dir, models=models, seed=seed)
    click.echo(f"wrote {written.points} points for {written.models} simulated models to {out_dir}")


@main.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--data", "data_dir", type=click.Path(file_okay=False, path_type=Path), default=Path("data"),
              show_default=True, help="Data directory to write points/ingested/ and evals.json into.")
@click.option("--model", default=None, help="Model name for every input (default: as the harness names it).")
@click.option("--template", default=None, help="Template name (default: from the harness, else 'default').")
@click.option("--sampler", default=None, help="Sampler name (default: from the recorded generation settings).")
@click.option("--organization", default=None, help="Organization written into the evals.json entries.")
@click.option("--relationship", type=click.Choice(["first_party", "third_party", "collaborative"]), default=None,
              help="Relationship of the evaluator to the model, written into the evals.json entries.")
@click.option("--scorer", default=None, help="Scorer or metric to take credit from (default: the harness's primary one).")
@click.option("--params", "param_keys", default=None,
              help="Sample metadata keys that are difficulty coordinates, comma-separated. [default: level,difficulty]")
@click.option("--partial", is_flag=True, help="Read the samples of logs that did not finish (cancelled, error).")
@click.option("--strict", is_flag=True, help="Fail, writing nothing, when any input or task is skipped.")
def ingest(paths: tuple[Path, ...], data_dir: Path, model: str | None, template: str | None, sampler: str | None,
           organization: str | None, relationship: str | None, scorer: str | None, param_keys: str | None,
           partial: bool, strict: bool) -> None:
    """Turn per-sample harness outputs (Inspect AI, lm-evaluation-harness, HELM, lighteval,
    Every Eval Ever instance-level JSONL) into points files and evals.json entries."""
    from .ingest import IngestOptions, run_ingest
    from .progress import DelayedBar
    from .sources.trials import DEFAULT_PARAM_KEYS, ReadOptions

    keys = tuple(k.strip() for k in param_keys.split(",") if k.strip()) if param_keys is not None else DEFAULT_PARAM_KEYS
    options = IngestOptions(
        paths=paths, data_dir=data_dir, model=model, template=template, sampler=sampler,
        organization=organization, relationship=relationship, strict=strict,
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
