"""The leaderboard's search index: every model's label and id -> its page's slug.

A paginated leaderboard shows `page_size` rows per page, so the filter box alone would
only find models on the page in view. This index lets it find a model on any page
(a site of thousands of models stays small per page). It is a classic script (`window.RB_SEARCH = {...}`), because `fetch()` of a
JSON file fails under `file://`; only the index pages load it, and it is the one file
that lists every model, so it stays compact: one short array per model, the model page
path rebuilt in the browser from a shared prefix. Without JavaScript the paginated table
and its pager still work; nothing depends on this file.

It holds nothing a score decides (no rank, no position, no index page number), and lists
the models by label: a score change leaves it, its hashed name, and so every index page
that loads it, byte for byte as they were (a one-model change rewrote all the
index pages for their link to a renamed index). A match links to the model's page, which
links to the index page holding its row.
"""

from __future__ import annotations

from typing import Iterable

from .charts import script_json
from .views.base import Deferred, Page
from .views.leaderboard import LeaderboardPage

PREFIX = "models/"
SUFFIX = ".html"


def search_script(pages: Iterable[Page | Deferred]) -> bytes | None:
    """`assets/search-<hash>.js`, or None when the leaderboard fits on one page (the filter
    then sees every row already)."""
    boards = [p for p in pages if isinstance(p, LeaderboardPage)]
    if len(boards) < 2:
        return None
    models = []
    for board in boards:
        for row in (*board.ranked, *board.incomplete):
            if not (row.path.startswith(PREFIX) and row.path.endswith(SUFFIX)):
                raise ValueError(f"model page outside {PREFIX}: {row.path!r}")
            # [label, id, slug]; the filter matches label and id.
            models.append([row.label, row.id, row.path[len(PREFIX):-len(SUFFIX)]])
    index = {"prefix": PREFIX, "suffix": SUFFIX, "models": sorted(models)}
    return f"window.RB_SEARCH = {script_json(index)};\n".encode()
