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
from reasonboard.sampleoutputs import SAMPLE_COLUMNS, samples_files
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
