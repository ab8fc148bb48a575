"""Relative URLs between output files, so the site works from `file://` (PRODUCT.md "Outputs").

Every link is computed from the depth of the page that contains it, as Pelican does:
a page at `models/x.html` reaches `tasks/y.html` through `../tasks/y.html`. No URL
starts with `/` (that would mean the file-system root under `file://`) and none ends
in `/` (a directory has no index page without a server).
"""

from __future__ import annotations

import posixpath
from functools import cache
from urllib.parse import quote

from ..slugs import is_safe_slug

SECTIONS = ("models", "tasks", "benchmarks")


def check_output_path(path: str) -> str:
    """Reject an output path that could escape the output directory or is not a file.

    Output paths are POSIX, relative, without `.`/`..` segments, empty segments or
    backslashes. Raises `ValueError`, which the writer turns into a failed build.
    """
    if not path or path.startswith("/") or path.endswith("/") or "\\" in path or "\x00" in path:
        raise ValueError(f"unsafe output path {path!r}")
    if any(part in ("", ".", "..") for part in path.split("/")):
        raise ValueError(f"unsafe output path {path!r}")
    return path


def page_path(section: str, slug: str, page: int = 1) -> str:
    """The output path of an entity page: `models/<slug>.html` (or `index-2.html` for page 2)."""
    if section == "index":
        return "index.html" if page == 1 else f"index-{page}.html"
    if section not in SECTIONS:
        raise ValueError(f"unknown section {section!r}")
    if not is_safe_slug(slug):
        raise ValueError(f"unsafe slug {slug!r}")
    return f"{section}/{slug}.html"


def board_path(slug: str, page: int = 1) -> str:
    """A board's page after the first board (which is the front page): `boards/<slug>.html`,
    `boards/<slug>-2.html` for its second page."""
    if not is_safe_slug(slug):
        raise ValueError(f"unsafe slug {slug!r}")
    return f"boards/{slug}.html" if page == 1 else f"boards/{slug}-{page}.html"


def matrix_path(page: int = 1) -> str:
    """The model × task matrix: `matrix.html`, `matrix-2.html`, ..."""
    return "matrix.html" if page == 1 else f"matrix-{page}.html"


def evaluation_page_path(slug: str) -> str:
    """The page of a leaderboard row from its `slug` (leaderboard.json): `models/<slug>.html`.

    The slug is a model slug (`aurora-70b`: the model has one evaluation, its page is the
    model's page) or a model slug and an evaluation slug (`aurora-70b/zerocot-greedy-8k`:
    one page per evaluation under the model's own, see `slugs.evaluation_slugs`). Each part
    must be a safe slug, so the path stays inside `models/`.
    """
    parts = slug.split("/")
    if len(parts) > 2 or not all(is_safe_slug(p) for p in parts):
        raise ValueError(f"unsafe slug {slug!r}")
    return f"models/{slug}.html"


def relative_url(from_path: str, to_path: str, fragment: str | None = None) -> str:
    """The URL that leads from the page at `from_path` to the file at `to_path`.

    Both are output paths (relative to the site root). A link to the page itself keeps its
    file name (`x.html#top`) rather than an empty URL, which some browsers treat as a reload.
    """
    check_output_path(from_path)
    return _from_dir(posixpath.dirname(from_path) or ".", to_path, fragment)


@cache
def _from_dir(start: str, to_path: str, fragment: str | None) -> str:
    """`relative_url` keyed by the page's directory, memoised.

    A site has a handful of page directories and one link target per entity, so a large
    build asks for the same (directory, target) pair many times (every model page links
    the same tasks); computing `relpath` and checking the target once per pair is what
    keeps link building out of the render profile. Results are pure functions of the
    arguments, so the cache cannot change any output.
    """
    check_output_path(to_path)
    url = quote(_relative(start, to_path), safe="/-._~")
    if fragment:
        url += "#" + quote(fragment, safe="-._~")
    return url


def _relative(start: str, to_path: str) -> str:
    """`posixpath.relpath(to_path, start)` for checked output paths, without its
    normalisation and absolute-path work (a large site asks for tens of thousands of
    distinct pairs: every benchmark row page is a directory of its own)."""
    if start == ".":
        return to_path
    up = start.split("/")
    parts = to_path.split("/")
    common = 0
    while common < len(up) and common < len(parts) - 1 and up[common] == parts[common]:
        common += 1
    return "../" * (len(up) - common) + "/".join(parts[common:])


class Linker:
    """`relative_url` bound to one page: what templates call as `url('tasks/x.html')`.

    The page path is checked once here; each link then costs one cache lookup.
    """

    def __init__(self, page: str):
        self.page = check_output_path(page)
        self.start = posixpath.dirname(page) or "."

    def __call__(self, to_path: str, fragment: str | None = None) -> str:
        return _from_dir(self.start, to_path, fragment)
