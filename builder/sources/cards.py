"""Reading Auto-BenchmarkCards files (EVALCARDS.md section 1).

A card is `{"benchmark_card": {...}}`, one per file, directly under `cards/`. The reader
keeps the card object as given; which of its 28 fields count as populated is decided by
the completeness signal. A file that is not valid JSON or holds no `benchmark_card`
object is reported as (path, reason) and skipped.

A card may carry an `evalcards` object (`lifecycle_status`, `preregistration_url`) inside
`benchmark_card` or beside it at the top level; both places are accepted.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from . import jsonfiles

#: The file-name prefix the Auto-BenchmarkCards pipeline writes; the rest of the stem
#: names the benchmark (section 2: "file stem without the benchmark_card_ prefix").
PREFIX = "benchmark_card_"


@dataclass(frozen=True)
class CardRecord:
    #: Path of the file relative to the directory the caller named as base (POSIX form).
    path: str
    #: File stem without the `benchmark_card_` prefix ("MMLU-Pro", "MATH_Level_5").
    stem: str
    #: The `benchmark_card` object as written.
    card: Mapping[str, Any]
    #: The `evalcards` object (empty when the card has none).
    evalcards: Mapping[str, Any]


@dataclass(frozen=True)
class CardsRead:
    cards: tuple[CardRecord, ...]
    problems: tuple[tuple[str, str], ...]


def discover(root: Path) -> list[Path]:
    """`*.json` files directly in `root` (not directories so named), sorted."""
    return jsonfiles.discover(root, recursive=False)


def read_cards(root: Path, base: Path | None = None) -> CardsRead:
    """Read every card in `root`; paths in the result are relative to `base` (default `root`)."""
    cards: list[CardRecord] = []
    problems: list[tuple[str, str]] = []
    base = base or root
    for path, rel, document in jsonfiles.read_documents(discover(root), base, problems):
        card = document.get("benchmark_card") if isinstance(document, dict) else None
        if not isinstance(card, dict):
            problems.append((rel, "not a benchmark card: no 'benchmark_card' object"))
            continue
        evalcards = card.get("evalcards")
        if not isinstance(evalcards, dict):
            evalcards = document.get("evalcards")
        stem = path.stem[len(PREFIX):] if path.stem.startswith(PREFIX) else path.stem
        cards.append(CardRecord(rel, stem, card, evalcards if isinstance(evalcards, dict) else {}))
    return CardsRead(tuple(cards), tuple(problems))
