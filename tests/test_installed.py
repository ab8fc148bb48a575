"""reasonboard as a lab uses it: the wheel installed into a fresh venv
outside the repository, run from empty directories, never from the checkout.

* a project made by `reasonboard init`, with the lab's own data, branding and overrides;
* the demo (`reasonboard demo`, then `build`) from the same wheel;
* the scaffolded workflows' `run:` steps, in order, in the scaffolded project: the Pages
  build, and the pull-request report built from both sides (install step replaced by the
  locally built wheel).

The wheel and venv are built once per session (conftest.py `installed`).
"""

from __future__ import annotations

import json
import posixpath
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest
from helpers_points import LAB_MODELS, write_lab_data
from helpers_site import html_pages, parse

#: Slow (builds and installs the wheel): deselected by the fast subset, `pytest -m "not slow"`.
pytestmark = pytest.mark.slow

yaml = pytest.importorskip("yaml", reason="PyYAML is in the test extra: pip install -e '.[test]'")

LOGO = b'<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>\n'
OVERRIDE_MARK = '<meta name="generator-override" content="acme base.html">'


def wheel_version(installed) -> str:
    return installed.wheel.name.split("-")[1]


def package_file(installed, rel: str) -> Path:
    """A file of the installed package (found by the venv's python, not in the checkout)."""
    out = installed.run("python", "-c", "import reasonboard, pathlib; print(pathlib.Path(reasonboard.__file__).parent)",
                        cwd=installed.venv).stdout
    found = Path(out.strip()) / rel
    assert found.is_relative_to(installed.venv) and found.is_file(), found
    return found


def init_lab(installed, where: Path, seed: int = 0) -> Path:
    installed.run("reasonboard", "init", "lab", cwd=where)
    lab = where / "lab"
    write_lab_data(lab / "data", seed=seed)
    return lab


def brand(lab: Path, base_template: Path) -> None:
    """The lab's title, logo, footer, CNAME and a base.html override (the installed
    package's base.html with one line added)."""
    with (lab / "content" / "site.toml").open("a", encoding="utf-8") as fh:
        fh.write('\ntitle = "Acme Lab Leaderboard"\norganization = "Acme Lab"\nlogo = "img/acme.svg"\n'
                 'footer = "Questions: [evals@acme.example](mailto:evals@acme.example) · [how to read it](guide.html)"\n')
    (lab / "static" / "img").mkdir(parents=True)
    (lab / "static" / "img" / "acme.svg").write_bytes(LOGO)
    (lab / "static" / "CNAME").write_text("board.acme.example\n", encoding="utf-8")
    text = base_template.read_text(encoding="utf-8")
    assert "<head>" in text
    (lab / "templates" / "base.html").write_text(text.replace("<head>", "<head>\n" + OVERRIDE_MARK, 1),
                                                 encoding="utf-8")


def site_text(site: Path) -> dict[str, str]:
    """Every text file of a built site (pages, data, CSS, JS) by site path."""
    out = {}
    for path in sorted(site.rglob("*")):
        if path.is_file() and path.suffix in (".html", ".json", ".csv", ".css", ".js", ""):
            out[path.relative_to(site).as_posix()] = path.read_text(encoding="utf-8", errors="replace")
    return out


def test_the_wheel_is_the_tool(installed, tmp_path):
    """The command runs from the venv's copy of the package, with the one version."""
    where = tmp_path / "empty"
    where.mkdir()
    version = installed.run("reasonboard", "--version", cwd=where).stdout
    assert version.strip() == f"reasonboard, version {wheel_version(installed)}"
    origin = installed.run("python", "-c", "import reasonboard; print(reasonboard.__file__)", cwd=where).stdout
    assert Path(origin.strip()).is_relative_to(installed.venv)


