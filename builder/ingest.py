"""`reasonboard ingest`: per-sample harness outputs into trials files and `evals.json`
entries (INGEST.md; SAMPLES.md section 1; PRODUCT.md, CLI).

The command first gathers everything, then writes (the MkDocs shape): the registry
finds the inputs, each reader streams its trials into the `TrialStore` (DuckDB), the
store resolves duplicates and sums them into points (for the summary), and only then are
the trials files (one Parquet file per evaluation under `trials/`) and the merged
`evals.json` written, each to a temporary file that replaces its target once all are
ready. With `--strict` any skipped input or task stops the command before that step,
so nothing is written. The build derives the points from the trials files.

Re-ingesting the same files writes the same bytes: trials files are named from their
identity with their rows sorted, `evals.json` keeps the user's entries in their order and
appends new ones in sorted order.
"""

from __future__ import annotations

import json
import os
import re
import stat
import tempfile
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable

import duckdb
import msgspec

from .atomic import write_files_atomically
from .errors import InputError
from .ingestreport import (
    EvaluationInfo,
    IngestResult,
    RunLine,
    fixture_models,
    split_samplers,
)
from .sources.harness import Input, discover
from .sources.limits import load_json, too_deep
from .sources.text import read_text
from .sources.trials import Evaluation, ReadOptions, UnreadableInput
from .store import trialfiles
from .store.keys import PointAliases
from .store.trials import Summed, TrialStore
from .vocabulary import RELATIONSHIPS

#: What a reader may raise on a malformed file besides `UnreadableInput`: reported with the
#: file's path and skipped, never a traceback.
READ_ERRORS = (UnreadableInput, OSError, ValueError, KeyError, TypeError, IndexError, msgspec.MsgspecError,
               RecursionError)


@dataclass(frozen=True)
class IngestOptions:
    """The command line of `reasonboard ingest`."""

    paths: tuple[Path, ...]
    data_dir: Path = Path("data")
    model: str | None = None
    template: str | None = None
    sampler: str | None = None
    organization: str | None = None
    relationship: str | None = None
    read: ReadOptions = field(default_factory=ReadOptions)
    strict: bool = False
    #: The project's `[aliases]` (site.toml), applied to every run's model and task.
    aliases: PointAliases = field(default_factory=PointAliases)


#: What ingest reads, for the error when a path holds none of it (section 6).
READS = ("ingest reads Inspect AI logs (.eval, or .json with eval and samples), lm-evaluation-harness "
         "samples_*.jsonl beside their results_*.json, HELM run directories (run_spec.json, "
         "per_instance_stats.json, scenario_state.json), lighteval details .parquet and Every Eval Ever "
         "instance-level .jsonl")
Progress = Callable[[int, int, Path], None]


def run_ingest(options: IngestOptions, on_line: Callable[[RunLine], None] | None = None,
               progress: Progress | None = None) -> IngestResult:
    """Read, sum, check, then write. Raises `InputError` under `--strict` when anything was skipped."""
    if options.relationship is not None and options.relationship not in RELATIONSHIPS:
        raise InputError(None, f"--relationship must be one of {', '.join(RELATIONSHIPS)}")
    inputs, ignored = discover(list(options.paths))
    if not inputs:
        raise InputError(", ".join(p.as_posix() for p in options.paths), f"no harness output found ({READS})")
    named = {p.resolve() for p in options.paths}
    result = IngestResult(ignored=[i for i in ignored if i.path.resolve() not in named])
    result.skipped_files += [(i.path, i.reason) for i in ignored if i.path.resolve() in named]
    store = TrialStore()
    files: dict[Path, Path] = {}
    try:
        try:
            evaluations = _read_all(store, inputs, options, result, on_line, progress)
            summed = store.sum()
            _observe_tokens(store, evaluations)
            _harness_scores(summed, evaluations)
            _collect(summed, evaluations, result)
            if options.strict and (result.skipped_files or result.skipped_tasks):
                first = result.skipped_files[0] if result.skipped_files else (None, result.skipped_tasks[0])
                raise InputError(first[0], f"{first[1]} (--strict: nothing was written; "
                                           f"{len(result.skipped_files)} files and {len(result.skipped_tasks)} tasks skipped)")
            remove_stale_temporaries(options.data_dir)
            trial_files(store, options.data_dir, result.evaluations, files)
        finally:
            store.close()
        result.lines = [replace(line, counts=summed.runs.get(line.run_idx)) for line in result.lines]
        if on_line:
            for line in result.lines:
                on_line(line)
        result.warnings = split_samplers(result.evaluations) + fixture_models(result.evaluations)
        result.written = write_outputs(options, files, result.evaluations)
    finally:
        _discard(files)  # what a failure left staged: no temporary file stays behind
    return result


