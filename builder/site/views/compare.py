"""The compare page (PRODUCT.md "Boards", "Compare"): `compare.html?a=ID&b=ID` compares any
two evaluations in the reader's browser, from the data files `compareoutputs.py` writes (the
page loads them with `<script src>`, so it works opened from disk). The page itself is the
same for every pair: the rules it applies, and the place the script fills in."""

from __future__ import annotations

from dataclasses import dataclass

from ...compareoutputs import FOLDER
from ...config import SiteConfig
from .base import Page

PATH = "compare.html"


@dataclass(frozen=True)
class ComparePage(Page):
    """The settings the page's sentences name; the figures come from the data files."""

    index: str
    mode: str
    min_samples: int
    draws: int
    published: bool
    #: The site has several boards: the page says which one the overall score is on.
    boards: bool = False


def compare_page(config: SiteConfig, mode: str, simulated: bool, boards: int = 1) -> ComparePage:
    return ComparePage(
        path=PATH, title="Compare two evaluations", template="compare.html", simulated=simulated,
        description="Any two evaluations compared task by task and overall, paired on the items both answered",
        index=f"{FOLDER}/index.js", mode=mode, min_samples=config.min_samples, draws=config.paired_draws,
        published=config.publish_samples, boards=boards > 1)
