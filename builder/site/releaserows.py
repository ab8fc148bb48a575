"""The rows of a release's board page as HTML, straight from the snapshot's columns.

Fifty releases of 2,500 evaluations are 125,000 rows a build writes (PRODUCT.md "Releases
and history" and the scale target of at most a fifth more build time): made as a Jinja loop
over one view object per row, they took longer than the rest of the build. Each row here is
one format of already escaped texts; the table's markup is `release.html`'s, and every text
from the snapshot is escaped.
"""

from __future__ import annotations

from html import escape
from typing import Callable

from markupsafe import Markup

from ..sources.releases import ReleaseBoard
from . import format as fmt
from .views.releases import model_link

_TIE = {True: '<span class="tie tie-yes" title="statistically tied with the next row">≈ tied</span>',
        False: '<span class="tie tie-no" title="statistically distinct from the next row">distinct</span>',
        None: ""}


def release_rows(board: ReleaseBoard, labels: dict[str, str], url: Callable[..., str], ranked: bool) -> Markup:
    """`<tr>` of each ranked (or each unranked) evaluation of `board`, in its order: rank
    (range), tie with the next row, model (linked to its page), ReasonScore ± half-width with
    [low, high], band (`labels`: band key -> label)."""
    out = []
    for i in range(len(board)):
        rank = board.rank[i]
        if (rank is not None) != ranked:
            continue
        label = escape(board.labels[i])
        path = model_link(board.slugs[i])
        name = f'<a href="{escape(url(path))}">{label}</a>' if path else label
        center, margin, low, high = board.center[i], board.margin[i], board.ci_low[i], board.ci_high[i]
        if center is None or margin is None or low is None or high is None:
            score = fmt.MISSING
        else:
            score = (f'{center:.1f} ± {margin:.1f}<div class="iv-range">[{low:.1f}, {high:.1f}]</div>')
        band = board.band[i]
        band_html = (f'<div><span class="band band-reasonscore-{escape(band)}">{escape(labels.get(band, band))}'
                     '</span></div>' if band else "")
        if ranked:
            best, worst = board.rank_range[i] or (rank, rank)
            rank_text = str(rank) if best == worst else f"{rank} ({best}–{worst})"
            tie = board.distinct_from_next[i]
            out.append(f'<tr><td class="num nowrap rankcell">{rank_text}</td>'
                       f'<td class="tiecell">{_TIE[None if tie is None else not tie]}</td>'
                       f'<th scope="row">{name}</th><td class="num">{score}{band_html}</td></tr>\n')
        else:
            missing = board.missing_tasks[i]
            if missing:
                note = f' <span class="meta">missing {escape(", ".join(missing))}</span>'
            elif board.complete[i]:
                # Every task, yet unranked: a task on fewer than `min_samples` samples (the
                # snapshot does not say which); with nothing said, it read as missing a task.
                note = ' <span class="meta">preliminary: a task on too few samples</span>'
            else:
                note = ""
            out.append(f'<tr><td class="num nowrap rankcell">*</td><td class="tiecell"></td>'
                       f'<th scope="row">{name}{note}</th><td class="num">{score}</td></tr>\n')
    return Markup("".join(out))
