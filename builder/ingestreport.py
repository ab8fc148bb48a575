"""What `reasonboard ingest` says (INGEST.md section 6): the line per input (model, template,
sampler, task, samples × epochs, replaced and partially credited trials), the summary, and
its warnings (few samples, one model's runs split into several samplers, fixture-looking
models); with `EvaluationInfo`, what the runs say of each evaluation for `evals.json`.
Separate from the command (ingest.py), which gathers the inputs and writes the files."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from .config import SiteConfig
from .sources.harness import Ignored
from .store.trials import Point, RunCounts

#: The default `min_samples` of site.toml (SAMPLES.md section 4), for ingest's warnings.
MIN_SAMPLES = SiteConfig().min_samples

@dataclass(frozen=True)
class RunLine:
    """What one run contributed: the line printed per input (INGEST.md section 6)."""

    path: Path
    format: str
    model: str
    template: str
    sampler: str
    task: str
    run_idx: int
    skip: str | None = None
    counts: RunCounts | None = None

    def render(self) -> str:
        evaluation = f"{self.model} / {self.template} / {self.sampler}"
        return f"{self.format:<9} {evaluation}, {self.task}: {self.amount()}  ({self.path.as_posix()})"

    def amount(self) -> str:
        """"100 samples × 1 epoch", with the trials a later input replaced and those with
        partial credit; or why the run was skipped."""
        if self.skip:
            return f"skipped: {self.skip}"
        c = self.counts
        if c is None or not c.trials:
            return "0 trials"
        if c.samples * c.epochs == c.trials:
            text = f"{_plural(c.samples, 'sample')} × {_plural(c.epochs, 'epoch')}"
        else:
            text = f"{_plural(c.trials, 'trial')} ({_plural(c.samples, 'sample')}, {_plural(c.epochs, 'epoch')}, " \
                   "not every sample in every epoch)"
        if c.replaced:
            text += f"; {c.replaced} replaced by a later input"
        if c.partial:
            text += f"; {c.partial} with partial credit (counted as not correct)"
        return text

    def few_samples(self, minimum: int) -> str | None:
        """The warning for a run whose task has fewer than `minimum` samples (SAMPLES.md
        section 4): its results will be preliminary."""
        if self.skip or self.counts is None or self.counts.samples >= minimum:
            return None
        samples = self.counts.samples
        return (f"{self.path.as_posix()}: task {self.task} has {_plural(samples, 'sample')}, "
                f"fewer than {minimum} (min_samples): its results will be preliminary, shown with their interval "
                "but never ranked or banded")


def _plural(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


@dataclass
class EvaluationInfo:
    """What the runs of one evaluation say about it, for its `evals.json` entry."""

    model: str
    template: str
    sampler: str
    harness: set[str] = field(default_factory=set)
    generation_args: dict[str, Any] = field(default_factory=dict)
    truncation_observed: bool = True
    tokens_observed: bool = True
    #: Per task, the harness's own headline figure (evals.json `harness_scores`): kept only
    #: when every run whose trials the task keeps records the same one (`ingest.py`).
    harness_scores: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: Each run's task and headline figure (None: its log records none), by run id.
    run_headlines: dict[int, tuple[str, tuple[str, float] | None]] = field(default_factory=dict)
    #: The tasks whose trials this ingest replaces (those with a kept trial).
    replaced_tasks: set[str] = field(default_factory=set)
    #: Tasks read this time, by whether the model generated its answers (a task scored by
    #: log-likelihood samples nothing: `evals.json`'s `likelihood_tasks`).
    sampled_tasks: set[str] = field(default_factory=set)
    likelihood_tasks: set[str] = field(default_factory=set)


@dataclass
class IngestResult:
    """Everything the summary of INGEST.md section 6 reports."""

    lines: list[RunLine] = field(default_factory=list)
    skipped_files: list[tuple[Path, str]] = field(default_factory=list)
    skipped_tasks: list[str] = field(default_factory=list)
    ignored: list[Ignored] = field(default_factory=list)
    counts: Counter[str] = field(default_factory=Counter)
    points: list[Point] = field(default_factory=list)
    evaluations: list[EvaluationInfo] = field(default_factory=list)
    replaced: int = 0
    written: list[Path] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def summary(self) -> str:
        tasks = {(p.model, p.template, p.sampler, p.base_task) for p in self.points}
        trials = sum(p.total for p in self.points)
        partial = sum(p.partial for p in self.points)
        lines = [
            (f"ingested {len(self.evaluations)} evaluations, {len(tasks)} (evaluation, task) pairs, "
             f"{len(self.points)} points, {trials} trials"),
            (f"samples left out: {self.counts['errors']} with errors, {self.counts['unscored']} unscored; "
             f"{partial} trials with partial credit counted as not correct"),
            f"replaced trials (the same trial in a later input): {self.replaced}",
        ]
        if self.skipped_files:
            by_reason = Counter(_reason_kind(r) for _, r in self.skipped_files)
            lines.append(f"skipped {len(self.skipped_files)} files ("
                         + ", ".join(f"{n} {k}" for k, n in sorted(by_reason.items())) + "):")
            lines += [f"  {p.as_posix()}: {r}" for p, r in self.skipped_files]
        if self.skipped_tasks:
            lines.append(f"skipped {len(self.skipped_tasks)} tasks:")
            lines += [f"  {t}" for t in self.skipped_tasks]
        if self.ignored:
            by_reason = Counter(i.reason for i in self.ignored)
            lines.append(f"ignored {len(self.ignored)} other files: "
                         + "; ".join(f"{n} {k}" for k, n in sorted(by_reason.items())))
        few = [w for w in (line.few_samples(MIN_SAMPLES) for line in self.lines) if w]
        lines += [f"warning: {w}" for w in few]
        lines += [f"warning: {w}" for w in self.warnings]
        if self.written:
            lines.append(f"wrote {len(self.written)} files")
        return "\n".join(lines)


#: Model names of harness test fixtures (mock and hard-coded models, dummies): not real evaluations.
FIXTURE = re.compile(r"(^|/)(mockllm|hardcoded)(/|$)|dummy", re.IGNORECASE)


def split_samplers(evaluations: Iterable[EvaluationInfo]) -> list[str]:
    """A warning per (model, template) whose runs recorded different generation settings, so
    ingest made one evaluation per sampler: right for several runs, wrong for one run whose
    logs disagree (the `--sampler` fix). A sampler holding only tasks scored by
    log-likelihood is named as such: those record no settings because they sample nothing."""
    samplers: dict[tuple[str, str], list[EvaluationInfo]] = {}
    for info in evaluations:
        samplers.setdefault((info.model, info.template), []).append(info)
    warnings = []
    for (model, template), infos in sorted(samplers.items()):
        if len(infos) < 2:
            continue
        unsampled = "; ".join(_likelihood_part(i) for i in sorted(infos, key=lambda i: i.sampler)
                              if i.likelihood_tasks - i.sampled_tasks)
        warnings.append(f"{model} (template {template}) became {len(infos)} evaluations, one per sampler "
                        f"({', '.join(sorted(i.sampler for i in infos))}), because its logs recorded different "
                        f"generation settings{f' ({unsampled})' if unsampled else ''}; "
                        "if they are one run, ingest its files again with --sampler NAME")
    return warnings


def _likelihood_part(info: EvaluationInfo) -> str:
    """What a sampler holding tasks scored by log-likelihood is: those tasks sample nothing,
    so they record no settings and land in whichever sampler the settings-free name makes;
    the generating tasks beside them (if any) are named with what they recorded."""
    likelihood = sorted(info.likelihood_tasks - info.sampled_tasks)
    verb = "samples" if len(likelihood) == 1 else "sample"
    said = f"{info.sampler}: {', '.join(likelihood)}, scored by log-likelihood, {verb} nothing"
    sampled = sorted(info.sampled_tasks - info.likelihood_tasks)
    if not sampled:
        return said
    recorded = ("no generation settings recorded" if not info.generation_args
                else "generation settings " + ", ".join(f"{k} {v}" for k, v in sorted(info.generation_args.items())))
    return f"{said}, beside {', '.join(sampled)}, generated with {recorded}"


def fixture_models(evaluations: Iterable[EvaluationInfo]) -> list[str]:
    """A warning per model whose name looks like a harness's test fixture."""
    models = sorted({info.model for info in evaluations if FIXTURE.search(info.model)})
    return [f"model {model} looks like a test fixture (mockllm/, hardcoded/, dummy), not a real evaluation: "
            "ingested; remove its files from the inputs to leave it out" for model in models]


def _reason_kind(reason: str) -> str:
    """The first words of a reason, to group skipped files in the summary."""
    return reason.split(" (")[0].split(":")[0]
