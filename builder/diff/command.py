"""`reasonboard diff BASE HEAD`: the score-change report between two builds (PRODUCT.md, CLI).

BASE and HEAD are built site directories (their `data/leaderboard.json` and
`data/signals.json` are read), the data files themselves (a `leaderboard.json`: its
`signals.json` is looked for beside it; a `signals.json`: likewise its `leaderboard.json`),
or the name of a release of the project (`PROJECT/releases/NAME/`, its compressed data
files; `latest` is the newest release), so a pull request can be compared with the
latest release.
A build without a signals file is compared on scores only and the report says so. A missing
or malformed leaderboard, or a malformed signals file, is a one-line error naming the file
and exit status 2, like every other bad input (PRODUCT.md, "Bad input").
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from ..atomic import write_atomically
from ..errors import InputError
from ..sources.limits import load_json
from ..sources.releases import FOLDER, SAMPLES, read_data, read_releases, release_dirs
from ..sources.text import read_text
from .compare import compare
from .markdown import render_markdown
from .report import SCHEMA
from .samples import paired_changes, site_samples

LEADERBOARD_SCHEMA = "reasonboard.leaderboard/"
SCORE_KEYS = ("center", "margin", "ci_low", "ci_high")
SIGNALS_SCHEMA = "reasonboard.signals/"

#: Exit status when `--fail-on-significant-drop` finds a drop (2 is reserved for bad input).
DROP_EXIT = 1

#: How `--output` knows a report it wrote before, which it replaces (a workflow reruns the
#: diff): the first line of the Markdown report, and the top-level schema line of the JSON
#: one (`json.dumps(..., indent=2)`). Any other existing file is left alone.
MARKDOWN_FIRST_LINE = "## Score changes: "
JSON_SCHEMA_LINE = f'  "schema": "{SCHEMA}"'


def _check_output(output: Path) -> None:
    """`--output` may name a new file or a report `reasonboard diff` wrote; anything else
    (`content/site.toml`, a user's notes, a folder, a link) is an error naming it, before the
    builds are read, and is left untouched."""
    if not os.path.lexists(output):
        return
    if not output.is_symlink() and output.is_file() and _is_report(output):
        return
    raise InputError(output, "exists and is not a report reasonboard diff wrote; it is left as it is "
                             "(name a new file with --output, or move this one away first)")


def _is_report(path: Path) -> bool:
    """Whether `path` begins like a report this command writes (read line by line: a large
    file is never held in memory, and a Markdown report is told by its first line)."""
    try:
        with path.open(encoding="utf-8", errors="replace", newline="") as fh:
            first = fh.readline(4096)
            if first.startswith(MARKDOWN_FIRST_LINE):
                return True
            if first.rstrip("\r\n") != "{":
                return False
            lines = iter(lambda: fh.readline(65536), "")
            return any(line.rstrip("\r\n").rstrip(",") == JSON_SCHEMA_LINE for line in lines)
    except OSError:
        return False


@dataclass(frozen=True)
class LoadedBuild:
    leaderboard: dict[str, Any]
    signals: dict[str, Any] | None
    #: "release NAME" when the side is a release, else None (the report names the path)
    name: str | None = None
    #: The folder of its per-sample outcomes (a site's `data/samples/`, a release's
    #: `samples/`), when it has one.
    samples: Path | None = None


def load_build(path: Path, project: Path | None = None) -> LoadedBuild:
    """Find and read one side's leaderboard and (optional) signals files: a path, or a
    release's name when no such path exists."""
    release = _release(path, Path() if project is None else project)
    if release is not None:
        leaderboard, signals = read_data(release)
        _check_leaderboard(leaderboard, release / "leaderboard.json.gz")
        if signals is not None:
            _check_signals(signals, release / "signals.json.gz")
        return LoadedBuild(dict(leaderboard), dict(signals) if signals is not None else None,
                           f"release {release.name}", release / SAMPLES)
    leaderboard_path, signals_path = _locate(path)
    leaderboard = _read_json(leaderboard_path)
    _check_leaderboard(leaderboard, leaderboard_path)
    signals = None
    if signals_path.is_file():
        signals = _read_json(signals_path)
        _check_signals(signals, signals_path)
    return LoadedBuild(leaderboard, signals, samples=site_samples(leaderboard_path.parent))


def _release(path: Path, project: Path) -> Path | None:
    """The snapshot folder of the release `path` names, when `path` is not a file or
    folder and the project has such a release (`latest`: the newest)."""
    name = str(path)
    if path.exists() or "/" in name or os.sep in name:
        return None
    if name == "latest":
        releases = read_releases(project)
        if not releases:
            raise InputError(project / FOLDER, "holds no release; `latest` names the newest release "
                                               "(make one with `reasonboard release NAME`)")
        return project / FOLDER / releases[-1].name
    if name in (d.name for d in release_dirs(project)):
        return project / FOLDER / name
    return None


def _locate(path: Path) -> tuple[Path, Path]:
    if path.is_dir():
        data = path / "data" if (path / "data" / "leaderboard.json").is_file() else path
        leaderboard = data / "leaderboard.json"
        if not leaderboard.is_file():
            raise InputError(path, "no data/leaderboard.json here; expected a built site directory "
                                   "(run `reasonboard build`) or a leaderboard.json file")
        return leaderboard, data / "signals.json"
    if not path.exists():
        raise InputError(path, "not found; expected a built site directory, a leaderboard.json file or the name "
                               "of a release in PROJECT/releases/")
    if path.name == "signals.json":
        return path.with_name("leaderboard.json"), path
    return path, path.with_name("signals.json")


def _read_json(path: Path) -> Any:
    raw = read_text(path)  # the one encoding rule of every text input
    try:
        return load_json(raw, path)
    except json.JSONDecodeError as exc:
        raise InputError(path, f"invalid JSON: {exc.msg}", line=exc.lineno) from None


def _check_leaderboard(doc: Any, path: Path) -> None:
    """The parts of the `leaderboard.json` contract (PRODUCT.md, "Outputs") the diff relies on."""
    if not isinstance(doc, dict) or not str(doc.get("schema", "")).startswith(LEADERBOARD_SCHEMA):
        raise InputError(path, f"not a reasonboard leaderboard (schema must start with '{LEADERBOARD_SCHEMA}')")
    models = doc.get("models")
    if not isinstance(models, list):
        raise InputError(path, "'models' must be a list")
    seen: set[str] = set()
    for index, model in enumerate(models, start=1):
        if not isinstance(model, dict) or not isinstance(model.get("id"), str):
            raise InputError(path, "model entry without a string 'id'", row=index)
        if model["id"] in seen:
            raise InputError(path, f"model id '{model['id']}' appears twice", row=index)
        seen.add(model["id"])
        score = model.get("reasonscore")
        values = [score.get(k) for k in SCORE_KEYS] if isinstance(score, dict) else [False]
        # All four numbers, or all four null (a model with none of the configured tasks).
        numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)
        if not (numeric or all(v is None for v in values)):
            raise InputError(path, f"model '{model['id']}' lacks numeric reasonscore center, margin, ci_low, ci_high",
                             row=index)
        for task, values in (model.get("tasks") or {}).items():
            if not isinstance(values, dict) or not all(
                    isinstance(values.get(k), (int, float)) for k in ("estimate", "low", "high")):
                raise InputError(path, f"model '{model['id']}' task '{task}' lacks numeric estimate, low, high",
                                 row=index)


