"""Loading points (CSV, JSONL, Parquet) and evals.json, and every validation rule.

Bad input (PRODUCT.md "Bad input"; STATISTICS.md "valid counters"): the error names the
file, the row and the problem, and nothing reaches the `points` table.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers_points import COLUMNS, point, write_csv, write_jsonl, write_parquet
from reasonboard.errors import InputError
from reasonboard.sources.evals import read_evals
from reasonboard.sources.points import discover_point_files
from reasonboard.store.ingest import ingest_evals, ingest_points
from reasonboard.store.pointsdb import PointsDB

ROWS = [
    point(model="m1", base_task="t1", params={"len": 8, "depth": 2}, total=20, correct=11, truncated=3,
          guess=4.25, tokens=1234.5, tiers=["easy", "hard"], groups=["g1"]),
    point(model="m1", base_task="t2", params={"len": 16}, total=7, correct=0, truncated=7, guess=0.0,
          tokens=0.0, tiers=[], groups=[]),
    point(model="m2", base_task="t1", params={}, total=1, correct=1, truncated=0, guess=1.0, tokens=9.0,
          tiers=["easy"], groups=["g1", "g2"]),
]
EXPECTED = sorted(
    (r["model"], r["template"], r["sampler"], r["base_task"],
     json.dumps(r["params"], sort_keys=True, separators=(",", ":")),
     r["total"], r["correct"], r["truncated"], r["guess"], r["tokens"], r["tiers"], r["groups"])
    for r in ROWS)


@pytest.fixture(scope="module")
def shared_db():
    # Installing the macros costs ~0.1 s per PointsDB; one database serves the module.
    with PointsDB() as db:
        yield db


@pytest.fixture(autouse=True)
def _empty(shared_db):
    shared_db.con.execute("DELETE FROM points")
    shared_db.con.execute("DELETE FROM evaluations")


def load(data_dir: Path, db: PointsDB):
    report = ingest_points(db, discover_point_files(data_dir), data_dir)
    return db, report


def table(db: PointsDB, with_source: bool = False):
    cols = "model, template, sampler, base_task, params, total, correct, truncated, guess, tokens, tiers, groups"
    if with_source:
        cols += ", source, source_row"
    return db.con.execute(f"SELECT {cols} FROM points ORDER BY ALL").fetchall()


# -- the three formats -------------------------------------------------------------------


def test_csv_loads_every_column(shared_db, tmp_path):
    write_csv(tmp_path / "points" / "a.csv", ROWS)
    db, report = load(tmp_path, shared_db)
    assert table(db) == EXPECTED
    assert (report.files, report.points, report.duplicates, report.warnings) == (1, 3, 0, [])
    sources = db.con.execute("SELECT source, source_row FROM points ORDER BY source_row").fetchall()
    assert sources == [("points/a.csv", 1), ("points/a.csv", 2), ("points/a.csv", 3)]


def test_csv_list_columns_are_split_and_trimmed_and_optional(shared_db, tmp_path):
    path = tmp_path / "points" / "a.csv"
    path.parent.mkdir()
    path.write_text(",".join(COLUMNS) + ",tiers\n"
                    'm,tp,s,t,"{""b"": 2, ""a"": 1}",10,5,0,0,1, easy ; hard ;;\n', encoding="utf-8")
    db, _ = load(tmp_path, shared_db)
    assert db.con.execute("SELECT params, tiers, groups FROM points").fetchall() == [
        ('{"a":1,"b":2}', ["easy", "hard"], [])]


def test_jsonl_loads_the_same_points(shared_db, tmp_path):
    rows = [dict(r) for r in ROWS]
    rows[0]["params"] = json.dumps(rows[0]["params"])  # params may also be JSON text
    rows[1]["tiers"] = ""                               # or lists as ';'-separated text
    rows[2]["groups"] = "g1; g2"
    write_jsonl(tmp_path / "points" / "a.jsonl", rows)
    db, report = load(tmp_path, shared_db)
    assert table(db) == EXPECTED
    assert report.points == 3


def test_parquet_loads_the_same_points(shared_db, tmp_path):
    write_parquet(tmp_path / "points" / "a.parquet", ROWS)
    db, report = load(tmp_path, shared_db)
    assert table(db) == EXPECTED
    assert db.con.execute("SELECT DISTINCT source FROM points").fetchall() == [("points/a.parquet",)]


def test_parquet_with_struct_params_and_no_list_columns(shared_db, tmp_path):
    import duckdb

    path = tmp_path / "points" / "s.parquet"
    path.parent.mkdir()
    con = duckdb.connect()
    con.execute(f"""COPY (SELECT 'm' AS model, 'tp' AS template, 's' AS sampler, 't' AS base_task,
                    {{'len': 4, 'depth': 1}} AS params, 10::BIGINT AS total, 4::BIGINT AS correct,
                    1::BIGINT AS truncated, 2.5 AS guess, 100.0 AS tokens)
                    TO '{path.as_posix()}' (FORMAT parquet)""")
    con.close()
    db, _ = load(tmp_path, shared_db)
    assert db.con.execute("SELECT params, total, guess, tiers, groups FROM points").fetchall() == [
        ('{"depth":1,"len":4}', 10, 2.5, [], [])]


def test_files_are_discovered_recursively_by_suffix_in_sorted_order(shared_db, tmp_path):
    write_csv(tmp_path / "points" / "b" / "x.csv", ROWS[:1])
    write_jsonl(tmp_path / "points" / "a.jsonl", ROWS[1:2])
    write_parquet(tmp_path / "points" / "c.parquet", ROWS[2:])
    (tmp_path / "points" / "README.md").write_text("not points")
    (tmp_path / "points" / "notes.txt").write_text("not points")
    files = discover_point_files(tmp_path)
    assert [f.relative_to(tmp_path).as_posix() for f in files] == [
        "points/a.jsonl", "points/b/x.csv", "points/c.parquet"]
    db, report = load(tmp_path, shared_db)
    assert table(db) == EXPECTED and report.files == 3
    assert discover_point_files(tmp_path / "nowhere") == []


def test_empty_inputs_give_an_empty_database(shared_db, tmp_path):
    (tmp_path / "points").mkdir()
    (tmp_path / "points" / "a.csv").write_text(",".join(COLUMNS) + "\n")
    (tmp_path / "points" / "b.jsonl").write_text("\n\n")
    db, report = load(tmp_path, shared_db)
    assert report.points == 0 and table(db) == []


# -- duplicates: the later file (then the later row) wins, reported once ----------------------


def test_later_file_wins_and_the_build_says_so_once(shared_db, tmp_path):
    early = point(model="m", params={"a": 1, "b": 2}, total=10, correct=1)
    same_other_order = point(model="m", params={"b": 2, "a": 1}, total=10, correct=9)
    other_template = point(model="m", params={"a": 1, "b": 2}, template="x", total=10, correct=5)
    write_csv(tmp_path / "points" / "1-old.csv", [early, point(model="m", params={"z": 1}, correct=2)])
    write_jsonl(tmp_path / "points" / "2-new.jsonl", [same_other_order, other_template])
    db, report = load(tmp_path, shared_db)
    assert report.duplicates == 1
    assert len(report.warnings) == 1
    assert "points/1-old.csv, line 2" in report.warnings[0] and "later" in report.warnings[0]
    rows = db.con.execute("SELECT template, params, correct, source FROM points ORDER BY ALL").fetchall()
    assert rows == [("tpl", '{"a":1,"b":2}', 9, "points/2-new.jsonl"),
                    ("tpl", '{"z":1}', 2, "points/1-old.csv"),
                    ("x", '{"a":1,"b":2}', 5, "points/2-new.jsonl")]


def test_later_row_wins_within_a_file(shared_db, tmp_path):
    write_csv(tmp_path / "points" / "a.csv", [point(correct=1), point(correct=2), point(correct=3)])
    db, report = load(tmp_path, shared_db)
    assert report.duplicates == 2 and len(report.warnings) == 1
    assert db.con.execute("SELECT correct, source_row FROM points").fetchall() == [(3, 3)]


# -- bad input -----------------------------------------------------------------------------

BAD_VALUES = [
    # (column, value, words the problem must contain)
    ("model", "", "'model' is empty"),
    ("template", "  ", "'template' is empty"),
    ("sampler", "", "'sampler' is empty"),
    ("base_task", "", "'base_task' is empty"),
    ("params", "{len: 8}", "not valid JSON"),
    ("params", "", "not valid JSON"),
    ("params", "[1, 2]", "must be a JSON object"),
    ("params", "3", "must be a JSON object"),
    ("total", "10.5", "'total' must be a whole number"),
    ("total", "ten", "'total' must be a whole number"),
    ("total", "", "'total' must be a whole number"),
    ("total", "0x10", "'total' must be a whole number"),
    ("correct", "2.5", "'correct' must be a whole number"),
    ("truncated", "one", "'truncated' must be a whole number"),
    ("guess", "x", "'guess' must be a number"),
    ("guess", "nan", "'guess' must be a number"),
    ("tokens", "inf", "'tokens' must be a number"),
    ("tokens", "", "'tokens' must be a number"),
    ("total", "0", "n >= 1"),
    ("total", "-3", "n >= 1"),
    ("truncated", "-1", "0 <= n_t <= n"),
    ("truncated", "11", "0 <= n_t <= n"),
    ("correct", "-1", "0 <= n_e <= n_u"),
    ("correct", "9", "0 <= n_e <= n_u"),     # total 10, truncated 2: n_u = 8
    ("guess", "-0.5", "0 <= g <= n_u"),
    ("guess", "8.5", "0 <= g <= n_u"),
    ("tokens", "-1", "tok >= 0"),
]
GOOD = dict(point(total=10, correct=4, truncated=2, guess=1.5, tokens=10.0))


def bad_rows(column, value):
    rows = [dict(GOOD, params={"i": i}) for i in range(1, 5)]
    rows[2] = dict(rows[2], **{column: value})  # the third data row is bad
    return rows


@pytest.mark.parametrize("column, value, problem", BAD_VALUES)
def test_each_bad_csv_value_names_file_row_and_problem(shared_db, tmp_path, column, value, problem):
    write_csv(tmp_path / "points" / "a.csv", [GOOD])
    path = write_csv(tmp_path / "points" / "b.csv", bad_rows(column, value))
    db = shared_db
    with pytest.raises(InputError) as err:
        load(tmp_path, db)
    assert err.value.path == str(path)
    assert err.value.line == 4  # the header is line 1, the third data row line 4
    assert problem in err.value.problem
    assert str(path) in str(err.value) and "line 4" in str(err.value) and problem in str(err.value)
    assert table(db) == []  # nothing written, not even the good file's point


@pytest.mark.parametrize("column, value, problem", [
    ("total", 10.5, "whole number"), ("correct", 11, "0 <= n_e <= n_u"), ("guess", -1, "0 <= g <= n_u"),
    ("params", [1], "JSON object"), ("model", None, "'model' is empty"), ("total", True, "whole number"),
])
def test_bad_jsonl_value_names_the_line(shared_db, tmp_path, column, value, problem):
    rows = bad_rows(column, value)
    path = tmp_path / "points" / "a.jsonl"
    path.parent.mkdir()
    # A blank line first: rows are counted as lines of the file.
    path.write_text("\n" + "".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    db = shared_db
    with pytest.raises(InputError) as err:
        load(tmp_path, db)
    assert (err.value.path, err.value.line) == (str(path), 4)
    assert problem in err.value.problem
    assert table(db) == []


@pytest.mark.parametrize("column, value, problem", [
    ("correct", 11, "0 <= n_e <= n_u"), ("tokens", -5.0, "tok >= 0"), ("params", "[]", "JSON object"),
])
def test_bad_parquet_value_names_the_row(shared_db, tmp_path, column, value, problem):
    path = write_parquet(tmp_path / "points" / "a.parquet", bad_rows(column, value))
    db = shared_db
    with pytest.raises(InputError) as err:
        load(tmp_path, db)
    assert (err.value.path, err.value.row) == (str(path), 3)
    assert problem in err.value.problem
    assert table(db) == []


def test_boundary_values_are_valid(shared_db, tmp_path):
    rows = [point(params={"i": 1}, total=5, correct=3, truncated=2, guess=3.0, tokens=0.0),  # n_e = g = n_u
            point(params={"i": 2}, total=5, correct=0, truncated=5, guess=0.0),              # all truncated
            point(params={"i": 3}, total=1, correct=0, truncated=0, guess=0.0)]
    write_csv(tmp_path / "points" / "a.csv", rows)
    assert load(tmp_path, shared_db)[1].points == 3


def test_the_earliest_bad_row_is_reported_in_a_long_file(shared_db, tmp_path):
    # The earliest bad row is reported, even when a later row breaks an earlier rule.
    rows = [dict(GOOD, params={"i": i}) for i in range(3000)]
    rows[1500] = dict(rows[1500], correct=99)
    rows[2500] = dict(rows[2500], model="")
    path = write_csv(tmp_path / "points" / "a.csv", rows)
    with pytest.raises(InputError) as err:
        load(tmp_path, shared_db)
    assert (err.value.path, err.value.line) == (str(path), 1502)
    assert "0 <= n_e <= n_u" in err.value.problem


def test_failed_ingest_keeps_the_previous_points(shared_db, tmp_path):
    write_csv(tmp_path / "points" / "a.csv", ROWS)
    db, _ = load(tmp_path, shared_db)
    write_csv(tmp_path / "points" / "b.csv", bad_rows("total", "0"))
    with pytest.raises(InputError):
        load(tmp_path, db)
    assert table(db) == EXPECTED


@pytest.mark.parametrize("header, problem", [
    ([*COLUMNS, "score"], "unknown column 'score'"),
    ([c for c in COLUMNS if c != "guess"], "missing column 'guess'"),
    ([c for c in COLUMNS if c != "params"] + ["param"], "unknown column 'param'"),
])
def test_unknown_or_missing_csv_columns_are_named(shared_db, tmp_path, header, problem):
    path = write_csv(tmp_path / "points" / "a.csv", [dict(GOOD, score=1, param="{}")], columns=header)
    db = shared_db
    with pytest.raises(InputError) as err:
        load(tmp_path, db)
    assert err.value.path == str(path) and problem in err.value.problem
    assert err.value.line == 1
    assert table(db) == []


def test_unknown_and_missing_keys_in_jsonl_and_parquet(shared_db, tmp_path):
    path = write_jsonl(tmp_path / "points" / "a.jsonl", [GOOD, dict(GOOD, extra=1)])
    with pytest.raises(InputError) as err:
        load(tmp_path, shared_db)
    assert (err.value.path, err.value.line) == (str(path), 2) and "unknown column 'extra'" in err.value.problem
    path.unlink()
    missing = {k: v for k, v in GOOD.items() if k != "tokens"}
    path = write_parquet(tmp_path / "points" / "b.parquet", [missing])
    with pytest.raises(InputError) as err:
        load(tmp_path, shared_db)
    assert err.value.path == str(path) and "missing column 'tokens'" in err.value.problem


@pytest.mark.parametrize("line, problem", [
    ('{"model": "m",', "invalid JSON"),
    ("[1, 2]", "must be a JSON object"),
    (json.dumps(dict(GOOD, tiers=["a", 1])), "'tiers' must be a list of strings"),
    (json.dumps(dict(GOOD, groups={"a": 1})), "'groups' must be a list of strings"),
])
def test_bad_jsonl_lines(shared_db, tmp_path, line, problem):
    path = tmp_path / "points" / "a.jsonl"
    path.parent.mkdir()
    path.write_text(json.dumps(dict(GOOD, params={"i": 0})) + "\n" + line + "\n", encoding="utf-8")
    with pytest.raises(InputError) as err:
        load(tmp_path, shared_db)
    assert (err.value.path, err.value.line) == (str(path), 2) and problem in err.value.problem


BAD_CSV = [
    ",".join(COLUMNS) + "\nm,t,s,b,{},10,5,0,0,1,EXTRA\n",          # a field too many
    ",".join(COLUMNS) + "\nm,t,s,b,{},10,5\n",                      # fields missing
    ",".join(COLUMNS) + '\nm,t,s,b,"{unterminated,10,5,0,0,1\n',    # an open quote
]


@pytest.mark.parametrize("content", BAD_CSV, ids=["extra-field", "missing-fields", "open-quote"])
@pytest.mark.parametrize("siblings", [0, 2])
def test_malformed_csv_names_the_file(shared_db, tmp_path, content, siblings):
    # CSV files with one header are read together; the error must still name the bad one.
    for k in range(siblings):
        write_csv(tmp_path / "points" / f"good{k}.csv", [dict(GOOD, params={"k": k})])
    path = tmp_path / "points" / "bad.csv"
    path.parent.mkdir(exist_ok=True)
    path.write_text(content, encoding="utf-8")
    with pytest.raises(InputError) as err:
        load(tmp_path, shared_db)
    assert err.value.path == str(path)
    assert table(shared_db) == []


@pytest.mark.parametrize("name, content", [
    ("a.parquet", b"this is not parquet"),
    ("a.csv", b""),
    ("a.csv", b"\xff\xfe\x00garbage"),
])
def test_unreadable_files_name_the_file(shared_db, tmp_path, name, content):
    path = tmp_path / "points" / name
    path.parent.mkdir()
    path.write_bytes(content)
    with pytest.raises(InputError) as err:
        load(tmp_path, shared_db)
    assert err.value.path == str(path)


# -- evals.json ------------------------------------------------------------------------------

EVAL = {"model": "m1", "template": "tpl", "sampler": "smp", "label": "Model 1", "groups": ["open"],
        "hf_id": "org/m1", "organization": "Org", "relationship": "first_party",
        "generation_args": {"temperature": 0.0, "max_tokens": 4096}, "harness": "h", "simulated": True}


def write_evals(tmp_path, value) -> Path:
    path = tmp_path / "evals.json"
    if isinstance(value, list):  # one entry a line: entry i is on line i + 1
        value = "[\n" + ",\n".join(json.dumps(e) for e in value) + "\n]\n"
    path.write_text(value if isinstance(value, str) else json.dumps(value), encoding="utf-8")
    return path


def test_evals_are_read_and_stored(shared_db, tmp_path):
    minimal = {"model": "m2", "template": "tpl", "sampler": "smp"}
    ingested = {"model": "m3", "template": "tpl", "sampler": "smp", "observed": {"truncation": False, "tokens": True}}
    entries = read_evals(write_evals(tmp_path, [EVAL, minimal, ingested]))
    assert read_evals(write_evals(tmp_path, {"evaluations": [EVAL, minimal, ingested]})) == entries
    db = shared_db
    ingest_evals(db, entries)
    rows = db.con.execute("SELECT * EXCLUDE (price_in, price_out, price_source, price_date, harness_scores, "
                          "likelihood_tasks) FROM evaluations ORDER BY model").fetchall()
    # The last two columns: `observed` (INGEST.md section 6), NULL when not said.
    assert rows == [
        ("m1", "tpl", "smp", "Model 1", ["open"], "org/m1", "Org", "first_party",
         '{"max_tokens":4096,"temperature":0.0}', "h", True, None, None),
        ("m2", "tpl", "smp", None, [], None, None, None, "{}", None, False, None, None),
        ("m3", "tpl", "smp", None, [], None, None, None, "{}", None, False, False, True),
    ]


@pytest.mark.parametrize("entries, row, problem", [
    ([EVAL, dict(EVAL, model="m2", temperature=0.7)], 2, "unknown key 'temperature'"),
    ([{k: v for k, v in EVAL.items() if k != "sampler"}], 1, "'sampler' must be a non-empty string"),
    ([dict(EVAL, model="")], 1, "'model' must be a non-empty string"),
    ([EVAL, dict(EVAL)], 2, "listed twice"),
    ([dict(EVAL, relationship="partner")], 1, "'relationship' must be one of"),
    ([dict(EVAL, generation_args=[0.7])], 1, "'generation_args' must be an object"),
    ([dict(EVAL, groups="open")], 1, "'groups' must be a list of strings"),
    ([dict(EVAL, label=3)], 1, "'label' must be a string"),
    ([dict(EVAL, simulated="yes")], 1, "'simulated' must be true or false"),
    ([dict(EVAL, observed={"truncation": "no"})], 1, "'observed' must be an object of true/false"),
    ([dict(EVAL, observed={"stops": True})], 1, "'observed' must be an object of true/false"),
    ([EVAL, "m2"], 2, "entry must be an object"),
])
def test_bad_evals_name_file_entry_and_problem(tmp_path, entries, row, problem):
    path = write_evals(tmp_path, entries)
    with pytest.raises(InputError) as err:
        read_evals(path)
    assert (err.value.path, err.value.line) == (str(path), row + 1)
    assert err.value.problem.startswith(f"entry {row}: ") and problem in err.value.problem and f"{path}, line {row + 1}:" in str(err.value)


@pytest.mark.parametrize("text, problem", [
    ('[{"model": "m"', "invalid JSON"),
    ('{"model": "m"}', "must be a JSON list"),
])
def test_malformed_evals_file(tmp_path, text, problem):
    path = write_evals(tmp_path, text)
    with pytest.raises(InputError) as err:
        read_evals(path)
    assert err.value.path == str(path) and problem in err.value.problem
