"""The compare view's data (PRODUCT.md "Boards", "Compare"): what `compare.html?a=ID&b=ID`
loads with `<script src>` (a page opened from disk may not fetch JSON, but may load scripts).

No build can compare every pair of 2,500 evaluations, so the page compares the two a reader
picks, in the browser, from small per-evaluation files:

* `data/compare/index.js`: every evaluation's id, page slug and label; the settings the
  tests use (`min_samples`, `paired_draws`, the estimator); each task's item layout (its
  `params` strata and their sizes, items in `(params, sample_id)` order, as
  `store.items.task_items` numbers them); the board's tasks; and every paired test the build
  computed (`pairwise.json`'s `paired` entries), which the page uses as they are, so it
  never contradicts the pages that print them.
* `data/compare/e/<slug>.js`: one evaluation's published results (rank, ReasonScore on the
  board, each task's estimate and interval) and, when per-sample outcomes are published
  (`publish_samples`), its per-item outcomes: one character per item of the task's layout
  (`.` not answered, `~` truncated, else correct or not with the item's option count, `#`
  listed apart: an item with several trials, or anything else, as `[trials, correct,
  truncated, options]`, or `[trials, correct, truncated, guess, 1]` when no option count
  gives its guess sum exactly), packed: `p` holds the characters the task uses, sorted,
  and `o` each item's index in `p` in `b` bits, the fewest that number them (1 bit for two
  characters, 2 for up to four: a multiple-choice task with truncations costs 2 bits an
  item), most significant bit first, as base64 (a third of the size of a character each).

No item text and no sample id is written: an item is a position in the task's sorted list of
ids. `publish_samples = false` writes no outcomes, and the page then compares by intervals.
"""

from __future__ import annotations

import base64
import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from .config import SiteConfig
from .outputs import compact
from .stats.board import EvaluationRow, Leaderboard, RankedBoard
from .stats.evaluations import Evaluation
from .stats.verdicts import Comparisons, PairedResult
from .store.items import TaskItems, has_trials
from .store.pointsdb import PointsDB

COMPARE_SCHEMA = "reasonboard.compare/2"
FOLDER = "data/compare"
#: One character per (option count, correct): `ALPHABET[2 k + correct]`, k = 0 (no options)
#: to `MAX_OPTIONS`.
ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_-"
MAX_OPTIONS = len(ALPHABET) // 2 - 1
ABSENT, TRUNCATED, LISTED = ".", "~", "#"


@dataclass(frozen=True)
class TaskOutcomes:
    """One task's items (`(params, size)` per stratum, in `(params, sample_id)` order) and,
    per evaluation id, its outcomes `packed` and the counters of its listed (`#`) items in
    item order (`_listed`)."""

    strata: tuple[tuple[str, int], ...]
    codes: Mapping[str, tuple[dict[str, str], tuple[tuple[float, ...], ...]]]


class OutcomesReader:
    """Every task's per-item outcomes of `evaluations`, made from the per-item counters the
    paired comparisons read (`stats.comparisons.ItemsReader`): each task's trials are read
    once for both. `tasks` are those with trials; `outcomes` fills as they are read."""

    def __init__(self, db: PointsDB, evaluations: Iterable[Evaluation]):
        self.ids = sorted(e.id for e in evaluations)
        self.tasks = [r[0] for r in db.con.execute("SELECT DISTINCT base_task FROM trial_points ORDER BY 1").fetchall()] \
            if has_trials(db) else []
        self.found: dict[str, TaskOutcomes] = {}

    def __call__(self, items: TaskItems) -> None:
        """One task's counters, of the evaluations `ids` in that order."""
        self.found[items.task] = task_outcomes(items, self.ids)

    @property
    def outcomes(self) -> dict[str, TaskOutcomes]:
        return {task: self.found[task] for task in self.tasks if task in self.found}


