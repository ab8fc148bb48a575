"""Releases paired on shared items (PRODUCT.md "Releases and history", SAMPLES.md section 5):
three releases of a project whose evaluations keep per-sample outcomes. r2: d joins above
everyone, so a, b and c move only because another joined. r3: b is regraded from 30 to 40
correct on the same 50 items (the intervals still overlap, the paired test is significant)
and c changes within noise. Every claim of the changes pages and the model pages' history is
checked against a diff computed here: the moves from the published leaderboards, the paired
tests by a plain replicate loop over the outcomes written here, Holm by a plain step-down."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import duckdb
import pytest
from helpers_site import row_cells
from reasonboard.store.pointsdb import sql_string
from test_paired import plain_task
from test_releases import _doc, _ranks_among, _score_text, assert_release_pages_never_change, released
from test_site_paired import plain_holm

TASK = "t1"
ITEMS = 50
DRAWS = 400
SEED = 42
PARAMS = "{}"

#: model -> which of the 50 items it answers correctly, per release.
OUTCOMES: dict[str, dict[str, set[int]]] = {
    "r1": {"a": set(range(40)), "b": set(range(30)), "c": set(range(20))},
    "r2": {"a": set(range(40)), "b": set(range(30)), "c": set(range(20)), "d": set(range(45))},
    # b: ten more of the same items right; c: two gained, one lost.
    "r3": {"a": set(range(40)), "b": set(range(40)), "c": set(range(19)) | {30, 31}, "d": set(range(45))},
}
DATES = {"r1": "2026-01-10", "r2": "2026-02-10", "r3": "2026-03-10"}


def _write(data: Path, models: dict[str, set[int]]) -> None:
    """One trials file per model: one trial per item, write-in answers."""
    trials = data / "trials"
    trials.mkdir(parents=True, exist_ok=True)
    for old in trials.glob("*.parquet"):
        old.unlink()
    con = duckdb.connect()
    for name, correct in models.items():
        flags = [i in correct for i in range(ITEMS)]
        con.execute(
            "COPY (SELECT ? AS model, 'tpl' AS template, 'smp' AS sampler, ? AS base_task, ? AS params, "
            "printf('s%02d', i) AS sample_id, 1 AS epoch, CASE WHEN c THEN 1.0 ELSE 0.0 END AS credit, c AS correct, "
            "false AS truncated, NULL::INTEGER AS options, NULL::BIGINT AS tokens, NULL::BIGINT AS input_tokens, "
            "NULL::BIGINT AS compressed FROM (SELECT unnest(range(?)) AS i, unnest(?::BOOLEAN[]) AS c) "
            f"ORDER BY sample_id) TO {sql_string(trials / f'{name}.parquet')} (FORMAT parquet)",
            [name, TASK, PARAMS, ITEMS, flags])
    con.close()
    evals = [{"model": m, "template": "tpl", "sampler": "smp", "label": m.upper()} for m in models]
    (data / "evals.json").write_text(json.dumps(evals), encoding="utf-8")


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("paired-releases")
    (root / "content").mkdir()
    (root / "content" / "site.toml").write_text(f"paired_draws = {DRAWS}\nseed = {SEED}\n", encoding="utf-8")
    return released(root, [(name, DATES[name], OUTCOMES[name]) for name in ("r1", "r2", "r3")], _write)


# -- the diff, computed independently ---------------------------------------------------------


def plain_paired(old: set[int], new: set[int]) -> tuple[float, float, float, float]:
    """Effect (new minus old ReasonScore on the one-task board), low, high and raw p of the
    paired bootstrap, one replicate at a time (`plain_task`, SAMPLES.md section 5)."""
    ids = [f"s{i:02d}" for i in range(ITEMS)]
    spec = [(PARAMS, ids, [(1, int(i in new), 0, 0.0) for i in range(ITEMS)],
             [(1, int(i in old), 0, 0.0) for i in range(ITEMS)])]
    (obs_new, obs_old), reps = plain_task(SEED, TASK, spec, DRAWS)

    def score(cp: float) -> float:
        return 1000 * math.exp(math.log(max(cp, 0.01)))

    diffs = sorted(score(a) - score(b) for a, b, _ in reps)
    le = sum(round(d, 9) <= 0 for d in diffs) / DRAWS
    ge = sum(round(d, 9) >= 0 for d in diffs) / DRAWS
    return (score(obs_new) - score(obs_old), diffs[math.floor(0.025 * DRAWS)], diffs[math.floor(0.975 * DRAWS)],
            min(1.0, 2 * min(le, ge)))


def expected(previous: str, name: str, boards: dict[str, Any]) -> dict[str, tuple[str, Any]]:
    """label -> (kind, paired figures or None) of every model that moved from `previous`."""
    old = {m["id"]: m for m in boards[previous]["models"]}
    new = {m["id"]: m for m in boards[name]["models"]}
    common = old.keys() & new.keys()
    found: dict[str, tuple[str, Any]] = {new[i]["label"]: ("joined", None) for i in new.keys() - old.keys()}
    # Own score changed: every model keeps outcomes in both releases, so all are paired.
    changed = sorted(i for i in common if old[i]["reasonscore"] != new[i]["reasonscore"])
    tests = {i: plain_paired(OUTCOMES[previous][new[i]["model"]], OUTCOMES[name][new[i]["model"]]) for i in changed}
    verdicts = dict(zip(changed, plain_holm([tests[i][3] for i in changed])))
    for i in changed:
        kind = ("significant_gain" if tests[i][0] > 0 else "significant_drop") if verdicts[i] else "not_significant"
        found[new[i]["label"]] = (kind, (*tests[i], verdicts[i]))
    among_old, among_new = _ranks_among(boards[previous], common), _ranks_among(boards[name], common)
    for i in sorted(common - set(changed)):
        if (old[i]["rank"], old[i]["rank_range"]) != (new[i]["rank"], new[i]["rank_range"]):
            found[new[i]["label"]] = ("others_joined" if among_old[i] == among_new[i] else "others_moved", None)
    return found


def test_the_fixture_has_each_kind_of_move(project):
    boards = project["boards"]
    r2, r3 = expected("r1", "r2", boards), expected("r2", "r3", boards)
    assert {k: v[0] for k, v in r2.items()} == {"D": "joined", "A": "others_joined", "B": "others_joined",
                                               "C": "others_joined"}
    assert r3["B"][0] == "significant_gain" and r3["C"][0] == "not_significant"
    # The overlap rule alone would not call the regrade significant: the intervals overlap.
    old_b, new_b = (next(m for m in boards[n]["models"] if m["label"] == "B")["reasonscore"] for n in ("r2", "r3"))
    assert new_b["ci_low"] <= old_b["ci_high"]


@pytest.mark.parametrize("name,previous", [("r2", "r1"), ("r3", "r2")])
def test_changes_page_says_what_the_diff_says(project, name, previous):
    boards = project["boards"]
    want = expected(previous, name, boards)
    doc = _doc(project["root"], f"releases/{name}-changes.html")
    shown = {}
    for row in doc.find_all("tr"):
        kind = row.attrs.get("data-kind")
        if kind is None:
            continue
        cells = [c.text for c in row_cells(row)]
        shown[cells[0]] = kind
        before = next((m for m in boards[previous]["models"] if m["label"] == cells[0]), None)
        after = next((m for m in boards[name]["models"] if m["label"] == cells[0]), None)
        assert cells[1] == (_score_text(before) if before else "—")
        assert cells[2] == (_score_text(after) if after else "—")
        figures = want[cells[0]][1]
        if figures is not None:
            effect, low, high, p, significant = figures
            rule = cells[7]
            assert rule.startswith(f"paired test on {ITEMS} shared items: {effect:+.1f} ({low:+.1f} to {high:+.1f}), p ")
            assert rule.endswith("not significant after Holm" if not significant else " significant after Holm")
        elif kind == "others_joined":
            assert cells[6].startswith("1 joined above")
    assert shown == {label: kind for label, (kind, _) in want.items()}
    tests = sum(1 for _, f in want.values() if f is not None)
    if tests:
        assert f"Holm's correction over the {tests} paired tests on this page" in doc.text
        assert "Each line names its rule" in doc.text
    else:
        assert "overlap rule" in doc.text


def test_changes_json_carries_each_test(project):
    doc = json.loads((project["root"] / "releases" / "r3" / "changes.json").read_text(encoding="utf-8"))
    assert doc["rule"] == "paired"
    want = expected("r2", "r3", project["boards"])
    for m in doc["models"]:
        figures = want[m["label"]][1]
        if figures is None:
            assert m["test"] is None
            continue
        effect, low, high, p, significant = figures
        t = m["test"]
        assert m["rule"] == "paired" and t["shared"] == ITEMS and t["method"] == "bootstrap"
        assert (t["effect"], t["low"], t["high"]) == pytest.approx((effect, low, high), abs=1e-3)
        assert t["p"] == pytest.approx(p, abs=1e-6) and t["significant"] == significant


def test_model_page_history_marks_the_paired_move(project):
    boards = project["boards"]
    doc = _doc(project["root"], "models/b.html")
    rows = [[c.text for c in row_cells(r)] for r in doc.by_id("history-table").find_all("tr")
            if r.parent.tag == "tbody"]
    # r1 and r2 have the same score but not the same rank (d joined above): two rows.
    points = [(n, next(m for m in boards[n]["models"] if m["label"] == "B")) for n in ("r1", "r2", "r3")]
    assert [r[0] for r in rows] == ["r1", "r2", "r3"]
    effect, low, high, p = plain_paired(OUTCOMES["r2"]["b"], OUTCOMES["r3"]["b"])
    [significant] = plain_holm([p])  # the page's one paired move
    assert rows[2][4] == ("significantly up" if significant else "")
    assert rows[2][5].startswith(f"paired test on {ITEMS} shared items: {effect:+.1f}")
    assert rows[1][4] == "" and rows[1][5] == "—"  # the same score: no move to judge
    for r, (_, m) in zip(rows, points):
        assert r[2].startswith(_score_text(m)) and r[3] == str(m["rank"])
    assert "judged by a paired test on the items both share, significant after Holm's correction over the 1 " \
           "paired test on this page" in doc.text


def test_release_pages_never_change(project):
    assert_release_pages_never_change(project)


def test_diff_of_two_releases_is_paired(project):
    from click.testing import CliRunner
    from reasonboard.cli import main

    result = CliRunner().invoke(main, ["diff", "r2", "r3", "--project", str(project["root"]), "--format", "json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    by_label = {c["model"]["label"]: c for c in report["changed"]}
    assert by_label["B"]["rule"] == "paired" and by_label["B"]["significance"] == "significant_gain"


def test_release_board_names_the_rule_its_tie_marks_follow(project):
    """A release's board keeps the leaderboard's "≈ tied"/"distinct" marks, which come from the
    paired test where the two rows share items: A (40 of 50) and B (30 of 50 of the same
    items) are told apart by it though their intervals overlap. The page must not say that
    its marks, or ties, are interval overlap."""
    board = project["boards"]["r1"]
    ranked = sorted((m for m in board["models"] if m["rank"] is not None), key=lambda m: m["rank"])
    by_label = {m["label"]: m for m in ranked}
    doc = _doc(project["root"], "releases/r1.html")
    disagree = 0
    for row in doc.by_id("release-board").find_all("tr"):
        cells = [c.text for c in row_cells(row)]
        if len(cells) != 4 or cells[2] not in by_label or cells[1] not in ("≈ tied", "distinct"):
            continue
        m = by_label[cells[2]]
        following = ranked[ranked.index(m) + 1]
        a, b = m["reasonscore"], following["reasonscore"]
        overlap = a["ci_low"] <= b["ci_high"] and b["ci_low"] <= a["ci_high"]
        disagree += (cells[1] == "≈ tied") != overlap
    assert disagree, "the fixture should have a mark the paired test set against the overlap rule"
    text = doc.text
    assert "this row's interval overlaps the next row's" not in text
    assert "Rows whose intervals overlap are statistically tied" not in text
    assert "paired test" in doc.by_id("release-board-caption").text
