"""A published samples file is sorted as SAMPLES.md section 5 says, whatever its trials file's
row order: a file written in order (as ingest and the demo write them) is written as read, a
file out of order (made by hand) is sorted, and both give the same bytes."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import duckdb
from helpers_points import parquet_rows
from reasonboard import sampleoutputs
from reasonboard.ingest import IngestOptions, run_ingest
from reasonboard.sampleoutputs import SAMPLE_COLUMNS, samples_files, samples_jobs
from reasonboard.store.trialfiles import ORDER, copy_to_parquet

LOG = (Path(__file__).parent / "data" / "per-instance" / "inspect" / "inspect_ai" / "examples" / "scanner" / "logs"
       / "2025-09-23T08-09-58-04-00_popularity_DN2wbX2ZvACsBpjwptzBRo.eval")


def published(data: Path, rel: str, key: tuple[str, str, str], writes: int, monkeypatch) -> bytes:
    """The samples file of the one evaluation `key` in `data/rel`, checking it took `writes`
    statements (one as read, one more to sort)."""
    calls: list[str] = []

    def counted(*args):
        calls.append(args[1])
        copy_to_parquet(*args)

    monkeypatch.setattr(sampleoutputs, "copy_to_parquet", counted)
    e = SimpleNamespace(slug="m/t-s", trial_files=(rel,), key=key)
    (path, found), = samples_files(data, [e], True)  # type: ignore[list-item]
    assert path == "data/samples/m/t-s.parquet" and isinstance(found, bytes) and len(calls) == writes
    return found


def test_a_trials_file_out_of_order_is_published_sorted(tmp_path, monkeypatch):
    data = tmp_path / "data"
    run_ingest(IngestOptions(paths=(LOG,), data_dir=data))
    written, = (data / "trials").glob("*.parquet")
    rel = written.relative_to(data).as_posix()
    first = parquet_rows(written)[0]
    key = (first["model"], first["template"], first["sampler"])
    # The same trials, reversed: a file made by hand.
    shuffled = tmp_path / "shuffled"
    (shuffled / "trials").mkdir(parents=True)
    duckdb.sql(f"COPY (SELECT * FROM read_parquet('{written.as_posix()}') ORDER BY {ORDER.replace(',', ' DESC,')} DESC) "
               f"TO '{(shuffled / rel).as_posix()}' (FORMAT parquet)")
    backwards = parquet_rows(shuffled / rel)
    assert len(backwards) > 2 and backwards != parquet_rows(written)

    in_order, out_of_order = published(data, rel, key, 1, monkeypatch), published(shuffled, rel, key, 2, monkeypatch)
    assert in_order == out_of_order
    out = tmp_path / "out.parquet"
    out.write_bytes(out_of_order)
    rows = parquet_rows(out)
    assert list(rows[0]) == list(SAMPLE_COLUMNS)
    keys = [(r["base_task"], r["params"], r["sample_id"], r["epoch"]) for r in rows]
    assert keys == sorted(keys) and sorted(keys, reverse=True) == [
        (r["base_task"], r["params"], r["sample_id"], r["epoch"]) for r in backwards]


def test_a_trials_file_of_two_evaluations_gives_each_its_own_trials(tmp_path):
    """A file that two evaluations list is read for each with its names compared (trimmed,
    as the store reads them); a file one evaluation lists is read whole."""
    data = tmp_path / "data"
    run_ingest(IngestOptions(paths=(LOG,), data_dir=data))
    written, = (data / "trials").glob("*.parquet")
    rel = written.relative_to(data).as_posix()
    both = data / "trials" / "both.parquet"
    # The second evaluation: the same trials under another model name, written with spaces around it.
    duckdb.sql(f"COPY (SELECT * FROM read_parquet('{written.as_posix()}') UNION ALL "
               f"SELECT * REPLACE ('  other ' AS model) FROM read_parquet('{written.as_posix()}') ORDER BY {ORDER}) "
               f"TO '{both.as_posix()}' (FORMAT parquet)")
    first = parquet_rows(written)[0]
    mine = (first["model"], first["template"], first["sampler"])
    other = ("other", first["template"], first["sampler"])
    shared = [SimpleNamespace(slug=f"{n}/t-s", trial_files=("trials/both.parquet",), key=k)
              for n, k in (("a", mine), ("b", other))]
    alone = SimpleNamespace(slug="c/t-s", trial_files=(rel,), key=mine)
    out = dict(samples_files(data, [*shared, alone], True))  # type: ignore[list-item]
    expected = [{c: r[c] for c in SAMPLE_COLUMNS} for r in parquet_rows(written)]
    for name in ("a", "b", "c"):
        (tmp_path / f"{name}.parquet").write_bytes(out[f"data/samples/{name}/t-s.parquet"])
        assert parquet_rows(tmp_path / f"{name}.parquet") == expected
    # In jobs of one file each (the render pool's parts), a file two evaluations list is still
    # read for each one's names, though the other evaluation is in another job: the same bytes.
    jobs = samples_jobs(data, [*shared, alone], True, per_job=1)  # type: ignore[list-item]
    assert len(jobs) == 3 and [dict(job()) for job in jobs] == [{path: out[path]} for path in sorted(out)]
