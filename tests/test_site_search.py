"""The leaderboard's search index: on a paginated leaderboard every model is
findable from any index page; a one-page leaderboard needs no index and gets none."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

from reasonboard import TEMPLATES_DIR
from reasonboard.site import render_site
from reasonboard.site.writer import write_site


def paginated(default_build, out: Path, page_size: int = 5) -> dict[str, bytes]:
    """The default site rendered with a small `page_size`, written to `out`."""
    results = default_build.results
    results = dataclasses.replace(results, config=dataclasses.replace(results.config, page_size=page_size))
    files = render_site(results, default_build.content_dir, TEMPLATES_DIR)
    write_site(files, out)
    return files


def search_index(files: dict[str, bytes]) -> dict:
    [path] = [p for p in files if re.fullmatch(r"assets/search-[0-9a-f]+\.js", p)]
    text = files[path].decode("utf-8")
    assert text.startswith("window.RB_SEARCH = ") and text.endswith(";\n")
    return json.loads(text[len("window.RB_SEARCH = "):-2])


def test_every_model_is_in_the_index_once_with_its_page(default_build, tmp_path):
    files = paginated(default_build, tmp_path / "site")
    index = search_index(files)
    models = default_build.leaderboard["models"]
    assert sorted(m[1] for m in index["models"]) == sorted(m["id"] for m in models)
    assert index["models"] == sorted(index["models"]), "listed by label, not by rank"
    boards = sorted(p for p in files if re.fullmatch(r"index(-\d+)?\.html", p))
    assert len(boards) == -(-len(models) // 5)
    for label, model_id, slug in index["models"]:
        target = index["prefix"] + slug + index["suffix"]
        assert target in files and label
        # Exactly one index page lists the model's row.
        assert sum(f'href="{target}"' in files[b].decode("utf-8") for b in boards) == 1
    # Only the index pages load it.
    name = next(p for p in files if p.startswith("assets/search-"))
    loaders = sorted(p for p, data in files.items() if p.endswith(".html") and name.encode() in data)
    assert loaders == boards


def test_the_index_holds_nothing_a_score_decides(default_build, tmp_path):
    """Scores that reorder the leaderboard leave the index, and so its hashed name in every
    index page, unchanged (a one-model change must not rewrite every index page)."""
    results = default_build.results
    board = results.leaderboard
    shuffled = dataclasses.replace(board, models=tuple(reversed(board.models)))
    before = paginated(default_build, tmp_path / "a")
    default_build_reordered = dataclasses.replace(default_build, results=dataclasses.replace(results, leaderboard=shuffled))
    after = paginated(default_build_reordered, tmp_path / "b")
    assert search_index(before) == search_index(after)
    assert [p for p in before if p.startswith("assets/search-")] == [p for p in after if p.startswith("assets/search-")]


def test_one_page_leaderboard_has_no_index(default_build):
    assert not list((default_build.out / "assets").glob("search-*.js"))
    assert b"data-filter-elsewhere" not in (default_build.out / "index.html").read_bytes()
