"""URLs, names, CSV cells, NaN and system errors from a checkout someone else wrote
(PRODUCT.md, "Untrusted checkouts"; "Bad input, safety, nothing lost"): each attack as
written, then the one-line error or the neutral output, and nothing published."""

from __future__ import annotations

import csv
import errno
import io
import json
import unicodedata
from pathlib import Path

import pytest
from helpers_lab import build, built_lab, error_line, lab_copy, snapshot
from reasonboard.build import BuildOptions, run_build


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, Path]:
    return built_lab(tmp_path_factory.mktemp("names"))


@pytest.fixture
def lab(tmp_path, built) -> tuple[Path, Path, dict[str, bytes]]:
    return lab_copy(built, tmp_path / "lab")


def add_config(project: Path, line: str) -> None:
    config = project / "content" / "site.toml"
    config.write_text(config.read_text(encoding="utf-8") + "\n" + line + "\n", encoding="utf-8")


def rename_model(project: Path, old: str, new: str) -> None:
    for path in (project / "data" / "points" / "results.csv", project / "data" / "evals.json"):
        path.write_text(path.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")


def site_text(site: Path) -> str:
    return "\n".join(p.read_text(encoding="utf-8", errors="replace") for p in site.rglob("*")
                     if p.is_file() and p.suffix in (".html", ".json", ".csv", ".js"))


@pytest.mark.parametrize("url", ["javascript:alert(document.domain)//", "data:text/html,<script>1</script>",
                                 "//evil.example/", "https://ok.example/\x1b]0;pwned\x07"])
def test_base_url_must_be_http(lab, url):
    project, cache, before = lab
    add_config(project, f"base_url = {json.dumps(url)}")
    message = error_line(build(project, cache))
    assert "site.toml" in message and "base_url" in message and "http" in message
    assert "\x1b" not in message
    assert snapshot(project / "site") == before


def test_formula_labels_are_neutralised_in_the_csv(lab):
    project, cache, _ = lab
    evals = json.loads((project / "data" / "evals.json").read_text(encoding="utf-8"))
    formulas = ['=HYPERLINK("http://evil.example","x")', "+1+1", "-2+3", "@SUM(A1)"]
    for entry, label in zip(evals, formulas):
        entry["label"] = label
    (project / "data" / "evals.json").write_text(json.dumps(evals), encoding="utf-8")
    assert build(project, cache).exit_code == 0
    rows = list(csv.DictReader(io.StringIO((project / "site" / "data" / "leaderboard.csv").read_text(encoding="utf-8"))))
    labels = {r["label"] for r in rows}
    assert {"'" + f for f in formulas} <= labels
    assert not any(r[c].startswith(("=", "+", "@")) for r in rows for c in r)
    assert any(r["reasonscore"] for r in rows) and all(not r["reasonscore"].startswith("'") for r in rows)


def test_control_and_bidi_characters_leave_names_with_a_warning(lab):
    project, cache, _ = lab
    evil = "aster\u202eGNIRTS\u202c\x1b]0;owned\x07-7b"
    rename_model(project, "aster-7b", json.dumps(evil)[1:-1])  # JSON-escaped in evals.json, raw in the CSV
    points = project / "data" / "points" / "results.csv"
    points.write_text(points.read_text(encoding="utf-8").replace(json.dumps(evil)[1:-1], evil), encoding="utf-8")
    summary = run_build(BuildOptions(project=project, cache_dir=cache))
    assert any("control or bidirectional characters" in w and "results.csv, line" in w for w in summary.warnings)
    text = site_text(project / "site")
    assert "\u202e" not in text and "\x1b" not in text and "\x07" not in text
    models = json.loads((project / "site" / "data" / "leaderboard.json").read_text(encoding="utf-8"))["models"]
    assert "asterGNIRTS]0;owned-7b" in {m["model"] for m in models}


def test_nfc_and_nfd_forms_of_a_name_are_one_model(lab):
    project, cache, _ = lab
    nfc = unicodedata.normalize("NFC", "café-7b")
    nfd = unicodedata.normalize("NFD", "café-7b")
    assert nfc != nfd
    rename_model(project, "aster-7b", nfc)
    points = project / "data" / "points" / "results.csv"
    lines = points.read_text(encoding="utf-8").splitlines()
    lines = [line.replace(nfc, nfd) if i % 2 else line for i, line in enumerate(lines)]  # half the rows in NFD
    points.write_text("\n".join(lines) + "\n", encoding="utf-8")
    summary = run_build(BuildOptions(project=project, cache_dir=cache))
    models = json.loads((project / "site" / "data" / "leaderboard.json").read_text(encoding="utf-8"))["models"]
    assert [m["model"] for m in models].count(nfc) == 1 and nfd not in {m["model"] for m in models}
    assert any("not in Unicode NFC" in w for w in summary.warnings)


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_nan_in_generation_args_is_an_error_with_its_line(lab, constant):
    project, cache, before = lab
    evals = project / "data" / "evals.json"
    text = evals.read_text(encoding="utf-8").replace('"temperature": 0.0', f'"temperature": {constant}', 1)
    evals.write_text(text, encoding="utf-8")
    line = text[:text.index(constant)].count("\n") + 1
    message = error_line(build(project, cache))
    assert f"evals.json, line {line}: {constant} is not a JSON number" in message
    assert snapshot(project / "site") == before


@pytest.mark.parametrize("code,advice", [(errno.ENOSPC, "the disk is full"), (errno.EROFS, "read-only"),
                                         (errno.EACCES, "permission denied")])
def test_a_system_error_while_writing_is_one_line_and_the_site_stays(lab, monkeypatch, code, advice):
    """The tests run as root, whom permissions do not stop, and no disk can be filled here:
    the system's error is raised where the writer stages a page."""
    project, cache, before = lab
    (project / "data" / "evals.json").write_text(
        (project / "data" / "evals.json").read_text(encoding="utf-8").replace("Acme Lab", "Acme Labs"), encoding="utf-8")
    real = Path.write_bytes

    def failing(self, data):
        if ".site.new-" in str(self) and self.suffix == ".html":
            raise OSError(code, __import__("os").strerror(code), str(self))
        return real(self, data)

    monkeypatch.setattr(Path, "write_bytes", failing)
    monkeypatch.setenv("REASONBOARD_WORKERS", "1")
    message = error_line(build(project, cache))
    assert advice in message and ".html" in message
    assert snapshot(project / "site") == before
    assert not list(project.glob(".site.new-*"))


def test_ingest_with_a_file_where_its_trials_folder_goes_says_what_to_do(tmp_path):
    """`data/trials` as a file: ingest said only "File exists"."""
    from click.testing import CliRunner
    from reasonboard.cli import main

    log = min((Path(__file__).parent / "data" / "per-instance" / "inspect").rglob("*.eval"))
    data = tmp_path / "data"
    data.mkdir()
    (data / "trials").write_text("not a folder\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["ingest", "--data", str(data), str(log)])
    assert result.exit_code == 2, result.output
    assert "trials: File exists (a file is where a folder must be made: move the file away)" in result.output
    assert (data / "trials").read_text(encoding="utf-8") == "not a folder\n"


def test_a_cache_on_a_full_disk_is_one_line(lab, monkeypatch):
    import duckdb
    from reasonboard.store import cache as store_cache

    project, cache, before = lab
    (project / "data" / "points" / "results.csv").write_text(
        (project / "data" / "points" / "results.csv").read_text(encoding="utf-8") + "\n", encoding="utf-8")

    def full(*args, **kwargs):
        raise duckdb.IOException('IO Error: Could not write file "points.duckdb": No space left on device')

    monkeypatch.setattr(store_cache, "PointsDB", full)
    message = error_line(build(project, cache))
    assert "No space left on device" in message and "the disk is full" in message
    assert snapshot(project / "site") == before