def _read_all(store: TrialStore, inputs: list[Input], options: IngestOptions, result: IngestResult,
              on_line: Callable[[RunLine], None] | None, progress: Progress | None) -> dict[tuple[str, str, str], EvaluationInfo]:
    evaluations: dict[tuple[str, str, str], EvaluationInfo] = {}
    for index, item in enumerate(inputs):
        if progress:
            progress(index, len(inputs), item.path)
        run_ids: list[int] = []
        lines: list[RunLine] = []
        try:
            for run in item.reader.read(item.path, options.read):
                evaluation = _override(run.evaluation, options)
                run_idx = store.add_run(index, evaluation.model, evaluation.template, evaluation.sampler,
                                        evaluation.task, evaluation.metric)
                run_ids.append(run_idx)
                if not run.skip:
                    store.add_trials(run_idx, run.trials)
                if run.skip:
                    store.skip_run(run_idx)
                    result.skipped_tasks.append(f"{run.skip} ({item.path.as_posix()})")
                else:
                    result.counts.update(run.counts)
                    _note_evaluation(evaluations, evaluation, run_idx)
                lines.append(RunLine(item.path, item.format, evaluation.model, evaluation.template,
                                     evaluation.sampler, evaluation.task, run_idx, run.skip))
        except READ_ERRORS as exc:
            for run_idx in run_ids:
                store.skip_run(run_idx)
            reason = (str(exc) if isinstance(exc, UnreadableInput)
                      else too_deep(item.path).problem if isinstance(exc, RecursionError)
                      else f"unreadable ({type(exc).__name__}: {exc})")
            result.skipped_files.append((item.path, reason))
            continue
        result.lines += lines
    if progress:
        progress(len(inputs), len(inputs), Path())
    return evaluations


def _override(evaluation: Evaluation, options: IngestOptions) -> Evaluation:
    """`--model`, `--template`, `--sampler` replace what the harness recorded (section 4), and
    the project's aliases rename models and tasks, so one run read under two names (a log
    and its conversion) is one evaluation whose trials share one file."""
    changes = {k: v.strip() for k in ("model", "template", "sampler")
               if (v := getattr(options, k)) is not None and v.strip()}
    evaluation = replace(evaluation, **changes) if changes else evaluation
    model, task = options.aliases.model(evaluation.model), options.aliases.task(evaluation.task)
    return evaluation if (model, task) == (evaluation.model, evaluation.task) else replace(evaluation, model=model, task=task)


def _note_evaluation(evaluations: dict[tuple[str, str, str], EvaluationInfo], evaluation: Evaluation,
                     run_idx: int) -> None:
    key = (evaluation.model, evaluation.template, evaluation.sampler)
    info = evaluations.setdefault(key, EvaluationInfo(*key))
    info.harness.add(" ".join(x for x in (evaluation.harness, evaluation.harness_version) if x))
    for k, v in evaluation.generation_args.items():
        info.generation_args.setdefault(k, v)
    # One run that cannot tell is enough: the page must not claim "0 truncated" for it.
    info.truncation_observed &= evaluation.truncation_observed
    info.tokens_observed &= evaluation.tokens_observed
    info.run_headlines[run_idx] = (evaluation.task, evaluation.headline)
    (info.sampled_tasks if evaluation.sampled else info.likelihood_tasks).add(evaluation.task)


