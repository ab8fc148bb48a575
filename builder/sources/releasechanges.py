"""`changes.json` of a release snapshot: what changed since the previous release, as the
release's changes page tells it (written by `diff/releasenotes.py` when the release is made,
read back here, every field checked: a snapshot is untrusted input like any project file).

Each model that moved is one `ModelMove` of one `kind`:

* `joined`, `left`: the evaluation is on one side only;
* `significant_gain`, `significant_drop`, `within_intervals`, `not_significant`,
  `not_comparable`: its own score changed, and its `rule` says how significance was decided
  (`paired`: the paired test on the items both releases' per-sample outcomes share, after
  Holm over the page's paired tests, its figures in `test`; `overlap`: the old and new 95 %
  intervals do not overlap, STATISTICS.md section 7 across releases; `within_intervals` is
  the overlap rule's "not significant", `not_significant` the paired test's);
* `others_joined`: its score did not change, and its rank, rank range or ties moved only
  because evaluations joined or left the ranking (`joined_above`, `left_above` count those
  ranked above it);
* `others_moved`: its score did not change, but other evaluations' score changes moved it;
* `own_status`: its score did not change, but its own status did (complete, missing tasks,
  band).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from ..errors import InputError

CHANGES_SCHEMA = "reasonboard.release-changes/2"
#: Schema 1 (before moves named their rule) is read as every move by the overlap rule.
READABLE = (CHANGES_SCHEMA, "reasonboard.release-changes/1")
KINDS = ("joined", "left", "significant_gain", "significant_drop", "within_intervals", "not_significant",
         "not_comparable", "own_status", "others_joined", "others_moved")
RULES = ("overlap", "paired")

#: center, margin, ci_low, ci_high of a ReasonScore
Scored = tuple[float, float, float, float]


@dataclass(frozen=True)
class TaskShift:
    """A task whose old and new intervals do not overlap: where a significant move came from."""

    task: str
    old: float
    new: float
    direction: str  # "up" or "down"


@dataclass(frozen=True)
class MoveTest:
    """The paired test of a move: shared items, the ReasonScore difference (new minus old)
    with its 95 % interval, the raw p, the method, and Holm's verdict over the page's tests."""

    shared: int
    effect: float
    low: float
    high: float
    p: float
    method: str
    significant: bool


@dataclass(frozen=True)
class ModelMove:
    id: str
    label: str
    slug: str
    kind: str
    old: Scored | None
    new: Scored | None
    old_rank: int | None
    new_rank: int | None
    old_rank_range: tuple[int, int] | None
    new_rank_range: tuple[int, int] | None
    old_band: str | None
    new_band: str | None
    joined_above: int = 0
    left_above: int = 0
    tasks: tuple[TaskShift, ...] = ()
    #: Which rule decided `kind` for a change of its own score; the paired test when paired.
    rule: str = "overlap"
    rule_note: str = ""
    test: MoveTest | None = None

    @property
    def delta(self) -> float | None:
        if self.old is None or self.new is None:
            return None
        return round(self.new[0] - self.old[0], 3)


@dataclass(frozen=True)
class FlagNote:
    """A comparability divergence flag raised or cleared on a reported-result triple."""

    model: str
    benchmark: str
    metric: str
    kinds: tuple[str, ...]


@dataclass(frozen=True)
class CompletenessNote:
    """A benchmark's reporting completeness C(b) that moved (None: no such benchmark on that side)."""

    benchmark: str
    old: float | None
    new: float | None


@dataclass(frozen=True)
class SignalChanges:
    compared: bool
    #: why the signals were not compared, when they were not
    note: str
    gaps_opened: int
    gaps_closed: int
    gaps_changed: int
    triples_added: int
    triples_removed: int
    completeness: tuple[CompletenessNote, ...]
    flags_raised: tuple[FlagNote, ...]
    flags_cleared: tuple[FlagNote, ...]
    #: how many flags were raised and cleared (the lists above keep at most a few hundred)
    flags_raised_total: int
    flags_cleared_total: int


@dataclass(frozen=True)
class ReleaseChanges:
    previous: str | None
    previous_date: str | None
    rule: str
    #: (key, old, new) of a leaderboard setting that changed every score, values as text
    config_changes: tuple[tuple[str, str, str], ...]
    tasks_added: tuple[str, ...]
    tasks_removed: tuple[str, ...]
    moves: tuple[ModelMove, ...]
    #: evaluations in both releases with nothing moved
    unchanged: int
    signals: SignalChanges

    def of_kind(self, *kinds: str) -> tuple[ModelMove, ...]:
        return tuple(m for m in self.moves if m.kind in kinds)


# -- reading -----------------------------------------------------------------------------------


class _Reader:
    """Field checks that name the file and the entry in their error."""

    def __init__(self, path: Path):
        self.path = path

    def fail(self, where: str, problem: str) -> InputError:
        return InputError(self.path, f"{where}: {problem}")

    def get(self, doc: Any, key: str, check: Callable[[Any], bool], what: str, where: str) -> Any:
        if not isinstance(doc, dict) or not check(doc.get(key)):
            raise self.fail(where, f"'{key}' must be {what}")
        return doc.get(key)

    def items(self, doc: Any, key: str, where: str) -> list[Any]:
        return list(self.get(doc, key, lambda v: isinstance(v, list), "a list", where))


def _int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


