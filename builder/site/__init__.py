"""The site stage: page model, charts, rendering and the one writer.

    results --build_page_model--> SiteModel --templates--> path -> bytes --write_site--> site/

`render_site` returns every output file in memory; `write_site` puts them on disk all at
once (temporary directory, then a swap), so a failed build leaves the old site in place.
"""

from .render import render_site
from .writer import write_site

__all__ = ["render_site", "write_site"]
