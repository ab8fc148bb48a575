"""Content pages (`content/*.md`) and the 404 page."""

from __future__ import annotations

from dataclasses import dataclass

from ...stats.bands import Bands
from .base import BandView, Page


@dataclass(frozen=True)
class ContentView(Page):
    html: str
    bands: tuple[tuple[str, tuple[BandView, ...]], ...]


@dataclass(frozen=True)
class NotFoundPage(Page):
    pass


def band_table(bands: Bands) -> tuple[tuple[str, tuple[BandView, ...]], ...]:
    names = {"reasonscore": "ReasonScore", "score_per_token": "score/token", "ci_width": "Interval width (± points)"}
    return tuple((names.get(scale, scale), tuple(BandView.of_band(scale, b) for b in group))
                 for scale, group in bands.all().items())
