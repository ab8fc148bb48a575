"""The documentation: a short README with the two quickstart commands, and a reference that
is what scripts/docs_reference.py generates from the code (every option of every command
documented, every site.toml key described)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from reasonboard.cli import main

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT / "docs" / "reference"


def _generated(page: str) -> bool:
    result = subprocess.run([sys.executable, str(ROOT / "scripts" / "docs_reference.py"), "--check", "--only", page],
                            cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    return True


def test_the_readme_is_short_with_two_quickstart_commands():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.encode("utf-8")) <= 8 * 1024
    quickstart = readme.split("## Quickstart", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```sh\n(.*?)```", quickstart, flags=re.S)
    assert len(blocks) == 1 and len(blocks[0].strip().splitlines()) == 2, blocks


@pytest.mark.parametrize("page", ["cli", "site-toml"])
def test_the_reference_is_what_the_code_generates(page):
    assert _generated(page)


@pytest.mark.slow
@pytest.mark.parametrize("page", ["errors", "outputs"])
def test_the_built_reference_is_what_the_code_generates(page):
    """The error messages (each mistake run through the real command) and the output files
    (a build of the default data)."""
    assert _generated(page)


def test_every_option_of_every_command_is_documented_with_its_help():
    text = (REFERENCE / "cli.md").read_text(encoding="utf-8")
    commands = [("", main)]
    seen = 0
    while commands:
        prefix, group = commands.pop()
        for name, command in getattr(group, "commands", {}).items():
            path = f"{prefix} {name}".strip()
            if getattr(command, "commands", None):
                commands.append((path, command))
                continue
            assert f"## `reasonboard {path}`" in text, path
            section = text.split(f"## `reasonboard {path}`", 1)[1].split("\n## ", 1)[0]
            for param in command.params:
                for opt in getattr(param, "opts", []):
                    if opt.startswith("--"):
                        assert f"`{opt}`" in section, f"reasonboard {path} {opt} is not in the reference"
                        assert getattr(param, "help", None), f"reasonboard {path} {opt} has no help text"
            seen += 1
    assert seen >= 7


def test_every_docs_page_is_in_the_navigation():
    yaml = pytest.importorskip("yaml")
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))

    def pages(entries) -> list[str]:
        found = []
        for entry in entries:
            value = next(iter(entry.values())) if isinstance(entry, dict) else entry
            found += pages(value) if isinstance(value, list) else [value]
        return found

    listed = set(pages(config["nav"]))
    present = {p.relative_to(ROOT / "docs").as_posix() for p in (ROOT / "docs").rglob("*.md")}
    assert present == listed, (sorted(present - listed), sorted(listed - present))


def test_no_tracker_numbers_in_code_or_docs():
    """Reasons, not issue numbers nobody outside can follow."""
    pattern = re.compile(r"\b[Ii]ssues? \d+|\(#\d+\)")
    files = [*(ROOT / "builder").rglob("*.py"), *(ROOT / "templates").rglob("*.html"), *(ROOT / "docs").rglob("*.md"),
             ROOT / "README.md"]
    found = [f"{p.relative_to(ROOT)}:{n}" for p in files for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
             if pattern.search(line)]
    assert found == []


def test_the_ingest_guides_example_is_what_the_commands_print(tmp_path, monkeypatch):
    """The guide's worked example on real Inspect logs: its commands run as written (from a
    folder holding the repository's `tests/data`), the CSV lines it shows are the build's, and
    the paired figures its prose quotes are in `pairwise.json`."""
    import json
    import shutil

    from click.testing import CliRunner

    guide = (ROOT / "docs" / "guide" / "ingest.md").read_text(encoding="utf-8")
    commands = re.search(r"```sh\n(.*?)```", guide, flags=re.S).group(1).strip().splitlines()
    shutil.copytree(ROOT / "tests" / "data" / "per-instance" / "inspect" / "inspect_ai" / "log-sets" / "set",
                    tmp_path / "tests" / "data" / "per-instance" / "inspect" / "inspect_ai" / "log-sets" / "set")
    monkeypatch.chdir(tmp_path)
    for line in commands[:2]:
        argv = line.split()
        assert argv[0] == "reasonboard", line
        result = CliRunner().invoke(main, argv[1:])
        assert result.exit_code == 0, result.output
    cut = re.fullmatch(r"cut -d, -f([\d,-]+) (\S+)", commands[2])
    assert cut, commands[2]
    fields = [int(x) - 1 for part in cut.group(1).split(",")
              for x in ([part] if "-" not in part else range(int(part.split("-")[0]), int(part.split("-")[1]) + 1))]
    rows = (tmp_path / cut.group(2)).read_text(encoding="utf-8").splitlines()
    for row in rows:
        shown = ",".join(row.split(",")[k] for k in fields)
        assert f"\n{shown}\n" in guide, shown
    adjacent = json.loads((tmp_path / "popularity-site" / "data" / "pairwise.json").read_text())["paired"]["adjacent"]
    assert [(round(t["effect"], 1), t["p"], t["significant"]) for t in adjacent] == [(83.6, 0.004, True), (46.5, 0.115, False)]
    assert "(83.6 points, p = 0.004)" in guide and "(p = 0.115)" in guide
