"""Byte-identical builds (PRODUCT.md: "Two builds of the same inputs are byte-identical").

The default site is built twice, from scratch (separate caches) and under different hash seeds,
so any output that depends on set or dict iteration order, the clock, the machine's paths or
unseeded randomness shows up as a differing file. The data files are also checked for the
promised form: sorted keys and fixed rounding (PRODUCT.md, "Outputs"; EVALCARDS.md section 8).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
REASONBOARD = [sys.executable, "-c", "import sys; from reasonboard.cli import main; sys.exit(main())"]


def build(out: Path, cache: Path, hash_seed: str) -> None:
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    env.pop("SOURCE_DATE_EPOCH", None)
    result = subprocess.run([*REASONBOARD, "build", "--out", str(out), "--cache", str(cache), "--quiet"],
                            cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, f"build failed:\n{result.stdout}\n{result.stderr}"


def files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def two_builds(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("reproducible")
    build(tmp / "a", tmp / "cache-a", hash_seed="1")
    build(tmp / "b", tmp / "cache-b", hash_seed="2")
    return tmp, files(tmp / "a"), files(tmp / "b")


def test_default_site_is_byte_identical(two_builds):
    _, first, second = two_builds
    assert first, "the build wrote no files"
    assert sorted(first) == sorted(second), "the two builds wrote different file lists"
    differing = [name for name in first if first[name] != second[name]]
    assert differing == [], f"{len(differing)} of {len(first)} files differ, e.g. {differing[:10]}"


def test_no_clock_or_machine_path_in_the_output(two_builds):
    """Without SOURCE_DATE_EPOCH nothing may say when or where the build ran."""
    tmp, first, _ = two_builds
    today = dt.date.today().isoformat().encode()
    leaks = {
        "today's date": today,
        "the output directory": str(tmp).encode(),
        "the repository path": str(ROOT).encode(),
    }
    for what, needle in leaks.items():
        found = [name for name, content in first.items() if needle in content]
        assert found == [], f"{what} appears in {found[:10]}"


def _check_json(value, path: str, decimals: int, problems: list[str]) -> None:
    if isinstance(value, dict):
        keys = list(value)
        if keys != sorted(keys):
            problems.append(f"{path}: keys not sorted")
        for key, item in value.items():
            _check_json(item, f"{path}.{key}", decimals, problems)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _check_json(item, f"{path}[{index}]", decimals, problems)
    elif isinstance(value, float) and round(value, decimals) != value:
        problems.append(f"{path}: {value!r} has more than {decimals} decimals")


def test_data_files_have_sorted_keys_and_fixed_rounding(two_builds):
    _, first, _ = two_builds
    data = {name: content for name, content in first.items() if name.startswith("data/") and name.endswith(".json")}
    assert {"data/leaderboard.json", "data/signals.json", "data/pairwise.json"} <= set(data)
    problems: list[str] = []
    for name, content in sorted(data.items()):
        _check_json(json.loads(content), name, 6, problems)
    leaderboard = json.loads(data["data/leaderboard.json"])
    for model in leaderboard["models"]:
        _check_json(model["reasonscore"], f"{model['id']}.reasonscore", 3, problems)
    assert problems == [], "\n".join(problems[:20])