def task_outcomes(items: TaskItems, ids: Sequence[str]) -> TaskOutcomes:
    """One task's outcomes of each evaluation `ids[k]` (evaluation `k` of `items`) that
    answered any of its items: one character per item, absent ones `.`, its listed items'
    counters in item order."""
    offsets = items.offsets
    width, position = int(offsets[-1]), items.column
    chars, listed = _characters(items.trials, items.correct, items.truncated, items.guess)
    text = np.full((len(ids), width), ord(ABSENT), dtype=np.uint8)
    text[items.evaluation, position] = chars
    which = np.flatnonzero(listed)  # rows come by evaluation, then item
    owners = items.evaluation[which]
    counters = _listed(items.trials[which], items.correct[which], items.truncated[which], items.guess[which])
    bounds = [0, *(np.flatnonzero(np.diff(owners)) + 1).tolist(), len(which)] if len(which) else []
    extra = {int(owners[a]): tuple(counters[a:b]) for a, b in itertools.pairwise(bounds)}
    answered = np.zeros(len(ids), dtype=bool)
    answered[items.evaluation] = True
    rows = np.flatnonzero(answered)
    codes = {ids[k]: (found, tuple(extra.get(k, ()))) for k, found in zip(rows.tolist(), packed(text[rows]))}
    return TaskOutcomes(tuple(zip(items.params, np.diff(offsets).tolist())), codes)