def test_a_lab_project_from_the_wheel(installed, tmp_path):
    where = tmp_path / "empty"
    where.mkdir()
    lab = init_lab(installed, where)
    assert (lab / "requirements.txt").read_text(encoding="utf-8").splitlines()[-1] == \
        f"reasonboard=={wheel_version(installed)}"
    brand(lab, package_file(installed, "templates/base.html"))
    result = installed.run("reasonboard", "build", cwd=lab)
    assert "models 5 (5 ranked), tasks 2" in result.stdout
    site = lab / "site"

    pages = html_pages(site)
    assert {"index.html", "methodology.html", "guide.html", "signals.html", "pairwise.html"} <= set(pages)
    assert "about.html" not in pages  # the demo's about page belongs to the demo
    assert {f"models/{m}.html" for m in LAB_MODELS} <= set(pages)

    # No demo wording anywhere, in pages or data files.
    for rel, text in site_text(site).items():
        lowered = text.lower()
        assert "fictional" not in lowered and "simulated demo" not in lowered, rel
        assert not re.search(r"\bdemo\b", lowered), rel

    assert (site / "CNAME").read_text(encoding="utf-8") == "board.acme.example\n"
    assert (site / "img" / "acme.svg").read_bytes() == LOGO
    for rel in pages:
        doc = parse((site / rel).read_text(encoding="utf-8"))
        title = doc.find("title").text
        assert title.endswith("· Acme Lab Leaderboard"), (rel, title)
        assert OVERRIDE_MARK in (site / rel).read_text(encoding="utf-8"), rel
        brand_link = doc.find("a", cls="brand")
        logo = brand_link.find("img", cls="logo")
        assert logo is not None, rel
        if rel != "404.html":  # the 404 page links from base_url when one is set; here it is relative too
            assert (site / posixpath.normpath(posixpath.join(posixpath.dirname(rel), logo.attrs["src"]))).is_file(), rel
        footer = doc.find("footer")
        links = [a.attrs["href"] for a in footer.find_all("a")]
        assert "mailto:evals@acme.example" in links, rel
        guide = next(h for h in links if h.endswith("guide.html"))
        assert posixpath.normpath(posixpath.join(posixpath.dirname(rel), guide)) == "guide.html", rel


def test_the_demo_from_the_wheel(installed, tmp_path):
    where = tmp_path / "demo"
    where.mkdir()
    installed.run("reasonboard", "demo", "--models", "6", "--out", "data", cwd=where)
    evaluations = json.loads((where / "data" / "evals.json").read_text(encoding="utf-8"))
    assert evaluations and all(e["simulated"] for e in evaluations)
    result = installed.run("reasonboard", "build", cwd=where)
    assert f"models {len(evaluations)} " in result.stdout
    site = where / "site"
    index = (site / "index.html").read_text(encoding="utf-8")
    assert parse(index).find("title").text.endswith("· reasonboard demo leaderboard")
    assert "Simulated demo data." in index
    about = (site / "about.html").read_text(encoding="utf-8")
    assert "fictional" in about
    assert (site / "methodology.html").is_file() and (site / "guide.html").is_file()


# -- the scaffolded workflows, run here -----------------------------------------------------------


def load(path: Path) -> dict:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def steps(workflow: dict) -> list[dict]:
    return [step for job in workflow["jobs"].values() for step in job.get("steps", [])]


INSTALL = "python -m pip install -r requirements.txt"
#: The pull request's report: the base branch's pin for both sides, never the head's.
INSTALL_BASE = "python -m pip install -r base/requirements.txt"


def run_steps(installed, workflow: Path, workspace: Path, summary: Path) -> list[str]:
    """Run every `run:` step in order, as the runner would (bash -e, in the step's directory,
    with a `$RUNNER_TEMP` beside the workspace); the install step is the one pinned
    requirement, replaced by the locally built wheel."""
    runner_temp = summary.parent / "runner-temp"
    runner_temp.mkdir(exist_ok=True)
    ran = []
    runner_temp = workspace.parent / "runner-temp"  # the runner's $RUNNER_TEMP (the build cache lives there)
    runner_temp.mkdir(exist_ok=True)
    for step in steps(load(workflow)):
        if "run" not in step:
            continue
        condition = step.get("if")  # only `hashFiles('GLOB') != ''`, as GitHub reads it
        if condition is not None and not any(workspace.glob(condition.split("'")[1])):
            continue
        script = step["run"]
        if script.strip() in (INSTALL, INSTALL_BASE):
            script = f"python -m pip install -q --no-deps {shlex.quote(str(installed.wheel))}"
        cwd = workspace / step.get("working-directory", ".").replace("${{ runner.temp }}", str(runner_temp))
        result = subprocess.run(["bash", "-e", "-c", script], cwd=cwd, capture_output=True, text=True, timeout=900,
                                env=installed.env(GITHUB_STEP_SUMMARY=str(summary), RUNNER_TEMP=str(runner_temp)))
        assert result.returncode == 0, f"{workflow.name}: step {step['name']!r} failed:\n{result.stdout}\n{result.stderr}"
        ran.append(step["name"])
    return ran


