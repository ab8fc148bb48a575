"""Tests for `.github/workflows/`: every command they run is real and documented, and the
pull-request workflow's steps work when run here, without GitHub.

A workflow that calls a command the CLI lacks fails only on GitHub, after a merge; these tests
move that failure to `pytest`.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

yaml = pytest.importorskip("yaml", reason="PyYAML is in the test extra: pip install -e '.[test]'")

from reasonboard.cli import main  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
WORKFLOWS = ROOT / ".github" / "workflows"
PAGES = WORKFLOWS / "pages.yml"
PR_REPORT = WORKFLOWS / "pr-report.yml"

#: Programs a workflow may run besides the project's own commands: plain file plumbing.
SHELL_UTILITIES = {"cat", "mkdir"}
SCAFFOLD_WORKFLOWS = ROOT / "builder" / "scaffold" / "dot-github" / "workflows"
#: A pinned action: its full commit SHA, then its tag in a comment (`@<sha> # v4.2.2`).
PINNED = re.compile(r"^\s*(?:-\s+)?uses:\s+[\w.-]+/[\w./-]+@[0-9a-f]{40} # v\d+(?:\.\d+)*\s*$")


def load(path: Path) -> dict:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def triggers(workflow: dict) -> dict:
    # YAML 1.1 reads the bare key `on` as the boolean True.
    return workflow.get("on", workflow.get(True)) or {}


def steps(workflow: dict) -> list[dict]:
    return [step for job in workflow["jobs"].values() for step in job.get("steps", [])]


def commands(script: str) -> list[list[str]]:
    """Each simple command of a `run:` script as argv (continuations joined, `>>` cut off)."""
    found = []
    for line in script.replace("\\\n", " ").splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        for part in line.replace("&&", "\n").replace(";", "\n").splitlines():
            argv = shlex.split(part)
            if ">>" in argv:
                argv = argv[: argv.index(">>")]
            if argv:
                found.append(argv)
    return found


def readme() -> str:
    """The documentation: the README and every page under docs/ (the guide and the
    reference generated from the command line)."""
    path = ROOT / "README.md"
    if not path.is_file():
        pytest.fail("README.md does not exist; the workflows may only use commands it documents")
    pages = sorted((ROOT / "docs").rglob("*.md"))
    return "\n".join(p.read_text(encoding="utf-8") for p in [path, *pages])


def all_commands() -> list[tuple[str, list[str]]]:
    return [(path.name, argv) for path in (PAGES, PR_REPORT) for step in steps(load(path))
            if "run" in step for argv in commands(step["run"])]


# -- structure ----------------------------------------------------------------------------


def test_pages_workflow_builds_and_deploys():
    workflow = load(PAGES)
    on = triggers(workflow)
    assert on["push"]["branches"] == ["main"] and "workflow_dispatch" in on
    assert workflow["permissions"] == {"contents": "read", "pages": "write", "id-token": "write"}
    build, deploy = workflow["jobs"]["build"], workflow["jobs"]["deploy"]
    uses = [s.get("uses", "") for s in build["steps"]]
    upload = next(s for s in build["steps"] if s.get("uses", "").startswith("actions/upload-pages-artifact@"))
    assert upload["with"]["path"] == "site"
    assert any(argv[:2] == ["reasonboard", "build"] and "site" in argv
               for s in build["steps"] if "run" in s for argv in commands(s["run"]))
    assert uses.index(upload["uses"]) == len(uses) - 1  # the artifact is the finished build
    assert deploy["needs"] == "build" and deploy["environment"]["name"] == "github-pages"
    assert [s["uses"].split("@")[0] for s in deploy["steps"]] == ["actions/deploy-pages"]


def test_pr_workflow_builds_both_sides_and_posts_the_report():
    """The job that runs the pull request's code holds a read-only token and checkouts
    without credentials; a separate job that only reads the report artifact posts it."""
    workflow = load(PR_REPORT)
    assert "pull_request" in triggers(workflow) and "pull_request_target" not in triggers(workflow)
    assert workflow["permissions"] == {}
    report, comment = workflow["jobs"]["report"], workflow["jobs"]["comment"]
    assert report["permissions"] == {"contents": "read"}
    checkouts = [s for s in report["steps"] if s.get("uses", "").startswith("actions/checkout@")]
    assert len(checkouts) == 2 and all(s["with"]["persist-credentials"] is False for s in checkouts)
    assert checkouts[1]["with"]["ref"] == "${{ github.event.pull_request.base.sha }}"
    runs = [s["run"] for s in report["steps"] if "run" in s]
    compare = next(s for s in report["steps"] if "reasonboard diff" in s.get("run", ""))
    assert compare["working-directory"] == "${{ runner.temp }}" and "diff base-site head-site" in compare["run"]
    assert all("--out " not in r or '--out "$RUNNER_TEMP/' in r for r in runs)  # both sites outside the checkout
    assert any('>> "$GITHUB_STEP_SUMMARY"' in r for r in runs)
    upload = next(s for s in report["steps"] if s.get("uses", "").startswith("actions/upload-artifact@"))
    assert comment["needs"] == "report" and comment["permissions"] == {"pull-requests": "write"}
    uses = [s["uses"].split("@")[0] for s in comment["steps"]]
    assert uses == ["actions/download-artifact", "actions/github-script"]
    assert comment["steps"][0]["with"]["name"] == upload["with"]["name"]
    assert not any("run" in s for s in comment["steps"])  # it runs nothing of the pull request's


@pytest.mark.parametrize("path", sorted(WORKFLOWS.glob("*.yml")) + sorted(SCAFFOLD_WORKFLOWS.glob("*.yml")),
                         ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_every_action_is_pinned_by_sha_and_no_checkout_keeps_credentials(path):
    text = path.read_text(encoding="utf-8")
    for line in text.splitlines():
        if re.match(r"^\s*(-\s+)?uses:", line):
            assert PINNED.match(line), f"{path.name}: {line.strip()}"
    for step in steps(load(path)):
        if step.get("uses", "").startswith("actions/checkout@"):
            assert step["with"]["persist-credentials"] is False, f"{path.name}: {step.get('name')}"
    assert "pull_request_target" not in text


def test_run_scripts_never_expand_expressions():
    """`${{ }}` in a shell script is a script-injection hole; values reach scripts via env."""
    for path in (PAGES, PR_REPORT):
        for step in steps(load(path)):
            assert "${{" not in step.get("run", ""), f"{path.name}: {step.get('name')}"


# -- every command exists and is documented -----------------------------------------------


def test_workflows_run_only_known_programs():
    programs = {argv[0] for _, argv in all_commands()}
    assert programs <= {"reasonboard", "pip", "python"} | SHELL_UTILITIES, programs


def test_reasonboard_commands_exist_in_the_cli_and_the_readme():
    text = readme()
    checked = 0
    for workflow, argv in all_commands():
        if argv[0] != "reasonboard":
            continue
        command = main.commands.get(argv[1])
        assert command is not None, f"{workflow}: `reasonboard {argv[1]}` is not a CLI command"
        known = {opt for param in command.params for opt in getattr(param, "opts", [])}
        for token in argv[2:]:
            if token.startswith("--"):
                option = token.split("=")[0]
                assert option in known, f"{workflow}: `reasonboard {argv[1]}` has no option {option}"
                assert option in text, f"{workflow}: the documentation does not document {option}"
        assert f"reasonboard {argv[1]}" in text, f"{workflow}: the documentation does not document `reasonboard {argv[1]}`"
        checked += 1
    assert checked >= 4  # build (pages), build base, build head, diff


def test_pip_and_python_commands_are_in_the_readme():
    text = readme()
    for workflow, argv in all_commands():
        if argv[0] == "pip":
            assert argv[1] == "install" and "pip install" in text, f"{workflow}: {argv}"
            target = argv[-1]
            # An editable install of the checkout, or a plain install of a checked-out tree.
            assert target == "." or Path(target).name == "base", f"{workflow}: unexpected pip target {target}"
        elif argv[0] == "python":
            assert " ".join(argv[:3]) in text, f"{workflow}: the documentation does not document {' '.join(argv[:3])}"


# -- the pull-request workflow, run here ------------------------------------------------------


def _demo(out: Path, models: int, seed: int) -> None:
    result = CliRunner().invoke(main, ["demo", "--models", str(models), "--out", str(out), "--seed", str(seed)])
    assert result.exit_code == 0, result.output


def _condition_holds(condition: str | None, workspace: Path) -> bool:
    """A step's `if:` as GitHub would read it here: none, or `hashFiles('GLOB') != ''`."""
    if condition is None:
        return True
    match = re.fullmatch(r"hashFiles\('([^']+)'\) != ''", condition.strip())
    assert match, f"a condition this test cannot read: {condition}"
    return any(workspace.glob(match.group(1)))


