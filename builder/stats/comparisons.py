"""Which pairs the site compares on their shared items, and the verdicts it prints
(SAMPLES.md section 5).

The pairs a reader sees side by side: adjacent rows of every board ("distinct from next"), a
model page's neighbours and the pairwise matrix's top models (both on the first board, the
front page: the board `pairwise.json` describes), all on the ReasonScore (board level), and
adjacent rows of each task page (on the task's `C_P`). Each pair is tested once per board,
in the orientation of that board's order, and read backwards where a page needs it (the
difference changes sign, the draws are the same). A task's sides of a pair are computed
once for every board holding the task (`_shared_pairs`). Significance is Holm's over the
tests a page shows together: one board's adjacent pairs, one model page's neighbours, the
matrix, one task page's adjacent pairs; the raw `p` is kept beside it.

Evaluations without trials, and pairs sharing fewer than `min_samples` items (on every task,
for a board), get no paired test: there the interval-overlap rule speaks, as before.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import Protocol

import numpy as np
from threadpoolctl import threadpool_limits

from ..config import SiteConfig
from ..store.items import TaskItems, has_trials, task_items, task_trials
from ..store.pointsdb import PointsDB
from .board import Leaderboard, RankedBoard
from .boardtests import BoardTests, floored_logs
from .leaderboard import LeaderboardResult
from .paired import PairedTest, holm
from .pairing import task_sides, tests_of
from .verdicts import Comparisons, PairedResult, PairedVerdict

#: Published precision: `C_P` differences like task estimates, ReasonScore differences like
#: ReasonScores (p: `verdicts.P_DECIMALS`).
TASK_DECIMALS = 6
BOARD_DECIMALS = 3
#: A task's items are read while the task before is resampled (DuckDB reads off the GIL)
#: when that read's peak fits in this many bytes, about `READ_BYTES_PER_TRIAL` a trial (the
#: arithmetic task at 10,000 evaluations: 14.5 million trials, 1.10 GB at the read's peak,
#: which beside the task in hand was the build's peak memory). A larger task is read after.
READ_AHEAD_BYTES = 512 << 20
READ_BYTES_PER_TRIAL = 80


class ItemsReader(Protocol):
    """Another user of every task's per-item counters (the compare view's outcomes), fed
    from the paired tests' own read of the trials: `tasks` are the tasks it wants, and it is
    called with each one's counters of every evaluation, in the order of their ids."""

    @property
    def tasks(self) -> Sequence[str]: ...

    def __call__(self, items: TaskItems) -> None: ...


def with_comparisons(db: PointsDB, result: LeaderboardResult, config: SiteConfig,
                     reader: ItemsReader | None = None) -> LeaderboardResult:
    """`result` with the paired comparisons of the pairs its pages show (and `reader` fed).

    The matrix products are small to middling (a draw matrix times the evaluations that share
    its items): BLAS threads cost more to wake than they save there, and on a busy machine
    they cost several times the product itself, so the engine runs on one thread."""
    if not has_trials(db):
        return result
    with threadpool_limits(limits=1, user_api="blas"):
        found = compare_pairs(db, result, config, reader)
    boards = tuple(replace(b, leaderboard=marked(b.leaderboard, found.board(b.name, first=k == 0)))
                   for k, b in enumerate(result.boards))
    return replace(result, comparisons=found, boards=boards,
                   leaderboard=marked(result.leaderboard, found.board_next))


def marked(leaderboard: Leaderboard, tests: Mapping[str, PairedResult]) -> Leaderboard:
    """`leaderboard` with each row's `distinct_from_next` the verdict its page prints: the
    paired test's where the row and the next were tested on their shared items, else the
    interval overlap's. `leaderboard.json`, its CSV and the release pages read that field,
    so they cannot tell a reader "tied" where the board says "distinct"."""
    if not tests:
        return leaderboard
    rows = tuple(replace(m, distinct_from_next=tests[m.id].significant) if m.id in tests else m
                 for m in leaderboard.models)
    return replace(leaderboard, models=rows)


