"""Evaluation Card signals: reproducibility, reporting completeness, provenance and
comparability (EVALCARDS.md), for reported results and the leaderboard's own.

The build calls two functions:

* `load_reported(db, data_dir, config, strict) -> ReportedLoad` reads `data_dir/eee/**/*.json`
  and `data_dir/cards/*.json` into the PointsDB (once per change of the sources);
* `compute_signals(db, config, own_rows) -> Signals` adds the leaderboard's own results
  (`OwnResult`) and computes every signal; `Signals.to_json()` is `site/data/signals.json`.

Module map: `keys` (section 2), `populated` (3), `reproducibility` (4), `completeness` (5),
`provenance` (6), `comparability` (7), `load` (rows and cards into the PointsDB), `compute`
(the SQL steps), `model` (the frozen result types the pages read).
"""

from .comparability import THETA, Comparability, Divergence, PartyScore, SetupDifference
from .completeness import FIELDS, FieldScore, SubItem
from .compute import compute_signals
from .load import OwnResult, ReportedLoad, load_reported
from .model import BenchmarkSignals, CorpusSignals, ResultRow, Signals, TripleSignals
from .provenance import Provenance, Risk
from .reproducibility import Reproducibility

__all__ = [
    "THETA", "FIELDS", "BenchmarkSignals", "Comparability", "CorpusSignals", "Divergence", "FieldScore",
    "OwnResult", "PartyScore", "Provenance", "ReportedLoad", "Reproducibility", "ResultRow", "Risk",
    "SetupDifference", "Signals", "SubItem", "TripleSignals", "compute_signals", "load_reported",
]
