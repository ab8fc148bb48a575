"""Four builds sharing one cache directory at the same time all succeed.

CI matrices and watch-mode rebuilds run several builds against one `--cache`. A cache file
written through a fixed temporary name (`specs.json.tmp`) made about half of such runs fail:
one process renamed the temporary file another was still writing, or had already renamed.
Here four separate processes start from an empty shared cache at the same instant (each says
it is ready once imported, then waits for a start file, so their cache writes overlap) and each must finish with a complete site,
the four sites equal byte for byte.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

RUN = """
import sys, time
from pathlib import Path
from reasonboard.cli import main
go = Path(sys.argv[1])
go.with_name(go.name + "-ready-" + sys.argv[2]).touch()
while not go.exists():
    time.sleep(0.01)
main(sys.argv[3:], prog_name="reasonboard")
"""


def _files(site: Path) -> dict[str, bytes]:
    return {p.relative_to(site).as_posix(): p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file()}


def test_four_concurrent_builds_share_one_cache(tmp_path: Path) -> None:
    cache, go = tmp_path / "cache", tmp_path / "go"
    procs = [subprocess.Popen([sys.executable, "-c", RUN, str(go), str(i), "build", "--quiet",
                               "--data", str(ROOT / "data"), "--content", str(ROOT / "content"),
                               "--out", str(tmp_path / f"site{i}"), "--cache", str(cache)],
                              cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for i in range(4)]
    while len(list(tmp_path.glob("go-ready-*"))) < 4 and all(p.poll() is None for p in procs):
        time.sleep(0.01)  # until all four have imported the tool (not an assertion on time)
    go.touch()
    outcomes = [(p.wait(timeout=600), *p.communicate()) for p in procs]
    for i, (code, out, err) in enumerate(outcomes):
        assert code == 0, f"build {i} failed:\n{out}{err}"
    sites = [_files(tmp_path / f"site{i}") for i in range(4)]
    assert "index.html" in sites[0] and any(name.startswith("models/") for name in sites[0])
    assert all(site == sites[0] for site in sites[1:])
    assert not [p.name for p in cache.rglob("*") if p.name.endswith(".tmp")]  # nothing left behind


def test_a_write_that_lands_between_another_writes_staging_and_rename_breaks_nothing(tmp_path, monkeypatch):
    """The race, made to happen every time: a second writer of the same cache file runs to
    completion between the first writer's staging and its rename. With a fixed temporary
    name the second writer renamed the first one's temporary file away and the first rename
    failed; with unique names both succeed and the file holds whole bytes of one of them."""
    import os

    import reasonboard.atomic as atomic

    target = tmp_path / "cache" / "chart-specs.json"
    real_replace = os.replace
    calls = []

    def replace_after_a_rival(src, dst):
        if not calls:
            calls.append(src)
            atomic.write_atomically(target, b"second writer")  # runs whole, in between
        return real_replace(src, dst)

    monkeypatch.setattr(atomic.os, "replace", replace_after_a_rival)
    atomic.write_atomically(target, b"first writer")
    assert target.read_bytes() == b"first writer"
    assert sorted(p.name for p in target.parent.iterdir()) == ["chart-specs.json"]
