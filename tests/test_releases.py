"""Releases: three releases of one project (a model joins, a model is regraded, unchanged
models move only because another joined), every page's claims checked against a diff
computed here from the published leaderboards, in plain Python; a release's pages are
unchanged by the releases after it; snapshots are read as untrusted input."""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from helpers_points import point, write_csv
from helpers_site import Node, parse, row_cells
from reasonboard.build import BuildOptions
from reasonboard.cli import main
from reasonboard.errors import InputError
from reasonboard.release import make_release

TASKS = ("t1", "t2")


def _write(data: Path, models: dict[str, int]) -> None:
    """One evaluation per model, 400 trials per task, `correct` of them right."""
    points = data / "points"
    for old in points.glob("*.csv") if points.is_dir() else ():
        old.unlink()
    for name, correct in models.items():
        write_csv(points / f"{name}.csv", [point(model=name, base_task=t, total=400, correct=correct, params={"x": 1})
                                           for t in TASKS])
    evals = [{"model": m, "template": "tpl", "sampler": "smp", "label": m.upper()} for m in models]
    (data / "evals.json").write_text(json.dumps(evals), encoding="utf-8")


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """r1: a, b, c. r2: d joins above all. r3: b is regraded past a. The pages and the
    published leaderboard are kept after each release."""
    root = tmp_path_factory.mktemp("releases")
    steps = [("r1", "2026-01-10", {"a": 300, "b": 240, "c": 150}),
             ("r2", "2026-02-10", {"a": 300, "b": 240, "c": 150, "d": 360}),
             ("r3", "2026-03-10", {"a": 300, "b": 340, "c": 150, "d": 360})]
    return released(root, steps, _write)


def released(root: Path, steps: Iterable[tuple[str, str, Any]], write: Callable[[Path, Any], None]) -> dict[str, Any]:
    """Each step's data written by `write` into `root/data` and released in turn: the project
    with each release's board and every page of the site as it was built then."""
    kept: dict[str, Any] = {"root": root, "boards": {}, "pages": {}}
    options = BuildOptions(project=root)
    for name, date, data in steps:
        write(root / "data", data)
        make_release(options, name, date)
        kept["boards"][name] = json.loads((root / "site" / "data" / "leaderboard.json").read_text(encoding="utf-8"))
        kept["pages"][name] = {p.relative_to(root / "site").as_posix(): p.read_bytes()
                               for p in (root / "site").rglob("*") if p.is_file()}
    return kept


def _doc(root: Path, rel: str) -> Node:
    return parse((root / "site" / rel).read_text(encoding="utf-8"))


def _score_text(m: dict[str, Any]) -> str:
    rs = m["reasonscore"]
    return f"{rs['center']:.1f} ± {rs['margin']:.1f}"


def _rank_text(m: dict[str, Any]) -> str:
    best, worst = m["rank_range"]
    return str(m["rank"]) if best == worst else f"{m['rank']} ({best}–{worst})"


# -- the diff, computed independently ---------------------------------------------------------


def _ranks_among(board: dict[str, Any], ids: set[str]) -> dict[str, tuple[int, int, int]]:
    """Rank, best and worst rank of each of `ids` among `ids` alone (STATISTICS.md section 7)."""
    ms = [m for m in board["models"] if m["id"] in ids]
    out = {}
    for m in ms:
        lo, hi, c = m["reasonscore"]["ci_low"], m["reasonscore"]["ci_high"], m["reasonscore"]["center"]
        above = sum(1 for o in ms if (o["reasonscore"]["center"], o["id"]) > (c, m["id"]))
        best = 1 + sum(1 for o in ms if o["reasonscore"]["ci_low"] > hi)
        worst = sum(1 for o in ms if o["reasonscore"]["ci_high"] >= lo)
        out[m["id"]] = (above + 1, best, worst)
    return out


def expected_changes(old: dict[str, Any], new: dict[str, Any]) -> dict[str, set[str]]:
    """kind -> the labels of the models of that kind."""
    o = {m["id"]: m for m in old["models"]}
    n = {m["id"]: m for m in new["models"]}
    kinds: dict[str, set[str]] = {}
    common = set(o) & set(n)
    for i in set(n) - set(o):
        kinds.setdefault("joined", set()).add(n[i]["label"])
    for i in set(o) - set(n):
        kinds.setdefault("left", set()).add(o[i]["label"])
    among_old, among_new = _ranks_among(old, common), _ranks_among(new, common)
    for i in common:
        a, b = o[i]["reasonscore"], n[i]["reasonscore"]
        if a != b:
            kind = ("significant_gain" if b["ci_low"] > a["ci_high"] else
                    "significant_drop" if b["ci_high"] < a["ci_low"] else "within_intervals")
        elif (o[i]["rank"], o[i]["rank_range"]) == (n[i]["rank"], n[i]["rank_range"]):
            continue
        else:
            kind = "others_joined" if among_old[i] == among_new[i] else "others_moved"
        kinds.setdefault(kind, set()).add(n[i]["label"])
    return kinds


