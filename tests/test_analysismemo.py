"""The per-sample analyses memo (stats/analysismemo.py): a rebuild after one evaluation's
trials and another's generation arguments changed runs the analyses over those two
evaluations' trials only, and the site equals a clean build byte for byte."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
from reasonboard import demo
from reasonboard.build import BuildOptions, run_build
from reasonboard.stats import analyses
from reasonboard.store.pointsdb import sql_string

ROOT = Path(__file__).resolve().parent.parent


def build(data: Path, out: Path, cache: Path):
    return run_build(BuildOptions(data_dir=data, out_dir=out, cache_dir=cache, content_dir=ROOT / "content"))


def files(site: Path) -> dict[str, bytes]:
    return {p.relative_to(site).as_posix(): p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file()}


def flip_some(path: Path) -> tuple[str, str, str]:
    """Turn a third of the completed trials of a trials file into their opposite outcome."""
    con = duckdb.connect()
    key = con.execute("SELECT model, template, sampler FROM read_parquet(?) LIMIT 1", [str(path)]).fetchone()
    flipped = path.with_name(path.name + ".tmp")
    con.execute(f"""COPY (SELECT * EXCLUDE (flip) REPLACE (CASE WHEN flip THEN 1.0 - credit ELSE credit END AS credit,
                                           CASE WHEN flip THEN NOT correct ELSE correct END AS correct)
                         FROM (SELECT *, NOT truncated AND credit IN (0, 1) AND hash(sample_id, epoch) % 3 = 0 AS flip
                               FROM read_parquet(?)))
                   TO {sql_string(flipped)} (FORMAT parquet)""", [str(path)])
    con.close()
    flipped.replace(path)
    assert key is not None
    return key


def test_a_rebuild_analyses_only_the_changed_evaluations(tmp_path, monkeypatch):
    data, out, cache = tmp_path / "data", tmp_path / "site", tmp_path / "cache"
    demo.write_demo(data, models=5, seed=4)
    build(data, out, cache)
    assert len(list(cache.glob("analyses-*.json"))) == 1

    trials = sorted((data / "trials").glob("*.parquet"))
    changed = {flip_some(trials[1])}
    evals = json.loads((data / "evals.json").read_text(encoding="utf-8"))
    entry = next(e for e in evals if (e["model"], e["template"], e["sampler"]) not in changed
                 and "max_tokens" in e.get("generation_args", {}))
    entry["generation_args"]["max_tokens"] //= 2
    changed.add((entry["model"], entry["template"], entry["sampler"]))
    (data / "evals.json").write_text(json.dumps(evals, indent=1), encoding="utf-8")

    analysed: list[set[tuple[str, str, str]]] = []
    run = analyses.run_statements

    def spy(db, estimator):
        analysed.append(set(db.con.execute("SELECT DISTINCT model, template, sampler FROM analysis_tasks").fetchall()))
        return run(db, estimator)

    monkeypatch.setattr(analyses, "run_statements", spy)
    build(data, out, cache)
    assert analysed == [changed]
    monkeypatch.undo()
    build(data, tmp_path / "clean", tmp_path / "clean-cache")
    assert files(out) == files(tmp_path / "clean")


def test_a_damaged_memo_is_computed_again(tmp_path):
    data, out, cache = tmp_path / "data", tmp_path / "site", tmp_path / "cache"
    demo.write_demo(data, models=3, seed=5)
    build(data, out, cache)
    before = files(out)
    [memo] = cache.glob("analyses-*.json")
    found = json.loads(memo.read_text(encoding="utf-8"))
    for entry in found["entries"].values():
        entry.pop("hazard")
    memo.write_text(json.dumps(found), encoding="utf-8")
    (out / "index.html").unlink()  # something to do
    build(data, out, cache)
    assert files(out) == before
    memo.write_text("{not json", encoding="utf-8")
    (out / "index.html").unlink()
    build(data, out, cache)
    assert files(out) == before
