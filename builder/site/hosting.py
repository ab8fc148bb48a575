"""GitHub Pages' size limits, checked on the site a build wrote.

The workflows `reasonboard init` writes publish to GitHub Pages, which publishes a site of
at most 1 GB, and GitHub refuses a file over 100 MB in a repository (a `gh-pages` branch).
A lab should learn that from the build that crosses a limit, with the file or the part to
blame and what to change, not from a deploy that fails or a notice from GitHub weeks later.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable

#: The largest site GitHub Pages publishes, in bytes.
SITE_LIMIT = 1_000_000_000
#: The largest file GitHub accepts in a repository, in bytes.
FILE_LIMIT = 100_000_000
#: Where the per-sample outcomes are published (SAMPLES.md section 5); `publish_samples`
#: in site.toml leaves them out.
SAMPLES_PREFIX = "data/samples/"


def _mb(size: int) -> str:
    return f"{size / 1_000_000:,.1f} MB"


def pages_limits(out_dir: Path, paths: Iterable[str], site_limit: int = SITE_LIMIT,
                 file_limit: int = FILE_LIMIT) -> list[str]:
    """Warnings for a site in `out_dir` (its files `paths`) over GitHub Pages' limits: the
    total, naming the per-sample outcomes' share when they are part of it, and each file
    over the file limit, by name. Empty when the site is within both."""
    sizes = {p: (out_dir / p).stat().st_size for p in paths}
    warnings = [f"{path} is {_mb(size)}, over the {_mb(file_limit)} GitHub accepts for a file in a repository: "
                "a site committed to a branch cannot hold it (the workflows reasonboard init writes deploy "
                "the site without committing it)"
                for path, size in sorted(sizes.items()) if size > file_limit]
    total = sum(sizes.values())
    if total > site_limit:
        samples = sum(size for p, size in sizes.items() if p.startswith(SAMPLES_PREFIX))
        share = (f"; {_mb(samples)} of it are the per-sample outcomes ({SAMPLES_PREFIX}), which "
                 "publish_samples = false in site.toml leaves out" if samples else "")
        warnings.append(f"the site is {_mb(total)}, over the {_mb(site_limit)} GitHub Pages publishes{share}")
    return warnings