def test_the_fixture_has_each_kind_of_move(project):
    boards = project["boards"]
    assert expected_changes(boards["r1"], boards["r2"]) == {"joined": {"D"}, "others_joined": {"A", "B", "C"}}
    r3 = expected_changes(boards["r2"], boards["r3"])
    assert r3["significant_gain"] == {"B"} and "A" in r3["others_moved"]


@pytest.mark.parametrize("name,previous", [("r2", "r1"), ("r3", "r2")])
def test_changes_page_says_what_the_diff_says(project, name, previous):
    old, new = project["boards"][previous], project["boards"][name]
    expected = expected_changes(old, new)
    doc = _doc(project["root"], f"releases/{name}-changes.html")
    shown: dict[str, set[str]] = {}
    by_label = {m["label"]: m for m in [*old["models"], *new["models"]]}
    for row in doc.find_all("tr"):
        kind = row.attrs.get("data-kind")
        if kind is None:
            continue
        cells = [c.text for c in row_cells(row)]
        shown.setdefault(kind, set()).add(cells[0])
        before = next((m for m in old["models"] if m["label"] == cells[0]), None)
        after = next((m for m in new["models"] if m["label"] == cells[0]), None)
        assert cells[1] == (_score_text(before) if before else "—")
        assert cells[2] == (_score_text(after) if after else "—")
        assert cells[4] == (_rank_text(before) if before else "—")
        assert cells[5] == (_rank_text(after) if after else "—")
        if kind == "others_joined":
            joined_above = sum(1 for m in new["models"] if m["label"] not in {x["label"] for x in old["models"]}
                               and m["rank"] < after["rank"])
            assert cells[6].startswith(f"{joined_above} joined above")
        assert by_label[cells[0]]
    assert shown == expected
    headline = doc.by_id("headline").text
    gains = len(expected.get("significant_gain", ()))
    assert f"{len(expected.get('joined', ()))} evaluation" in headline
    assert f"{gains} significant move" in headline or f"{gains} significant moves" in headline
    assert "overlap rule" in doc.text


@pytest.mark.parametrize("name", ["r1", "r2", "r3"])
def test_board_page_is_the_board_of_its_release(project, name):
    board = project["boards"][name]
    doc = _doc(project["root"], f"releases/{name}.html")
    rows = [[c.text for c in row_cells(r)] for r in doc.by_id("release-board").find_all("tr") if row_cells(r)
            and row_cells(r)[0].tag == "td"]
    expected = [[_rank_text(m), m["label"], _score_text(m)] for m in board["models"]]
    assert [[r[0], r[2], r[3].split(" [")[0]] for r in rows] == [[e[0], e[1], e[2]] for e in expected] or \
        [[r[0], r[2]] for r in rows] == [[e[0], e[1]] for e in expected]
    for r, m in zip(rows, board["models"]):
        assert r[3].startswith(_score_text(m))
    assert f"As published on {dict(r1='2026-01-10', r2='2026-02-10', r3='2026-03-10')[name]}" in doc.text


def test_releases_list_newest_first(project):
    doc = _doc(project["root"], "releases.html")
    names = [row_cells(r)[0].text for r in doc.by_id("releases").find_all("tr") if row_cells(r)[0].tag == "th"
             and r.parent.tag == "tbody"]
    assert names == ["r3", "r2", "r1"]


def _spans(points: list[tuple[str, dict[str, Any]]]) -> list[tuple[str, dict[str, Any]]]:
    """Consecutive releases with the same score and rank as one row, "r1 to r2"."""
    out: list[tuple[list[str], dict[str, Any]]] = []
    for name, m in points:
        if out and (out[-1][1]["reasonscore"], out[-1][1]["rank"]) == (m["reasonscore"], m["rank"]):
            out[-1][0].append(name)
        else:
            out.append(([name], m))
    return [(names[0] if len(names) == 1 else f"{names[0]} to {names[-1]}", m) for names, m in out]


