"""The one writer: no path twice, nothing outside the output, all or nothing (PRODUCT.md "safety")."""

import os
from pathlib import Path

import pytest
from click.testing import CliRunner
from reasonboard.cli import main
from reasonboard.site.writer import OutputPathError, SiteFiles, write_site

ROOT = Path(__file__).resolve().parent.parent


def test_a_path_claimed_twice_is_an_error():
    files = SiteFiles()
    files.add("models/a.html", b"1")
    with pytest.raises(OutputPathError, match="two outputs"):
        files.add("models/a.html", b"2")
    with pytest.raises(OutputPathError, match="case"):
        files.add("Models/A.html", b"3")
    with pytest.raises(OutputPathError, match="file and as a directory"):
        files.add("models/a.html/b.html", b"4")
    with pytest.raises(OutputPathError, match="unsafe"):
        files.add("../escape.html", b"5")


def test_writes_everything_and_replaces_the_previous_build(tmp_path: Path):
    out = tmp_path / "site"
    write_site({"index.html": b"one", "models/a.html": b"a", ".nojekyll": b""}, out)
    write_site({"index.html": b"two", ".nojekyll": b""}, out)
    assert (out / "index.html").read_bytes() == b"two"
    assert not (out / "models").exists()  # stale pages do not survive a rebuild
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]  # no temporary leftovers


def test_a_failed_write_leaves_the_previous_site_untouched(tmp_path: Path, monkeypatch):
    out = tmp_path / "site"
    write_site({"index.html": b"old", ".nojekyll": b""}, out)
    with pytest.raises(OutputPathError):
        write_site({"index.html": b"new", "a/../../x": b""}, out)
    assert (out / "index.html").read_bytes() == b"old"

    real_write = Path.write_bytes
    calls = []

    def failing_write(self, data):
        calls.append(self.name)
        if len(calls) == 2:
            raise OSError("disk full")
        return real_write(self, data)

    monkeypatch.setattr(Path, "write_bytes", failing_write)
    with pytest.raises(OSError, match="disk full"):
        write_site({"index.html": b"new", "models/a.html": b"a", ".nojekyll": b""}, out)
    monkeypatch.undo()
    assert (out / "index.html").read_bytes() == b"old"
    assert not (out / "models").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]


def test_refuses_to_replace_a_directory_that_is_not_a_site(tmp_path: Path):
    home = tmp_path / "home"
    home.mkdir()
    (home / "thesis.tex").write_text("precious")
    with pytest.raises(OutputPathError, match="refusing"):
        write_site({"index.html": b"x", ".nojekyll": b""}, home)
    assert (home / "thesis.tex").read_text() == "precious"


def test_the_build_command_refuses_a_bad_output_before_any_work(tmp_path: Path):
    """One line naming the directory, exit 2, and nothing done (no PointsDB ingested).
    (An output path that is a file is refused by the option itself, also with exit 2.)"""
    out = tmp_path / "home"
    out.mkdir()
    (out / "thesis.tex").write_text("precious")
    cache = tmp_path / "cache"
    result = CliRunner().invoke(main, ["build", "--data", str(ROOT / "data"), "--out", str(out),
                                       "--cache", str(cache), "--quiet"])
    assert result.exit_code == 2
    assert result.output.splitlines()[0] == (
        f"error: refusing to replace {out}: it does not look like a reasonboard site (no .nojekyll; contains 'thesis.tex')")
    assert "Traceback" not in result.output
    assert not cache.exists()
    assert (out / "thesis.tex").read_text() == "precious"


def test_keeps_the_checkout_readme(tmp_path: Path):
    out = tmp_path / "site"
    out.mkdir()
    (out / "README.md").write_text("build output lands here")
    write_site({"index.html": b"x", ".nojekyll": b""}, out)
    assert (out / "README.md").read_text() == "build output lands here"


def test_incremental_mode_keeps_unchanged_files_and_their_times(tmp_path: Path):
    out = tmp_path / "site"
    write_site({"a.html": b"same", "b.html": b"old", ".nojekyll": b""}, out)
    os.utime(out / "a.html", (1_000_000, 1_000_000))
    report = write_site({"a.html": b"same", "b.html": b"new", ".nojekyll": b""}, out, incremental=True)
    assert report.unchanged == 2  # a.html and .nojekyll
    assert (out / "a.html").stat().st_mtime == 1_000_000
    assert (out / "b.html").read_bytes() == b"new"


def test_a_rebuild_removes_exactly_what_the_new_site_no_longer_has(tmp_path: Path):
    """Stale files at every depth go, folders left empty go (deepest first), a folder that
    still holds a claimed file stays, and only the top-level README is the checkout's."""
    out = tmp_path / "site"
    first = {"index.html": b"i", ".nojekyll": b"", "models/a.html": b"a", "models/b.html": b"b",
             "models/x/y/z.html": b"z", "tasks/t.html": b"t", "data/README.md": b"generated"}
    write_site(first, out)
    (out / "README.md").write_text("the checkout's")
    (out / "models" / "stray-link.html").symlink_to(out / "models" / "a.html")
    write_site({"index.html": b"i", ".nojekyll": b"", "models/a.html": b"a", "tasks/t.html": b"t2"}, out)
    left = sorted(p.relative_to(out).as_posix() for p in out.rglob("*"))
    assert left == [".nojekyll", "README.md", "index.html", "models", "models/a.html", "tasks", "tasks/t.html"]