def _harness_scores(summed: Summed, evaluations: dict[tuple[str, str, str], EvaluationInfo]) -> None:
    """Each task's headline figure, from the runs whose trials it keeps (after `sum`). A task
    read from several logs has one result over all their kept trials: one log's figure
    describes it only when every one of those logs records the same figure. A run whose
    trials a later input replaced, or that kept none, has no say."""
    for info in evaluations.values():
        figures: dict[str, set[tuple[str, float] | None]] = {}
        for run_idx, (task, headline) in sorted(info.run_headlines.items()):
            counts = summed.runs.get(run_idx)
            if counts is not None and counts.trials > counts.replaced:
                figures.setdefault(task, set()).add(headline)
        info.replaced_tasks = set(figures)
        info.harness_scores = {task: {"metric": agreed[0], "value": agreed[1]}
                               for task, found in sorted(figures.items())
                               if len(found) == 1 and (agreed := next(iter(found))) is not None}


def _observe_tokens(store: TrialStore, evaluations: dict[tuple[str, str, str], EvaluationInfo]) -> None:
    """An evaluation none of whose trials recorded tokens did not observe them, whatever its harness can do."""
    for model, template, sampler, recorded in store.tokens_recorded():
        info = evaluations.get((model, template, sampler))
        if info is not None and not recorded:
            info.tokens_observed = False


def _collect(summed: Summed, evaluations: dict[tuple[str, str, str], EvaluationInfo], result: IngestResult) -> None:
    result.points = summed.points
    result.replaced = summed.replaced
    result.skipped_tasks += [n.message for n in summed.no_credit]
    with_points = {(p.model, p.template, p.sampler) for p in summed.points}
    result.evaluations = [evaluations[k] for k in sorted(evaluations) if k in with_points]


# -- the writer --------------------------------------------------------------------------


#: The temporary names ingest stages its files under, in the folders it writes (`mkstemp`
#: with prefix `.NAME.` and suffix `.tmp`, here and in atomic.py: eight characters of
#: `[a-z0-9_]` between): a trials file's in `data/trials/`, `evals.json`'s in `data/`.
_MKSTEMP = r"\.[a-z0-9_]{8}\.tmp"
TEMPORARIES = {
    trialfiles.TRIALS_DIR: re.compile(rf"\.[^/]+{re.escape(trialfiles.SUFFIX)}{_MKSTEMP}"),
    "": re.compile(rf"\.evals\.json{_MKSTEMP}"),
}
#: A temporary file untouched this long is a killed ingest's, not one another ingest is
#: writing now (an ingest stages its files only in its last few minutes).
STALE_AFTER = 3600.0


def remove_stale_temporaries(data_dir: Path, now: float | None = None) -> list[Path]:
    """Remove what a killed ingest left: regular files named exactly like ingest's own
    temporary files, in the folders it writes, not modified for `STALE_AFTER` seconds.
    Nothing else is touched (a user's `.notes.tmp` stays)."""
    now = time.time() if now is None else now
    removed = []
    for sub, pattern in TEMPORARIES.items():
        folder = data_dir / sub if sub else data_dir
        try:
            paths = list(folder.iterdir())
        except OSError:
            continue
        for path in paths:
            if not pattern.fullmatch(path.name):
                continue
            try:
                info = path.lstat()
                if stat.S_ISREG(info.st_mode) and now - info.st_mtime > STALE_AFTER:
                    path.unlink()
                    removed.append(path)
            except OSError:
                continue
    return removed


def trial_files(store: TrialStore, data_dir: Path, evaluations: list[EvaluationInfo], staged: dict[Path, Path]) -> None:
    """Each evaluation's trials file (SAMPLES.md section 1), written to a temporary file
    beside its target and recorded in `staged` (target: temporary file) to be moved into
    place with the rest. They are staged on disk, not held as bytes, so the memory of an
    ingest does not grow with its trials. An evaluation's file from an earlier ingest keeps
    the trials of tasks not read this time."""
    for info in evaluations:
        name = trialfiles.trials_file_name(info.model, info.template, info.sampler)
        target = data_dir / trialfiles.TRIALS_DIR / name
        earlier = target if target.is_file() else None
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, temporary = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=target.parent)
        os.close(fd)
        staged[target] = Path(temporary)
        try:
            store.write_evaluation(info.model, info.template, info.sampler, Path(temporary), earlier)
        except duckdb.Error as exc:
            raise InputError(target, f"cannot add to this trials file ({str(exc).strip().splitlines()[0]}); "
                                     "move it away and ingest all of the evaluation's logs again") from None