@pytest.mark.parametrize("model", ["a", "b", "c", "d"])
def test_model_page_history(project, model):
    boards = project["boards"]
    doc = _doc(project["root"], f"models/{model}.html")
    rows = [[c.text for c in row_cells(r)] for r in doc.by_id("history-table").find_all("tr")
            if r.parent.tag == "tbody"]
    points = [(n, m) for n in ("r1", "r2", "r3") for m in boards[n]["models"] if m["id"].startswith(f"{model}|")]
    expected = _spans(points)  # this build is r3: no point of its own
    assert [r[0] for r in rows] == [name for name, _ in expected]
    previous = None
    for r, (_, m) in zip(rows, expected):
        assert r[2].startswith(_score_text(m))
        assert r[3] == str(m["rank"])
        up = previous is not None and m["reasonscore"]["ci_low"] > previous["reasonscore"]["ci_high"]
        down = previous is not None and m["reasonscore"]["ci_high"] < previous["reasonscore"]["ci_low"]
        assert r[4] == ("significantly up" if up else "significantly down" if down else "")
        previous = m
    data = json.loads(doc.by_id("history-chart").find("script").children[0])  # by column: keys, rows
    assert [values[data["keys"].index("label")] for values in data["rows"]] == [r[0] for r in rows]
    if model == "b":
        assert [r[4] for r in rows] == ["", "", "significantly up"]  # r2: only its rank moved (d joined)


def test_release_pages_never_change(project):
    assert_release_pages_never_change(project)


def assert_release_pages_never_change(project: dict[str, Any]) -> None:
    """r1's pages after r2 and r3 are the bytes they were, and what they link is still there."""
    pages = project["pages"]
    for name in ("r1", "r2"):
        for kind in ("", "-changes"):
            rel = f"releases/{name}{kind}.html"
            assert all(pages[later][rel] == pages[name][rel] for later in pages if later >= name), rel
            for link in re.findall(r'(?:href|src)="([^"#]+)', pages[name][rel].decode()):
                target = posixpath.normpath(posixpath.join("releases", link))
                if not link.startswith(("http", "data:")):
                    assert (project["root"] / "site" / target).is_file(), (rel, link)


def test_data_files_name_their_release(project):
    import gzip

    for name in ("r1", "r2", "r3"):
        folder = project["root"] / "releases" / name
        for f in ("leaderboard.json.gz", "signals.json.gz", "pairwise.json.gz"):
            doc = json.loads(gzip.decompress((folder / f).read_bytes()))
            assert doc["release"]["name"] == name
        manifest = json.loads((folder / "release.json").read_text(encoding="utf-8"))
        assert manifest["previous"] == {"r1": None, "r2": "r1", "r3": "r2"}[name]


