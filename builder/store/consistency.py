"""Do `evals.json` and the points describe the same evaluations?

An entry is joined to its points by the exact (model, template, sampler). When the two
disagree nothing fails by itself: an entry without points is never read, and an evaluation
without an entry is published under its raw id with no generation arguments, so its
reproducibility badge lists every field as missing, though the user wrote them (in an entry
with a typo). Each disagreement therefore becomes a warning in the build summary, with a
"did you mean" taken from the other side, and `--strict` makes the first one an error.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from ..errors import InputError
from ..sources.evals import entry_lines
from ..sources.text import read_text
from .pointsdb import PointsDB, fetch_as

Triple = tuple[str, str, str]


@dataclass(frozen=True)
class Mismatch:
    """One disagreement, located where the user would fix it."""

    path: str
    line: int | None
    problem: str

    @property
    def message(self) -> str:
        return InputError(self.path, self.problem, line=self.line).message

    def to_json(self) -> list[Any]:
        return [self.path, self.line, self.problem]

    @classmethod
    def from_json(cls, value: list[Any]) -> Mismatch:
        path, line, problem = value
        return cls(str(path), None if line is None else int(line), str(problem))


def _name(triple: Triple) -> str:
    return " / ".join(triple)


def did_you_mean(wanted: Triple, candidates: list[Triple]) -> Triple | None:
    """The candidate the user most likely meant: the same names up to case first (the
    common typo, `Aurora-70b` for `aurora-70b`), else the closest by `difflib`."""
    folded = [c for c in candidates if tuple(x.casefold() for x in c) == tuple(x.casefold() for x in wanted)]
    if folded:
        return folded[0]
    by_text = {_name(c): c for c in candidates}
    close = difflib.get_close_matches(_name(wanted), list(by_text), n=1, cutoff=0.75)
    return by_text[close[0]] if close else None


class PointsSource(NamedTuple):
    """An evaluation with points and the first file that holds them."""

    model: str
    template: str
    sampler: str
    source: str


def check_evals(db: PointsDB, entries: list[dict[str, Any]], evals_path: Path) -> list[Mismatch]:
    """Every entry without points and every evaluation (with points) without an entry.

    A "did you mean" is looked for on the other side only: an entry that has its points
    is not what a stray entry meant, and suggesting it would send the user astray. An
    entry and the evaluation it was meant for make one warning, not two.
    """
    with_points = {
        (e.model, e.template, e.sampler): e.source
        for e in fetch_as(db.con.execute(
            "SELECT model, template, sampler, min(source) AS source FROM points GROUP BY ALL ORDER BY ALL"),
            PointsSource)
    }
    listed = {(e["model"], e["template"], e["sampler"]): i for i, e in enumerate(entries, start=1)}
    orphans = [t for t in listed if t not in with_points]
    unlisted = [t for t in with_points if t not in listed]
    if not orphans and not unlisted:
        return []
    lines = entry_lines(read_text(evals_path)) if listed else []
    path = str(evals_path)

    def at(triple: Triple) -> int | None:
        index = listed[triple]
        return lines[index - 1] if index <= len(lines) else None

    found: list[Mismatch] = []
    explained: set[Triple] = set()  # evaluations already named as an entry's "did you mean"
    for triple in orphans:
        guess = did_you_mean(triple, unlisted)
        if guess is None:
            problem = "nothing of it is published"
        else:
            explained.add(guess)
            problem = (f"did you mean {_name(guess)} (points in {with_points[guess]})? Until they match, that "
                       f"evaluation is published under its raw id with no generation arguments (its "
                       f"reproducibility badge lists them as missing)")
        found.append(Mismatch(path, at(triple), f"entry {listed[triple]} ({_name(triple)}) matches no points; {problem}"))
    for triple in unlisted:
        if triple in explained:
            continue
        guess = did_you_mean(triple, orphans)
        hint = ""
        if guess:
            line = at(guess)
            hint = f"; did you mean entry {listed[guess]} ({_name(guess)}{f', line {line}' if line else ''})?"
        where = "has no entry in evals.json" if evals_path.is_file() else "has no entry (there is no evals.json)"
        found.append(Mismatch(path, None, f"evaluation {_name(triple)} (points in {with_points[triple]}) {where}, "
                                          f"so it is published under its raw id with no generation arguments{hint}"))
    return found