def _characters(trials: np.ndarray, correct: np.ndarray, truncated: np.ndarray,
                guess: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each (evaluation, item) row's character and whether it is listed apart: one trial
    with a whole option count the alphabet holds (its guess exactly `1/k`), or truncated."""
    with np.errstate(divide="ignore"):
        k = np.where(guess > 0, np.round(1.0 / np.where(guess > 0, guess, 1.0)), 0).astype(np.int64)
    exact = np.where(k > 0, 1.0 / np.maximum(k, 1) == guess, guess == 0)
    one = trials == 1
    cut = one & (truncated == 1) & (correct == 0) & (guess == 0)
    plain = one & (truncated == 0) & ((correct == 0) | (correct == 1)) & exact & (k <= MAX_OPTIONS)
    letters = np.frombuffer(ALPHABET.encode("ascii"), dtype=np.uint8)
    chars = np.full(len(trials), ord(LISTED), dtype=np.uint8)
    chars[plain] = letters[np.minimum(2 * k[plain] + correct[plain].astype(np.int64), len(ALPHABET) - 1)]
    chars[cut] = ord(TRUNCATED)
    return chars, ~(plain | cut)


def _listed(trials: np.ndarray, correct: np.ndarray, truncated: np.ndarray,
            guess: np.ndarray) -> list[tuple[float, ...]]:
    """Listed items' counters, small: `[trials, correct, truncated, k]` when its guess sum is
    `(trials - truncated) / k` to the last bit (k answer options on every completed trial; 0:
    no guess), else `[trials, correct, truncated, guess, 1]`. Counts are whole numbers, and
    printed as such."""
    trials = np.asarray(trials, dtype=np.float64)
    completed = trials - truncated
    with np.errstate(divide="ignore", invalid="ignore"):
        k = np.round(completed / np.where(guess > 0, guess, 1.0))  # Python's round: half to even too
        exact = (guess != 0) & (completed > 0) & (k > 0) & (completed / np.maximum(k, 1.0) == guess)
    plain = guess == 0
    tails = [(0,) if p else (int(kk),) if e else (g, 1)
             for p, e, kk, g in zip(plain.tolist(), exact.tolist(), k.tolist(), guess.tolist())]
    return [(*w, *tail) for *w, tail in zip(*map(_whole, (trials, correct, truncated)), tails)]


def _whole(values: np.ndarray) -> list[float]:
    """Each value as an int where it is a whole number (a count)."""
    return [int(v) if v.is_integer() else v for v in np.asarray(values, dtype=np.float64).tolist()]


def packed(text: np.ndarray) -> list[dict[str, str]]:
    """Each row of `text` (one character per item, as bytes) as `{"p": the characters it
    uses, sorted, "o": each item's index in "p" in the fewest bits that number them, most
    significant bit first, base64}`; a row whose items are all one character needs no bits
    (`o` is empty). Rows with as many bits per item are packed together."""
    rows = np.arange(len(text))[:, None]
    used = np.zeros((len(text), 256), dtype=bool)
    used[rows, text] = True
    index = (np.cumsum(used, axis=1, dtype=np.uint8) - 1)[rows, text]
    widths = np.array([int(n - 1).bit_length() for n in used.sum(axis=1).tolist()], dtype=np.int64)
    bits: list[bytes] = [b""] * len(text)
    for width in np.unique(widths).tolist():
        group = np.flatnonzero(widths == width)
        shifted = (index[group, :, None] >> np.arange(width - 1, -1, -1, dtype=np.uint8)) & 1
        for k, row in zip(group.tolist(), np.packbits(shifted.reshape(len(group), -1), axis=1)):
            bits[k] = row.tobytes()
    return [{"p": np.flatnonzero(used[k]).astype(np.uint8).tobytes().decode("ascii"),
             "o": base64.b64encode(bits[k]).decode()} for k in range(len(text))]


def _script(variable: str, key: str | None, document: object) -> bytes:
    """A script that stores `document` (JSON) in `window[variable]` (or under `key` in it)."""
    text = compact(document)
    if key is None:
        return f"window.{variable}={text};\n".encode()
    return (f"window.{variable}=window.{variable}||{{}};window.{variable}[{compact(key)}]={text};\n").encode()


def evaluation_path(slug: str) -> str:
    return f"{FOLDER}/e/{slug}.js"


def _paired(a: str, r: PairedResult) -> list[object]:
    return [a, r.other, r.shared, r.effect, r.low, r.high, r.p, r.method]


def _triple(low: float | None, mid: float | None, high: float | None) -> list[float] | None:
    return None if mid is None or low is None or high is None else [mid, low, high]


def _row(row: EvaluationRow) -> dict[str, object]:
    rank, status, score = _standing(row)
    return {
        "rank": rank, "status": status, "score": score,
        "tasks": {task: {"est": _triple(t.low, t.estimate, t.high), "samples": t.samples,
                         "preliminary": t.preliminary} for task, t in row.tasks.items()},
    }


def _standing(row: EvaluationRow) -> list[object]:
    """An evaluation's rank, status and ReasonScore `[center, low, high]` on a board."""
    s = row.score
    return [row.rank, row.status, _triple(s.ci_low, s.center, s.ci_high)]


def compare_files(leaderboard: Leaderboard, evaluations: Mapping[str, Evaluation], comparisons: Comparisons,
                  outcomes: Mapping[str, TaskOutcomes], config: SiteConfig,
                  boards: Sequence[RankedBoard] = ()) -> dict[str, bytes]:
    """The compare view's data files (see the module's docstring), sorted keys, stable bytes.

    With several boards, a board page's "Compare" link names its board, and the view
    compares the two on that board's tasks and ReasonScore: `boards` lists every board (its
    name and tasks; the first is `board`), each evaluation's file its standing on the others,
    and `paired.boards` the adjacent tests the build computed on those."""
    published = config.publish_samples
    rows = {m.id: m for m in leaderboard.models}
    others = tuple(boards[1:])
    standings = [{m.id: m for m in b.leaderboard.models} for b in others]
    board: list[list[object]] = []
    for a, r in comparisons.board_next.items():
        board.append(_paired(a, r))
    for a, near in comparisons.neighbours.items():
        board += [_paired(a, r) for r in near]
    board += [_paired(a, r) for a, r in comparisons.matrix]
    unique_board = sorted({compact(x): x for x in board}.values(), key=compact)
    paired: dict[str, object] = {
        "board": unique_board,
        "tasks": {task: [_paired(a, r) for a, r in found.items()] for task, found in comparisons.task_next.items() if found},
    }
    if others:
        paired["boards"] = {b.name: [_paired(a, r) for a, r in comparisons.board(b.name, first=False).items()]
                            for b in others}
    index: dict[str, object] = {
        "schema": COMPARE_SCHEMA, "mode": leaderboard.settings.mode, "min_samples": config.min_samples,
        "draws": config.paired_draws, "seed": config.seed, "published": published,
        "board": list(leaderboard.settings.tasks),
        "layouts": {task: [list(s) for s in o.strata] for task, o in outcomes.items()} if published else {},
        "evaluations": {e.id: [e.slug, e.label] for e in evaluations.values()},
        "paired": paired,
    }
    if others:
        index["boards"] = [[b.name, list(b.tasks)] for b in boards]
    files = {f"{FOLDER}/index.js": _script("RB_COMPARE", None, index)}
    for e in evaluations.values():
        doc: dict[str, object] = _row(rows[e.id]) if e.id in rows else {"rank": None, "status": None, "score": None,
                                                                      "tasks": {}}
        if others:
            doc["boards"] = {b.name: _standing(found[e.id]) for b, found in zip(others, standings) if e.id in found}
        if published:
            doc["outcomes"] = {task: {**o.codes[e.id][0], "x": [list(x) for x in o.codes[e.id][1]]}
                               for task, o in outcomes.items() if e.id in o.codes}
        files[evaluation_path(e.slug)] = _script("RB_COMPARE_EVALS", e.id, doc)
    return dict(sorted(files.items()))