def test_diff_takes_release_names(project):
    root = project["root"]
    result = CliRunner().invoke(main, ["diff", "r1", "latest", "--project", str(root), "--format", "json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert [e["model"]["label"] for e in report["added"]] == ["D"]
    result = CliRunner().invoke(main, ["diff", "latest", str(root / "site"), "--project", str(root)])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("## Score changes: release r3 → ")
    assert "**No changes.** 4 models with the same score" in result.output  # the site is the latest release


def test_a_release_is_never_overwritten_and_comes_last(project):
    options = BuildOptions(project=project["root"])
    with pytest.raises(InputError, match="exists already"):
        make_release(options, "r2", "2026-04-01")
    with pytest.raises(InputError, match="before the latest release r3"):
        make_release(options, "r0", "2026-01-01")
    for bad in ("R1", "../x", "latest", "v1-changes", ""):
        with pytest.raises(InputError):
            make_release(options, bad, "2026-05-01")
    with pytest.raises(InputError, match="YYYY-MM-DD"):
        make_release(options, "r9", "2026-13-01")


def test_tampered_snapshots_are_one_line_errors(tmp_path, project):
    import shutil

    from reasonboard.sources.releases import read_releases

    root = tmp_path / "p"
    shutil.copytree(project["root"] / "releases", root / "releases")
    (root / "releases" / "r2" / "changes.json").write_text('{"schema": "reasonboard.release-changes/1"}')
    with pytest.raises(InputError, match=r"r2/changes.json: changes: 'models' must be a list"):
        read_releases(root)
    shutil.rmtree(root / "releases" / "r2")
    (root / "releases" / "r2").symlink_to(root / "releases" / "r1")
    with pytest.raises(InputError, match="not a release snapshot folder"):
        read_releases(root)
    (root / "releases" / "r2").unlink()
    import gzip

    bomb = gzip.compress(b"[" + b" " * (300 << 20) + b"]", mtime=0)
    (root / "releases" / "r1" / "board.json.gz").write_bytes(bomb)
    with pytest.raises(InputError, match="expands to more than"):
        read_releases(root)


@pytest.mark.parametrize("name,previous", [("r2", "r1"), ("r3", "r2")])
def test_changes_headline_counts_every_evaluation(project, name, previous):
    """The headline's counts add up to the evaluations of the two releases: an evaluation
    moved by others' scores (A in r3) or whose status changed is counted too, not left out
    of a sentence that reads as the whole tally."""
    old, new = project["boards"][previous], project["boards"][name]
    everyone = {m["id"] for m in old["models"]} | {m["id"] for m in new["models"]}
    headline = _doc(project["root"], f"releases/{name}-changes.html").by_id("headline").text
    parts = headline.split(": ", 1)[1].rstrip(".").split("; ")
    assert sum(int(re.match(r"\d+", p).group()) for p in parts) == len(everyone), headline


def test_a_move_between_scores_computed_otherwise_is_not_judged(tmp_path):
    """Released under C_P, built under E_P: the two ReasonScores are not the same quantity
    (E_P keeps lucky guesses), so the history does not call the move significant."""
    from reasonboard.build import run_build

    root = tmp_path / "project"
    released(root, [("r1", "2026-01-10", {"a": 300, "b": 150})], _write)
    (root / "content").mkdir(exist_ok=True)
    (root / "content" / "site.toml").write_text('mode = "E_P"\n', encoding="utf-8")
    run_build(BuildOptions(project=root))
    doc = _doc(root, "models/a.html")
    rows = [[c.text for c in row_cells(r)] for r in doc.by_id("history-table").find_all("tr")
            if r.parent.tag == "tbody"]
    assert [r[0] for r in rows] == ["r1", "this build"]
    assert rows[1][4] == "not comparable: scored otherwise (estimator C_P → E_P)"
    assert "is not judged: the two ReasonScores are not the same quantity" in doc.text
    assert "significantly" not in " ".join(r[4] for r in rows)
    # Released so: its changes page does not judge the moves either, and says why.
    make_release(BuildOptions(project=root), "r2", "2026-02-10")
    changes = _doc(root, "releases/r2-changes.html")
    assert "Changes not judged" in changes.text and "Significant moves" not in changes.text
    assert "the builds score differently (estimator C_P → E_P): the two scores are not the same quantity" \
        in changes.text
    assert "2 changes not judged (not comparable)" in changes.find("p", cls="lede").text


def test_a_move_not_judged_leaves_the_holm_family():
    """r1 scored with C_P, r2 and r3 with E_P, each move with a paired test in its release's
    changes: the r1 → r2 move is not judged, so its test (p = 0.04) is not among those Holm
    corrects over, and r3's (p = 0.03) alone is significant. The not-judged point stays a
    row of its own even where its score equals the row before."""
    from reasonboard.site.views.history import history_view
    from reasonboard.sources.releasechanges import MoveTest
    from reasonboard.stats.history import GAIN, RESCORED, HistoryPoint, _marked

    def test(p: float) -> MoveTest:
        return MoveTest(shared=100, effect=5.0, low=1.0, high=9.0, p=p, method="bootstrap", significant=False)

    c_p, e_p = ("C_P", ("t1", "t2")), ("E_P", ("t1", "t2"))
    points = [HistoryPoint("r1", "2026-01-01", 500.0, 10.0, 490.0, 510.0, 1, basis=c_p),
              HistoryPoint("r2", "2026-02-01", 500.0, 10.0, 490.0, 510.0, 1, test=test(0.04), basis=e_p),
              HistoryPoint("r3", "2026-03-01", 505.0, 10.0, 495.0, 515.0, 1, test=test(0.03), basis=e_p)]
    marked = _marked(points)
    assert [p.rule for p in marked[1:]] == [RESCORED, "paired"]
    assert [p.move for p in marked] == [None, None, GAIN]
    view = history_view(marked, "A")
    assert view is not None and [r.label for r in view.rows] == ["r1", "r2", "r3"]
    assert view.rows[1].note == "not comparable: scored otherwise (estimator C_P → E_P)"


def test_a_board_task_set_change_names_what_moved():
    from reasonboard.stats.history import task_set_change

    assert task_set_change(["a", "b", "c"], ["a", "b", "d"]) == ("a, b, c", "a, b, d")
    eight = [f"t{k}" for k in range(8)]
    assert task_set_change(eight, [*eight[1:], "t9"]) == ("8 tasks", "8 tasks: +t9, −t0")
