"""The site stage: page model, charts, rendering and the one writer.

    results --plan_page_model--> SiteModel --templates--> path -> bytes --writer--> site/

A build enters the stage through `publish` (render, add the data and static files, write
all or nothing). `iter_site` gives the output files one at a time, and the writer takes them
as they come (staged beside the site, renamed into place only when all are staged), so the
site is never held in memory whole and a failed build leaves the old site in place;
`render_site` returns them all in memory (tests, benchmarks).
"""

from .publishing import publish
from .render import iter_site, render_site
from .writer import write_site

__all__ = ["iter_site", "publish", "render_site", "write_site"]