def test_the_scaffolded_workflows_install_one_pinned_requirement(installed, tmp_path):
    """Both workflows work in a repository of data and config: no `pip install -e .`, the
    pip cache keyed by requirements.txt, the same install line on both sides of a PR."""
    lab = init_lab(installed, tmp_path)
    for name, install, pins in (("pages.yml", INSTALL, "requirements.txt"),
                                ("pr-report.yml", INSTALL_BASE, "base/requirements.txt")):
        workflow = load(lab / ".github" / "workflows" / name)
        runs = [s["run"].strip() for s in steps(workflow) if "run" in s]
        installs = [r for r in runs if "pip" in r]
        assert installs == [install], (name, installs)
        setup = next(s for s in steps(workflow) if s.get("uses", "").startswith("actions/setup-python@"))
        assert setup["with"]["cache"] == "pip" and setup["with"]["cache-dependency-path"] == pins
        assert all("${{" not in r for r in runs), name  # values reach scripts via env only
        # One build cache, restored and saved by actions/cache keyed by the tool and the
        # inputs; every build of the workflow uses it.
        cache = next(s for s in steps(workflow) if s.get("uses", "").startswith("actions/cache@"))
        # The build cache and this runner's salt (cachekey.py) travel together: entries
        # named with another salt would never be read.
        assert cache["with"]["path"].splitlines() == ["${{ runner.temp }}/reasonboard-cache", "~/.cache/reasonboard"]
        assert f"hashFiles('{pins}')" in cache["with"]["key"] and "data/**" in cache["with"]["key"]
        builds = [r for r in runs if r.startswith("reasonboard build")]
        assert builds and all('--cache "$RUNNER_TEMP/reasonboard-cache"' in r for r in builds), (name, builds)


def test_the_scaffolded_pages_workflow_builds_the_site(installed, tmp_path):
    lab = init_lab(installed, tmp_path)
    summary = tmp_path / "summary.md"
    ran = run_steps(installed, lab / ".github" / "workflows" / "pages.yml", lab, summary)
    assert ran == ["Install reasonboard", "Build the site"]
    upload = next(s for s in steps(load(lab / ".github" / "workflows" / "pages.yml"))
                  if s.get("uses", "").startswith("actions/upload-pages-artifact@"))
    assert (lab / upload["with"]["path"] / "index.html").is_file()
    assert (lab / upload["with"]["path"] / ".nojekyll").is_file()


def test_the_scaffolded_pr_workflow_reports_both_sides(installed, tmp_path):
    """The workspace holds the two checkouts, `base/` and `head/`, as actions/checkout
    places them: the head is the base with new data and a changed requirements.txt, which
    the report shows and nothing installs."""
    lab = init_lab(installed, tmp_path, seed=0)
    workspace = tmp_path / "workspace"
    base, head = workspace / "base", workspace / "head"
    shutil.copytree(lab, base)
    shutil.copytree(lab, head)
    write_lab_data(base / "data", seed=1, models=LAB_MODELS[:4])  # the PR adds a model and new points
    (head / "requirements.txt").write_text("reasonboard @ https://evil.example/reasonboard.whl\n", encoding="utf-8")
    summary = tmp_path / "summary.md"
    summary.write_text("", encoding="utf-8")
    ran = run_steps(installed, lab / ".github" / "workflows" / "pr-report.yml", workspace, summary)
    assert ran == ["Install reasonboard", "Build the base site", "Build the head site", "Compare base and head",
                   "Show a changed requirements.txt", "Job summary"]
    report = (tmp_path / "runner-temp" / "report" / "report.md").read_text(encoding="utf-8")
    assert report.startswith("## Score changes: base-site → head-site\n")
    assert "Elm 120B" in report  # the model the pull request adds
    assert "changes requirements.txt" in report and "evil.example" in report  # shown, not installed
    assert summary.read_text(encoding="utf-8") == report
    assert sorted(p.name for p in workspace.iterdir()) == ["base", "head"]  # nothing written in the checkout
    assert "STATISTICS.md" not in report  # a lab has no such file: the report cites the methodology page
    # Both builds used the one cache the workflow restores and saves (actions/cache): one
    # PointsDB, named by the code that wrote it, and nothing in either checkout.
    cache = tmp_path / "runner-temp" / "reasonboard-cache"
    assert len(list(cache.glob("pointsdb-*.duckdb"))) == 1
    assert not (lab / ".reasonboard-cache").exists() and not (base / ".reasonboard-cache").exists()
