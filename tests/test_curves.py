"""The difficulty curves (`LeaderboardResult.curves`) against a plain reading of the points.

`difficulty_curves` (stats/curves.py) assembles the curves from sorted arrays (integer codes and one lexsort); here the
same curves are built the plain way, one point at a time in Python from the points
themselves, and must agree exactly: the same coordinates in the same order, the same
points in the same order (by evaluation id, then level numerically, text levels last),
the same rounded figures. The curves hold only the evaluations each task page lists (the
first `page_size` of the task's ranking, read here plainly from the leaderboard rows), and
those evaluations' points are the ones the plain reading of their own points gives.
"""

from __future__ import annotations

from pathlib import Path

from helpers_points import ingest_rows, point, ref_estimate
from reasonboard.config import SiteConfig
from reasonboard.sources.points import discover_point_files
from reasonboard.stats.bands import load_bands
from reasonboard.stats.leaderboard import compute_leaderboard
from reasonboard.store.ingest import ingest_points
from reasonboard.store.pointsdb import PointsDB
from reasonboard.store.trialfiles import discover_trial_files

BANDS = load_bands(Path(__file__).resolve().parent.parent / "content" / "bands.toml")

# Levels that sort differently as numbers and as text ("10" after "9"), a text level, and
# coordinates a task names only for some of its points (first named by a later model).
LEVELS = [{"depth": 9, "width": "narrow"}, {"depth": 10, "width": "wide"}, {"depth": 2},
          {"depth": "deep"}, {"depth": 2.5, "zeta": 1}]
EVALS = [("zulu", "tpl"), ("alpha", "b"), ("alpha", "a"), ("mike", "tpl")]


def make_points():
    rows = []
    for e, (model, template) in enumerate(EVALS):
        for t, task in enumerate(("t1", "t2")):
            for k, params in enumerate(LEVELS):
                if (e + k + t) % 4 == 3:  # some evaluations lack some levels
                    continue
                total = 40 + 7 * k + 3 * e
                rows.append(point(model=model, template=template, base_task=task, params=params, total=total,
                                  correct=(5 * e + 3 * k + t) % total, truncated=k % 3, guess=0.25 * (total - k % 3),
                                  tokens=float(total * 10)))
    return rows


def r6(x):
    return round(x, 6) + 0.0


def plain_curves(rows, ids):
    """task -> coordinate -> [(id, level, est, low, high, n)], built point by point."""
    sums: dict[tuple, list[float]] = {}
    for row in rows:
        evaluation = (row["model"], row["template"], row["sampler"])
        for name in row["params"]:
            acc = sums.setdefault((evaluation, row["base_task"], name, str(row["params"][name])), [0, 0, 0, 0.0])
            for j, field in enumerate(("total", "truncated", "correct", "guess")):
                acc[j] += row[field]
    # Coordinates in the order the aggregate (sorted by evaluation, task, coordinate) first names them.
    order: dict[str, list[str]] = {}
    for _, task, name, _ in sorted(sums):
        if name not in order.setdefault(task, []):
            order[task].append(name)

    def level(value):
        try:
            return (0, float(value), value)
        except ValueError:
            return (1, 0.0, value)

    return {task: {name: [(ids[k[0]], k[3], *(r6(x) for x in ref_estimate("C_P", *sums[k])), int(sums[k][0]))
                          for k in sorted((k for k in sums if k[1:3] == (task, name)),
                                          key=lambda k: (ids[k[0]], level(k[3])))]
                   for name in names}
            for task, names in sorted(order.items())}


def assert_curves_equal(curves, expected) -> dict:
    """The curves as plain tuples equal `expected`, in insertion order too (the coordinates
    as first named, not merely the same set); returns the plain tuples."""
    got = {task: {name: [(p.id, p.value, p.estimate, p.low, p.high, p.n) for p in points]
                  for name, points in per_name.items()}
           for task, per_name in curves.items()}
    assert got == expected
    assert {t: list(c) for t, c in got.items()} == {t: list(c) for t, c in expected.items()}
    return got


def test_curves_equal_a_plain_reading(tmp_path):
    rows = make_points()
    with ingest_rows(tmp_path, rows) as db:
        result = compute_leaderboard(db, SiteConfig(bootstrap=200), BANDS)
    ids = {e.key: e.id for e in result.evaluations.values()}
    got = assert_curves_equal(result.curves, plain_curves(rows, ids))
    # Levels sort as numbers, text levels last: 2 < 2.5 < 9 < 10 < "deep".
    first = [v for (i, v, *_) in got["t1"]["depth"] if i == got["t1"]["depth"][0][0]]
    assert [float(v) for v in first if v != "deep"] == sorted(float(v) for v in first if v != "deep")
    assert "zeta" in got["t1"] and "width" in got["t2"]


def plain_listed(models, task, page_size):
    """The ids a task page lists, read plainly from the leaderboard rows: those with an
    interval on the task, by estimate (the interval's midpoint without one), best first,
    ties by label; the first `page_size`."""
    on_task = [(m.tasks[task], m) for m in models if task in m.tasks
               and m.tasks[task].low is not None and m.tasks[task].high is not None]
    on_task.sort(key=lambda x: (-(x[0].estimate if x[0].estimate is not None else (x[0].low + x[0].high) / 2),
                                x[1].label))
    return [m.id for _, m in on_task[:page_size]]


def test_curves_hold_the_listed_models_only(tmp_path):
    rows = make_points()
    with ingest_rows(tmp_path, rows) as db:
        result = compute_leaderboard(db, SiteConfig(bootstrap=200, page_size=2), BANDS)
    ids = {e.key: e.id for e in result.evaluations.values()}
    listed = {task: plain_listed(result.leaderboard.models, task, 2) for task in ("t1", "t2")}
    assert all(len(v) == 2 for v in listed.values()) and len(ids) == 4  # two of four are left out
    assert listed == {t: [m.id for m in r.listed(2)] for t, r in result.task_rankings.items()}
    # The plain reading of the listed evaluations' own points, coordinates in first-named order.
    mine = [r for r in rows if ids[(r["model"], r["template"], r["sampler"])] in listed[r["base_task"]]]
    got = assert_curves_equal(result.curves, plain_curves(mine, ids))
    assert {t: sorted({p[0] for c in per.values() for p in c}) for t, per in got.items()} == \
        {t: sorted(v) for t, v in listed.items()}


def test_demo_curves_of_a_short_page_are_the_full_curves_of_its_models(tmp_path):
    """On the demo data (16 models, 20 evaluations), a page of 3: each task's curves hold exactly the 3
    models its page lists, and their points are those of every model's curves (page_size
    beyond the board) restricted to them, figure for figure and in order."""
    data = Path(__file__).resolve().parent.parent / "data"
    with PointsDB() as db:
        ingest_points(db, discover_point_files(data) + discover_trial_files(data), data)
        short = compute_leaderboard(db, SiteConfig(bootstrap=200, page_size=3), BANDS)
        full = compute_leaderboard(db, SiteConfig(bootstrap=200, page_size=10_000), BANDS)
    assert len(full.evaluations) > 3 and short.curves.keys() == full.curves.keys()
    for task, per_name in full.curves.items():
        listed = plain_listed(short.leaderboard.models, task, 3)
        assert len(listed) == 3
        assert {p.id for points in short.curves[task].values() for p in points} == set(listed), task
        assert {p.id for points in per_name.values() for p in points} > set(listed), task
        expected = {name: tuple(p for p in points if p.id in listed) for name, points in per_name.items()}
        assert dict(short.curves[task]) == {name: points for name, points in expected.items() if points}, task
