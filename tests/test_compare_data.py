"""The compare view's data files (`data/compare/`), against a second reading of the per-sample
outcomes the same build publishes (`data/samples/*.parquet`, read with DuckDB and summed here
in plain Python): each evaluation's outcome string, position by position, in the order of the
task's items, and nothing in them but outcomes (no item id, no text)."""

from __future__ import annotations

import base64
import json
import re
from collections import defaultdict
from pathlib import Path

import duckdb
import pytest

ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_-"


def read_script(path: Path) -> tuple[str | None, dict]:
    """The (key, document) a data script stores: `window.X=DOC;` or `...;window.X[KEY]=DOC;`."""
    text = path.read_text(encoding="utf-8")
    keyed = re.fullmatch(r"window\.(\w+)=window\.\1\|\|\{\};window\.\1\[(\".*?\")\]=(.*);\n", text, re.S)
    if keyed:
        return json.loads(keyed.group(2)), json.loads(keyed.group(3))
    whole = re.fullmatch(r"window\.RB_COMPARE=(.*);\n", text, re.S)
    assert whole, path
    return None, json.loads(whole.group(1))


def expand(entry: dict, size: int) -> str:
    """An outcome entry's `size` characters: item i is `p[v]`, v the i-th group of w bits of
    the base64 `o` (w the fewest bits numbering `p`, most significant first), read here
    through a string of '0' and '1'."""
    palette = entry["p"]
    width = (len(palette) - 1).bit_length()
    data = base64.b64decode(entry["o"], validate=True)
    assert len(data) == (size * width + 7) // 8  # no byte more than the items need
    bits = "".join(format(byte, "08b") for byte in data)
    return "".join(palette[int(bits[i * width:(i + 1) * width] or "0", 2)] for i in range(size))


def expected_char(trials: int, correct: int, truncated: int, options: list[int | None]) -> str:
    if trials != 1:
        return "#"
    if truncated:
        return "~" if not correct else "#"
    k = options[0] or 0
    return ALPHABET[2 * k + correct] if k < len(ALPHABET) // 2 else "#"


def test_outcome_strings_equal_the_published_samples(default_build):
    out = default_build.out
    _, index = read_script(out / "data" / "compare" / "index.js")
    assert index["schema"] == "reasonboard.compare/2" and index["published"] is True
    leaderboard = default_build.leaderboard
    assert set(index["evaluations"]) == {m["id"] for m in leaderboard["models"]}
    # Every item of every task, from the Parquet files, summed per (evaluation, item).
    con = duckdb.connect()
    cells: dict[tuple[str, str], dict[tuple[str, str], list]] = defaultdict(dict)
    union: dict[str, set[tuple[str, str]]] = defaultdict(set)
    for eid, (slug, _) in index["evaluations"].items():
        rows = con.execute("SELECT base_task, params, sample_id, correct, truncated, options FROM read_parquet(?)",
                           [str(out / "data" / "samples" / f"{slug}.parquet")]).fetchall()
        for task, params, sid, correct, truncated, options in rows:
            c = cells[(eid, task)].setdefault((params, sid), [0, 0, 0, []])
            c[0] += 1
            c[1] += int(correct)
            c[2] += int(truncated)
            c[3].append(options)
            union[task].add((params, sid))
    con.close()
    assert set(index["layouts"]) == set(union)
    checked = 0
    for task, items in union.items():
        order = sorted(items)
        layout = [(p, sum(1 for q, _ in order if q == p)) for p in sorted({p for p, _ in order})]
        assert [tuple(x) for x in index["layouts"][task]] == layout
        for eid, (slug, _) in index["evaluations"].items():
            key, doc = read_script(out / "data" / "compare" / "e" / f"{slug}.js")
            assert key == eid
            mine = cells.get((eid, task))
            if not mine:
                assert task not in doc["outcomes"]
                continue
            text = expand(doc["outcomes"][task], len(order))
            assert len(text) == len(order)
            want = "".join(expected_char(*mine[item]) if item in mine else "." for item in order)
            assert text == want, (eid, task)
            checked += 1
    assert checked >= 200  # the demo: 20 evaluations x 12 tasks, less the tasks some lack


def test_compare_files_hold_outcomes_only(default_build):
    """No item id and no text: an outcome string is made of the outcome alphabet, and each
    evaluation's file holds its published results and those strings, nothing else."""
    folder = default_build.out / "data" / "compare" / "e"
    files = sorted(folder.rglob("*.js"))
    assert len(files) == 20
    for path in files:
        _, doc = read_script(path)
        assert set(doc) == {"rank", "status", "score", "tasks", "outcomes"}
        for entry in doc["outcomes"].values():
            assert set(entry) == {"p", "o", "x"}
            assert re.fullmatch(r"[0-9A-Za-z_\-.~#]+", entry["p"]) and list(entry["p"]) == sorted(set(entry["p"]))
            assert re.fullmatch(r"[0-9A-Za-z+/]*=*", entry["o"])
            assert all(len(x) == 4 and all(isinstance(v, (int, float)) for v in x) for x in entry["x"])
    # Kept small: a 10,000-evaluation site must stay under 1 GB (2 bits an item here: about
    # 7 KB each, against 20 KB at a character an item).
    assert max(p.stat().st_size for p in files) < 10_000


def test_build_figures_ride_along_unchanged(default_build):
    """The paired tests the build computed are in the index as pairwise.json has them."""
    _, index = read_script(default_build.out / "data" / "compare" / "index.js")
    paired = json.loads((default_build.out / "data" / "pairwise.json").read_text(encoding="utf-8"))["paired"]
    board = {(x[0], x[1]): x[2:] for x in index["paired"]["board"]}
    for e in paired["adjacent"] + paired["matrix"] + [e for near in paired["neighbours"].values() for e in near]:
        assert board[(e["a"], e["b"])] == [e["shared"], e["effect"], e["low"], e["high"], e["p"], e["method"]]
    for task, entries in paired["tasks"].items():
        mine = {(x[0], x[1]): x[2:] for x in index["paired"]["tasks"].get(task, [])}
        for e in entries:
            assert mine[(e["a"], e["b"])] == [e["shared"], e["effect"], e["low"], e["high"], e["p"], e["method"]]


@pytest.mark.parametrize("page", ["compare.html"])
def test_the_compare_page_exists_and_names_its_rules(default_build, page):
    html = (default_build.out / page).read_text(encoding="utf-8")
    assert "data/compare/index.js" in html
    assert "exact McNemar" in html and "Holm" in html
    assert "at least 20 of the same items" in html


def test_without_published_samples_no_outcome_is_written(real_data, tmp_path_factory):
    """`publish_samples = false`: the compare data keep each evaluation's published results
    (the interval rule still speaks) and no per-item outcome at all."""
    from conftest import build_real

    built = build_real(real_data, tmp_path_factory.mktemp("private-samples"), "publish_samples = false\n")
    _, index = read_script(built.out / "data" / "compare" / "index.js")
    assert index["published"] is False and index["layouts"] == {}
    files = sorted((built.out / "data" / "compare" / "e").rglob("*.js"))
    assert len(files) == len(index["evaluations"]) > 40
    for path in files:
        _, doc = read_script(path)
        assert "outcomes" not in doc
    assert not (built.out / "data" / "samples").exists()
