"""A cache that came with the checkout is never trusted (PRODUCT.md, "Untrusted checkouts"):
a PointsDB made elsewhere and saved under the name the build looks for, a pickled memo shard
that runs code, an edited Vega bundle: the build ignores them all (every cache name is salted
with this machine's secret, cachekey.py), publishes what the data says, and runs nothing.
Damaged entries are made again; a cache folder tracked by git is named in a warning."""

from __future__ import annotations

import json
import pickle
import shutil
import subprocess
from pathlib import Path

import pytest
from helpers_lab import build, copy_lab, make_lab, snapshot
from helpers_points import write_lab_data
from reasonboard import cachekey
from reasonboard.build import BuildOptions, run_build


def as_machine(monkeypatch, home: Path) -> None:
    """The builds that follow run as on another machine: its own salt."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(home))
    monkeypatch.setattr(cachekey, "_SALT", None)


class Payload:
    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (Path.touch, (self.marker,))


def board(site: Path) -> dict:
    return json.loads((site / "data" / "leaderboard.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def honest(tmp_path_factory) -> dict[str, bytes]:
    """The site the honest data makes from no cache at all."""
    root = tmp_path_factory.mktemp("honest")
    lab = make_lab(root / "lab")
    assert build(lab, root / "cache").exit_code == 0
    return snapshot(lab / "site")


def test_a_committed_cache_made_elsewhere_is_ignored(tmp_path, monkeypatch, honest):
    lab = make_lab(tmp_path / "lab")
    honest_data = tmp_path / "honest-data"
    shutil.copytree(lab / "data", honest_data)
    # The attacker's machine: forged data built at the victim's path, into the project's cache.
    as_machine(monkeypatch, tmp_path / "attacker-home")
    write_lab_data(lab / "data", seed=99)
    points = lab / "data" / "points" / "results.csv"
    points.write_text(points.read_text(encoding="utf-8").replace(",64,4,", ",64,60,"), encoding="utf-8")
    assert run_build(BuildOptions(project=lab)).pages > 0
    cache = lab / ".reasonboard-cache"
    marker = tmp_path / "MARKER"
    shards = list(cache.rglob("*.pickle"))
    for shard in shards:
        shard.write_bytes(pickle.dumps(Payload(marker)))
    for bundle in cache.glob("vega-bundle-*.js"):
        bundle.write_text("alert(document.cookie)", encoding="utf-8")
    forged = board(lab / "site")
    shutil.rmtree(lab / "site")
    # The checkout as the victim gets it: honest data, the attacker's cache committed beside it.
    shutil.rmtree(lab / "data")
    shutil.copytree(honest_data, lab / "data")
    as_machine(monkeypatch, tmp_path / "victim-home")
    summary = run_build(BuildOptions(project=lab))
    assert summary.ingested  # the PointsDB was made here, from the data
    assert not marker.exists()  # no shard was unpickled
    site = snapshot(lab / "site")
    assert site == honest
    assert board(lab / "site") != forged
    assert not any(b"alert(document.cookie)" in body for body in site.values())


def test_the_same_machine_reuses_its_own_cache(tmp_path, monkeypatch):
    as_machine(monkeypatch, tmp_path / "home")
    lab = make_lab(tmp_path / "lab")
    run_build(BuildOptions(project=lab))
    (lab / "content" / "site.toml").write_text(
        (lab / "content" / "site.toml").read_text(encoding="utf-8") + '\nfooter = "x"\n', encoding="utf-8")
    assert run_build(BuildOptions(project=lab)).ingested == ()  # the PointsDB came from the cache


@pytest.mark.parametrize("damage", ["pointsdb-*.duckdb", "build-*.json"])
def test_a_damaged_cache_entry_is_made_again(tmp_path, monkeypatch, honest, damage):
    as_machine(monkeypatch, tmp_path / "home")
    lab = make_lab(tmp_path / "lab")
    run_build(BuildOptions(project=lab))
    shutil.rmtree(lab / "site")
    (entry,) = (lab / ".reasonboard-cache").glob(damage)
    entry.write_bytes(entry.read_bytes()[: entry.stat().st_size // 2])
    result = build(lab, lab / ".reasonboard-cache")
    assert result.exit_code == 0, result.output
    assert snapshot(lab / "site") == honest


def test_a_cache_folder_tracked_by_git_is_named_in_a_warning(tmp_path, monkeypatch):
    if shutil.which("git") is None:
        pytest.skip("no git here")
    as_machine(monkeypatch, tmp_path / "home")
    lab = make_lab(tmp_path / "lab")
    run_build(BuildOptions(project=lab))
    git = ["git", "-C", str(lab), "-c", "user.name=t", "-c", "user.email=t@example.org"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-f", ".reasonboard-cache"], check=True)
    (lab / "data" / "evals.json").write_text(
        (lab / "data" / "evals.json").read_text(encoding="utf-8").replace("Acme Lab", "Acme Labs"), encoding="utf-8")
    summary = run_build(BuildOptions(project=lab))
    assert any("tracked by git" in w and ".reasonboard-cache" in w for w in summary.warnings)


def test_staging_folders_a_killed_build_left_are_removed(tmp_path, monkeypatch):
    as_machine(monkeypatch, tmp_path / "home")
    lab = make_lab(tmp_path / "lab")
    run_build(BuildOptions(project=lab))
    for name in (".site.new-abc123", ".site.old-def456"):
        (lab / name / "models").mkdir(parents=True)
        (lab / name / "models" / "x.html").write_text("half", encoding="utf-8")
    before = snapshot(lab / "site")
    copy = copy_lab(lab, tmp_path / "copy")  # the project's own gitignore covers them
    ignored = (copy / ".gitignore").read_text(encoding="utf-8").split()
    assert ".*.new-*/" in ignored and ".*.old-*/" in ignored
    (lab / "data" / "evals.json").write_text(
        (lab / "data" / "evals.json").read_text(encoding="utf-8").replace("Acme Lab", "Acme Labs"), encoding="utf-8")
    run_build(BuildOptions(project=lab))
    assert sorted(p.name for p in lab.iterdir() if p.name.startswith(".site")) == []
    assert snapshot(lab / "site") != before