def compare_pairs(db: PointsDB, result: LeaderboardResult, config: SiteConfig,
                  reader: ItemsReader | None = None) -> Comparisons:
    boards = result.boards or (RankedBoard("", "", result.leaderboard),)
    ranked = [[m.evaluation.id for m in b.leaderboard.models if m.rank is not None] for b in boards]
    position = {i: k for k, i in enumerate(ranked[0])}
    adjacent = [list(itertools.pairwise(ids)) for ids in ranked]
    neighbour_pairs = [(a, n.id) for a, near in result.pairwise.neighbours.items() for n in near]
    top = list(result.pairwise.models)
    matrix_pairs = [(top[i], top[j]) for i in range(len(top)) for j in range(i + 1, len(top))]
    # Each board's pairs in its own order: the first board's also its neighbours and matrix.
    board_pairs = [sorted({_oriented(a, b, position) for a, b in (*adjacent[0], *neighbour_pairs, *matrix_pairs)},
                          key=lambda p: (position[p[0]], position[p[1]])), *adjacent[1:]]
    # Every task page's ranked rows (the preliminary ones are listed apart, with no mark).
    tasks = list(result.task_rankings)
    listed = {task: [m.evaluation.id for n, m in enumerate(result.task_rankings[task].listed(config.page_size))
                     if not result.task_rankings[task].is_preliminary(n)] for task in tasks}
    task_pairs = {task: list(itertools.pairwise(ids)) for task, ids in listed.items()}

    # The evaluations read: those in a pair, or every one when `reader` wants them too.
    involved = sorted(result.evaluations) if reader is not None else \
        sorted({i for ps in (*board_pairs, *task_pairs.values()) for p in ps for i in p})
    index = {i: k for k, i in enumerate(involved)}
    keys = [result.evaluations[i].key for i in involved]
    tests = [BoardTests(_indices(ps, index), config.paired_draws, config.seed, config.min_samples) for ps in board_pairs]
    holding = {task: [k for k, b in enumerate(boards) if task in b.leaderboard.settings.tasks] for task in tasks}
    needed = [t for t in tasks if task_pairs[t] or any(len(tests[k].pairs) for k in holding[t])]
    wanted = set(reader.tasks) if reader is not None else set()
    reading = [*needed, *(t for t in sorted(wanted) if t not in needed)]
    by_task: dict[str, dict[tuple[str, str], PairedTest | None]] = {t: {} for t in tasks}
    # The next task's items are read while this one's are resampled, when that read is small.
    trials = task_trials(db.con)

    def read_ahead(k: int) -> bool:
        return k < len(reading) and trials.get(reading[k], 0) * READ_BYTES_PER_TRIAL <= READ_AHEAD_BYTES

    def compare_task(task: str, items: TaskItems) -> None:
        """One task's pairs: one pass for every board holding it and the task page's adjacent
        rows. Its arrays go when it returns, before the next task's items are read."""
        unique, places = _shared_pairs([tests[b].pairs for b in holding[task]])
        pairs = task_pairs[task]
        found = task_sides(items, np.concatenate([unique, _indices(pairs, index)]), config.paired_draws,
                           config.seed, with_x=range(len(unique), len(unique) + len(pairs)))
        # The task page's tests first: the board's logs are made in place of the centers.
        by_task[task] = dict(zip(pairs, tests_of(found.take(slice(len(unique), None)), config.min_samples)))
        front = found.take(slice(0, len(unique)))
        logs = floored_logs(front)
        for b, (rows, swapped) in zip(holding[task], places):
            tests[b].add_logs(logs, front.side, front.shared, rows, swapped)

    with ThreadPoolExecutor(max_workers=1) as pool:
        pending = None
        for k, task in enumerate(reading):
            items = pending.result() if pending is not None else task_items(db.con, task, keys)
            pending = pool.submit(task_items, db.con, reading[k + 1], keys) if read_ahead(k + 1) else None
            if task in wanted:
                assert reader is not None
                reader(items)
            if task in needed:
                compare_task(task, items)
            del items
    tested = [dict(zip(ps, t.finish())) for ps, t in zip(board_pairs, tests)]

    def verdicts(pairs: Iterable[tuple[str, str]], tests: Mapping[tuple[str, str], PairedTest | None],
                 decimals: int) -> dict[tuple[str, str], PairedResult]:
        return family(pairs, tests, decimals, lambda a, b: _oriented(a, b, position))

    board_next = {a: r for (a, _), r in verdicts(adjacent[0], tested[0], BOARD_DECIMALS).items()}
    neighbours = {}
    for a, near in result.pairwise.neighbours.items():
        near_tests = verdicts([(a, n.id) for n in near], tested[0], BOARD_DECIMALS)
        if near_tests:
            neighbours[a] = tuple(near_tests.values())
    matrix = tuple((a, r) for (a, _), r in verdicts(matrix_pairs, tested[0], BOARD_DECIMALS).items())
    task_next = {task: {a: r for (a, _), r in verdicts(task_pairs[task], by_task[task], TASK_DECIMALS).items()}
                 for task in tasks}
    others = {b.name: {a: r for (a, _), r in verdicts(adjacent[k], tested[k], BOARD_DECIMALS).items()}
              for k, b in enumerate(boards) if k}
    return Comparisons(config.min_samples, config.paired_draws, board_next, neighbours, matrix, task_next, others)


def family(pairs: Iterable[tuple[str, str]], tests: Mapping[tuple[str, str], PairedTest | None], decimals: int,
           oriented: Callable[[str, str], tuple[str, str]]) -> dict[tuple[str, str], PairedResult]:
    """The tested pairs among `pairs` (each tested as `oriented` gives it), with Holm's
    verdict over them."""
    found = [(pair, tests[pair if pair in tests else oriented(*pair)]) for pair in pairs]
    shown = [(pair, t) for pair, t in found if t is not None]
    out = {}
    for ((a, b), t), significant in zip(shown, holm([t.p for _, t in shown])):
        forward = (a, b) in tests
        r = PairedResult.against(b if forward else a, PairedVerdict.of(t, decimals, significant))
        out[(a, b)] = r if forward else r.reversed(b)
    return out


def _shared_pairs(boards: Sequence[np.ndarray]) -> tuple[np.ndarray, list[tuple[np.ndarray, np.ndarray]]]:
    """The pairs of several boards (evaluation indices, each in its board's order) as one
    list without repeats, smaller index first (a pair's sides are the same either way round:
    the draws depend on the shared items only), and for each board the row of each of its
    pairs and whether its sides are the other way round."""
    if not boards:
        return np.zeros((0, 2), dtype=np.int64), []
    every = np.concatenate(boards)
    unique, rows = np.unique(np.sort(every, axis=1), axis=0, return_inverse=True)
    rows = rows.ravel()
    cuts = np.cumsum([len(p) for p in boards])[:-1]
    return unique, [(r, p[:, 0] > p[:, 1]) for r, p in zip(np.split(rows, cuts), boards)]


def _oriented(a: str, b: str, position: Mapping[str, int]) -> tuple[str, str]:
    """The pair in board order (the better-ranked first), as it is tested."""
    return (a, b) if position[a] <= position[b] else (b, a)


def _indices(pairs: list[tuple[str, str]], index: Mapping[str, int]) -> np.ndarray:
    return np.array([(index[a], index[b]) for a, b in pairs], dtype=np.int64).reshape(-1, 2)
