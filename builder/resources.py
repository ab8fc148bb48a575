"""Where the files that ship inside the package are: templates, built-in content, SQL.

They are located through `importlib.resources`, never through paths relative to the
checkout or the current directory, so a wheel installed anywhere finds them. In the
repository they live at the top (`templates/`, `content/`) and `pyproject.toml` maps them
to the sub-packages `reasonboard.templates` and `reasonboard.content`; an editable
install maps them the same way.
"""

from __future__ import annotations

import hashlib
from functools import cache
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
#: The package's own code: what `code_digest` hashes.
PACKAGE_DIR = package_dir("reasonboard")


@cache
def code_digest(*folders: str) -> str:
    """A digest of the package's code and SQL (the `.py` and `.sql` files below `folders` of
    the package, recursively; all of it when none are named), by path and content. The
    build's state, the PointsDB cache and the memos are each keyed on it, so an upgrade never
    reuses what other code made. Computed once per process, before the build forks, so no
    forked process reads the files again."""
    roots = [PACKAGE_DIR / folder for folder in folders] if folders else [PACKAGE_DIR]
    h = hashlib.sha256()
    for path in sorted({p for root in roots for suffix in ("*.py", "*.sql") for p in root.rglob(suffix)}):
        h.update(path.relative_to(PACKAGE_DIR).as_posix().encode())
        h.update(b"\0")
        h.update(hashlib.sha256(path.read_bytes()).digest())
    return h.hexdigest()
