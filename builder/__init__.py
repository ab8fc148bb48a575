"""reasonboard: a static-site report generator for honestly published LLM leaderboards.

The package follows the build pipeline, one sub-package per stage:

    sources  ->  store (PointsDB)  ->  stats / signals  ->  site (page model, charts,
    rendering, writer)  ->  diff (score-change report between two builds)

`build.py` wires the stages together; `cli.py` is the command-line face. In the
repository the package lives in `builder/`, its templates in `templates/` and its
built-in content in `content/`; `pyproject.toml` maps all three into the one installed
package `reasonboard` (see `resources.py`).
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("reasonboard")
except PackageNotFoundError:  # run from a source tree that was never installed
    __version__ = "0+unknown"

from .resources import CONTENT_DIR, TEMPLATES_DIR

__all__ = ["CONTENT_DIR", "TEMPLATES_DIR", "__version__"]
