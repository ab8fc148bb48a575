"""Bad input gets one line naming the file, the line, the value seen and the fix.

Each case is a project a publisher could write: a misspelt column or key, a number written
as a string, an evaluation listed twice, a logo path that repeats `static/`. The build is
run as a user runs it and its whole error output is compared.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers_site import page
from reasonboard.cli import main


@pytest.fixture
def project(tmp_path) -> Path:
    runner = CliRunner()
    assert runner.invoke(main, ["init", str(tmp_path / "p")]).exit_code == 0
    assert runner.invoke(main, ["demo", "--out", str(tmp_path / "p" / "data"), "--models", "3", "--force"]).exit_code == 0
    return tmp_path / "p"


def _error(project: Path) -> str:
    result = CliRunner().invoke(main, ["build", "--project", str(project), "--quiet"])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    first, second = result.output.strip().splitlines()
    assert second == "Nothing was written; the previous site is untouched."
    return first


def _append(path: Path, text: str) -> int:
    """Append `text` to `path`; the line number it starts on."""
    before = path.read_text(encoding="utf-8")
    path.write_text(before + ("" if before.endswith("\n") else "\n") + text + "\n", encoding="utf-8")
    return len(before.splitlines()) + (0 if before.endswith("\n") else 1) + 1


def test_a_misspelt_column_is_named_with_the_one_meant(project):
    points = project / "data" / "points" / "extra.csv"
    points.parent.mkdir(parents=True, exist_ok=True)
    points.write_text("modle,template,sampler,base_task,params,total,correct,truncated,guess,tokens\n"
                      'm,t,s,task,{},10,5,0,0,100\n')
    assert _error(project) == (f"error: {points}, line 1: unknown column "
                               "'modle' (did you mean 'model'?) (expected model, template, sampler, base_task, params, "
                               "total, correct, truncated, guess, tokens, tiers, groups, samples)")


def test_a_number_written_as_a_string_shows_the_value_seen_and_the_spelling(project):
    config = project / "content" / "site.toml"
    line = _append(config, 'bootstrap = "5000"')
    assert _error(project) == (f"error: {config}, line {line}: key 'bootstrap' must be a positive integer "
                               '(got "5000", a string): write bootstrap = 5000, without quotes')


def test_a_misspelt_key_is_named_with_the_one_meant(project):
    config = project / "content" / "site.toml"
    line = _append(config, "bootstrp = 5000")
    assert _error(project).startswith(f"error: {config}, line {line}: unknown key 'bootstrp' "
                                      "(did you mean 'bootstrap'?) (known keys: ")


def test_an_evaluation_listed_twice_names_the_first(project):
    evals = project / "data" / "evals.json"
    entries = json.loads(evals.read_text())
    entries.append(dict(entries[1]))
    evals.write_text(json.dumps(entries, indent=2))
    text = evals.read_text().splitlines()
    lines = [n for n, line in enumerate(text, start=1) if line == "  {"]
    e = entries[1]
    assert _error(project) == (f"error: {evals}, line {lines[-1]}: entry {len(entries)}: evaluation "
                               f"{e['model']}/{e['template']}/{e['sampler']} is listed twice "
                               f"(first at line {lines[1]}): keep one of them")


def test_a_static_path_that_repeats_static_says_paths_are_relative_to_it(project):
    (project / "static").mkdir(exist_ok=True)
    (project / "static" / "logo.svg").write_text("<svg xmlns='http://www.w3.org/2000/svg'/>")
    config = project / "content" / "site.toml"
    line = _append(config, 'logo = "static/logo.svg"')
    assert _error(project) == (f"error: {config}, line {line}: key 'logo' names 'static/logo.svg': paths are "
                               'relative to static/, so write logo = "logo.svg"')


def test_the_guide_renders_no_accidental_list(default_build):
    guide = page(default_build.out, "guide.html")
    assert not guide.find_all("ol")
    assert "A single task's result p, from 0 to 1, is shown with the band of 1000 × p" in guide.text
