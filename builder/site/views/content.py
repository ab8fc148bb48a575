"""Content pages (`content/*.md`) and the 404 page."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ...stats.bands import Bands
from ...stats.board import Settings
from .base import BandView, Page


@dataclass(frozen=True)
class ContentView(Page):
    html: str
    bands: tuple[tuple[str, tuple[BandView, ...]], ...]
    #: Sentences naming the settings this build ran under (the methodology page only).
    settings: tuple[str, ...] = ()


@dataclass(frozen=True)
class NotFoundPage(Page):
    pass


def band_table(bands: Bands) -> tuple[tuple[str, tuple[BandView, ...]], ...]:
    names = {"reasonscore": "ReasonScore", "score_per_token": "score/token", "ci_width": "Interval width (± points)"}
    return tuple((names.get(scale, scale), tuple(BandView.of_band(scale, b) for b in group))
                 for scale, group in bands.all().items())


def site_settings(settings: Settings, paired_draws: int, pairwise_top: int,
                  boards: Sequence[tuple[str, Sequence[str]]]) -> tuple[str, ...]:
    """The settings this build ran under, for the methodology page. Its text gives each
    formula with the defaults (`C_P`, 5,000 draws, seed 42, `min_samples` 20, 2,000 paired
    replicates) and is a content page a project may replace; a site built with other values
    must still say which it used, or the page describes a build that did not happen."""
    def task_list(tasks: Sequence[str]) -> str:
        return ", ".join(tasks) if tasks else "every task in the data"

    out = [f"Task scores: the {settings.mode} estimator.",
           f"ReasonScore intervals: {settings.bootstrap:,} bootstrap draws, seed {settings.seed}.",
           f"A task result on fewer than {settings.min_samples} samples is preliminary (no band, no rank); "
           f"two evaluations are compared on their shared items of a task when they share at least "
           f"{settings.min_samples}, with {paired_draws:,} paired bootstrap replicates (the effect's interval "
           f"always; the p-value where McNemar's exact test does not apply).",
           f"The pairwise page compares at most the {pairwise_top} best-ranked models."]
    if len(boards) <= 1:
        out.append(f"One board, the front page: {task_list(boards[0][1] if boards else settings.tasks)}.")
    else:
        out.append(f"{len(boards)} boards: " + "; ".join(
            f"{name}{' (the front page)' if n == 0 else ''}: {task_list(tasks)}"
            for n, (name, tasks) in enumerate(boards)) + ".")
    return tuple(out)