def _discard(staged: dict[Path, Path]) -> None:
    for temporary in staged.values():
        temporary.unlink(missing_ok=True)


def write_outputs(options: IngestOptions, files: dict[Path, Path], evaluations: list[EvaluationInfo]) -> list[Path]:
    """Move every staged trials file into place and write the merged `evals.json`: all
    prepared first, then each moved into place, so a failure leaves no half-written file."""
    outputs: dict[Path, bytes | Path] = dict(files)
    if evaluations:
        evals_path = options.data_dir / "evals.json"
        outputs[evals_path] = merged_evals(evals_path, evaluations, options)
    write_files_atomically(outputs)
    return sorted(outputs)


def merged_evals(path: Path, evaluations: list[EvaluationInfo], options: IngestOptions) -> bytes:
    """The user's `evals.json` with ingest's entries added or updated.

    Every key and entry the user wrote is kept; a label is never overwritten; an existing
    `generation_args` keeps its values and only gains keys; `observed` is ingest's (a
    fact of the files), and so is `likelihood_tasks` for the tasks read now (those of an
    earlier ingest are kept), and `harness_scores` for the tasks whose trials this ingest
    replaces (a figure of the replaced trials goes with them); new entries are appended in
    sorted order.
    """
    document: Any = []
    if path.exists() or path.is_symlink():
        try:
            document = load_json(read_text(path, options.data_dir), path)
        except json.JSONDecodeError as exc:
            raise InputError(path, f"cannot merge into it: {exc}") from None
    entries = document["evaluations"] if isinstance(document, dict) else document
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise InputError(path, "cannot merge into it: not a list of evaluation objects")
    index = {(e.get("model"), e.get("template"), e.get("sampler")): e for e in entries}
    for info in evaluations:
        entry = index.get((info.model, info.template, info.sampler))
        if entry is None:
            entry = {"model": info.model, "template": info.template, "sampler": info.sampler}
            entries.append(entry)
        entry.setdefault("label", info.model)
        written = entry.get("generation_args")
        entry["generation_args"] = {**info.generation_args, **(written if isinstance(written, dict) else {})}
        if info.harness:
            entry.setdefault("harness", "; ".join(sorted(info.harness)))
        entry["observed"] = {"truncation": info.truncation_observed, "tokens": info.tokens_observed}
        written_scores = entry.get("harness_scores")
        if isinstance(written_scores, dict) or info.harness_scores:
            # A task whose trials this ingest replaces takes its figure from the logs that
            # replace them, or loses it when they record none or disagree: the old figure
            # described the old trials. Other tasks keep what was written.
            scores = {task: v for task, v in (written_scores.items() if isinstance(written_scores, dict) else ())
                      if task not in info.replaced_tasks}
            scores.update(info.harness_scores)
            if scores:
                entry["harness_scores"] = dict(sorted(scores.items()))
            else:
                entry.pop("harness_scores", None)
        earlier = entry.get("likelihood_tasks")
        kept = {t for t in earlier if isinstance(t, str)} if isinstance(earlier, list) else set()
        likelihood = sorted((kept - info.sampled_tasks) | (info.likelihood_tasks - info.sampled_tasks))
        if likelihood:
            entry["likelihood_tasks"] = likelihood
        else:
            entry.pop("likelihood_tasks", None)
        if options.organization:
            entry["organization"] = options.organization
        if options.relationship:
            entry["relationship"] = options.relationship
    return (json.dumps(document, indent=2, ensure_ascii=False, sort_keys=False) + "\n").encode("utf-8")
