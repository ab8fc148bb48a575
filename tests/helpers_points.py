"""Shared test helpers: writing small points files and plain reference statistics.

The reference functions here are deliberately written from STATISTICS.md in plain Python
(`math`, loops, no numpy, no DuckDB) so that the code under test is always compared with
an independent computation, never with itself.
"""

from __future__ import annotations

import csv
import json
import math
import random
from pathlib import Path
from typing import Any, Iterable

Z95 = 1.959963984540054
Z975 = 2.241402727604947

COLUMNS = ("model", "template", "sampler", "base_task", "params", "total", "correct", "truncated", "guess", "tokens")


# -- points files ----------------------------------------------------------------------


def point(model: str = "m", base_task: str = "t", params: Any = None, total: int = 10, correct: int = 5,
          truncated: int = 0, guess: float = 0.0, tokens: float = 100.0, template: str = "tpl",
          sampler: str = "smp", **extra: Any) -> dict[str, Any]:
    """One points row as a dict (params as a dict, tiers/groups as lists when given)."""
    row = {"model": model, "template": template, "sampler": sampler, "base_task": base_task,
           "params": {"x": 1} if params is None else params, "total": total, "correct": correct,
           "truncated": truncated, "guess": guess, "tokens": tokens}
    row.update(extra)
    return row


def _csv_cell(key: str, value: Any) -> str:
    if key == "params" and not isinstance(value, str):
        return json.dumps(value)
    if key in ("tiers", "groups") and isinstance(value, (list, tuple)):
        return ";".join(value)
    return "" if value is None else str(value)


def write_csv(path: Path, rows: Iterable[dict[str, Any]], columns: Iterable[str] | None = None) -> Path:
    """Write rows as a points CSV (header from `columns`, default: the first row's keys)."""
    rows = list(rows)
    columns = list(columns) if columns is not None else list(rows[0])
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(columns)
        for row in rows:
            writer.writerow([_csv_cell(c, row.get(c)) for c in columns])
    return path


