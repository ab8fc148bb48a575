"""Which pairs the site compares on their shared items, and the verdicts it prints
(SAMPLES.md section 5).

The pairs a reader sees side by side: adjacent rows of the board ("distinct from next"), a
model page's neighbours, the pairwise matrix's top models (all three on the ReasonScore,
board level), and adjacent rows of each task page (on the task's `C_P`). Each pair is tested
once, in the orientation of the board's order, and read backwards where a page needs it (the
difference changes sign, the draws are the same). Significance is Holm's over the tests a
page shows together: the board's adjacent pairs, one model page's neighbours, the matrix,
one task page's adjacent pairs; the raw `p` is kept beside it.

Evaluations without trials, and pairs sharing fewer than `min_samples` items (on every task,
for the board), get no paired test: there the interval-overlap rule speaks, as before.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

import numpy as np
from threadpoolctl import threadpool_limits

from ..config import SiteConfig
from ..store.items import has_trials, task_items
from ..store.pointsdb import PointsDB
from .leaderboard import LeaderboardResult
from .paired import PairedTest, holm
from .pairing import BoardTests, task_sides, tests_of
from .verdicts import Comparisons, PairedResult, PairedVerdict

#: Published precision: `C_P` differences like task estimates, ReasonScore differences like
#: ReasonScores (p: `verdicts.P_DECIMALS`).
TASK_DECIMALS = 6
BOARD_DECIMALS = 3


def with_comparisons(db: PointsDB, result: LeaderboardResult, config: SiteConfig) -> LeaderboardResult:
    """`result` with the paired comparisons of the pairs its pages show.

    The matrix products are small to middling (a draw matrix times the evaluations that share
    its items): BLAS threads cost more to wake than they save there, and on a busy machine
    they cost several times the product itself, so the engine runs on one thread."""
    if not has_trials(db):
        return result
    with threadpool_limits(limits=1, user_api="blas"):
        return replace(result, comparisons=compare_pairs(db, result, config))


def compare_pairs(db: PointsDB, result: LeaderboardResult, config: SiteConfig) -> Comparisons:
    ranked = [m.evaluation.id for m in result.leaderboard.models if m.rank is not None]
    position = {i: k for k, i in enumerate(ranked)}
    adjacent = list(itertools.pairwise(ranked))
    neighbour_pairs = [(a, n.id) for a, near in result.pairwise.neighbours.items() for n in near]
    top = list(result.pairwise.models)
    matrix_pairs = [(top[i], top[j]) for i in range(len(top)) for j in range(i + 1, len(top))]
    board_pairs = sorted({_oriented(a, b, position) for a, b in (*adjacent, *neighbour_pairs, *matrix_pairs)},
                         key=lambda p: (position[p[0]], position[p[1]]))
    tasks = list(result.leaderboard.settings.tasks)
    # A task page's ranked rows (the preliminary ones are listed apart, with no mark).
    listed = {task: [m.evaluation.id for n, m in enumerate(result.task_rankings[task].listed(config.page_size))
                     if not result.task_rankings[task].is_preliminary(n)] for task in tasks}
    task_pairs = {task: list(itertools.pairwise(ids)) for task, ids in listed.items()}

    involved = sorted({i for p in board_pairs for i in p} | {i for ps in task_pairs.values() for p in ps for i in p})
    index = {i: k for k, i in enumerate(involved)}
    keys = [result.evaluations[i].key for i in involved]
    board = BoardTests(_indices(board_pairs, index), config.paired_draws, config.seed, config.min_samples)
    by_task: dict[str, dict[tuple[str, str], PairedTest | None]] = {}
    # The next task's items are read (DuckDB, off the GIL) while this one's are resampled.
    with ThreadPoolExecutor(max_workers=1) as reader:
        pending = reader.submit(task_items, db.con, tasks[0], keys) if tasks else None
        for k, task in enumerate(tasks):
            assert pending is not None
            items = pending.result()
            pending = reader.submit(task_items, db.con, tasks[k + 1], keys) if k + 1 < len(tasks) else None
            # One pass per task for both: the board's pairs, then the task page's adjacent rows.
            pairs = task_pairs[task]
            found = task_sides(items, np.concatenate([board.pairs, _indices(pairs, index)]), config.paired_draws,
                               config.seed, with_x=range(len(board.pairs), len(board.pairs) + len(pairs)))
            board.add_sides(found.take(slice(0, len(board.pairs))))
            by_task[task] = dict(zip(pairs, tests_of(found.take(slice(len(board.pairs), None)), config.min_samples)))
    tested = dict(zip(board_pairs, board.finish()))

    def family(pairs: Iterable[tuple[str, str]], tests: Mapping[tuple[str, str], PairedTest | None],
               decimals: int) -> dict[tuple[str, str], PairedResult]:
        """The tested pairs among `pairs`, with Holm's verdict over them."""
        found = [(pair, tests[_oriented(*pair, position) if pair not in tests else pair]) for pair in pairs]
        shown = [(pair, t) for pair, t in found if t is not None]
        verdicts = holm([t.p for _, t in shown])
        out = {}
        for ((a, b), t), significant in zip(shown, verdicts):
            forward = (a, b) in tests
            r = PairedResult.against(b if forward else a, PairedVerdict.of(t, decimals, significant))
            out[(a, b)] = r if forward else r.reversed(b)
        return out

    board_next = {a: r for (a, _), r in family(adjacent, tested, BOARD_DECIMALS).items()}
    neighbours = {}
    for a, near in result.pairwise.neighbours.items():
        near_tests = family([(a, n.id) for n in near], tested, BOARD_DECIMALS)
        if near_tests:
            neighbours[a] = tuple(near_tests.values())
    matrix = tuple((a, r) for (a, _), r in family(matrix_pairs, tested, BOARD_DECIMALS).items())
    task_next = {task: {a: r for (a, _), r in family(task_pairs[task], by_task[task], TASK_DECIMALS).items()}
                 for task in tasks}
    return Comparisons(config.min_samples, config.paired_draws, board_next, neighbours, matrix, task_next)


def _oriented(a: str, b: str, position: Mapping[str, int]) -> tuple[str, str]:
    """The pair in board order (the better-ranked first), as it is tested."""
    return (a, b) if position[a] <= position[b] else (b, a)


def _indices(pairs: list[tuple[str, str]], index: Mapping[str, int]) -> np.ndarray:
    return np.array([(index[a], index[b]) for a, b in pairs], dtype=np.int64).reshape(-1, 2)