def _check_signals(doc: Any, path: Path) -> None:
    """The parts of the `signals.json` contract (EVALCARDS.md section 8) the diff relies on."""
    if not isinstance(doc, dict) or not str(doc.get("schema", "")).startswith(SIGNALS_SCHEMA):
        raise InputError(path, f"not a reasonboard signals file (schema must start with '{SIGNALS_SCHEMA}')")
    for key, required in (("triples", ("model", "benchmark", "metric")), ("benchmarks", ("benchmark",))):
        entries = doc.get(key, [])
        if not isinstance(entries, list):
            raise InputError(path, f"'{key}' must be a list")
        for index, entry in enumerate(entries, start=1):
            if not isinstance(entry, dict) or not all(isinstance(entry.get(k), str) for k in required):
                raise InputError(path, f"'{key}' entry lacks {', '.join(required)}", row=index)


@click.command()
@click.argument("base", type=click.Path(path_type=Path))
@click.argument("head", type=click.Path(path_type=Path))
@click.option("--format", "output_format", type=click.Choice(["markdown", "json"]), default="markdown",
              show_default=True, help="Markdown for a job summary or PR comment, or the same content as JSON.")
@click.option("--output", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write the report to this file instead of stdout: a new file, or a report diff wrote "
                   "before (any other existing file is refused).")
@click.option("--fail-on-significant-drop", is_flag=True,
              help="Exit with status 1 when any model's ReasonScore dropped significantly.")
@click.option("--project", "project_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Where release names are looked up (PROJECT/releases/). Default: the current directory.")
def diff(base: Path, head: Path, output_format: str, output: Path | None, fail_on_significant_drop: bool,
         project_dir: Path | None) -> None:
    """Report score changes between two builds: site directories, leaderboard.json files or
    release names (`latest`: the newest release).

    A change is significant when the paired test on the items both builds' published
    per-sample outcomes share says so (after Holm over the report's tests), or, where either
    build has no per-sample outcomes or the two score differently (another estimator or other
    board tasks), when the old and new ReasonScore intervals do not overlap.
    """
    try:
        if output is not None:
            _check_output(output)  # before the builds are read, not after
        old, new = load_build(base, project_dir), load_build(head, project_dir)
        paired = paired_changes(old.samples, new.samples, old.leaderboard, new.leaderboard)
    except InputError as exc:
        click.echo(f"error: {exc.message}", err=True)
        sys.exit(2)
    report = compare(old.leaderboard, new.leaderboard, old.signals, new.signals,
                     base_name=old.name or str(base), head_name=new.name or str(head), paired=paired)
    if output_format == "json":
        rendered = json.dumps(report.to_dict(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    else:
        rendered = render_markdown(report)
    if output is None:
        click.echo(rendered, nl=False)
    else:
        try:
            _check_output(output)  # again: it may have appeared while the builds were read
            write_atomically(output, rendered.encode("utf-8"))
        except InputError as exc:
            click.echo(f"error: {exc.message}", err=True)
            sys.exit(2)
        except OSError as exc:
            click.echo(f"error: {output}: cannot be written ({exc.strerror}); choose another --output", err=True)
            sys.exit(2)
    if fail_on_significant_drop and report.has_significant_drop:
        drops = report.summary()["significant_drops"]
        click.echo(f"{drops} model(s) dropped significantly", err=True)
        sys.exit(DROP_EXIT)
