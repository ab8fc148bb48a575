"""Where the build's PointsDB comes from: the fingerprinted cache, a fresh ingest, or `--db`."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest
import reasonboard.store.cache as cache_module
import reasonboard.store.parts as parts_module
from helpers_points import point, write_csv, write_jsonl
from reasonboard.config import SiteConfig
from reasonboard.errors import InputError
from reasonboard.store.cache import open_store
from reasonboard.store.pointsdb import PointsDB

EVALS = [{"model": "m1", "template": "tpl", "sampler": "smp", "label": "One"}]


class Reported:
    """A stand-in for the store's reported-part loader that counts its calls."""

    def __init__(self):
        self.calls = 0

    def __call__(self, db: PointsDB, *args: object) -> dict:
        self.calls += 1
        return {"results": self.calls, "problems": []}


def with_loader(loader, *args, **kwargs):
    """`open_store(*args, **kwargs)` with `loader` filling the reported part."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(cache_module, "ingest_reported_part", loader)
        patch.setattr(parts_module, "ingest_reported_part", loader)  # a `--db` build fills it there
        return open_store(*args, **kwargs)


@pytest.fixture
def data(tmp_path) -> Path:
    d = tmp_path / "data"
    write_csv(d / "points" / "a.csv", [point(model="m1", params={"i": 1}, correct=3),
                                       point(model="m1", params={"i": 1}, correct=4)])  # a duplicate
    write_jsonl(d / "points" / "b.jsonl", [point(model="m2", params={"i": 2}, correct=5)])
    (d / "evals.json").write_text(json.dumps(EVALS), encoding="utf-8")
    return d


def open_(data: Path, cache: Path, reported: Reported | None = None, salt: str = "", db: Path | None = None):
    return with_loader(reported or Reported(), data, cache, db, SiteConfig(), salt=salt)


def points(db: PointsDB):
    return db.con.execute("SELECT model, params, correct FROM points ORDER BY ALL").fetchall()


def files_in(folder: Path) -> list[str]:
    """The cache's files but digests.py's memo, which is written only once the inputs are older
    than the clock's step (on a slow machine, during the test)."""
    return sorted(p.name for p in folder.iterdir() if not p.name.startswith("digests-")) if folder.exists() else []


def test_first_open_ingests_and_second_reuses(data, tmp_path):
    cache = tmp_path / "cache"
    reported = Reported()
    db, report = open_(data, cache, reported)
    assert not report.reused
    assert (report.points, report.point_files) == (2, 2)
    assert len(report.warnings) == 2 and "later" in report.warnings[0]
    assert "evaluation m2 / tpl / smp (points in points/b.jsonl) has no entry in evals.json" in report.warnings[1]
    assert points(db) == [("m1", '{"i":1}', 4), ("m2", '{"i":2}', 5)]
    db.close()
    stored = files_in(cache)
    assert len(stored) == 1 and stored[0].endswith(".duckdb")  # no temporary left

    db, again = open_(data, cache, reported)
    assert again.reused
    assert reported.calls == 1  # the reported-results summary comes from the cache
    assert (again.points, again.point_files, again.warnings, again.reported) == (
        report.points, report.point_files, report.warnings, report.reported)
    assert points(db) == [("m1", '{"i":1}', 4), ("m2", '{"i":2}', 5)]
    assert db.evaluations()[0]["label"] == "One"
    db.close()


def test_cache_lives_outside_the_data_directory(data, tmp_path):
    cache = tmp_path / "cache"
    before = sorted(p.relative_to(data).as_posix() for p in data.rglob("*"))
    db, _ = open_(data, cache)
    db.close()
    assert sorted(p.relative_to(data).as_posix() for p in data.rglob("*")) == before


def test_touching_a_file_without_changing_it_still_reuses(data, tmp_path):
    cache = tmp_path / "cache"
    open_(data, cache)[0].close()
    path = data / "points" / "a.csv"
    os.utime(path, (1, 1))
    db, report = open_(data, cache)
    db.close()
    assert report.reused


