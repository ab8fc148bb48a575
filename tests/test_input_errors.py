"""Everyday input mistakes get a clear one-line answer.

Each test makes the mistake a maintainer makes with their own data (an empty or
mis-saved points folder, a file saved by Excel or an old editor, a cell typed the wrong
way) and asserts on what they see: the exit status, the one line naming the file, the
line as an editor counts it and what to do, and that nothing was written.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers_points import COLUMNS, point, write_csv
from reasonboard.cli import main
from reasonboard.errors import InputError
from reasonboard.sources.evals import read_evals

HEADER = ",".join(COLUMNS)


def rows(n: int = 3) -> list[dict]:
    return [point(model="m", params={"i": i}, total=10, correct=4) for i in range(n)]


def build(data: Path, tmp_path: Path, *extra: str):
    result = CliRunner().invoke(main, ["build", "--data", str(data), "--out", str(tmp_path / "site"),
                                       "--cache", str(tmp_path / "cache"), "--quiet", *extra])
    return result


def failed_with(result, tmp_path: Path) -> str:
    """The error line of a failed build, after checking how it failed."""
    assert result.exit_code == 2, result.output
    assert ("Traceback" not in result.output and result.exception is None) or isinstance(result.exception, SystemExit)
    assert not (tmp_path / "site").exists()  # nothing written
    errors = [line for line in result.output.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1, result.output
    return errors[0][len("error: "):]


# -- item 2: an empty leaderboard does not publish -------------------------------------------


def test_an_empty_points_folder_fails_and_says_where_it_looked(tmp_path):
    data = tmp_path / "data"
    (data / "points").mkdir(parents=True)
    message = failed_with(build(data, tmp_path), tmp_path)
    assert message.startswith(f"{data / 'points'}: no points to publish (the folder holds no files)")
    assert "reasonboard reads .csv, .jsonl, .parquet files" in message and "--allow-empty" in message


def test_a_missing_points_folder_fails(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    message = failed_with(build(data, tmp_path), tmp_path)
    assert message.startswith(f"{data / 'points'}: no points to publish (the folder does not exist)")



def test_a_folder_of_trials_without_a_trial_says_so(tmp_path):
    """A lab that ran ingest has trials files, not points files: the message names both, and
    counts a trials file with no row as a trials file, not as an empty points file."""
    import duckdb
    from reasonboard.store.trialfiles import select_list

    data = tmp_path / "data"
    (data / "trials").mkdir(parents=True)
    empty = (data / "trials" / "empty.parquet").as_posix()
    duckdb.execute(f"COPY (SELECT {select_list()} FROM (SELECT NULL AS model, NULL AS template, NULL AS sampler, "
                   "NULL AS base_task, NULL AS params, NULL AS sample_id, NULL AS epoch, NULL AS credit, "
                   "NULL AS correct, NULL AS truncated, NULL AS options, NULL AS tokens, NULL AS input_tokens, "
                   f"NULL AS compressed) WHERE false) TO '{empty}' (FORMAT parquet)")
    message = failed_with(build(data, tmp_path), tmp_path)
    assert message.startswith(f"{data / 'points'}: no points to publish (the folder does not exist)"), message
    assert f"the trials files that reasonboard ingest writes under {(data / 'trials').as_posix()}/ " \
           "(1 found there, none with a trial)" in message, message

def test_points_saved_as_tsv_or_xlsx_are_listed_as_ignored(tmp_path):
    data = tmp_path / "data"
    (data / "points").mkdir(parents=True)
    (data / "points" / "a.tsv").write_text(HEADER.replace(",", "\t") + "\n", encoding="utf-8")
    (data / "points" / "b.xlsx").write_bytes(b"PK\x03\x04")
    (data / "points" / "README.md").write_text("points go here\n", encoding="utf-8")
    message = failed_with(build(data, tmp_path), tmp_path)
    assert f"{data / 'points'}: no points to publish (ignored points/a.tsv, points/b.xlsx); " \
           "reasonboard reads .csv, .jsonl, .parquet files" in message


def test_header_only_files_say_they_hold_no_rows(tmp_path):
    data = tmp_path / "data"
    (data / "points").mkdir(parents=True)
    (data / "points" / "a.csv").write_text(HEADER + "\n", encoding="utf-8")
    message = failed_with(build(data, tmp_path), tmp_path)
    assert "(1 points file(s) read, none with a data row)" in message


def test_allow_empty_publishes_an_empty_site(tmp_path):
    data = tmp_path / "data"
    (data / "points").mkdir(parents=True)
    result = build(data, tmp_path, "--allow-empty")
    assert result.exit_code == 0, result.output
    assert "models 0 (0 ranked)" in result.output and (tmp_path / "site" / "index.html").is_file()


def test_an_ignored_file_beside_real_points_is_a_warning(tmp_path):
    from reasonboard.config import SiteConfig
    from reasonboard.store.cache import open_store

    data = tmp_path / "data"
    write_csv(data / "points" / "a.csv", rows())
    (data / "points" / "b.tsv").write_text(HEADER.replace(",", "\t") + "\n", encoding="utf-8")
    db, report = open_store(data, tmp_path / "cache", None, SiteConfig())
    db.close()
    assert f"{data / 'points'}: ignored points/b.tsv (only .csv, .jsonl, .parquet files are read)" in report.warnings


# -- item 5: one encoding rule for every text input -----------------------------------------


def test_a_latin1_evals_json_names_the_line(tmp_path):
    data = tmp_path / "data"
    write_csv(data / "points" / "a.csv", rows())
    text = json.dumps([{"model": "m", "template": "tpl", "sampler": "smp", "label": "Modèle"}], indent=2,
                      ensure_ascii=False)
    (data / "evals.json").write_bytes(text.encode("latin-1"))
    line = next(i for i, l in enumerate(text.split("\n"), start=1) if "Modèle" in l)
    message = failed_with(build(data, tmp_path), tmp_path)
    assert message.startswith(f"{data / 'evals.json'}, line {line}: not UTF-8 text: byte 0xE8")
    assert message.endswith("save it as UTF-8")


def test_a_bom_is_accepted_in_evals_json_as_in_csv(tmp_path):
    entries = [{"model": "m", "template": "tpl", "sampler": "smp", "label": "Modèle"}]
    plain, bom = tmp_path / "plain.json", tmp_path / "bom.json"
    plain.write_text(json.dumps(entries), encoding="utf-8")
    bom.write_bytes(b"\xef\xbb\xbf" + plain.read_bytes())
    assert read_evals(bom) == read_evals(plain)


def test_a_cp1252_csv_names_the_line_not_a_byte_offset(tmp_path):
    data = tmp_path / "data"
    path = write_csv(data / "points" / "a.csv", [*rows(2), point(model="modèle – v2", params={"i": 9})])
    path.write_bytes(path.read_text(encoding="utf-8").encode("cp1252"))
    message = failed_with(build(data, tmp_path), tmp_path)
    # header = line 1, rows 1 and 2 = lines 2 and 3: the third row is line 4
    assert message.startswith(f"{path}, line 4: not UTF-8 text: byte 0xE8 at column 4")  # m, o, d, è
    assert "byte offset" not in message and message.endswith("save it as UTF-8")


def test_a_utf16_file_is_named_as_such(tmp_path):
    data = tmp_path / "data"
    path = write_csv(data / "points" / "a.csv", rows())
    path.write_bytes(path.read_text(encoding="utf-8").encode("utf-16"))
    message = failed_with(build(data, tmp_path), tmp_path)
    assert message == f"{path}, line 1: the file is UTF-16 text, not UTF-8; save it as UTF-8"


def _readers():
    """(file name, valid text, reader) for every other text input."""
    from reasonboard.config import load_config
    from reasonboard.site.markdown import load_content_page
    from reasonboard.stats.bands import load_bands
    from reasonboard.store.ingest import ingest_points
    from reasonboard.store.pointsdb import PointsDB

    bands = (Path(__file__).resolve().parents[1] / "content" / "bands.toml").read_text(encoding="utf-8")

    def jsonl(path: Path):
        with PointsDB() as db:
            return ingest_points(db, [path], path.parent).points

    jsonl_text = "".join(json.dumps(dict(point(params={"i": i}), groups=["é"]), ensure_ascii=False) + "\n"
                         for i in range(3))
    return [
        ("site.toml", 'title = "Café board"\n', lambda p: load_config(p).title),
        ("bands.toml", bands.replace("# ", "# é ", 1), lambda p: load_bands(p)),
        ("about.md", '+++\ntitle = "À propos"\n+++\nText.\n', lambda p: load_content_page(p).title),
        ("a.jsonl", jsonl_text, jsonl),
    ]


@pytest.mark.parametrize("index", range(4), ids=["site.toml", "bands.toml", "markdown", "jsonl"])
def test_every_text_input_accepts_a_bom_and_names_the_line_of_latin1(tmp_path, index):
    name, text, read = _readers()[index]
    plain, bom, latin = tmp_path / "plain" / name, tmp_path / "bom" / name, tmp_path / "latin" / name
    for path in (plain, bom, latin):
        path.parent.mkdir()
    plain.write_text(text, encoding="utf-8")
    bom.write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    latin.write_bytes(text.encode("latin-1"))
    assert read(bom) == read(plain)
    with pytest.raises(InputError) as err:
        read(latin)
    line = next(i for i, l in enumerate(text.split("\n"), start=1) if any(ord(c) > 127 for c in l))
    assert err.value.path == str(latin) and err.value.line == line
    assert str(err.value).startswith(f"{latin}, line {line}: not UTF-8 text") and str(err.value).endswith("UTF-8")


def test_cards_and_eee_files_follow_the_same_rule(tmp_path):
    from reasonboard.sources.cards import read_cards

    card = json.dumps({"benchmark_card": {"name": "Café"}}, indent=1, ensure_ascii=False)
    (tmp_path / "benchmark_card_bom.json").write_bytes(b"\xef\xbb\xbf" + card.encode("utf-8"))
    (tmp_path / "benchmark_card_latin.json").write_bytes(card.encode("latin-1"))
    read = read_cards(tmp_path)
    assert [c.stem for c in read.cards] == ["bom"]
    line = next(i for i, l in enumerate(card.split("\n"), start=1) if "Café" in l)
    assert read.problems == ((
        "benchmark_card_latin.json",
        f"line {line}: not UTF-8 text: byte 0xE9 at column {card.split(chr(10))[line - 1].index('é') + 1} "
        "(probably Latin-1 or Windows-1252, as Excel and older editors save); save it as UTF-8"),)


# -- item 6: lines as editors count them; params shows the value and the expected form -------


def test_a_bad_row_names_the_editor_line(tmp_path):
    data = tmp_path / "data"
    bad = rows(4)
    bad[2]["correct"] = 11  # > total
    path = write_csv(data / "points" / "a.csv", bad)
    message = failed_with(build(data, tmp_path), tmp_path)
    assert message.startswith(f"{path}, line 4: correct must be between 0 and total - truncated")


@pytest.mark.parametrize("column", ["model", "template", "sampler", "base_task"])
def test_a_name_over_its_limit_gives_its_length_and_the_limit(tmp_path, column):
    """A 100,000-character model name was accepted and rendered into every page."""
    data = tmp_path / "data"
    bad = rows(4)
    bad[2][column] = "x" * 100_000
    path = write_csv(data / "points" / "a.csv", bad)
    message = failed_with(build(data, tmp_path), tmp_path)
    assert message == f"{path}, line 4: '{column}' is 100,000 characters long; the limit is 500 (shorten it)"


def test_a_name_over_its_limit_in_evals_json(tmp_path):
    path = tmp_path / "evals.json"
    path.write_text(json.dumps([{"model": "m" * 501, "template": "t", "sampler": "s"}]), encoding="utf-8")
    with pytest.raises(InputError) as err:
        read_evals(path)
    assert err.value.problem == "entry 1: 'model' is 501 characters long; the limit is 500 (shorten it)"


def test_a_quoted_value_over_two_lines_counts_both(tmp_path):
    data = tmp_path / "data"
    bad = rows(4)
    bad[0]["params"] = '{\n"i": 0}'  # valid JSON spanning two lines of the file
    bad[2]["total"] = "ten"
    path = write_csv(data / "points" / "a.csv", bad)
    lines = path.read_text(encoding="utf-8").splitlines()
    line = next(i for i, l in enumerate(lines, start=1) if ",ten," in l)
    assert line == 5  # a second reading: header, row 1 (two lines), row 2, then this row
    message = failed_with(build(data, tmp_path), tmp_path)
    assert message == f"{path}, line 5: 'total' must be a whole number (got 'ten')"


@pytest.mark.parametrize("value, shown", [("{size: 4}", "'{size: 4}'"), ("", "an empty cell")])
def test_bad_params_show_the_value_and_the_expected_form(tmp_path, value, shown):
    data = tmp_path / "data"
    bad = rows(3)
    bad[1]["params"] = value
    path = write_csv(data / "points" / "a.csv", bad)
    message = failed_with(build(data, tmp_path), tmp_path)
    assert message == (f"{path}, line 3: 'params' is not valid JSON (got {shown}); expected a JSON object such as "
                       '{"size": 4}, or {} when the task has no difficulty levels; in a CSV file quote the cell and '
                       'double its quotes: "{""size"": 4}"')


def test_params_that_are_not_an_object_show_the_value(tmp_path):
    data = tmp_path / "data"
    bad = rows(3)
    bad[0]["params"] = [1, 2]
    path = write_csv(data / "points" / "a.csv", bad)
    message = failed_with(build(data, tmp_path), tmp_path)
    assert message.startswith(f"{path}, line 2: 'params' must be a JSON object (got '[1, 2]'); expected a JSON "
                              'object such as {"size": 4}')


# -- item 7: spreadsheet-shaped CSV files --------------------------------------------------


def csv_text(delimiter: str = ",", end: str = "\n", trailing: str = "") -> str:
    buffer = io.StringIO()
    # The trailing text is added after writing: Python 3.13's csv refuses a line terminator
    # that holds the delimiter.
    writer = csv.writer(buffer, delimiter=delimiter, lineterminator="\n")
    writer.writerow(COLUMNS)
    for row in rows():
        writer.writerow([json.dumps(row[c]) if c == "params" else row[c] for c in COLUMNS])
    return buffer.getvalue().replace("\n", trailing + end)


EXPECTED = "expected comma-separated, with the header " + HEADER + " (optionally ,tiers,groups,samples)"


@pytest.mark.parametrize("text, says", [
    (csv_text(";"), "line 1: the file looks semicolon-separated (header 'model;template;sampler;...'), "
                    "as spreadsheets save in some locales; " + EXPECTED),
    (csv_text("\t"), "line 1: the file looks tab-separated (header 'model\\ttemplate\\tsampler\\t...'), "
                     "as spreadsheets save in some locales; " + EXPECTED),
    (csv_text(trailing=","), "line 1: the header ends with an empty column (a trailing comma, as spreadsheets "
                             "write when cells beyond the table were touched); " + EXPECTED
                             + ": remove the trailing comma from every line"),
    (csv_text(end="\r\r\n"), "line 1: lines end in \\r\\r\\n (a doubled carriage return, as a file converted twice "
                             "between Windows and Unix line ends has); expected \\r\\n or \\n line ends"),
], ids=["semicolon", "tab", "trailing-comma", "cr-cr-lf"])
def test_spreadsheet_shapes_say_what_the_file_looks_like(tmp_path, text, says):
    data = tmp_path / "data"
    path = data / "points" / "a.csv"
    path.parent.mkdir(parents=True)
    path.write_bytes(text.encode("utf-8"))
    message = failed_with(build(data, tmp_path), tmp_path)
    assert message.startswith(f"{path}, {says}")
    assert "unknown column" not in message and "state machine" not in message


def test_unquoted_params_with_a_comma_name_the_line_and_the_quoting(tmp_path):
    data = tmp_path / "data"
    path = data / "points" / "a.csv"
    path.parent.mkdir(parents=True)
    lines = csv_text().split("\n")
    lines[2] = lines[2].replace('"{""i"": 1}"', '{"i": 1, "j": 2}')
    assert lines[2].count(",") == 10  # a second reading: eleven fields
    path.write_text("\n".join(lines), encoding="utf-8")
    message = failed_with(build(data, tmp_path), tmp_path)
    assert message == (f"{path}, line 3: 11 fields where the header has 10 ({HEADER}); a value with a comma must "
                       'be quoted, e.g. params as "{""size"": 4, ""len"": 8}"')


def test_a_doubled_carriage_return_further_down_names_its_line(tmp_path):
    data = tmp_path / "data"
    path = data / "points" / "a.csv"
    path.parent.mkdir(parents=True)
    lines = csv_text(end="\r\n").split("\r\n")
    path.write_bytes(("\r\n".join(lines[:3]) + "\r\r\n" + "\r\n".join(lines[3:])).encode("utf-8"))
    message = failed_with(build(data, tmp_path), tmp_path)
    assert message.startswith(f"{path}, line 3: lines end in \\r\\r\\n")


def test_an_unclosed_quote_is_named(tmp_path):
    data = tmp_path / "data"
    path = data / "points" / "a.csv"
    path.parent.mkdir(parents=True)
    path.write_text(csv_text() + 'm,tpl,smp,t,"{},10,5,0,0,0\n', encoding="utf-8")
    message = failed_with(build(data, tmp_path), tmp_path)
    assert message.startswith(f"{path}, line 5: 5 fields where the header has 10")
    assert message.endswith('a quoted value runs on past the end of the line: a quote (") is not closed')
