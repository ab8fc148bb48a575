"""reasonboard: a static-site report generator for honestly published LLM leaderboards.

The package follows the build pipeline, one sub-package per stage:

    sources  ->  store (PointsDB)  ->  stats / signals  ->  site (page model, charts,
    rendering, writer)  ->  diff (score-change report between two builds)

`build.py` wires the stages together; `cli.py` is the command-line face.
"""

from pathlib import Path

__version__ = "0.1.0"

#: The repository root when installed in editable mode (``pip install -e .``): the
#: templates, default content and default data live beside the package, as the design
#: card lays them out.
PROJECT_ROOT = Path(__file__).resolve().parent.parent
TEMPLATES_DIR = PROJECT_ROOT / "templates"
CONTENT_DIR = PROJECT_ROOT / "content"