def test_any_source_change_reingests(data, tmp_path):
    cache = tmp_path / "cache"
    open_(data, cache)[0].close()
    expected = [("m1", '{"i":1}', 4), ("m2", '{"i":2}', 5)]

    def edit():
        write_jsonl(data / "points" / "b.jsonl", [point(model="m2", params={"i": 2}, correct=6)])
        expected[1] = ("m2", '{"i":2}', 6)

    def add():
        write_csv(data / "points" / "sub" / "c.csv", [point(model="m3", params={"i": 3}, correct=1)])
        expected.append(("m3", '{"i":3}', 1))

    def remove():
        (data / "points" / "b.jsonl").unlink()
        del expected[1]

    def evals():
        (data / "evals.json").write_text(json.dumps([dict(EVALS[0], label="Renamed")]), encoding="utf-8")

    salt = ""
    for change in (edit, add, remove, evals, "salt"):
        if change == "salt":
            salt = "aliases changed"
        else:
            change()
        db, report = open_(data, cache, salt=salt)
        assert not report.reused, change
        assert points(db) == expected, change
        label = db.evaluations()[0]["label"]
        db.close()
        assert len(files_in(cache)) == 1
    assert label == "Renamed"
    db, report = open_(data, cache, salt=salt)
    db.close()
    assert report.reused


