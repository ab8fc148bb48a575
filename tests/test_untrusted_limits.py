"""Inputs shaped to exhaust the machine that builds them (PRODUCT.md, "Untrusted checkouts"):
each attack as written, generated here (never committed), then a one-line error naming the
file and the limit, or, for someone else's EEE record or card, the documented skip. Zip
bombs are ingested in a child process whose peak memory is read with `getrusage`.
"""

from __future__ import annotations

import json
import re
import struct
import subprocess
import sys
import zipfile
import zlib
from pathlib import Path

import pytest
import zstandard
from helpers_lab import build, built_lab, cli, error_line, lab_copy, snapshot
from reasonboard.build import BuildOptions, run_build
from reasonboard.config import matching
from reasonboard.sources.limits import MAX_JSON_DEPTH, MAX_PARAMS, json_depth, load_json

GiB = 1 << 30
INSPECT = Path(__file__).parent / "data" / "per-instance" / "inspect" / "inspect_ai" / "log-sets" / "set"


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, Path]:
    return built_lab(tmp_path_factory.mktemp("limits"))


@pytest.fixture
def lab(tmp_path, built) -> tuple[Path, Path, dict[str, bytes]]:
    return lab_copy(built, tmp_path / "lab")


def deep(levels: int) -> str:
    return '{"a":' * levels + "1" + "}" * levels


# -- archive members -------------------------------------------------------------------------


def _bomb_eval(path: Path, method: str, stated: int | None = None) -> Path:
    """A real Inspect log with one more sample member: 3 GiB of zeros, compressed (zstd: a
    member of about 130 KB; deflate: about 3 MB), stating `stated` bytes when given (a lie).
    The stream repeats the compressed form of 1 MiB (zstd frames; deflate blocks after a
    full flush), so the test makes it in a moment."""
    zeros, count = bytes(1 << 20), 3 * 1024
    if method == "zstd":
        raw, code = zstandard.ZstdCompressor(level=3).compress(zeros) * count, 93
    else:
        deflate = zlib.compressobj(9, zlib.DEFLATED, -15)
        raw = (deflate.compress(zeros) + deflate.flush(zlib.Z_FULL_FLUSH)) * count + deflate.flush()
        code = zipfile.ZIP_DEFLATED
    real = sorted(INSPECT.glob("*.eval"))[0]
    with zipfile.ZipFile(real) as src, zipfile.ZipFile(path, "w") as out:
        for info in src.infolist():
            out.writestr(info, src.read(info))
        out.writestr(zipfile.ZipInfo("samples/bomb_epoch_1.json"), raw)  # stored; then the headers say otherwise
    data = bytearray(path.read_bytes())
    local, central = data.find(b"samples/bomb_epoch_1.json") - 30, data.rfind(b"PK\x01\x02")
    for method_at, size_at in ((local + 8, local + 22), (central + 10, central + 24)):
        struct.pack_into("<H", data, method_at, code)
        struct.pack_into("<I", data, size_at, stated or count << 20)
    path.write_bytes(bytes(data))
    return path


PEAK = """
import resource, subprocess, sys
done = subprocess.run(sys.argv[1:], capture_output=True, text=True)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)
print(done.returncode)
print(done.stdout + done.stderr)
"""


def ingest_in_child(bomb: Path, data: Path) -> tuple[int, int, str]:
    """`reasonboard ingest --strict` on the bomb in a fresh child: its peak memory (MB), exit
    code and output."""
    argv = [sys.executable, "-c", "from reasonboard.cli import main; main()", "ingest", str(bomb), "--data", str(data), "--strict"]
    done = subprocess.run([sys.executable, "-c", PEAK, *argv], capture_output=True, text=True, check=True)
    peak, code, output = done.stdout.split("\n", 2)
    return int(peak), int(code), output


@pytest.mark.parametrize("method,stated,limit", [
    ("zstd", None, "over the limit"),            # stated honestly: refused before decompressing
    ("zstd", 2000, "expands past its stated"),   # a lie: stopped while decompressing
    ("deflate", None, "over the limit"),
])
def test_an_archive_bomb_is_refused_within_500_mb(tmp_path, method, stated, limit):
    bomb = _bomb_eval(tmp_path / "bomb.eval", method, stated)
    assert bomb.stat().st_size < 5_000_000
    peak, code, output = ingest_in_child(bomb, tmp_path / "data")
    assert peak < 500, f"{peak} MB"
    assert code != 0 and "Traceback" not in output and "MemoryError" not in output, output
    assert "bomb.eval" in output and limit in output and "samples/bomb_epoch_1.json" in output, output
    assert not (tmp_path / "data" / "points").exists()  # nothing written


# -- JSON nesting ---------------------------------------------------------------------------


def test_deep_evals_json_is_a_one_line_error(lab):
    project, cache, before = lab
    (project / "data" / "evals.json").write_text(deep(200_000), encoding="utf-8")
    message = error_line(build(project, cache))
    assert "evals.json" in message and f"deeper than {MAX_JSON_DEPTH} levels" in message
    assert snapshot(project / "site") == before


