"""Evaluation Card signals: reproducibility, reporting completeness, provenance and
comparability (EVALCARDS.md), for reported results and the leaderboard's own.

Signals only read the store: the reported results and cards are written into the PointsDB
by the store (`store/reported.py`, with the keys, population levels, canonical setups and
card items of `store/keys.py`, `populated.py`, `setup.py`, `cardfields.py`). The build calls
`compute_signals(db, config, own_results(board_inputs, config)) -> Signals`, which adds the
leaderboard's own results (`own.py`) and computes every signal; `Signals.to_json()` is
`site/data/signals.json`.

Module map: `reproducibility` (section 4), `completeness` (5), `provenance` (6),
`comparability` (7), `compute` (the SQL steps), `model` (the frozen result types the pages read).
"""

from ..store.cardfields import FIELDS
from .comparability import THETA, Comparability, Divergence, PartyScore, SetupDifference
from .completeness import FieldScore, SubItem
from .compute import compute_signals
from .model import BenchmarkSignals, CorpusSignals, ResultRow, Signals, TripleSignals
from .own import own_results
from .provenance import Provenance, Risk
from .reproducibility import Reproducibility

__all__ = [
    "FIELDS",
    "THETA",
    "BenchmarkSignals",
    "Comparability",
    "CorpusSignals",
    "Divergence",
    "FieldScore",
    "PartyScore",
    "Provenance",
    "Reproducibility",
    "ResultRow",
    "Risk",
    "SetupDifference",
    "Signals",
    "SubItem",
    "TripleSignals",
    "compute_signals",
    "own_results",
]
