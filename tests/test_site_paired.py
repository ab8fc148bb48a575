"""Paired comparisons as a reader meets them, on the repository's demo data (which keeps
per-sample trials): pairwise.json's paired entries, the boards' and task pages' adjacent
marks and the rule each page names, model pages' neighbours; checked against the published
leaderboard and a plain Holm, never against the engine's own intermediate values."""

from __future__ import annotations

import csv
import io
import itertools
import math

import pytest
from helpers_site import page


def plain_holm(ps: list[float]) -> list[bool]:
    order = sorted(range(len(ps)), key=lambda i: ps[i])
    out, going = [False] * len(ps), True
    for k, i in enumerate(order):
        going = going and ps[i] <= 0.05 / (len(ps) - k)
        out[i] = going
    return out


@pytest.fixture(scope="module")
def paired(default_build):
    doc = default_build.pairwise.get("paired")
    assert doc, "the demo data keep trials, so pairwise.json has paired entries"
    return doc


def test_adjacent_entries_follow_the_ranking_with_holm_over_them(default_build, paired):
    ranked = [m["id"] for m in default_build.leaderboard["models"] if m["rank"] is not None]
    adjacent = paired["adjacent"]
    assert adjacent, "every ranked demo model shares its items with the next"
    nexts = dict(itertools.pairwise(ranked))
    for e in adjacent:
        assert nexts[e["a"]] == e["b"]
        assert e["shared"] >= paired["min_samples"] and e["low"] <= e["effect"] <= e["high"]
        assert e["method"] == "bootstrap" and 0 <= e["p"] <= 1
    assert [e["significant"] for e in adjacent] == plain_holm([e["p"] for e in adjacent])
    for task, entries in paired["tasks"].items():
        assert [e["significant"] for e in entries] == plain_holm([e["p"] for e in entries]), task
    for model, entries in paired["neighbours"].items():
        assert [e["significant"] for e in entries] == plain_holm([e["p"] for e in entries]), model


def test_the_data_files_mark_what_the_board_prints(default_build, paired):
    """`distinct_from_next` in leaderboard.json and its CSV is the board's mark: the paired
    verdict where the row and the next were tested, else the overlap of their intervals. A
    file saying "tied" where the page says "distinct" would mislead every tool reading it
    (and the release pages, which are drawn from it)."""
    tested = {e["a"]: e["significant"] for e in paired["adjacent"]}
    rows = [m for m in default_build.leaderboard["models"] if m["rank"] is not None]
    overlap = {a["id"]: a["reasonscore"]["ci_low"] > b["reasonscore"]["ci_high"] for a, b in itertools.pairwise(rows)}
    assert any(tested[a] != overlap[a] for a in tested), "the demo has a pair the two rules disagree on"
    for m in rows:
        expected = tested.get(m["id"], overlap.get(m["id"]))
        assert m["distinct_from_next"] == expected, m["id"]
    csv_rows = list(csv.DictReader(io.StringIO((default_build.out / "data" / "leaderboard.csv").read_text())))
    by_id = {r["id"]: r["distinct_from_next"] for r in csv_rows}
    for m in rows:
        assert by_id[m["id"]] == {True: "true", False: "false", None: ""}[m["distinct_from_next"]]


def test_effect_equals_the_published_scores_when_every_item_is_shared(default_build, paired):
    """With one trial per item and the same items on both sides, the paired effect is the
    difference of the two published ReasonScore point estimates' geometric means."""
    models = {m["id"]: m for m in default_build.leaderboard["models"]}

    def items(m):
        return sum(t["total"] for t in m["tasks"].values())

    def gm(m):
        return 1000 * math.exp(sum(math.log(max(t["estimate"], 0.01)) for t in m["tasks"].values()) / len(m["tasks"]))

    checked = 0
    for e in paired["matrix"] + paired["adjacent"]:
        a, b = models[e["a"]], models[e["b"]]
        if items(a) == items(b) == e["shared"]:
            assert e["effect"] == pytest.approx(gm(a) - gm(b), abs=2e-3)
            checked += 1
    assert checked


def test_pages_name_their_rule_and_agree_with_the_data(default_build, paired):
    site = default_build.out
    board = page(site, "index.html")
    rule = board.find(cls="adjacent-rule").text
    assert f"of the {len([m for m in default_build.leaderboard['models'] if m['rank']]) - 1} adjacent pairs" in rule
    assert "Holm" in rule and "Rank ranges compare intervals" in rule
    marks = {e["a"]: e for e in paired["adjacent"]}
    labels = {m["id"]: m["label"] for m in default_build.leaderboard["models"]}
    text = board.text
    for a, e in marks.items():
        assert labels[a] in text
    # Each paired mark says which way the test went, and the table's legend says what "paired" means.
    cells = [c for c in board.find_all("span", cls="tie") if "paired" in c.text]
    assert len(cells) == len(marks)
    assert sum("distinct" in c.text for c in cells) == sum(e["significant"] for e in marks.values())
    assert "the paired test on shared items" in board.find("caption").text

    task, entries = next((t, es) for t, es in paired["tasks"].items() if es)
    task_page = page(site, f"tasks/{task}.html")
    assert "paired test" in task_page.find(cls="adjacent-rule").text
    task_cells = [c for c in task_page.find_all("span", cls="tie") if "paired" in c.text]
    assert len(task_cells) == len(entries)

    slugs = {m["id"]: m["slug"] for m in default_build.leaderboard["models"]}
    model_id, near = next(iter(paired["neighbours"].items()))
    doc = page(site, f"models/{slugs[model_id]}.html")
    caption = doc.find("caption", id="neighbours-caption")
    assert "Holm" in caption.text
    assert caption.parent is not None
    rows = [r.text for r in caption.parent.find_all("tr")[1:]]
    by_label = {labels[e["b"]]: e for e in near}
    for label, e in by_label.items():
        [line] = [r for r in rows if label in r]
        assert line.rstrip().endswith("not distinguishable" if not e["significant"] else "distinct")


def test_a_screen_reader_hears_why_a_row_is_tied_or_distinct(default_build):
    """The reason behind each mark is in its tooltip and, for a screen reader, in hidden text
    inside the mark: an `aria-label` on a plain span is not read out, so it would leave a
    listener with "tied" and no rule or figures."""
    board = page(default_build.out, "index.html")
    marks = board.find_all("span", cls="tie")
    assert marks
    for mark in marks:
        assert "aria-label" not in mark.attrs
        [hidden] = mark.find_all("span", cls="visually-hidden")
        assert hidden.text == ": " + mark.attrs["title"]
        assert (mark.find("small", cls="rule") is not None) == ("paired test on" in mark.attrs["title"])


def test_a_bootstrap_p_of_zero_is_printed_as_the_bootstraps_floor():
    from reasonboard.site.views.base import p_text

    # No resample crossed zero: with a few thousand draws that bounds p near 2 / draws, so
    # "< 0.0001" would claim more than the bootstrap can show. McNemar's exact p can be that small.
    assert p_text(0.0, "bootstrap") == "0 (no resample crossed zero)"
    assert p_text(0.0, "mcnemar") == "< 0.0001" and p_text(0.00002, "mcnemar") == "< 0.0001"
    assert p_text(0.004, "bootstrap") == "0.004" and p_text(1.0, "bootstrap") == "1"