def test_pr_workflow_steps_run_locally(tmp_path):
    """Build base, build head and diff exactly as the workflow's `run:` steps say.

    The two checkouts are simulated: the workspace holds the head's data, `base/` the base's,
    each with the repository's `content/`. Install steps are skipped: this environment already
    has the package, so both sides are built with this checkout's code.
    """
    workspace = tmp_path / "workspace"
    for side, seed in ((workspace, 1), (workspace / "base", 0)):
        _demo(side / "data", models=6, seed=seed)
        if (ROOT / "content").is_dir():
            shutil.copytree(ROOT / "content", side / "content")
    summary = tmp_path / "step_summary.md"
    summary.write_text("", encoding="utf-8")
    runner_temp = tmp_path / "runner-temp"
    runner_temp.mkdir()
    bin_dir = str(Path(sys.executable).parent)
    if shutil.which("reasonboard", path=bin_dir) is None:
        pytest.fail(f"no `reasonboard` script beside {sys.executable}: run pip install -e '.[test]' first")
    env = {**os.environ, "PATH": bin_dir + os.pathsep + os.environ.get("PATH", ""),
           "GITHUB_STEP_SUMMARY": str(summary), "RUNNER_TEMP": str(runner_temp)}
    env.pop("SOURCE_DATE_EPOCH", None)

    ran = []
    for step in steps(load(PR_REPORT)):
        if "run" not in step or all(argv[0] == "pip" for argv in commands(step["run"])):
            continue
        if not _condition_holds(step.get("if"), workspace):
            continue
        cwd = workspace / step.get("working-directory", ".").replace("${{ runner.temp }}", str(runner_temp))
        result = subprocess.run(["bash", "-e", "-c", step["run"]], cwd=cwd, env=env, capture_output=True, text=True,
                                timeout=600)
        assert result.returncode == 0, f"step {step['name']!r} failed:\n{result.stdout}\n{result.stderr}"
        ran.append(step["name"])
    assert len(ran) == 4, ran  # build base, build head, diff, job summary

    report = (runner_temp / "report" / "report.md").read_text(encoding="utf-8")
    assert report.startswith("## Score changes: base-site → head-site\n")
    assert (runner_temp / "base-site" / "data" / "leaderboard.json").is_file()
    assert (runner_temp / "head-site" / "data" / "leaderboard.json").is_file()
    assert not (workspace / "base-site").exists() and not (workspace / "head-site").exists()
    # Different seeds simulate different evaluations, so the report has moves to show.
    assert "changed" in report.splitlines()[2]
    assert summary.read_text(encoding="utf-8") == report


