"""A checkout someone else wrote (PRODUCT.md, "Untrusted checkouts"): links that lead out of
the project are never followed. Each attack as a hostile pull request would plant it, then
the build: a one-line error naming the link and its target, nothing published (the site of
the last build is left byte for byte), and the secret it aimed at in no output file.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from helpers_lab import build, cli, error_line, make_lab, snapshot
from reasonboard.confined import NotConfined, open_confined, read_confined

SECRET = "AUTHORIZATION: basic c2VjcmV0LXRva2Vu"


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, Path]:
    """A lab project built once, with a `.git/config` holding the job's auth header (where
    actions/checkout leaves it) and a secret file outside the project."""
    root = tmp_path_factory.mktemp("untrusted")
    lab = make_lab(root / "lab")
    (lab / ".git").mkdir()
    (lab / ".git" / "config").write_text(f'[http]\n\textraheader = {SECRET}\n', encoding="utf-8")
    (root / "outside.txt").write_text(SECRET + "\n", encoding="utf-8")
    cache = root / "cache"
    result = build(lab, cache)
    assert result.exit_code == 0, result.output
    return lab, cache


def plant(tmp_path: Path, built: tuple[Path, Path], link: str, target: str) -> tuple[Path, Path, dict[str, bytes]]:
    lab, cache = built
    copy = tmp_path / "lab"
    shutil.copytree(lab, copy, symlinks=True)
    shutil.copy(lab.parent / "outside.txt", tmp_path / "outside.txt")
    (copy / link).unlink(missing_ok=True)
    (copy / link).parent.mkdir(parents=True, exist_ok=True)
    os.symlink(target, copy / link)
    return copy, cache, snapshot(copy / "site")


ATTACKS = [
    ("static/notes.txt", "../.git/config"),
    ("static/env.txt", "/proc/self/environ"),
    ("content/x.md", "/etc/passwd"),
    ("content/about.md", "../../outside.txt"),
    ("data/cards/benchmark_card_stolen.json", "../../../outside.txt"),
    ("data/eee/record.json", "/etc/passwd"),
    ("data/points/results.csv", "../../../outside.txt"),
    ("data/points/more.parquet", "../../../outside.txt"),
    ("data/evals.json", "../../outside.txt"),
    ("content/site.toml", "../../outside.txt"),
    ("templates/model.html", "../../outside.txt"),
    ("templates/assets/style.css", "../../../outside.txt"),
]


@pytest.mark.parametrize("link,target", ATTACKS, ids=[a[0] for a in ATTACKS])
def test_a_link_out_of_the_project_is_a_one_line_error_and_publishes_nothing(tmp_path, built, link, target):
    project, cache, before = plant(tmp_path, built, link, target)
    result = build(project, cache)
    message = error_line(result)
    assert link.split("/")[-1] in message and target in message and "outside" in message, message
    assert snapshot(project / "site") == before  # the last site, byte for byte
    assert not any(SECRET.encode() in body for body in before.values())
    assert not list(project.glob(".site.new-*"))


def _project_copy(tmp_path: Path, built: tuple[Path, Path]) -> tuple[Path, dict[str, bytes]]:
    """A copy of the built lab (its links kept as links) and its site's files, to compare
    with after a refused build."""
    project = tmp_path / "lab"
    shutil.copytree(built[0], project, symlinks=True)
    return project, snapshot(project / "site")


@pytest.mark.parametrize("folder", ["static", "content", "templates", "data"])
def test_a_project_folder_that_links_out_of_the_project_is_refused(tmp_path, built, folder):
    """A pull request replacing a whole folder by a link to one elsewhere on the machine:
    each file in it was inside "its folder", so `static -> /home/runner/.config` published
    every file there (and `content ->` every page). Now a one-line error naming the link."""
    _, cache = built
    project, before = _project_copy(tmp_path, built)
    elsewhere = tmp_path / "elsewhere"
    shutil.copytree(project / folder, elsewhere)
    (elsewhere / "secret.md").write_text(f"# Secret\n\n{SECRET}\n", encoding="utf-8")
    (elsewhere / "secret.txt").write_text(SECRET + "\n", encoding="utf-8")
    shutil.rmtree(project / folder)
    os.symlink(elsewhere, project / folder)
    result = build(project, cache)
    message = error_line(result)
    assert result.exit_code == 2 and f"{folder}: a symbolic link to {elsewhere}" in message, result.output
    assert "outside" in message and "replace the link with the folder itself" in message
    assert snapshot(project / "site") == before


@pytest.mark.parametrize("folder", ["static/more", "data/points/more", "data/trials/more", "data/eee/more"])
def test_a_folder_inside_that_links_out_of_the_project_is_refused(tmp_path, built, folder):
    """A linked folder below a project folder was skipped without a word (pathlib's rglob
    does not follow it): a lab's `data/trials/more -> /mnt/disk/trials` lost those trials
    from the leaderboard silently. Now a one-line error naming the link, nothing published."""
    _, cache = built
    project, before = _project_copy(tmp_path, built)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "secret.txt").write_text(SECRET + "\n", encoding="utf-8")
    (project / folder).parent.mkdir(parents=True, exist_ok=True)
    os.symlink(elsewhere, project / folder)
    result = build(project, cache)
    message = error_line(result)
    assert result.exit_code == 2 and f"{folder}: a symbolic link to {elsewhere}" in message, result.output
    assert "replace the link with the folder itself" in message
    assert snapshot(project / "site") == before


def test_a_cache_folder_that_links_out_of_the_project_is_refused(tmp_path, built):
    """A pull request committing `.reasonboard-cache -> /somewhere`: the build wrote its
    PointsDB and state files into the link's target. Now a one-line error naming the link and
    the fix; nothing is written there. `--cache` given on the command line names any folder."""
    project, before = _project_copy(tmp_path, built)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    os.symlink(elsewhere, project / ".reasonboard-cache")
    for args in (["build", "--quiet"], ["export", "eee", "--out", str(tmp_path / "export")]):
        result = cli(*args, "--project", str(project))
        message = error_line(result)
        assert result.exit_code == 2, result.output
        assert f".reasonboard-cache: a symbolic link to {elsewhere}" in message and "outside" in message, message
        assert "replace the link with the folder itself, or name the folder with --cache" in message, message
    assert list(elsewhere.iterdir()) == []
    assert snapshot(project / "site") == before
    result = build(project, tmp_path / "own-cache")  # --cache: the user's choice, anywhere
    assert result.exit_code == 0, result.output


def test_a_link_inside_its_folder_is_read(tmp_path, built):
    project, cache, _ = plant(tmp_path, built, "static/alias.txt", "notes-real.txt")
    (project / "static" / "notes-real.txt").write_text("ours\n", encoding="utf-8")
    result = build(project, cache)
    assert result.exit_code == 0, result.output
    assert (project / "site" / "alias.txt").read_text(encoding="utf-8") == "ours\n"


def test_a_fifo_or_a_folder_is_refused_without_waiting(tmp_path):
    os.mkfifo(tmp_path / "pipe.csv")
    with pytest.raises(NotConfined, match="named pipe"):
        open_confined(tmp_path / "pipe.csv", tmp_path)
    (tmp_path / "folder.csv").mkdir()
    with pytest.raises(NotConfined, match="folder"):
        open_confined(tmp_path / "folder.csv", tmp_path)


def test_a_folder_on_the_way_that_is_a_link_is_refused(tmp_path):
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "a.csv").write_text("x\n", encoding="utf-8")
    (tmp_path / "project").mkdir()
    os.symlink(tmp_path / "elsewhere", tmp_path / "project" / "points")
    with pytest.raises(NotConfined, match="reached through a symbolic link"):
        read_confined(tmp_path / "project" / "points" / "a.csv", tmp_path / "project")


def test_the_check_is_on_the_opened_file_not_on_the_name(tmp_path, monkeypatch):
    """A link swapped in after the name was looked at is still refused: what is checked is
    the file the descriptor holds."""
    (tmp_path / "inside").mkdir()
    (tmp_path / "inside" / "a.txt").write_text("ours\n", encoding="utf-8")
    (tmp_path / "secret.txt").write_text(SECRET, encoding="utf-8")
    real_open = os.open

    def swapping_open(path, flags, *args):
        if str(path).endswith("a.txt"):  # the swap lands between any earlier look and the open
            os.unlink(path)
            os.symlink(tmp_path / "secret.txt", path)
        return real_open(path, flags, *args)

    monkeypatch.setattr(os, "open", swapping_open)
    with pytest.raises(NotConfined, match="outside"):
        read_confined(tmp_path / "inside" / "a.txt", tmp_path / "inside")


def test_an_output_folder_that_is_a_link_is_refused(tmp_path, built):
    """A pull request adding `head-site -> base-site` would make the head build write into
    the base site, and the report say "No changes"."""
    lab, cache = built
    project = tmp_path / "lab"
    shutil.copytree(lab, project, symlinks=True)
    base_site = tmp_path / "base-site"
    shutil.copytree(project / "site", base_site)
    before = snapshot(base_site)
    os.symlink("../base-site", project / "head-site")
    result = build(project, cache, "--out", str(project / "head-site"))
    message = error_line(result)
    assert "head-site is a symbolic link (to ../base-site)" in message
    assert snapshot(base_site) == before


def test_ingest_does_not_merge_into_an_evals_file_linked_out_of_the_data_folder(tmp_path):
    """`ingest` reads the `evals.json` it merges into: linked to a secret, it is refused like
    any other project file, and neither the link nor the secret is touched."""
    logs = Path(__file__).parent / "data" / "per-instance" / "inspect"
    log = min(logs.rglob("*.eval"))
    data = tmp_path / "data"
    data.mkdir()
    (tmp_path / "outside.json").write_text('[{"model": "' + SECRET + '"}]\n', encoding="utf-8")
    os.symlink("../outside.json", data / "evals.json")
    result = cli("ingest", str(log), "--data", str(data))
    assert result.exit_code != 0 and "Traceback" not in result.output, result.output
    message = next(line for line in result.output.splitlines() if line.startswith("error: "))
    assert "evals.json: a symbolic link to ../outside.json, which is outside" in message, message
    assert "Nothing was written." in result.output
    assert (data / "evals.json").readlink() == Path("../outside.json")
    assert (tmp_path / "outside.json").read_text(encoding="utf-8") == '[{"model": "' + SECRET + '"}]\n'
    assert not (data / "trials").exists() or not any((data / "trials").iterdir())