def _num(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _str(v: Any) -> bool:
    return isinstance(v, str)


def _opt(check: Callable[[Any], bool]) -> Callable[[Any], bool]:
    return lambda v: v is None or check(v)


def _strs(v: Any) -> bool:
    return isinstance(v, list) and all(isinstance(x, str) for x in v)


def _scored(v: Any) -> bool:
    return isinstance(v, list) and len(v) == 4 and all(_num(x) for x in v)


def _range(v: Any) -> bool:
    return isinstance(v, list) and len(v) == 2 and all(_int(x) for x in v)


def read_changes(path: Path, doc: Any) -> ReleaseChanges:
    """`changes.json`, every field checked (one `InputError` naming the file and entry)."""
    r = _Reader(path)
    if not isinstance(doc, dict) or doc.get("schema") not in READABLE:
        raise InputError(path, f"not a release changes file (schema must be '{CHANGES_SCHEMA}')")
    top = "changes"
    moves = []
    for n, m in enumerate(r.items(doc, "models", top), start=1):
        where = f"models entry {n}"
        kind = r.get(m, "kind", lambda v: v in KINDS, f"one of {', '.join(KINDS)}", where)
        old, new = (r.get(m, k, _opt(_scored), "null or [center, margin, ci_low, ci_high]", where)
                    for k in ("old", "new"))
        ranges = [r.get(m, k, _opt(_range), "null or [best, worst]", where)
                  for k in ("old_rank_range", "new_rank_range")]
        tasks = tuple(TaskShift(r.get(t, "task", _str, "a string", where), r.get(t, "old", _num, "a number", where),
                                r.get(t, "new", _num, "a number", where),
                                r.get(t, "direction", lambda v: v in ("up", "down"), "up or down", where))
                      for t in r.items(m, "tasks", where))
        moves.append(ModelMove(
            id=r.get(m, "id", _str, "a string", where), label=r.get(m, "label", _str, "a string", where),
            slug=r.get(m, "slug", _str, "a string", where), kind=kind,
            old=tuple(old) if old is not None else None, new=tuple(new) if new is not None else None,
            old_rank=r.get(m, "old_rank", _opt(_int), "null or a rank", where),
            new_rank=r.get(m, "new_rank", _opt(_int), "null or a rank", where),
            old_rank_range=tuple(ranges[0]) if ranges[0] is not None else None,
            new_rank_range=tuple(ranges[1]) if ranges[1] is not None else None,
            old_band=r.get(m, "old_band", _opt(_str), "null or a string", where),
            new_band=r.get(m, "new_band", _opt(_str), "null or a string", where),
            joined_above=r.get(m, "joined_above", _int, "a count", where),
            left_above=r.get(m, "left_above", _int, "a count", where), tasks=tasks,
            rule=r.get(m, "rule", lambda v: v in RULES, f"one of {', '.join(RULES)}", where) if "rule" in m
            else "overlap",
            rule_note=r.get(m, "rule_note", _str, "a string", where) if "rule_note" in m else "",
            test=_test(r, m.get("test"), where)))
    config = tuple((r.get(c, "key", _str, "a string", "config_changes"), r.get(c, "old", _str, "a string",
                                                                              "config_changes"),
                    r.get(c, "new", _str, "a string", "config_changes")) for c in r.items(doc, "config_changes", top))
    previous = r.get(doc, "previous", _opt(_str), "null or a release name", top)
    return ReleaseChanges(
        previous=previous, previous_date=r.get(doc, "previous_date", _opt(_str), "null or a date", top),
        rule=r.get(doc, "rule", lambda v: v in RULES, f"one of {', '.join(RULES)}", top),
        config_changes=config,
        tasks_added=tuple(r.get(doc, "tasks_added", _strs, "a list of strings", top)),
        tasks_removed=tuple(r.get(doc, "tasks_removed", _strs, "a list of strings", top)),
        moves=tuple(moves), unchanged=r.get(doc, "unchanged", _int, "a count", top),
        signals=_signals(r, r.get(doc, "signals", lambda v: isinstance(v, dict), "an object", top)))


def _test(r: _Reader, doc: Any, where: str) -> MoveTest | None:
    if doc is None:
        return None
    where = f"{where} test"
    return MoveTest(shared=r.get(doc, "shared", _int, "a count", where),
                    effect=r.get(doc, "effect", _num, "a number", where), low=r.get(doc, "low", _num, "a number", where),
                    high=r.get(doc, "high", _num, "a number", where),
                    p=r.get(doc, "p", lambda v: _num(v) and 0 <= v <= 1, "a number from 0 to 1", where),
                    method=r.get(doc, "method", lambda v: v in ("mcnemar", "bootstrap"), "mcnemar or bootstrap", where),
                    significant=r.get(doc, "significant", lambda v: isinstance(v, bool), "true or false", where))


def _signals(r: _Reader, doc: dict[str, Any]) -> SignalChanges:
    where = "signals"

    def flags(key: str) -> tuple[FlagNote, ...]:
        return tuple(FlagNote(model=r.get(f, "model", _str, "a string", key),
                              benchmark=r.get(f, "benchmark", _str, "a string", key),
                              metric=r.get(f, "metric", _str, "a string", key),
                              kinds=tuple(r.get(f, "kinds", _strs, "a list of strings", key)))
                     for f in r.items(doc, key, where))

    counts = {k: r.get(doc, k, _int, "a count", where)
              for k in ("gaps_opened", "gaps_closed", "gaps_changed", "triples_added", "triples_removed",
                        "flags_raised_total", "flags_cleared_total")}
    completeness = tuple(CompletenessNote(r.get(c, "benchmark", _str, "a string", "completeness"),
                                          r.get(c, "old", _opt(_num), "null or a number", "completeness"),
                                          r.get(c, "new", _opt(_num), "null or a number", "completeness"))
                         for c in r.items(doc, "completeness", where))
    return SignalChanges(compared=r.get(doc, "compared", lambda v: isinstance(v, bool), "true or false", where),
                         note=r.get(doc, "note", _str, "a string", where), completeness=completeness,
                         flags_raised=flags("flags_raised"), flags_cleared=flags("flags_cleared"), **counts)