def write_jsonl(path: Path, rows: Iterable[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def duck_rows(sql: str, params: list[Any] | None = None) -> tuple[list[str], list[tuple[Any, ...]]]:
    """The column names and rows of one DuckDB statement, on a connection of its own that is
    closed after: an unclosed connection keeps its worker threads for the rest of the test
    session, and every later fork of the render pool then warns (Python 3.12+)."""
    import duckdb

    with duckdb.connect() as con:
        cur = con.execute(sql, params or [])
        return [d[0] for d in cur.description or ()], cur.fetchall()


def parquet_rows(path: Path) -> list[dict[str, Any]]:
    """A Parquet file's rows in file order, read plainly (DuckDB only as the reader)."""
    names, rows = duck_rows("SELECT * FROM read_parquet(?)", [str(path)])
    return [dict(zip(names, row)) for row in rows]


def write_parquet(path: Path, rows: Iterable[dict[str, Any]]) -> Path:
    """Write rows to Parquet with DuckDB's COPY (params as JSON text, lists as VARCHAR[])."""
    import duckdb

    rows = list(rows)
    path.parent.mkdir(parents=True, exist_ok=True)
    con = duckdb.connect()
    cols = list(rows[0])
    types = {"total": "BIGINT", "correct": "BIGINT", "truncated": "BIGINT", "guess": "DOUBLE",
             "tokens": "DOUBLE", "tiers": "VARCHAR[]", "groups": "VARCHAR[]"}
    values = []
    for c in cols:
        column = [r[c] for r in rows]
        if c == "params":
            column = [v if isinstance(v, str) else json.dumps(v) for v in column]
        values.append(column)
    select = ", ".join(f"unnest(?::{types.get(c, 'VARCHAR')}[]) AS {c}" for c in cols)
    con.execute(f"CREATE TABLE t AS SELECT {select}", values)
    con.execute(f"COPY t TO '{path.as_posix()}' (FORMAT parquet)")
    con.close()
    return path


def ingest_rows(tmp_path: Path, rows: list[dict[str, Any]], name: str = "a.csv", evals: list | None = None):
    """A fresh in-memory PointsDB holding `rows` (written to `tmp_path/points/<name>`)."""
    from reasonboard.sources.evals import read_evals
    from reasonboard.store.ingest import ingest_evals

    write_csv(tmp_path / "points" / name, rows)
    db = load_data(tmp_path)
    if evals is not None:
        (tmp_path / "evals.json").write_text(json.dumps(evals), encoding="utf-8")
        ingest_evals(db, read_evals(tmp_path / "evals.json"))
    return db


def load_data(data: Path) -> Any:
    """A fresh in-memory PointsDB holding the points and trials files of `data`. Closed when
    the ingest fails: the error's traceback would keep it, with DuckDB's threads, alive
    until a garbage collection, and a later fork of the render pool would warn."""
    from reasonboard.sources.points import discover_point_files
    from reasonboard.store.ingest import ingest_points
    from reasonboard.store.pointsdb import PointsDB
    from reasonboard.store.trialfiles import discover_trial_files

    db = PointsDB()
    try:
        ingest_points(db, discover_point_files(data) + discover_trial_files(data), data)
    except BaseException:
        db.close()
        raise
    return db


# -- reference statistics (STATISTICS.md, written out plainly) ----------------------------


def ref_wilson(s: float, t: float, z: float) -> tuple[float, float, float]:
    """(center, low, high) of the Wilson interval, section 1, term by term."""
    if t <= 0:
        return 0.5, 0.0, 1.0
    s = min(max(s, 0.0), t)
    p = s / t
    d = 1.0 + z * z / t
    center = (p + z * z / (2.0 * t)) / d
    margin = z * math.sqrt(p * (1.0 - p) / t + z * z / (4.0 * t * t)) / d
    return center, center - margin, center + margin


def ref_estimate(mode: str, n: float, n_t: float, n_e: float, g: float) -> tuple[float, float, float]:
    """(estimate, low, high) of one of the six estimators of section 2, or V1 of section 5."""
    n_u = n - n_t
    if mode == "E_I":
        return ref_wilson(n_e, n_u, Z95)
    if mode == "E_P":
        return ref_wilson(n_e, n, Z95)
    if mode == "E_O":
        return ref_wilson(n_e + n_t, n, Z95)
    if mode == "C_I":
        return ref_wilson(n_e - g, n_u - g, Z95)
    if mode == "C_P":
        a = ref_wilson(n_e - g, n_u - g, Z975)
        u = ref_wilson(n_u, n, Z975)
        return a[0] * u[0], a[1] * u[1], a[2] * u[2]
    if mode == "C_O":
        q = ref_wilson(n_u - n_e, n_u - g, Z975)
        u = ref_wilson(n_u, n, Z975)
        return 1 - q[0] * u[0], 1 - q[2] * u[2], 1 - q[1] * u[1]
    if mode == "V1":
        c, lo, hi = ref_wilson(n_e - g, n - g, Z95)
        ratio = n_t / n
        return max(hi - ratio, 0.01), max(lo - ratio, 0.01), max(hi - ratio, 0.01)
    raise ValueError(mode)


def ref_geomean(values: Iterable[float]) -> float:
    values = list(values)
    return math.exp(sum(math.log(v) for v in values) / len(values))


def plain_bootstrap(lows, highs, draws=5000, seed=42):
    """(center, margin) of ReasonScore v2, section 4 step by step (floor, uniform draws,
    geometric mean, sort, two order statistics), with Python's Mersenne Twister: a generator
    other than the code's, so agreement is in distribution, not in bytes."""
    rng = random.Random(seed)
    lows = [max(v, 0.01) for v in lows]
    highs = [max(v, 0.01) for v in highs]
    gms = []
    for _ in range(draws):
        total = 0.0
        for lo, hi in zip(lows, highs):
            total += math.log(lo + rng.random() * (hi - lo))
        gms.append(math.exp(total / len(lows)))
    gms.sort()
    ci_low, ci_high = 1000 * gms[math.floor(0.025 * draws)], 1000 * gms[math.floor(0.975 * draws)]
    return (ci_low + ci_high) / 2, (ci_high - ci_low) / 2


# -- a lab's own (not simulated) data ---------------------------------------------------


LAB_MODELS = ("aster-7b", "birch-13b", "cedar-34b", "dune-70b", "elm-120b")


def write_lab_data(data_dir: Path, seed: int = 0, models: Iterable[str] = LAB_MODELS) -> Path:
    """A small real-looking project dataset: five models, two tasks, three difficulties each,
    and their evals.json entries (no `simulated` flag: this is a lab's own data)."""
    rng = random.Random(seed)
    rows, evals = [], []
    for i, model in enumerate(models):
        evals.append({"model": model, "template": "zerocot", "sampler": "greedy-8k",
                      "label": model.replace("-", " ").title(), "organization": "Acme Lab",
                      "relationship": "first_party", "generation_args": {"temperature": 0.0, "max_tokens": 8192}})
        for task in ("arithmetic", "logic"):
            for depth in (1, 2, 3):
                total = 64
                truncated = rng.randint(0, 3)
                correct = min(total - truncated, max(0, 20 + 8 * i - 6 * depth + rng.randint(-4, 4)))
                rows.append(point(model, task, {"depth": depth}, total=total, correct=correct,
                                  truncated=truncated, tokens=float(total * (400 + 50 * depth)),
                                  template="zerocot", sampler="greedy-8k"))
    write_csv(data_dir / "points" / "results.csv", rows, COLUMNS)
    (data_dir / "evals.json").write_text(json.dumps(evals, indent=2) + "\n", encoding="utf-8")
    return data_dir


# -- the demo on the points path -----------------------------------------------------------


def write_demo_points(out_dir: Path, models: int, seed: int) -> None:
    """The demo's simulated evaluations as points files (one CSV per model, the columns the
    demo wrote before it wrote trials files) and its `evals.json`: for tests of the points
    path, which edit points files by hand."""
    from reasonboard import demo

    demo.write_points_files(out_dir, demo.simulate(models, seed))


def trial_counters(data_dir: Path) -> dict[tuple[str, str, str, str], list[float]]:
    """(model, template, sampler, task) -> [n, n_t, n_e, g, tok] summed by hand over the trials
    files of `data_dir` (INGEST.md section 2), DuckDB used only to read the Parquet."""
    sums: dict[tuple[str, str, str, str], list[float]] = {}
    for path in sorted((data_dir / "trials").glob("*.parquet")):
        for r in parquet_rows(path):
            acc = sums.setdefault((r["model"], r["template"], r["sampler"], r["base_task"]), [0, 0, 0, 0.0, 0])
            acc[0] += 1
            acc[1] += r["truncated"]
            acc[2] += r["correct"]
            acc[3] += 1 / r["options"] if r["options"] and not r["truncated"] else 0.0
            acc[4] += r["tokens"] or 0
    return sums
