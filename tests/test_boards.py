"""Boards, the model × task matrix and the boards a build suggests (PRODUCT.md "Boards, the
model × task matrix, filters"), on every real per-sample file ingested together: results of
unrelated tasks are never put on one axis, no board hides a result, and the build prints
boards the data supports, which work when pasted into site.toml."""

from __future__ import annotations

import tomllib

import pytest
from conftest import build_real
from helpers_site import page
from reasonboard.config import BoardSpec, parse_config
from reasonboard.errors import InputError
from reasonboard.stats.boardsuggest import Suggestion, suggest_boards

# -- site.toml ---------------------------------------------------------------------------------


def test_boards_are_read_from_site_toml():
    config = parse_config(tomllib.loads('''
[[boards]]
name = "Reasoning"
tasks = ["b", "a"]
description = "Exact answers"
[[boards]]
name = "Knowledge"
tasks = ["mmlu"]
'''))
    assert config.board_specs == (BoardSpec("Reasoning", ("b", "a"), "Exact answers"), BoardSpec("Knowledge", ("mmlu",)))
    # Without [[boards]], `tasks` is the one board; with neither, the one board holds every task.
    assert parse_config({"tasks": ["x"]}).board_specs == (BoardSpec("Leaderboard", ("x",)),)
    assert parse_config({}).board_specs == (BoardSpec("Leaderboard", ()),)


@pytest.mark.parametrize(("text", "said"), [
    ('tasks = ["a"]\n[[boards]]\nname = "B"\ntasks = ["a"]', "both given"),
    ('[[boards]]\nname = "B"\ntasks = ["a"]\ncolour = "red"', "unknown key 'colour'"),
    ('[[boards]]\nname = "B"', "needs tasks"),
    ('[[boards]]\nname = "B"\ntasks = []', "at least one task"),
    ('[[boards]]\ntasks = ["a"]', "needs a name"),
    ('[[boards]]\nname = "B"\ntasks = ["a"]\n[[boards]]\nname = "b"\ntasks = ["c"]', "names two boards 'B' and 'b'"),
    ('boards = "a"', "list of tables"),
])
def test_a_bad_board_is_an_error_naming_it(text, said):
    with pytest.raises(InputError) as caught:
        parse_config(tomllib.loads(text), "site.toml")
    assert said in str(caught.value) and "site.toml" in str(caught.value)


# -- suggested boards ----------------------------------------------------------------------------


def test_suggested_boards_are_the_closed_task_sets_two_evaluations_share():
    # A and B share {x, y}; all of A, B, C share {x}; D shares nothing. {y} alone is not
    # kept: {x, y} has the same two evaluations and one more task.
    sets = [["x", "y"], ["y", "x"], ["x", "z"], ["w"]]
    assert suggest_boards(sets) == [Suggestion(("x",), 3), Suggestion(("x", "y"), 2)]
    assert suggest_boards([["a"], ["b"]]) == []
    toml = tomllib.loads("\n".join(Suggestion(("a b", 'q"t'), 2).toml()))
    assert toml == {"boards": [{"name": 'a b + q"t', "tasks": ["a b", 'q"t']}]}


# -- the real data, no board configured ----------------------------------------------------------


def test_with_no_board_ranking_two_the_build_says_so_and_suggests_boards(real_build):
    advice = [w for w in real_build.summary.warnings if w.startswith(("board '", "task sets"))]
    assert advice[0].startswith("board 'Leaderboard' ranks 0 evaluations: fewer than two have all")
    assert "[[boards]]" in [line.strip() for line in advice[1].splitlines()]
    assert real_build.summary.ranked == 0
    assert "[[boards]]" in real_build.summary.render()


def test_the_front_page_orders_nothing_it_cannot_compare(real_build):
    """Unrelated tasks' results are not ranked, sorted on one axis or banded: the front page
    is the matrix, rows by name."""
    doc = page(real_build.out, "index.html")
    assert doc.by_id("leaderboard") is None and doc.find("span", cls="band") is None
    assert doc.find("figure", cls="chart") is None
    assert "nothing here is put in order" in doc.find("p", cls="lede").text
    labels = [tr.find("th").find("a").text for tr in doc.by_id("matrix").find("tbody").find_all("tr")]
    assert labels == sorted(labels, key=str.casefold)