@pytest.mark.parametrize("where", ["eee/deep.json", "cards/benchmark_card_deep.json"])
def test_a_deep_third_party_record_or_card_is_skipped_with_a_warning(lab, where):
    project, cache, _ = lab
    (project / "data" / where).write_text(deep(200_000), encoding="utf-8")
    summary = run_build(BuildOptions(project=project, cache_dir=cache))
    assert [(p.endswith(where), f"deeper than {MAX_JSON_DEPTH} levels" in r) for p, r in summary.skipped] == [(True, True)]
    assert (project / "site" / "index.html").is_file()
    strict = error_line(build(project, cache, "--strict"))  # --strict makes the skip an error
    assert where.split("/")[-1] in strict


def test_a_deep_params_cell_is_an_error_at_its_line(lab):
    project, cache, before = lab
    points = project / "data" / "points" / "results.csv"
    lines = points.read_text(encoding="utf-8").splitlines()
    cell = deep(2000).replace('"', '""')
    lines[3] = re.sub(r'"\{""depth"": \d\}"', lambda m: f'"{cell}"', lines[3])
    assert cell in lines[3]
    points.write_text("\n".join(lines) + "\n", encoding="utf-8")
    message = error_line(build(project, cache))
    assert "results.csv, line 4" in message and f"deeper than {MAX_JSON_DEPTH} levels" in message
    assert snapshot(project / "site") == before


def test_a_deep_leaderboard_given_to_diff_is_a_one_line_error(tmp_path, built):
    (tmp_path / "leaderboard.json").write_text(deep(200_000), encoding="utf-8")
    result = cli("diff", str(built[0] / "site"), str(tmp_path / "leaderboard.json"))
    message = error_line(result)
    assert "leaderboard.json" in message and "deeper than" in message


def test_json_depth_counts_brackets_outside_strings():
    assert json_depth('{"a": "[[[[[[[[", "b": [[1]]}') == 3
    text = json.dumps({"s": "{" * 100, "v": [[[]]]})
    assert json_depth(text) == 4 and load_json(text, "x") == json.loads(text)
    assert json_depth("[" * 70 + "]" * 70) == 70


# -- difficulty coordinates, line length ----------------------------------------------------


@pytest.mark.parametrize("keys", [10_000, 100_000])
def test_params_with_too_many_coordinates_is_an_error(lab, keys):
    project, cache, before = lab
    points = project / "data" / "points" / "results.csv"
    lines = points.read_text(encoding="utf-8").splitlines()
    cell = json.dumps({f"k{i}": i for i in range(keys)}).replace('"', '""')
    lines[2] = re.sub(r'"\{""depth"": \d\}"', lambda m: f'"{cell}"', lines[2])
    points.write_text("\n".join(lines) + "\n", encoding="utf-8")
    message = error_line(build(project, cache))
    assert "results.csv, line 3" in message and "(the limit)" in message
    assert snapshot(project / "site") == before
    lines[2] = lines[2].replace(f'"{cell}"', '"' + json.dumps({f"k{i}": i for i in range(MAX_PARAMS + 1)})
                                .replace('"', '""') + '"')
    points.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert f"more than {MAX_PARAMS} difficulty coordinates" in error_line(build(project, cache))


@pytest.mark.parametrize("name", ["results.csv", "more.jsonl"])
def test_a_one_gib_line_is_an_error_without_reading_it(lab, name):
    project, cache, before = lab
    path = project / "data" / "points" / name
    head = path.read_bytes() if name.endswith(".csv") else b""
    with path.open("wb") as handle:  # a sparse file: a 1 GiB last line of NUL bytes
        handle.write(head)
        handle.truncate(len(head) + GiB)
    message = error_line(build(project, cache))
    assert name in message and "longer than 16,777,216 bytes (the limit)" in message
    assert snapshot(project / "site") == before


# -- a regular expression that backtracks -----------------------------------------------------


def test_agentic_pattern_cannot_hang_the_build(lab):
    project, cache, _ = lab
    benchmark = "a" * 60 + "b"  # 2^60 ways to try with Python's backtracking re
    assert matching("^(a|aa)+$", [benchmark, "aaaa"]) == ["aaaa"]
    record = json.loads(next((Path(__file__).resolve().parent.parent / "data" / "eee").rglob("*.json")).read_text())
    for result in record.get("evaluation_results", []):
        result["evaluation_name"] = benchmark
    (project / "data" / "eee" / "slow.json").write_text(json.dumps(record), encoding="utf-8")
    config = project / "content" / "site.toml"
    config.write_text(config.read_text(encoding="utf-8") + '\nagentic_pattern = "^(a|aa)+$"\n', encoding="utf-8")
    assert build(project, cache).exit_code == 0


def test_a_pattern_re2_cannot_run_in_linear_time_is_a_one_line_error(lab):
    project, cache, before = lab
    config = project / "content" / "site.toml"
    config.write_text(config.read_text(encoding="utf-8") + '\nagentic_pattern = "(a)\\\\1"\n', encoding="utf-8")
    message = error_line(build(project, cache))
    assert "site.toml" in message and "agentic_pattern" in message and "RE2" in message
    assert snapshot(project / "site") == before
