"""The leaderboard's search index: every model's label and id -> its index page and slug.

A paginated leaderboard shows `page_size` rows per page, so the filter box alone would
only find models on the page in view. This index lets it find a model on any page
(issue 6). It is a classic script (`window.RB_SEARCH = {...}`), because `fetch()` of a
JSON file fails under `file://`; only the index pages load it, and it is the one file
that lists every model, so it stays compact: one short array per model, the model page
path rebuilt in the browser from a shared prefix. Without JavaScript the paginated table
and its pager still work; nothing depends on this file.
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
    for number, board in enumerate(boards):
        for row in (*board.ranked, *board.incomplete):
            if not (row.path.startswith(PREFIX) and row.path.endswith(SUFFIX)):
                raise ValueError(f"model page outside {PREFIX}: {row.path!r}")
            slug = row.path[len(PREFIX):-len(SUFFIX)]
            # [label, id, slug, index page number (0-based)]; the filter matches label and id.
            models.append([row.label, row.id, slug, number])
    index = {"prefix": PREFIX, "suffix": SUFFIX, "pages": [b.path for b in boards], "models": models}
    return f"window.RB_SEARCH = {script_json(index)};\n".encode("utf-8")
