"""What a build hands the site: the typed results of the statistics and the signals, with
the settings they were made under. The site's page model reads this and nothing else, and
`outputs` writes the data files from the same objects, so the pages and the published JSON
cannot disagree.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

from .config import SiteConfig
from .signals import Signals
from .sources.releases import ReleaseSnapshot
from .stats.analyses import NONE, Analyses
from .stats.bands import Bands
from .stats.board import Curves, Leaderboard, Pairwise, RankedBoard
from .stats.evaluations import Evaluation
from .stats.history import HistoryPoint
from .stats.taskranks import TaskRanking
from .stats.verdicts import Comparisons


@dataclass(frozen=True)
class BuildResults:
    """Everything the pages are made from: the page model reads this and nothing else."""

    config: SiteConfig
    leaderboard: Leaderboard
    pairwise: Pairwise
    curves: Curves
    signals: Signals | None
    #: The evaluations by id: their identity and evals.json facts.
    evaluations: Mapping[str, Evaluation]
    bands: Bands
    #: Each task's own ranking of the evaluations (the task pages).
    task_rankings: Mapping[str, TaskRanking]
    #: Every board (PRODUCT.md "Boards"), the first being `leaderboard`'s.
    boards: tuple[RankedBoard, ...] = ()
    timings: dict[str, float] = field(default_factory=dict)
    #: The paired comparisons on shared items (empty without trials).
    comparisons: Comparisons = field(default_factory=Comparisons)
    #: The project's releases, oldest first (PRODUCT.md "Releases and history").
    releases: tuple[ReleaseSnapshot, ...] = ()
    #: Each evaluation's score across the releases and this build (`stats.history`).
    history: Mapping[str, tuple[HistoryPoint, ...]] = field(default_factory=dict)
    #: The per-sample analyses (compression, token hazard, budget sweep) of evaluations with trials.
    analyses: Analyses = NONE
