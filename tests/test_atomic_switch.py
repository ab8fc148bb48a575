"""No reader ever sees a mix of two builds, whenever the build is killed (PRODUCT.md,
"Untrusted checkouts"): `kill -9` at random moments of real rebuilds, and aimed kills just
before, during and after the switch, then the site is the old one or the new one, byte for
byte; what a killed build left beside it goes with the next build. Slow (a minute or two):
marked `slow`."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers_lab import make_lab, snapshot
from reasonboard.atomic import exchange, recover, swap_directory

pytestmark = pytest.mark.slow

BUILD = "from reasonboard.cli import main; main()"


def start(project: Path, cache: Path, patch: str = "") -> subprocess.Popen:
    code = (patch + "\n" + BUILD) if patch else BUILD
    return subprocess.Popen([sys.executable, "-c", code, "build", "--project", str(project), "--cache", str(cache),
                             "--quiet"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def version(project: Path, which: str) -> None:
    """Two versions of the data: every page differs between them (the labels change)."""
    evals = project / "data" / "evals.json"
    text = evals.read_text(encoding="utf-8")
    old, new = ("Acme Lab", "Acme Lab B") if which == "b" else ("Acme Lab B", "Acme Lab")
    evals.write_text(text.replace(f'"{old}"', f'"{new}"'), encoding="utf-8")


@pytest.fixture(scope="module")
def two_sites(tmp_path_factory):
    """A project and the exact bytes of its site for both versions of its data; the time the
    quicker of two rebuilds takes here."""
    root = tmp_path_factory.mktemp("switch")
    project, cache = make_lab(root / "lab"), root / "cache"
    sites = {}
    took = []
    for which in ("a", "b", "a"):
        version(project, which)
        began = time.perf_counter()
        done = start(project, cache)
        assert done.wait() == 0, done.stdout.read() if done.stdout else ""
        took.append(time.perf_counter() - began)
        sites[which] = snapshot(project / "site")
    assert sites["a"] != sites["b"]
    # The quicker rebuild: random kills scaled to it land while most rebuilds run.
    return project, cache, sites, min(took[1:])


def leftovers(project: Path) -> list[str]:
    return sorted(p.name for p in project.parent.glob(".site.*")) + sorted(p.name for p in project.glob(".site.*"))


def test_fifty_random_kill_9_during_rebuilds(two_sites):
    """Rebuilds are killed at random moments until fifty kills have landed while a build ran
    (a build that finished first is checked too); the machine's speed decides how many tries
    that takes, never whether the test holds. A build that finished before its kill shortens
    the span the moments are drawn from: a build measured slow on a busy machine may run
    faster once the load goes."""
    project, cache, sites, took = two_sites
    rng = random.Random(23)
    current = "a"
    kills = tries = 0
    while kills < 50 and tries < 150:
        tries += 1
        target = "b" if current == "a" else "a"
        version(project, target)
        child = start(project, cache)
        time.sleep(rng.uniform(0.05, 1.0) * took)
        if child.poll() is None:
            os.kill(child.pid, signal.SIGKILL)
            kills += 1
        else:
            took *= 0.8
        child.wait()
        now = snapshot(project / "site")
        assert now in (sites[current], sites[target]), "a mix of two builds"
        current = "a" if now == sites["a"] else "b"
    assert kills == 50, f"{kills} kills in {tries} tries"
    version(project, "a")
    assert start(project, cache).wait() == 0
    assert snapshot(project / "site") == sites["a"]
    assert leftovers(project) == []


#: Patches for the child: a pause with a line on stdout at the moment to kill.
AIMED = {
    "before the switch": """
import sys, time, reasonboard.atomic as a
real = a.exchange
def paused(x, y):
    print("NOW", flush=True); time.sleep(30); return real(x, y)
a.exchange = paused
""",
    "right after the switch": """
import sys, time, reasonboard.atomic as a
real = a.exchange
def paused(x, y):
    done = real(x, y); print("NOW", flush=True); time.sleep(30); return done
a.exchange = paused
""",
    "while the old site is removed": """
import sys, time, shutil, reasonboard.site.writer as w
real = shutil.rmtree
def slow(path, *args, **kwargs):
    if ".site.new-" in str(path):
        print("NOW", flush=True); time.sleep(30)
    return real(path, *args, **kwargs)
w.shutil.rmtree = slow
""",
}


@pytest.mark.parametrize("moment", list(AIMED))
def test_aimed_kills_while_switching(two_sites, moment):
    project, cache, sites, _ = two_sites
    version(project, "a")
    assert start(project, cache).wait() == 0
    version(project, "b")
    child = start(project, cache, AIMED[moment])
    assert child.stdout is not None
    assert child.stdout.readline().strip() == "NOW"
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    now = snapshot(project / "site")
    assert now == (sites["a"] if moment == "before the switch" else sites["b"])
    assert start(project, cache).wait() == 0  # the next build clears what was left
    assert snapshot(project / "site") == sites["b"] and leftovers(project) == []


def test_the_fallback_switch_killed_between_its_renames_leaves_no_mix(tmp_path):
    """Without renameat2: old site aside, new site in. Killed in between, there is no site
    (never a mixed one) and the next build puts the old one back before anything else."""
    site, new = tmp_path / "site", tmp_path / ".site.new-x"
    site.mkdir()
    (site / "index.html").write_text("old", encoding="utf-8")
    new.mkdir()
    (new / "index.html").write_text("new", encoding="utf-8")
    code = f"""
import os, time, reasonboard.atomic as a
from pathlib import Path
a.exchange = lambda x, y: False
real = os.replace
def paused(x, y):
    real(x, y); print("NOW", flush=True); time.sleep(30)
os.replace = paused
a.swap_directory(Path({str(new)!r}), Path({str(site)!r}))
"""
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None and child.stdout.readline().strip() == "NOW"
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    assert not site.exists()
    recover(site)
    assert (site / "index.html").read_text(encoding="utf-8") == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]


def test_exchange_swaps_two_folders_in_one_step(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "x").write_text("a", encoding="utf-8")
    (tmp_path / "b").mkdir()
    if not exchange(tmp_path / "a", tmp_path / "b"):
        pytest.skip("no renameat2 here: the fallback is tested above")
    assert (tmp_path / "b" / "x").read_text(encoding="utf-8") == "a" and not (tmp_path / "a" / "x").exists()
    retired = swap_directory(tmp_path / "a", tmp_path / "b")
    assert retired == tmp_path / "a" and (tmp_path / "a" / "x").exists() and not (tmp_path / "b" / "x").exists()
