"""What a build hands the site: the typed results of the statistics and the signals, with
the settings they were made under. The site's page model reads this and nothing else, and
`outputs` writes the data files from the same objects, so the pages and the published JSON
cannot disagree.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .config import SiteConfig
from .signals import Signals
from .stats.bands import Bands


@dataclass(frozen=True)
class BuildResults:
    """Everything the pages are made from: the page model reads this and nothing else."""

    config: SiteConfig
    leaderboard: dict[str, Any]
    pairwise: dict[str, Any]
    curves: dict[str, Any]
    signals: Signals | None
    evaluations: dict[str, dict[str, Any]]
    bands: Bands
    timings: dict[str, float] = field(default_factory=dict)