@pytest.fixture
def count_points_ingests(monkeypatch) -> list[int]:
    """Count ingests of the points part (the real ingest still runs)."""
    calls = [0]
    real = cache_module.ingest_points_part

    def counted(*args, **kwargs):
        calls[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(cache_module, "ingest_points_part", counted)
    return calls


def write_record(data: Path, name: str, score: float) -> None:
    (data / "eee" / "src").mkdir(parents=True, exist_ok=True)
    (data / "eee" / "src" / name).write_text(json.dumps({"score": score}), encoding="utf-8")


def test_a_points_change_ingests_only_the_points_part(data, tmp_path, count_points_ingests):
    cache = tmp_path / "cache"
    write_record(data, "r1.json", 0.5)
    reported = Reported()
    open_(data, cache, reported)[0].close()
    assert (count_points_ingests[0], reported.calls) == (1, 1)

    write_jsonl(data / "points" / "b.jsonl", [point(model="m2", params={"i": 2}, correct=6)])
    db, report = open_(data, cache, reported)
    assert report.ingested == ("points",) and not report.reused
    assert (count_points_ingests[0], reported.calls) == (2, 1)
    assert report.reported == {"results": 1, "problems": []}  # the kept part's summary
    assert points(db) == [("m1", '{"i":1}', 4), ("m2", '{"i":2}', 6)]
    assert db.evaluations()[0]["label"] == "One"
    db.close()
    assert len(files_in(cache)) == 1


def test_a_reported_change_ingests_only_the_reported_part(data, tmp_path, count_points_ingests):
    cache = tmp_path / "cache"
    reported = Reported()
    first = open_(data, cache, reported)[1]
    # (The config's aliases shape both parts: they rename the models and tasks of points too.)
    for step, change in enumerate((lambda: write_record(data, "r1.json", 0.5),
                                   lambda: write_record(data, "r1.json", 0.7),
                                   lambda: (data / "cards").mkdir() or (data / "cards" / "c.json").write_text("{}")),
                                  start=2):
        change()
        db, report = open_(data, cache, reported)
        assert report.ingested == ("reported",), step
        assert (count_points_ingests[0], reported.calls) == (1, step), step
        assert report.reported == {"results": step, "problems": []}
        # The kept points part reports what its own ingest found.
        assert (report.points, report.point_files, report.warnings) == (first.points, first.point_files, first.warnings)
        assert points(db) == [("m1", '{"i":1}', 4), ("m2", '{"i":2}', 5)]
        db.close()


def test_a_failed_partial_ingest_keeps_the_previous_cache(data, tmp_path):
    cache = tmp_path / "cache"
    open_(data, cache)[0].close()
    (target,) = (cache / name for name in files_in(cache))
    digest = hashlib.sha256(target.read_bytes()).hexdigest()
    write_record(data, "r1.json", 0.5)

    def broken(db: PointsDB, *args: object) -> dict:
        db.con.execute("DELETE FROM points")  # damage done before failing must not land
        raise InputError(data / "eee" / "src" / "r1.json", "bad record")

    with pytest.raises(InputError):
        with_loader(broken, data, cache, None, SiteConfig())
    assert files_in(cache) == [target.name]
    assert hashlib.sha256(target.read_bytes()).hexdigest() == digest
    db, report = open_(data, cache)
    assert report.ingested == ("reported",) and points(db) == [("m1", '{"i":1}', 4), ("m2", '{"i":2}', 5)]
    db.close()


def test_a_cache_from_before_the_split_is_ingested_whole(data, tmp_path, count_points_ingests):
    cache = tmp_path / "cache"
    open_(data, cache)[0].close()
    (target,) = (cache / name for name in files_in(cache))
    with PointsDB(target) as db:
        db.con.execute("DELETE FROM meta")
    reported = Reported()
    db, report = open_(data, cache, reported)
    assert report.ingested == ("points", "reported") and reported.calls == 1 and count_points_ingests[0] == 2
    db.close()


def test_a_cache_another_build_is_reading_still_opens(data, tmp_path):
    """Builds of one data directory into several outputs share the cache: a second process
    holding it open (read-only, as builds do) must not make this one fail."""
    cache = tmp_path / "cache"
    open_(data, cache)[0].close()
    (target,) = (cache / name for name in files_in(cache))
    holder = subprocess.Popen(
        [sys.executable, "-c", "import duckdb, sys, time; c = duckdb.connect(sys.argv[1], read_only=True); "
                               "print('held', flush=True); time.sleep(30)", str(target)],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        db, report = open_(data, cache)
        assert report.reused and points(db) == [("m1", '{"i":1}', 4), ("m2", '{"i":2}', 5)]
        db.close()
    finally:
        holder.kill()
        holder.wait()


def test_bad_input_writes_no_cache(data, tmp_path):
    cache = tmp_path / "cache"
    path = write_csv(data / "points" / "c.csv", [point(params={"i": 9}, total=3, correct=4)])
    with pytest.raises(InputError) as err:
        open_(data, cache)
    assert err.value.path == str(path) and err.value.line == 2  # the header is line 1
    assert files_in(cache) == []


def test_bad_evals_keep_the_previous_cache_untouched(data, tmp_path):
    cache = tmp_path / "cache"
    open_(data, cache)[0].close()
    (target,) = (cache / name for name in files_in(cache))
    (data / "evals.json").write_text(json.dumps([dict(EVALS[0], colour="red")]), encoding="utf-8")
    with pytest.raises(InputError) as err:
        open_(data, cache)
    assert err.value.path == str(data / "evals.json") and "colour" in err.value.problem
    assert files_in(cache) == [target.name]
    with PointsDB(target, read_only=True) as db:  # still the old, complete database
        assert points(db) == [("m1", '{"i":1}', 4), ("m2", '{"i":2}', 5)]


def test_an_unreadable_cache_file_is_rebuilt(data, tmp_path):
    cache = tmp_path / "cache"
    open_(data, cache)[0].close()
    (target,) = (cache / name for name in files_in(cache))
    target.write_bytes(b"not a database at all" * 100)
    db, report = open_(data, cache)
    assert not report.reused and report.points == 2
    db.close()


def test_missing_data_directory(tmp_path):
    with pytest.raises(InputError) as err:
        open_(tmp_path / "nope", tmp_path / "cache")
    assert err.value.path == str(tmp_path / "nope")
    assert not (tmp_path / "cache").exists()


# -- --db FILE --------------------------------------------------------------------------------


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_user_db_is_copied_and_never_modified(data, tmp_path):
    cache = tmp_path / "cache"
    open_(data, cache)[0].close()
    (user_db,) = cache.iterdir()
    digest, mtime = sha(user_db), user_db.stat().st_mtime_ns
    # Another data directory with different points: --db wins over it.
    other = tmp_path / "other"
    write_csv(other / "points" / "z.csv", [point(model="zz")])
    reported = Reported()
    db, report = open_(other, tmp_path / "cache2", reported, db=user_db)
    assert points(db) == [("m1", '{"i":1}', 4), ("m2", '{"i":2}', 5)]
    assert report.points == 2 and not report.reused and reported.calls == 1
    assert db.evaluations()[0]["label"] == "One"
    db.con.execute("DELETE FROM points")  # the working copy is in memory
    db.close()
    assert (sha(user_db), user_db.stat().st_mtime_ns) == (digest, mtime)
    assert not (tmp_path / "cache2").exists()


def test_user_db_without_a_data_directory(data, tmp_path):
    open_(data, tmp_path / "cache")[0].close()
    (user_db,) = (tmp_path / "cache").iterdir()
    reported = Reported()
    db, report = open_(tmp_path / "absent", tmp_path / "cache2", reported, db=user_db)
    assert report.points == 2 and report.reported == {} and reported.calls == 0
    db.close()


def test_bad_user_db_files(tmp_path):
    with pytest.raises(InputError) as err:
        open_(tmp_path, tmp_path / "c", db=tmp_path / "missing.duckdb")
    assert err.value.path == str(tmp_path / "missing.duckdb") and "not found" in err.value.problem

    other = tmp_path / "other.duckdb"
    con = duckdb.connect(str(other))
    con.execute("CREATE TABLE something (x INTEGER)")
    con.close()
    with pytest.raises(InputError) as err:
        open_(tmp_path, tmp_path / "c", db=other)
    assert err.value.path == str(other) and "points" in err.value.problem

    junk = tmp_path / "junk.duckdb"
    junk.write_bytes(b"\x00garbage" * 512)
    digest = sha(junk)
    with pytest.raises(InputError) as err:
        open_(tmp_path, tmp_path / "c", db=junk)
    assert err.value.path == str(junk)
    assert sha(junk) == digest


def test_the_cache_key_covers_the_store_and_its_readers_only():
    """Everything that shapes the stored rows is the store's or its readers' code (the
    reported part is written by store/reported.py), so the key hashes those folders and no
    later stage: an edit to signals/ or site/ never re-ingests the EEE corpus. Read off the
    import graph: nothing the store imports lies outside its key's folders (foundation
    modules and config aside, which change what is stored only through the salt)."""
    import importlib.util

    from reasonboard.store.cache import CODE_FOLDERS

    root = Path(__file__).resolve().parents[1]
    spec = importlib.util.spec_from_file_location("import_graph", root / "scripts" / "import_graph.py")
    assert spec is not None and spec.loader is not None
    graph_tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(graph_tool)
    edges = graph_tool.graph()
    reached, todo = set(), [m for m in edges if m.startswith("store.")]
    while todo:
        module = todo.pop()
        if module in reached:
            continue
        reached.add(module)
        todo.extend(edges[module])
    folders = {m.split(".", 1)[0] for m in reached if "." in m}
    assert "store.reported" in reached
    assert folders <= set(CODE_FOLDERS), folders
    assert "signals" not in CODE_FOLDERS


def test_the_reported_part_stores_what_load_reported_stores(data, tmp_path):
    """The reported part of a store holds the rows `load_reported` stores, and with both
    parts bad the error is the points file's (the parts are ingested in that order)."""
    from reasonboard.store.reported import load_reported

    eee = data / "eee" / "lab" / "m1"
    eee.mkdir(parents=True)
    (eee / "r.json").write_text(json.dumps({
        "schema_version": "0.2.0", "evaluation_id": "lab/m1/1", "retrieved_timestamp": "1",
        "source_metadata": {"source_type": "documentation", "source_organization_name": "Lab",
                            "evaluator_relationship": "first_party"},
        "model_info": {"name": "m1", "id": "lab/m1"},
        "evaluation_results": [{"evaluation_name": "bench", "metric_config": {"lower_is_better": False},
                                "score_details": {"score": 0.5}}],
    }), encoding="utf-8")
    db, report = open_store(data, tmp_path / "cache", None, SiteConfig(), strict=False)
    stored = db.con.execute("SELECT * FROM reported_rows ORDER BY ALL").fetchall()
    db.close()
    with PointsDB() as plain:
        load_reported(plain, data, SiteConfig(), strict=False)
        assert plain.con.execute("SELECT * FROM reported_rows ORDER BY ALL").fetchall() == stored
    assert stored and report.reported["results"] == len(stored)

    (data / "points" / "a.csv").write_text("model,template\nm1\n", encoding="utf-8")  # bad points
    (eee / "bad.json").write_text("{not json", encoding="utf-8")  # and a bad record
    with pytest.raises(InputError) as caught:
        open_store(data, tmp_path / "cache2", None, SiteConfig(), strict=True)
    assert "a.csv" in str(caught.value)


def test_a_killed_builds_half_written_pointsdb_is_removed(tmp_path):
    """What a killed build leaves (its PointsDB being written, DuckDB's WAL and spill folder)
    is removed by the next build once its process is gone; a live process's files stay."""
    import os
    import subprocess
    import sys

    from reasonboard.store.cache import remove_abandoned

    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True, check=True).stdout.strip()
    dead = tmp_path / f"pointsdb-abc.duckdb.tmp-{gone}"
    dead.write_bytes(b"half")
    (tmp_path / f"{dead.name}.wal").write_bytes(b"wal")
    (tmp_path / f"{dead.name}.tmp").mkdir()
    (tmp_path / f"{dead.name}.tmp" / "spill").write_bytes(b"x")
    live = tmp_path / f"pointsdb-abc.duckdb.tmp-{os.getpid()}"
    live.write_bytes(b"writing")
    other = tmp_path / "statistics-x.npz"
    other.write_bytes(b"kept")
    remove_abandoned(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([live.name, other.name])
