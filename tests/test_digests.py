"""store/digests.py: input files' content digests remembered by their stat, so an unchanged
file is not read again, and an edited one always is."""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path

import pytest
import reasonboard.store.digests as digests
from reasonboard.store.cache import fingerprints
from reasonboard.store.digests import FileDigests


@pytest.fixture
def settled(monkeypatch):
    """Every file counts as settled (its times far enough in the past to be remembered)."""
    monkeypatch.setattr(digests, "SETTLED_NS", -10**18)


def sha(path: Path) -> bytes:
    return hashlib.sha256(path.read_bytes()).digest()


def test_an_unchanged_file_is_not_read_again(tmp_path, settled):
    f = tmp_path / "a.csv"
    f.write_text("model,x\nm,1\n")
    memo = tmp_path / "cache" / "digests.json"
    first = FileDigests(memo)
    assert first.digest(f, "a.csv") == sha(f)
    first.save()
    again = FileDigests(memo)
    assert again.digest(f, "a.csv") == sha(f)
    assert (first.read, again.read) == (1, 0)


def test_an_edit_that_keeps_size_and_modification_time_is_seen(tmp_path, settled):
    """The change time moves with any write and cannot be set back."""
    f = tmp_path / "a.csv"
    f.write_text("model,x\nm,1\n")
    memo = tmp_path / "digests.json"
    first = FileDigests(memo)
    first.digest(f, "a.csv")
    first.save()
    before = os.stat(f)
    while os.stat(f).st_ctime_ns == before.st_ctime_ns:  # the next tick of the file system's clock
        time.sleep(0.01)
        with open(f, "r+") as handle:  # in place: same inode, same size
            handle.write("model,x\nm,2\n")
        os.utime(f, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert (os.stat(f).st_size, os.stat(f).st_mtime_ns, os.stat(f).st_ino) == (
        before.st_size, before.st_mtime_ns, before.st_ino)
    again = FileDigests(memo)
    assert again.digest(f, "a.csv") == sha(f) != first.seen["a.csv"][4]
    assert again.read == 1


def test_a_file_written_just_now_is_not_remembered(tmp_path):
    """A write in the same clock tick as the read could leave every time as it was."""
    f = tmp_path / "a.csv"
    f.write_text("fresh")
    memo = tmp_path / "digests.json"
    d = FileDigests(memo)
    assert d.digest(f, "a.csv") == sha(f)
    d.save()
    assert not memo.exists()  # nothing settled to remember


@pytest.mark.parametrize("text", ["not json", '{"version": 0, "files": {}}', '["a list"]'])
def test_an_unreadable_memo_is_ignored(tmp_path, settled, text):
    f = tmp_path / "a.csv"
    f.write_text("x")
    memo = tmp_path / "digests.json"
    memo.write_text(text)
    d = FileDigests(memo)
    assert d.digest(f, "a.csv") == sha(f) and d.read == 1
    d.save()
    assert FileDigests(memo).recorded["a.csv"][4] == sha(f).hex()


def test_fingerprints_are_the_same_with_and_without_the_memo(tmp_path, settled):
    data = tmp_path / "data"
    (data / "points").mkdir(parents=True)
    (data / "points" / "a.csv").write_text("model,template\nm,t\n")
    (data / "evals.json").write_text("[]")
    cache = tmp_path / "cache"
    plain = fingerprints(data)
    assert fingerprints(data, cache_dir=cache) == plain  # recorded
    assert fingerprints(data, cache_dir=cache) == plain  # remembered
    assert fingerprints(data, cache_dir=cache).point_files == plain.point_files
    (data / "points" / "a.csv").write_text("model,template\nm,u\n")
    assert fingerprints(data, cache_dir=cache) == fingerprints(data) != plain


def test_a_damaged_memo_entry_is_read_again(tmp_path, settled):
    f = tmp_path / "a.csv"
    f.write_text("x")
    memo = tmp_path / "digests.json"
    st = os.stat(f)
    stat = [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino]
    for entry in ([*stat, "not hex"], stat, "a string", [*stat, None]):
        memo.write_text(json.dumps({"version": digests.VERSION, "files": {"a.csv": entry}}))
        d = FileDigests(memo)
        assert d.digest(f, "a.csv") == sha(f) and d.read == 1


def test_inputs_are_named_alike_whichever_way_the_data_directory_is_given(tmp_path, monkeypatch):
    """`--data .`, `--data data`, an absolute path: the same names relative to the data
    directory, in pathlib's order (part by part), so the per-file digests match the ingest's."""
    from reasonboard.store.cache import source_entries

    data = tmp_path / "data"
    for rel in ("points/b.csv", "points/a-c.csv", "points/a/z.csv", "evals.json", "eee/x/1.json", "cards/c.json"):
        (data / rel).parent.mkdir(parents=True, exist_ok=True)
        (data / rel).write_text("{}")
    expected = {"points": ["evals.json", "points/a/z.csv", "points/a-c.csv", "points/b.csv"],
                "reported": ["cards/c.json", "eee/x/1.json"]}
    monkeypatch.chdir(tmp_path)
    for given in (data, Path("data"), Path("data/")):
        assert {part: [name for name, _ in source_entries(given, part)] for part in expected} == expected
    monkeypatch.chdir(data)
    assert {part: [name for name, _ in source_entries(Path("."), part)] for part in expected} == expected
    assert fingerprints(Path(".")).point_files == fingerprints(data).point_files
