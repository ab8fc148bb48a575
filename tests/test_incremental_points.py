"""The points part of the cached PointsDB is updated by file: a points file whose content is
unchanged keeps its rows, and the result equals a fresh ingest of the same inputs (the same
rows, the same aggregates to the last bit, the same counts, warnings and errors). The rows
may lie in another order, which no reader sees (tests/test_pointsdb.py: sums do not depend
on it)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
import reasonboard.store.ingest as ingest_module
from helpers_points import point, write_csv, write_jsonl, write_parquet
from reasonboard.config import SiteConfig
from reasonboard.errors import InputError
from reasonboard.store.cache import open_store
from reasonboard.store.pointsdb import MODES, PointsDB

EVALS = [{"model": m, "template": "tpl", "sampler": "smp", "label": m} for m in ("m1", "m2", "m3", "m4")]


def no_reported(db: PointsDB, *args: object) -> dict:
    return {"problems": []}


@pytest.fixture
def staged(monkeypatch) -> list[list[str]]:
    """The files each ingest read (relative paths), one list per ingest."""
    calls: list[list[str]] = []
    real = ingest_module.stage

    def recording(con, files, rels, indices):
        calls.append([rels[i] for i in indices])
        return real(con, files, rels, indices)

    monkeypatch.setattr(ingest_module, "stage", recording)
    return calls


@pytest.fixture
def data(tmp_path) -> Path:
    d = tmp_path / "data"
    write_csv(d / "points" / "a.csv", [point(model="m1", params={"i": 1}, correct=3),
                                       point(model="m1", params={"i": 2}, correct=4)])
    # m2's {"i": 1} is given again by sub/c.csv, which comes later and wins.
    write_jsonl(d / "points" / "b.jsonl", [point(model="m2", params={"i": 1}, correct=5),
                                           point(model="m2", params={"i": 2}, correct=6)])
    write_csv(d / "points" / "sub" / "c.csv", [point(model="m2", params={"i": 1}, correct=7)])
    write_parquet(d / "points" / "d.parquet", [point(model="m3", params={"i": 1}, correct=2)])
    (d / "evals.json").write_text(json.dumps(EVALS), encoding="utf-8")
    return d


def opened(data: Path, cache: Path):
    """(every `points` row in stored order, the store report's points figures)."""
    monkeypatch = pytest.MonkeyPatch()
    monkeypatch.setattr("reasonboard.store.cache.ingest_reported_part", no_reported)
    try:
        db, report = open_store(data, cache, None, SiteConfig())
    finally:
        monkeypatch.undo()
    with db:
        rows = db.con.execute("SELECT * FROM points ORDER BY ALL").fetchall()
        agg = db.aggregate(group_by=("model", "template", "sampler", "base_task", "param_level"), mode=MODES)
        sums = {name: agg[name].tobytes() for name in ("n", "n_e", "g", "tok", "C_P_est", "C_P_low")}
    return rows, sums, (report.points, report.point_files, report.warnings, report.mismatches, report.ignored)


def fresh(data: Path, tmp_path: Path):
    """A fresh ingest of `data` (an empty cache directory of its own)."""
    cache = tmp_path / f"fresh-{len(list(tmp_path.glob('fresh-*')))}"
    return opened(data, cache)


def test_one_changed_file_is_read_again_and_the_rest_kept(data, tmp_path, staged):
    cache = tmp_path / "cache"
    first = opened(data, cache)
    assert sorted(staged[0]) == ["points/a.csv", "points/b.jsonl", "points/d.parquet", "points/sub/c.csv"]
    write_csv(data / "points" / "a.csv", [point(model="m1", params={"i": 1}, correct=9)])
    again = opened(data, cache)
    assert staged[1] == ["points/a.csv"]
    assert again != first and again == fresh(data, tmp_path)
    # Read by hand: m1 has one point now, with its new count; m2's {"i": 1} is sub/c.csv's.
    counts = {(r[0], r[4]): r[6] for r in again[0]}
    assert counts == {("m1", '{"i":1}'): 9, ("m2", '{"i":1}'): 7, ("m2", '{"i":2}'): 6, ("m3", '{"i":1}'): 2}
    assert again[2][0] == 4 and again[2][1] == 4


def test_added_and_deleted_files(data, tmp_path, staged):
    cache = tmp_path / "cache"
    opened(data, cache)
    # An added file that sorts between kept ones, overriding a kept file's row.
    write_csv(data / "points" / "ba.csv", [point(model="m2", params={"i": 2}, correct=1),
                                           point(model="m4", params={"i": 1}, correct=1)])
    added = opened(data, cache)
    assert staged[-1] == ["points/ba.csv"]
    assert added == fresh(data, tmp_path)
    assert ("m2", '{"i":2}', 1) in {(r[0], r[4], r[6]) for r in added[0]}
    assert any("2 point(s) repeat an identity" in w for w in added[2][2])

    (data / "points" / "sub" / "c.csv").unlink()  # m2's {"i": 1} falls back to b.jsonl
    deleted = opened(data, cache)
    assert staged[-1] == []
    assert deleted == fresh(data, tmp_path)
    assert ("m2", '{"i":1}', 5) in {(r[0], r[4], r[6]) for r in deleted[0]}
    assert deleted[2][1] == 4


def test_a_duplicate_in_a_kept_file_is_still_reported(data, tmp_path, staged):
    cache = tmp_path / "cache"
    first = opened(data, cache)
    (message,) = [w for w in first[2][2] if "repeat an identity" in w]
    assert "points/b.jsonl, line 1 (m2, t, {\"i\":1})" in message
    write_parquet(data / "points" / "d.parquet", [point(model="m3", params={"i": 1}, correct=1)])
    again = opened(data, cache)
    assert staged[-1] == ["points/d.parquet"]
    assert message in again[2][2] and again == fresh(data, tmp_path)


def test_a_malformed_file_fails_like_a_fresh_ingest_and_keeps_the_cache(data, tmp_path, staged):
    cache = tmp_path / "cache"
    before = opened(data, cache)
    (target,) = cache.glob("pointsdb-*.duckdb")
    digest = hashlib.sha256(target.read_bytes()).hexdigest()
    good = (data / "points" / "sub" / "c.csv").read_text(encoding="utf-8")
    (data / "points" / "sub" / "c.csv").write_text(good.replace(",7,", ",70,"), encoding="utf-8")
    with pytest.raises(InputError) as incremental:
        opened(data, cache)
    with pytest.raises(InputError) as clean:
        fresh(data, tmp_path)
    assert str(incremental.value) == str(clean.value)
    assert "c.csv" in str(incremental.value) and "line 2" in str(incremental.value)
    assert hashlib.sha256(target.read_bytes()).hexdigest() == digest
    assert sorted(p.name for p in cache.iterdir()) == [target.name]
    # Fixed again: the kept cache still answers, and equals a fresh ingest.
    (data / "points" / "sub" / "c.csv").write_text(good, encoding="utf-8")
    assert opened(data, cache) == before == fresh(data, tmp_path)


def test_a_cache_written_by_other_code_is_not_built_upon(data, tmp_path, staged):
    cache = tmp_path / "cache"
    opened(data, cache)
    (target,) = cache.glob("pointsdb-*.duckdb")
    with PointsDB(target) as db:
        db.set_meta("store_code", "other")
        db.con.execute("UPDATE point_rows SET correct = 0")  # what other code might have stored
    write_csv(data / "points" / "a.csv", [point(model="m1", params={"i": 1}, correct=9)])
    again = opened(data, cache)
    assert sorted(staged[-1]) == ["points/a.csv", "points/b.jsonl", "points/d.parquet", "points/sub/c.csv"]
    assert again == fresh(data, tmp_path)