# -- the tool's own CI and release ----------------------------------------------------------------


def test_the_test_workflow_runs_what_ci_runs():
    workflow = load(WORKFLOWS / "test.yml")
    assert {"push", "pull_request"} <= set(triggers(workflow))
    runs = [s["run"].strip() for s in steps(workflow) if "run" in s]
    assert runs == [".ci/run"]
    assert (ROOT / ".ci" / "run").is_file()


def test_release_builds_checks_and_publishes_on_a_version_tag():
    workflow = load(WORKFLOWS / "release.yml")
    assert triggers(workflow) == {"push": {"tags": ["v*"]}}
    assert workflow["permissions"] == {"contents": "read"}  # only the publish job may mint a token
    dist, publish = workflow["jobs"]["dist"], workflow["jobs"]["publish"]
    script = "\n".join(s["run"] for s in dist["steps"] if "run" in s)
    argv = commands(script)
    assert ["python", "-m", "build"] in argv  # the sdist, then the wheel from it
    assert any(a[:4] == ["python", "-m", "twine", "check"] for a in argv)
    assert any(a[-1] == "--version" and a[0].endswith("/reasonboard") for a in argv)
    assert any(a[1:3] == ["init", "lab"] for a in argv) and any(a[1] == "build" for a in argv)
    assert publish["needs"] == "dist" and publish["permissions"] == {"id-token": "write"}
    uses = [s.get("uses", "").split("@")[0] for s in publish["steps"]]
    assert uses[-1] == "pypa/gh-action-pypi-publish" and "run" not in publish["steps"][-1]
    assert all("${{" not in s.get("run", "") for s in dist["steps"])


def test_the_version_lives_in_pyproject_only():
    import tomllib

    from reasonboard import __version__

    declared = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    assert __version__ == declared
    result = CliRunner().invoke(main, ["--version"])
    assert result.output.strip() == f"reasonboard, version {declared}"
