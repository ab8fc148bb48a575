"""GitHub Pages' limits: a site over 1 GB, or a file over 100 MB, is named in the build's
warnings with the part to blame; a site within both gets no warning.

The limits are parameters, so a small site stands in for a large one; the build's own
summary is checked once at the real limits (the default demo is far below both)."""

from __future__ import annotations

from pathlib import Path

from reasonboard.build import BuildOptions, run_build
from reasonboard.demo import write_demo
from reasonboard.site.hosting import FILE_LIMIT, SITE_LIMIT, pages_limits


def _site(root: Path, files: dict[str, int]) -> list[str]:
    for name, size in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"x" * size)
    return sorted(files)


def test_within_both_limits_no_warning(tmp_path: Path) -> None:
    paths = _site(tmp_path, {"index.html": 300, "data/leaderboard.json": 500})
    assert pages_limits(tmp_path, paths, site_limit=1000, file_limit=600) == []


def test_site_over_the_limit_names_the_samples_share(tmp_path: Path) -> None:
    paths = _site(tmp_path, {"index.html": 400_000, "data/samples/m/e.parquet": 700_000})
    [warning] = pages_limits(tmp_path, paths, site_limit=1_000_000, file_limit=10_000_000)
    assert warning == ("the site is 1.1 MB, over the 1.0 MB GitHub Pages publishes; 0.7 MB of it are the "
                       "per-sample outcomes (data/samples/), which publish_samples = false in site.toml leaves out")


def test_site_over_the_limit_without_samples_says_nothing_of_them(tmp_path: Path) -> None:
    paths = _site(tmp_path, {"index.html": 1_200_000})
    [warning] = pages_limits(tmp_path, paths, site_limit=1_000_000, file_limit=10_000_000)
    assert warning == "the site is 1.2 MB, over the 1.0 MB GitHub Pages publishes"
    assert "publish_samples" not in warning


def test_each_file_over_the_file_limit_is_named(tmp_path: Path) -> None:
    paths = _site(tmp_path, {"data/signals.json": 2_500_000, "data/leaderboard.json": 1_000_000, "a.html": 10})
    warnings = pages_limits(tmp_path, paths, site_limit=10_000_000, file_limit=2_000_000)
    assert len(warnings) == 1
    assert warnings[0].startswith("data/signals.json is 2.5 MB, over the 2.0 MB GitHub accepts for a file")


def test_the_demo_build_is_within_githubs_limits(tmp_path: Path) -> None:
    assert (SITE_LIMIT, FILE_LIMIT) == (1_000_000_000, 100_000_000)
    write_demo(tmp_path / "data")
    summary = run_build(BuildOptions(data_dir=tmp_path / "data", out_dir=tmp_path / "site",
                                     cache_dir=tmp_path / "cache"))
    assert not [w for w in summary.warnings if "GitHub" in w]
