"""Shared fixtures: builds made once per test session.

`default_build` runs the real `reasonboard build` pipeline on the repository's default data
into a temporary directory and also keeps the `BuildResults` the pages were rendered from,
so tests can compare what a page shows with the numbers behind it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Built:
    """A finished build: its output directory and the results its pages were made from."""

    out: Path
    results: Any
    #: The content lookup order the build used (project, package, demo pages for demo data).
    content_dir: tuple[Path, ...]


def build_site(data_dir: Path, out_dir: Path, cache_dir: Path) -> Built:
    """Run the whole build, capturing the `BuildResults` handed to the renderer."""
    import reasonboard.build as build

    captured: dict[str, Any] = {}
    render = build.render_site

    def capture(results, content_dir, templates_dir, *args, **kwargs):
        captured["results"], captured["content"] = results, content_dir
        return render(results, content_dir, templates_dir, *args, **kwargs)

    mp = pytest.MonkeyPatch()
    mp.setattr(build, "render_site", capture)
    try:
        build.run_build(build.BuildOptions(data_dir=data_dir, out_dir=out_dir, cache_dir=cache_dir,
                                           content_dir=ROOT / "content"))
    finally:
        mp.undo()
    return Built(out_dir, captured["results"], tuple(captured["content"]))


@pytest.fixture(scope="session")
def default_build(tmp_path_factory: pytest.TempPathFactory) -> Built:
    base = tmp_path_factory.mktemp("default-build")
    return build_site(ROOT / "data", base / "site", base / "cache")
