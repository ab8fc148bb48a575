"""Where the files that ship inside the package are: templates, built-in content, SQL.

They are located through `importlib.resources`, never through paths relative to the
checkout or the current directory, so a wheel installed anywhere finds them. In the
repository they live at the top (`templates/`, `content/`) and `pyproject.toml` maps them
to the sub-packages `reasonboard.templates` and `reasonboard.content`; an editable
install maps them the same way.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path


def package_dir(package: str) -> Path:
    """The directory of an installed (unzipped) package, as a real path for Jinja's loader."""
    root = files(package)
    path = Path(str(root))
    if not path.is_dir():  # a zip import: reasonboard is always installed unpacked
        raise RuntimeError(f"package data of {package} is not on the file system: {root}")
    return path


TEMPLATES_DIR = package_dir("reasonboard.templates")
CONTENT_DIR = package_dir("reasonboard.content")
#: Pages that belong to the demo data only (its about page): added when the data is simulated.
DEMO_CONTENT_DIR = CONTENT_DIR / "demo"
#: The files `reasonboard init` writes into a new project (scaffold.py).
SCAFFOLD_DIR = package_dir("reasonboard") / "scaffold"