def test_the_matrix_has_every_evaluation_and_every_result(real_build):
    models = real_build.leaderboard["models"]
    doc = page(real_build.out, "matrix.html")
    table = doc.by_id("matrix")
    tasks = [th.text.strip() for th in table.find("thead").find_all("th")[2:]]
    rows = {tr.find("th").find("a").text: tr for tr in table.find("tbody").find_all("tr")}
    assert sorted(rows) == sorted(m["label"] for m in models)
    assert len(tasks) == real_build.summary.tasks
    for m in models:
        cells = rows[m["label"]].find_all("td")[1:]
        assert len(cells) == len(tasks)
        for task, cell in zip(tasks, cells):
            result = m["tasks"].get(task)
            if result is None or result["low"] is None:
                assert "empty" in cell.classes
                continue
            # The cell's interval, read as a reader reads it: midpoint ± half-width.
            center, margin = (float(x) for x in cell.find("span", cls="iv-text").text.split(" ± "))
            assert center == pytest.approx((result["low"] + result["high"]) / 2, abs=6e-4)
            assert margin == pytest.approx((result["high"] - result["low"]) / 2, abs=6e-4)
            # Its rank range among the ranked evaluations on the task; a result on too few
            # samples has none (SAMPLES.md section 4).
            if result["samples"] < 20:
                assert cell.find("div", cls="meta").text == "preliminary" and " of " not in cell.text
            else:
                assert " of " in cell.text


# -- the real data with the suggested boards ------------------------------------------------------


def test_suggested_boards_pasted_into_site_toml_rank_their_evaluations(real_build, real_boards_build):
    assert not [w for w in real_boards_build.summary.warnings if w.startswith(("board '", "task sets"))]
    config = parse_config(tomllib.loads(suggested_boards_text(real_build)))
    first, *others = config.boards
    doc = page(real_boards_build.out, "index.html")
    table = doc.by_id("leaderboard")
    ranked = [tr.find("th").find("a").text for tr in table.find("tbody").find_all("tr")]
    models = real_boards_build.leaderboard["models"]
    assert sorted(ranked) == sorted(m["label"] for m in models if m["status"] == "ranked") and len(ranked) >= 2
    # Those with the board's tasks but too few samples on one are listed apart, unranked.
    prelim_body = table.find("tbody", cls="preliminary")
    preliminary = [tr.find("th").find("a").text for tr in prelim_body.find_all("tr") if tr.find("a")] \
        if prelim_body else []
    having = [m["label"] for m in models if all(t in m["tasks"] for t in first.tasks)]
    assert sorted(ranked + preliminary) == sorted(having)
    unranked = doc.by_id("unranked").find_all("li")
    assert len(ranked) + len(preliminary) + len(unranked) == len(models)
    assert all("±" not in li.text for li in unranked)
    for board in others:
        board_page = next(p for p in (real_boards_build.out / "boards").iterdir()
                          if page(real_boards_build.out, f"boards/{p.name}").find("h1").text == board.name)
        rows = page(real_boards_build.out, f"boards/{board_page.name}").by_id("leaderboard").find("tbody").find_all("tr")
        assert len(rows) >= 2


def test_a_board_states_the_tie_rule_its_marks_follow(real_boards_build):
    """Where a paired test decides an adjacent mark, the page never says that "≈ tied" means
    overlapping ranges, nor that overlapping intervals are statistically tied."""
    pages = ["index.html", *(f"boards/{p.name}" for p in sorted((real_boards_build.out / "boards").glob("*.html")))]
    paired_seen = 0
    for rel in pages:
        doc = page(real_boards_build.out, rel)
        rule = doc.find("p", cls="adjacent-rule")
        if rule is None:
            continue
        text = doc.text
        if "paired test" in rule.text:
            paired_seen += 1
            assert "means a row's range overlaps the next row's" not in text, rel
            assert "are statistically tied" not in text, rel
            assert "the data do not tell a row from the next" in text, rel
        else:
            assert "means a row's range overlaps the next row's" in text, rel
    assert paired_seen  # the popularity logs answer the same 100 items


def test_a_board_hides_no_result_from_model_and_task_pages(real_boards_build):
    """Every evaluation's page lists every task it has, on the front page's board or not,
    and every task in the data has its page."""
    models = real_boards_build.leaderboard["models"]
    tasks = {t for m in models for t in m["tasks"]}
    assert len(list((real_boards_build.out / "tasks").glob("*.html"))) == len(tasks)
    for m in models:
        doc = page(real_boards_build.out, f"models/{m['slug']}.html")
        listed = {tr.find("th").text.strip() for tr in doc.by_id("task-results").find("tbody").find_all("tr")}
        assert listed == {t for t, r in m["tasks"].items() if r["low"] is not None}, m["id"]


def suggested_boards_text(real_build) -> str:
    from conftest import suggested_boards

    return suggested_boards(real_build.summary.warnings)


def test_one_task_set_keeps_every_other_result_published(real_data, tmp_path):
    """`tasks = ["bbq"]` ranks the bbq evaluations and leaves everyone else's results where
    they were: model pages, task pages, the matrix."""
    built = build_real(real_data, tmp_path, 'tasks = ["bbq"]\n')
    models = built.leaderboard["models"]
    other = next(m for m in models if "bbq" not in m["tasks"] and m["tasks"])
    doc = page(built.out, f"models/{other['slug']}.html")
    assert doc.by_id("task-results").find("tbody").find_all("tr")
    assert "computed over the 0 tasks" not in doc.text
    assert other["label"] in page(built.out, "matrix.html").by_id("matrix").text
