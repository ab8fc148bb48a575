"""Shared fixtures: builds made once per test session.

`default_build` runs the real `reasonboard build` pipeline on the repository's default data
into a temporary directory and also keeps the `BuildResults` the pages were rendered from,
so tests can compare what a page shows with the numbers behind it.

`installed` builds the wheel once per session and installs it into a fresh venv outside the
repository, for the tests that use the tool the way a lab does (test_installed.py).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

import jinja2
import jinja2.bccache
import pytest

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Built:
    """A finished build: its output directory and the results its pages were made from."""

    out: Path
    results: Any
    #: The content lookup order the build used (project, package, demo pages for demo data).
    content_dir: tuple[Path, ...]

    @property
    def leaderboard(self) -> dict[str, Any]:
        """The published `data/leaderboard.json`: what a reader of the site's data sees."""
        return json.loads((self.out / "data" / "leaderboard.json").read_text(encoding="utf-8"))

    @property
    def pairwise(self) -> dict[str, Any]:
        """The published `data/pairwise.json`."""
        return json.loads((self.out / "data" / "pairwise.json").read_text(encoding="utf-8"))


def build_site(data_dir: Path, out_dir: Path, cache_dir: Path) -> Built:
    """Run the whole build, capturing the `BuildResults` handed to the renderer."""
    import reasonboard.build as build
    import reasonboard.site.publishing as publish

    captured: dict[str, Any] = {}
    render = publish.iter_site

    def capture(results, content_dir, templates_dir, *args, **kwargs):
        captured["results"], captured["content"] = results, content_dir
        return render(results, content_dir, templates_dir, *args, **kwargs)

    mp = pytest.MonkeyPatch()
    mp.setattr(publish, "iter_site", capture)
    try:
        build.run_build(build.BuildOptions(data_dir=data_dir, out_dir=out_dir, cache_dir=cache_dir,
                                           content_dir=ROOT / "content"))
    finally:
        mp.undo()
    return Built(out_dir, captured["results"], tuple(captured["content"]))


@pytest.fixture(scope="session")
def default_build(tmp_path_factory: pytest.TempPathFactory) -> Built:
    base = tmp_path_factory.mktemp("default-build")
    return build_site(ROOT / "data", base / "site", base / "cache")


# -- real harness outputs, ingested together -------------------------------------------------

#: The copied real per-sample files (tests/data/per-instance/README.md credits them).
PER_INSTANCE = ROOT / "tests" / "data" / "per-instance"


