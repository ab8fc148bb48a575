"""Trials files into the PointsDB (SAMPLES.md section 1; INGEST.md section 2).

A trials file's rows are staged, checked (first bad row first, named by its Parquet row),
their `params` made canonical, and then summed in SQL into the same staged points rows a
points file gives: from there on a point is a point, whatever its file. The trials
themselves go to the `trials` table with their file, for everything that reads samples.

The same (evaluation, task) in a trials file and in a points file (or in two trials files)
is an error naming both files: the points would count its trials twice, or disagree.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import NamedTuple

import duckdb

from ..confined import checked_name
from ..errors import InputError, shortened
from ..sources.limits import MAX_NAME_CHARS, MAX_PARAMS_CHARS, MAX_SAMPLE_ID_CHARS, MAX_TOKENS, too_long
from . import trialcodes, trialfiles
from .pointsdb import fetch_as
from .repeats import any_repeated
from .trialsummary import summarise_trials

#: The earlier ingest's folder of points files (INGEST.md section 6).
OLD_INGESTED = "points/ingested/"

#: Checks on a staged trial, in order: (SQL condition TRUE for a bad row, the problem).
TRIAL_CHECKS = [
    *[(f"{name} IS NULL", f"'{name}' is empty") for name in trialfiles.NAMES if name not in trialfiles.NULLABLE],
    *[(f"trim({name}) = ''", f"'{name}' is empty") for name in ("model", "template", "sampler", "base_task",
                                                                 "sample_id")],
    ("epoch < 1", "'epoch' must be at least 1"),
    ("NOT isfinite(credit) OR credit < 0 OR credit > 1", "'credit' must be between 0 and 1"),
    ("correct <> (credit >= 1 AND NOT truncated)",
     "'correct' must be true exactly when the credit is 1 and the trial is not truncated"),
    ("options < 1", "'options' must be at least 1 (or empty for a write-in item)"),
    *[(f"{name} < 0", f"'{name}' must not be negative") for name in ("tokens", "input_tokens", "compressed")],
    (f"tokens >= {MAX_TOKENS}", "'tokens' must be below 10^12 per trial"),
]

#: Length limits (sources/limits.py), checked once per point (names, params) and once per
#: distinct sample id, never per trial; a bad row's message gives the length seen.
LENGTH_LIMITS = {**{name: MAX_NAME_CHARS for name in ("model", "template", "sampler", "base_task")},
                 "params": MAX_PARAMS_CHARS, "sample_id": MAX_SAMPLE_ID_CHARS}
TRIAL_CHECKS += [(f"length({name}) > {limit}", too_long(name, "{length}", limit)) for name, limit in LENGTH_LIMITS.items()]


#: Name columns whose surrounding spaces are typing noise, not another model or task.
TRIMMED = ("model", "template", "sampler", "base_task")


class BadTrial(NamedTuple):
    source: str
    source_row: int
    rule: int
    length: int | None


class Repeated(NamedTuple):
    source: str
    source_row: int
    base_task: str
    sample_id: str
    epoch: int


class Clash(NamedTuple):
    """An (evaluation, task) given by two files, one of them a trials file."""

    model: str
    template: str
    sampler: str
    base_task: str
    first: str
    second: str


def is_trials_file(rel: str) -> bool:
    return rel.startswith(f"{trialfiles.TRIALS_DIR}/") and rel.endswith(trialfiles.SUFFIX)


def stage_trials(con: duckdb.DuckDBPyConnection, files: list[Path], rels: list[str], indices: list[int]) -> None:
    """Load the trials files at `indices` (of `files`) into the trials tables, checked row by
    row, and stage their points. Two scans read them all (thousands of per-evaluation files
    cost about what one file of their size costs): one groups the trials into their points
    and flags a bad value, one stores them as integers (trialcodes.py); a file DuckDB cannot
    read is found by reading the files one by one, only on that failure path."""
    chosen = [i for i in indices if is_trials_file(rels[i])]
    if not chosen:
        return
    con.execute("CREATE OR REPLACE TEMP TABLE trial_files AS SELECT unnest(?::VARCHAR[]) AS filename, "
                "unnest(?::INTEGER[]) AS file_idx, unnest(?::VARCHAR[]) AS source",
                [[checked_name(files[i]) for i in chosen], chosen, [rels[i] for i in chosen]])
    # DuckDB opens the files itself: it gets each one's real name once the file is found to be
    # a regular file inside its folder (confined.py), so a link out of the project is refused.
    listed = [checked_name(files[i]) for i in chosen]
    try:
        raw = _raw_relation(con, listed)
        trialcodes.group_points(con, raw, [listed], FLAGGED)
    except duckdb.Error as exc:
        for i in chosen:
            _check_readable(con, files[i])
        raise InputError(files[chosen[0]].parent, f"cannot read the trials files: {_first_line(exc)}") from None
    _canonicalise(con, files, raw, listed)
    _check(con, files, raw, listed)
    first = trialcodes.store(con, raw, [listed])
    _point_trials(con, first)
    if any_repeated(con, first):
        _repeated(con, files, raw, listed)
    _sample_sums(con, first)
    stage_points(con, first)
    summarise_trials(con, first)
    for table in ("trial_files", "raw_points", "raw_map", "canonical", "point_trials", "point_sums"):
        con.execute(f"DROP TABLE {table}")


def _raw_relation(con: duckdb.DuckDBPyConnection, listed: list[str]) -> str:
    """The trials of the files `listed` (one placeholder) as they are written, each column
    cast to its type (NULL where a file lacks it), with its file name and row."""
    present = {row[0] for row in con.execute(
        "DESCRIBE SELECT * FROM read_parquet(?, union_by_name = true)", [listed]).fetchall()}
    kinds = dict(trialfiles.COLUMNS)
    columns = ", ".join(f"{n}::{kinds[n]} AS {n}" if n in present else f"NULL::{kinds[n]} AS {n}"
                        for n in trialfiles.NAMES)
    tiers = f"{trialfiles.TIERS}::VARCHAR" if trialfiles.TIERS in present else "NULL::VARCHAR"
    return (f"(SELECT filename, {columns}, {tiers} AS tiers, file_row_number + 1 AS source_row "
            "FROM read_parquet(?, filename = true, union_by_name = true, file_row_number = true))")


def _named(raw: str) -> str:
    """`raw` with its names trimmed (as stored) and its file's relative name: the rows the
    checks and error messages read, only on a failure path."""
    names = ", ".join(f"trim({n}) AS {n}" if n in TRIMMED else n for n in trialfiles.NAMES)
    return f"(SELECT f.source, {names}, r.source_row FROM {raw} r JOIN trial_files f USING (filename))"


def _check_readable(con: duckdb.DuckDBPyConnection, path: Path) -> None:
    """Name the first problem of one trials file: unreadable, a column missing, a bad type."""
    try:
        described = con.execute("DESCRIBE SELECT * FROM read_parquet(?)", [checked_name(path)]).fetchall()
    except duckdb.Error as exc:
        raise InputError(path, f"cannot read this trials file: {_first_line(exc)}") from None
    present = {name for name, *_ in described}
    missing = [name for name in trialfiles.NAMES if name not in present]
    if missing:
        raise InputError(path, f"not a trials file: no column '{missing[0]}' "
                               f"(expected {', '.join(trialfiles.NAMES)}; SAMPLES.md section 1)")
    kinds = {name: kind for name, kind, *_ in described}
    for name, kind in trialfiles.COLUMNS:
        if kinds[name] != kind:
            _check_column_type(con, path, name, kind, kinds[name])


def _check_column_type(con: duckdb.DuckDBPyConnection, path: Path, name: str, kind: str, seen: str) -> None:
    """A column stored as another type than SAMPLES.md's: its first value that does not
    convert, by row, with the value seen and the type expected. Each value is cast (a
    `count(*)` over the cast columns would not cast: DuckDB drops an unused projection)."""
    expected = {"VARCHAR": "text", "INTEGER": "a whole number below 2,147,483,648", "BIGINT": "a whole number",
                "DOUBLE": "a number",
                "BOOLEAN": "true or false"}[kind]
    try:
        bad = con.execute(f'SELECT file_row_number + 1, "{name}"::VARCHAR FROM read_parquet(?, file_row_number = true) '
                          f'WHERE "{name}" IS NOT NULL AND TRY_CAST("{name}" AS {kind}) IS NULL '
                          "ORDER BY file_row_number LIMIT 1", [checked_name(path)]).fetchall()
    except duckdb.Error:
        bad = [(None, None)]
    if not bad:
        return
    row, value = bad[0]
    got = "" if value is None else f" (got {shortened(value)!r})"
    raise InputError(path, f"'{name}' must be {expected}{got}; the file stores this column as {seen}, not {kind} "
                           "(SAMPLES.md section 1): write it with that type", row=row)


PARAMS_PROBLEM = "'params' must be a JSON object such as {\"level\": \"3\"}, or {}"

#: Rules that read no name (the names are checked once per point, the sample ids once each).
FLAGGED = " OR ".join(f"({condition})" for condition, _ in TRIAL_CHECKS
                      if not any(name in condition for name in (*TRIMMED, "params", "sample_id")))


def _canonicalise(con: duckdb.DuckDBPyConnection, files: list[Path], raw: str, listed: list[str]) -> None:
    """`params` as canonical JSON (sorted keys, compact), as points files' are: few distinct
    texts, checked and made canonical in Python; the temp table `canonical` maps each text
    that changes to its canonical form (trialcodes.py stores the points with it)."""
    distinct = [r[0] for r in con.execute("SELECT DISTINCT params FROM raw_points WHERE params IS NOT NULL").fetchall()]
    raw_texts, canon, bad = [], [], []
    for text in distinct:
        try:
            value = json.loads(text)
        except ValueError:
            value = None
        if not isinstance(value, dict):
            bad.append(text)
            continue
        made = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        if made != text:
            raw_texts.append(text)
            canon.append(made)
    if bad:
        source, row, text = con.execute(
            f"SELECT source, source_row, params FROM {_named(raw)} WHERE params IN (SELECT unnest(?::VARCHAR[])) "
            "ORDER BY source, source_row LIMIT 1", [listed, bad]).fetchall()[0]
        at = dict(con.execute("SELECT source, file_idx FROM trial_files").fetchall())
        shown = shortened(text)
        raise InputError(files[at[source]], f"{PARAMS_PROBLEM} (got {shown!r})", row=row)
    con.execute("CREATE OR REPLACE TEMP TABLE canonical AS "
                "SELECT unnest(?::VARCHAR[]) AS raw, unnest(?::VARCHAR[]) AS canon", [raw_texts, canon])


def _check(con: duckdb.DuckDBPyConnection, files: list[Path], raw: str, listed: list[str]) -> None:
    """The first bad trial (by file, then row), rules in order. Found cheaply (a point's
    flag, its names, the fresh sample ids), then, only if there is one, looked for row by
    row."""
    names = " OR ".join(f"{n} IS NULL OR trim({n}) = '' OR length({n}) > {MAX_NAME_CHARS}" for n in TRIMMED)
    found = con.execute(f"""SELECT EXISTS (SELECT 1 FROM raw_points WHERE flagged OR params IS NULL OR {names}
                                           OR length(params) > {MAX_PARAMS_CHARS})
                            OR EXISTS (SELECT 1 FROM fresh_samples WHERE sample_id IS NULL OR trim(sample_id) = ''
                                       OR length(sample_id) > {MAX_SAMPLE_ID_CHARS})
                         """).fetchone()
    if not (found and found[0]):
        return
    at = dict(con.execute("SELECT source, file_idx FROM trial_files").fetchall())
    cases = " ".join(f"WHEN {condition} THEN {i}" for i, (condition, _) in enumerate(TRIAL_CHECKS))
    first_limit = len(TRIAL_CHECKS) - len(LENGTH_LIMITS)
    lengths = " ".join(f"WHEN {first_limit + i} THEN length({name})" for i, name in enumerate(LENGTH_LIMITS))
    bad = fetch_as(con.execute(
        f"""SELECT source, source_row, rule, CASE rule {lengths} END AS length FROM (
                SELECT source, source_row, CASE {cases} END AS rule, {", ".join(LENGTH_LIMITS)} FROM {_named(raw)})
            WHERE rule IS NOT NULL ORDER BY source, source_row LIMIT 1""", [listed]), BadTrial)
    if bad:
        path = files[at[bad[0].source]]
        problem = TRIAL_CHECKS[bad[0].rule][1].replace("{length}", f"{bad[0].length or 0:,}")
        if problem.endswith("is empty"):
            _check_readable(con, path)  # a column missing from this file is named as such
        raise InputError(path, problem, row=bad[0].source_row)


def _repeated(con: duckdb.DuckDBPyConnection, files: list[Path], raw: str, listed: list[str]) -> None:
    """A trial given twice in one file (same point, sample and epoch): an error naming the
    first such trial by file and row, found in the files themselves (their rows are not
    stored); only when `any_repeated` (repeats.py) found one."""
    at = dict(con.execute("SELECT source, file_idx FROM trial_files").fetchall())
    repeated = fetch_as(con.execute(
        f"""SELECT source, max(source_row) AS source_row, base_task, sample_id, epoch
            FROM (SELECT r.*, coalesce(c.canon, r.params) AS canon FROM {_named(raw)} r
                  LEFT JOIN canonical c ON c.raw = r.params)
            GROUP BY source, model, template, sampler, base_task, canon, sample_id, epoch HAVING count(*) > 1
            ORDER BY source, min(source_row) LIMIT 1""", [listed]), Repeated)
    if repeated:
        first = repeated[0]
        raise InputError(files[at[first.source]], f"trial ({first.base_task}, sample {first.sample_id}, "
                                                  f"epoch {first.epoch}) is given twice: a trials file holds "
                                                  "each trial once", row=first.source_row)


def _point_trials(con: duckdb.DuckDBPyConnection, first: int) -> None:
    """`point_trials`: per fresh point (numbered from `first`) what it sums from its trials
    directly (trials, correct, truncated, the guess accumulator as ingest sums it, tokens, its
    last epoch)."""
    con.execute(
        """CREATE OR REPLACE TEMP TABLE point_trials AS
           SELECT point, count(*) AS total, count(*) FILTER (WHERE correct) AS correct,
                  count(*) FILTER (WHERE truncated) AS truncated, max(epoch) AS last,
                  round(coalesce(fsum(1.0 / options) FILTER (WHERE NOT truncated AND options IS NOT NULL), 0), 9)
                      AS g,
                  coalesce(sum(tokens), 0) AS tok
           FROM trials WHERE point >= ? GROUP BY point""", [first])


def _sample_sums(con: duckdb.DuckDBPyConnection, first: int) -> None:
    """`point_sums`: per fresh point (numbered from `first`, in `point_trials`) its samples `c`
    and the sums over them of its trials `m`, correct and truncated trials (SAMPLES.md section
    2's `m_i`, `y_i`) and of their squares and products. A trial given twice (same point,
    sample and epoch) is an error first (`any_repeated`); without one, a point whose trials
    are all epoch 1 has one trial per sample, so its sums over samples are its counts, and
    only the points with epochs (a few in a hundred in the demo) are grouped into samples:
    that grouping of every trial cost about three times the rest of this at 625
    evaluations."""
    con.execute(
        """CREATE OR REPLACE TEMP TABLE point_sums AS
           SELECT point, total AS c, total::HUGEINT AS n, correct::HUGEINT AS n_e, truncated::HUGEINT AS n_t,
                  total::DOUBLE AS mm, correct::DOUBLE AS ee, correct::DOUBLE AS em, truncated::DOUBLE AS tt,
                  truncated::DOUBLE AS tm
           FROM point_trials WHERE last = 1
           UNION ALL
           SELECT point, count(*) AS c, sum(m) AS n, sum(y_e) AS n_e, sum(y_t) AS n_t, sum(m * m)::DOUBLE AS mm,
                  sum(y_e * y_e)::DOUBLE AS ee, sum(y_e * m)::DOUBLE AS em,
                  sum(y_t * y_t)::DOUBLE AS tt, sum(y_t * m)::DOUBLE AS tm
           FROM (SELECT point, count(*) AS m, count(*) FILTER (WHERE correct) AS y_e,
                        count(*) FILTER (WHERE truncated) AS y_t
                 FROM trials SEMI JOIN (SELECT point FROM point_trials WHERE last > 1) USING (point)
                 GROUP BY point, sample)
           GROUP BY point""")


def stage_points(con: duckdb.DuckDBPyConnection, first: int) -> None:
    """The points of the fresh trials (those of points numbered from `first`; INGEST.md
    section 2) as staged points rows (text columns, as a points file is staged), one per
    (evaluation, task, params), with their samples and design effect (`DESIGN_EFFECT`, from
    `point_sums`), their trials with partial credit (from `raw_map`), and what a point
    takes from its trials directly (`point_trials`: the guess accumulator summed as ingest
    sums it, Kahan, 9 decimals), so a point has the same bytes either way."""
    con.execute(
        f"""
        INSERT INTO staged
        SELECT f.file_idx, p.source,
               row_number() OVER (PARTITION BY p.source ORDER BY model, template, sampler, base_task, params),
               model, template, sampler, base_task, params, d.n::VARCHAR, d.n_e::VARCHAR, d.n_t::VARCHAR,
               s.g::VARCHAR, s.tok::VARCHAR, regexp_extract_all(coalesce(tiers, ''), '[^;\\s]([^;]*[^;\\s])?'),
               []::VARCHAR[], d.c::VARCHAR, ({DESIGN_EFFECT})::VARCHAR, c.partial::VARCHAR
        FROM trial_points p
        JOIN point_trials s USING (point)
        JOIN (SELECT point, sum(partial) AS partial FROM raw_map GROUP BY point) c USING (point)
        JOIN point_sums d USING (point)
        JOIN trial_files f USING (source)
        WHERE p.point >= ?
        """, [first]
    )


def _indicator(y: str, yy: str, ym: str) -> str:
    """SAMPLES.md section 2 for one indicator with per-point sums `y` = Σy_i, `yy` = Σy_i²,
    `ym` = Σy_i·m_i (and `mm` = Σm_i², `n`, `c` = C): `deff_y`, or NULL when it never varies.
    Σ(y_i - m_i·p)² is expanded into those sums, so one GROUP BY over the samples gives it."""
    p = f"({y}::DOUBLE / n)"
    srs = f"({p} * (1 - {p}) / n)"
    cluster = f"(c::DOUBLE / (c - 1) * ({yy} - 2 * {p} * {ym} + {p} * {p} * mm) / (n::DOUBLE * n))"
    mean = "(n::DOUBLE / c)"
    return (f"CASE WHEN {y} = 0 OR {y} = n THEN NULL WHEN c = 1 THEN {mean} "
            f"ELSE least(greatest({cluster} / {srs}, 1.0), {mean}) END")


#: The point's design effect: the largest over its indicators that vary (correct, truncated),
#: the mean trials per sample when neither does (nothing shows that epochs agree less).
DESIGN_EFFECT = (f"coalesce(greatest({_indicator('n_e', 'ee', 'em')}, {_indicator('n_t', 'tt', 'tm')}), "
                 "n::DOUBLE / c)")


def check_clashes(con: duckdb.DuckDBPyConnection, data_dir: Path) -> None:
    """An error naming both files when an (evaluation, task) has trials and is also given by
    a points file or another trials file, with the fix."""
    clashes = fetch_as(con.execute(
        f"""
        SELECT model, template, sampler, base_task, list(DISTINCT source ORDER BY source)[1] AS first,
               list(DISTINCT source ORDER BY source)[2] AS second
        FROM point_rows GROUP BY model, template, sampler, base_task
        HAVING count(DISTINCT source) > 1 AND bool_or(starts_with(source, '{trialfiles.TRIALS_DIR}/'))
        ORDER BY model, template, sampler, base_task LIMIT 1
        """), Clash)
    if not clashes:
        return
    clash = clashes[0]
    trials_rel, other = (clash.second, clash.first) if is_trials_file(clash.second) else (clash.first, clash.second)
    what = f"{clash.model} / {clash.template} / {clash.sampler}, task {clash.base_task}"
    if other.startswith(OLD_INGESTED):
        fix = (f"{OLD_INGESTED} was written by an earlier reasonboard ingest, which now keeps the trials "
               f"in {trialfiles.TRIALS_DIR}/: delete {OLD_INGESTED}")
    elif is_trials_file(other):
        fix = "keep the task's trials in one file: remove the other file or its rows of this task"
    else:
        fix = "the points would count its trials twice: remove the task's rows from the points file"
    raise InputError(data_dir / trials_rel, f"trials of {what} are also given by {other}; {fix}")


def old_ingested_warning(con: duckdb.DuckDBPyConnection) -> str | None:
    """A points file under `points/ingested/` was written by an earlier `reasonboard ingest`:
    still valid, but without its trials; the warning names the files and the fix."""
    rows = con.execute("SELECT DISTINCT source FROM point_rows WHERE starts_with(source, ?) ORDER BY source",
                       [OLD_INGESTED]).fetchall()
    if not rows:
        return None
    names = [r[0] for r in rows]
    shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
    return (f"{shown}: points written by an earlier reasonboard ingest, without their trials (no samples, epochs "
            f"or per-sample outcomes): ingest the logs again (it writes {trialfiles.TRIALS_DIR}/), then delete "
            f"{OLD_INGESTED}")


def _first_line(exc: Exception) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