@dataclass(frozen=True)
class RealBuild:
    """A build of every real per-sample file ingested together, with a site.toml of its own."""

    out: Path
    summary: Any

    @property
    def leaderboard(self) -> dict[str, Any]:
        return json.loads((self.out / "data" / "leaderboard.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def real_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data directory holding `reasonboard ingest` of the whole per-instance tree."""
    from reasonboard.ingest import IngestOptions, run_ingest

    data = tmp_path_factory.mktemp("real-project") / "data"
    run_ingest(IngestOptions(paths=(PER_INSTANCE,), data_dir=data))
    return data


def build_real(real_data: Path, base: Path, site_toml: str = "") -> RealBuild:
    """`reasonboard build` of `real_data` with `site_toml` as its config, into `base/site`."""
    from reasonboard.build import BuildOptions, run_build

    base.mkdir(parents=True, exist_ok=True)
    config = base / "site.toml"
    config.write_text(site_toml, encoding="utf-8")
    summary = run_build(BuildOptions(data_dir=real_data, out_dir=base / "site", cache_dir=base / "cache",
                                     config_path=config, content_dir=ROOT / "content"))
    return RealBuild(base / "site", summary)


@pytest.fixture(scope="session")
def real_build(real_data: Path, tmp_path_factory: pytest.TempPathFactory) -> RealBuild:
    """The real data built with no board configured: no board ranks two evaluations."""
    return build_real(real_data, tmp_path_factory.mktemp("real-build"))


@pytest.fixture(scope="session")
def real_boards_build(real_data: Path, real_build: RealBuild, tmp_path_factory: pytest.TempPathFactory) -> RealBuild:
    """The real data built with the boards the first build suggested, pasted into site.toml."""
    return build_real(real_data, tmp_path_factory.mktemp("real-boards"), suggested_boards(real_build.summary.warnings))


#: The default data on two boards, sharing `arithmetic` (its sides of a pair are computed
#: once for both), with fewer paired draws: `two_boards_build`.
TWO_BOARDS = {"Front": ("arithmetic", "boolean", "brackets"), "Second": ("arithmetic", "dates")}
TWO_BOARDS_DRAWS, TWO_BOARDS_SEED = 200, 42


@pytest.fixture(scope="session")
def two_boards_build(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The default data built on `TWO_BOARDS`: its site, leaderboard rows by id, and
    `pairwise.json`'s paired entries (one build for every module that checks boards)."""
    from reasonboard.build import BuildOptions, run_build

    base = tmp_path_factory.mktemp("two-boards")
    config = base / "site.toml"
    config.write_text(f"paired_draws = {TWO_BOARDS_DRAWS}\nseed = {TWO_BOARDS_SEED}\n" + "".join(
        f'[[boards]]\nname = "{name}"\ntasks = {json.dumps(list(tasks))}\n' for name, tasks in TWO_BOARDS.items()),
        encoding="utf-8")
    run_build(BuildOptions(data_dir=ROOT / "data", out_dir=base / "site", cache_dir=base / "cache",
                           config_path=config, content_dir=ROOT / "content"))
    site = base / "site"
    leaderboard = json.loads((site / "data" / "leaderboard.json").read_text(encoding="utf-8"))
    pairwise = json.loads((site / "data" / "pairwise.json").read_text(encoding="utf-8"))
    return {"site": site, "models": {m["id"]: m for m in leaderboard["models"]}, "paired": pairwise["paired"]}


def suggested_boards(warnings: list[str]) -> str:
    """The `[[boards]]` lines a build printed among its warnings, as a site.toml."""
    lines = [line.strip() for line in "\n".join(warnings).splitlines()]
    start = next(i for i, line in enumerate(lines) if line == "[[boards]]")
    return "\n".join(lines[start:]) + "\n"


# -- the tool as a lab installs it ----------------------------------------------------------

#: What the distribution is built from (pyproject.toml maps them into `reasonboard`).
DIST_SOURCES = ("pyproject.toml", "README.md", "builder", "templates", "content")


@dataclass(frozen=True)
class Installed:
    """A wheel built from this checkout, installed into a fresh venv outside the repository."""

    wheel: Path
    venv: Path

    @property
    def bin(self) -> Path:
        return self.venv / ("Scripts" if os.name == "nt" else "bin")

    def env(self, **extra: str) -> dict[str, str]:
        """The environment of a shell in which only the installed tool is on PATH."""
        own = {str(Path(sys.executable).parent)}
        path = [str(self.bin), *(p for p in os.environ.get("PATH", "").split(os.pathsep) if p and p not in own)]
        env = {k: v for k, v in os.environ.items()
               if k not in ("PYTHONPATH", "VIRTUAL_ENV", "SOURCE_DATE_EPOCH", "PYTHONHOME")}
        return {**env, "PATH": os.pathsep.join(path), "VIRTUAL_ENV": str(self.venv), **extra}

    def run(self, *argv: str, cwd: Path, ok: bool = True) -> subprocess.CompletedProcess:
        result = subprocess.run(list(argv), cwd=cwd, env=self.env(), capture_output=True, text=True, timeout=900)
        if ok and result.returncode != 0:
            pytest.fail(f"{' '.join(argv)} (in {cwd}) failed with {result.returncode}:\n{result.stdout}\n{result.stderr}")
        return result


@pytest.fixture(scope="session")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    """`pip wheel` of a copy of the sources, then `pip install` of that wheel into a new venv.

    Built from a copy so nothing lands in the checkout and the wheel can only carry what
    the distribution declares. Dependencies come from the package index or pip's cache."""
    base = tmp_path_factory.mktemp("installed")
    assert ROOT not in base.parents, "the installed tool must be tested outside the repository"
    src = base / "src"
    for name in DIST_SOURCES:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, src / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            src.mkdir(exist_ok=True)
            shutil.copy2(source, src / name)
    wheels = base / "wheels"
    _pip([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(wheels), str(src)], base)
    (wheel,) = wheels.glob("reasonboard-*.whl")
    venv = base / "venv"
    _pip([sys.executable, "-m", "venv", str(venv)], base)
    python = venv / ("Scripts" if os.name == "nt" else "bin") / "python"
    _pip([str(python), "-m", "pip", "install", "-q", str(wheel)], base)
    return Installed(wheel=wheel, venv=venv)


def _pip(argv: list[str], cwd: Path) -> None:
    result = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=900)
    if result.returncode != 0:
        pytest.fail(f"{' '.join(argv)} failed:\n{result.stdout}\n{result.stderr}")


# -- templates compiled once per test session ------------------------------------------------


class _SessionTemplates(jinja2.BytecodeCache):
    """Jinja's compiled templates kept in this process's memory for the whole session,
    keyed by Jinja as it keys any bytecode cache: the template's name and file, and a
    checksum of its source. Every build a test runs makes a new environment and would
    compile the same templates again (about 0.35 s, a third of a small build's CPU); an
    edited or overriding template has another source or file, so it is compiled anew. The
    environments are all made by `templating.sandboxed`, with one configuration, so code
    compiled for one is the code another compiles. The build itself keeps no compiled
    template between builds (templating.py): this cache lives in the test process only."""

    def __init__(self) -> None:
        self.code: dict[str, bytes] = {}

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        if bucket.key in self.code:
            bucket.bytecode_from_string(self.code[bucket.key])

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        self.code[bucket.key] = bucket.bytecode_to_string()


@pytest.fixture(scope="session", autouse=True)
def session_templates() -> Iterator[None]:
    import reasonboard.site.render as render
    from reasonboard.site.templating import sandboxed

    cache = _SessionTemplates()

    def with_cache(folders: Any) -> jinja2.Environment:
        env = sandboxed(folders)
        env.bytecode_cache = cache
        return env

    mp = pytest.MonkeyPatch()
    mp.setattr(render, "sandboxed", with_cache)
    try:
        yield
    finally:
        mp.undo()
