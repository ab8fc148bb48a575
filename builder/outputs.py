"""The data files of a build: `data/leaderboard.json`, `leaderboard.csv`, `pairwise.json`,
`signals.json` (PRODUCT.md "Outputs").

The documents are written from the statistics' typed results (`stats/board.py`); they are
an output format, not what the stages hand each other. Serialised deterministically (sorted
keys, rows in the results' own stable order, numbers already rounded by the statistics) so
`git diff` of two builds shows real changes.

Every text is, byte for byte, what `json.dumps(..., sort_keys=True, ensure_ascii=False,
separators=(",", ":"))` writes (`compact`), but the signals' triples do not go through it
one by one: their lines are assembled from encoded parts that most triples share (
`tests/test_data_files.py` holds the two readings equal, `benchmarks/data_files.py` times them).
"""

from __future__ import annotations

import csv
import io
import json
import math
from typing import Any, Callable, Iterable, Mapping

from .signals.comparability import Comparability
from .signals.model import Signals, TripleSignals
from .signals.provenance import Provenance
from .signals.reproducibility import Reproducibility
from .signals.rounding import r6
from .stats.board import EvaluationRow, Leaderboard, Pairwise, TaskResult
from .stats.verdicts import Comparisons, PairedResult
from .vocabulary import MODES

#: Version 2 publishes ties in a size linear in the number of models: a model's
#: `tied_count` beside its `rank_range` and interval instead of the `tied_with` list, and each
#: tie group as a `tie_group` record instead of its member list (see `stats.board.TieGroup`).
SCHEMA = "reasonboard.leaderboard/2"
PAIRWISE_SCHEMA = "reasonboard.pairwise/1"

CSV_COLUMNS = (
    "rank", "rank_low", "rank_high", "id", "label", "model", "template", "sampler", "complete",
    "reasonscore", "margin", "ci_low", "ci_high", "band", "avg_tokens", "score_per_token",
    "truncation_rate", "distinct_from_next", "missing_tasks", "status", "preliminary_tasks",
)


#: The one encoder every text in the data files is (or must equal) the output of:
#: `compact(v) == json.dumps(v, sort_keys=True, ensure_ascii=False, allow_nan=False,
#: separators=(",", ":"))`, without building a new encoder per call, and without the
#: check for circular references (documents are trees; the check costs about 6 % of
#: encoding `leaderboard.json`, and changes no byte).
compact: Callable[[Any], str] = json.JSONEncoder(
    sort_keys=True, ensure_ascii=False, allow_nan=False, check_circular=False, separators=(",", ":")).encode


def dump_json(document: Any) -> bytes:
    """Sorted keys, one element of each top-level list per line.

    Line per model (or triple, or benchmark) keeps `git diff` of two builds readable, and
    encoding each element compactly lets the C encoder do the work: `indent=` would switch
    json to its pure-Python encoder, which takes seconds on a 2,000-model leaderboard.
    """
    if not isinstance(document, dict):
        return (compact(document) + "\n").encode("utf-8")
    return layout(document, {})


def layout(document: Mapping[str, Any], lines: Mapping[str, list[str]]) -> bytes:
    """`dump_json` of `document` with the top-level lists in `lines` given as their elements'
    `compact` texts already (the signals' triples, encoded by `triple_lines`). The pieces are
    joined once: the file is tens of megabytes, and every concatenation would copy it."""
    pieces = ["{\n"]
    for key in sorted(document.keys() | lines.keys()):
        value = lines[key] if key in lines else document[key]
        if len(pieces) > 1:
            pieces.append(",\n")
        if isinstance(value, list) and value:
            texts = value if key in lines else [compact(item) for item in value]
            pieces += (compact(key), ":[\n  ", ",\n  ".join(texts), "\n]")
        else:
            pieces += (compact(key), ":", compact(value))
    pieces.append("\n}\n")
    return "".join(pieces).encode("utf-8")


def leaderboard_document(leaderboard: Leaderboard) -> dict[str, Any]:
    """`leaderboard.json` (PRODUCT.md "Outputs")."""
    settings = leaderboard.settings
    return {
        "schema": SCHEMA,
        "config": {"mode": settings.mode, "bootstrap": settings.bootstrap, "seed": settings.seed,
                   "tasks": list(settings.tasks), "min_samples": settings.min_samples},
        "models": [_row_document(m) for m in leaderboard.models],
        "tie_groups": [{"ranks": list(g.ranks), "size": g.size, "at": g.at} for g in leaderboard.tie_groups],
    }


def _row_document(m: EvaluationRow) -> dict[str, Any]:
    s = m.score
    return {
        "id": m.id, "slug": m.slug, "model": m.model, "template": m.template, "sampler": m.sampler,
        "label": m.label, "complete": m.complete, "missing_tasks": list(m.missing_tasks), "rank": m.rank,
        # SAMPLES.md section 4: ranked, preliminary (the tasks short of min_samples) or incomplete.
        "status": m.status, "preliminary_tasks": list(m.preliminary_tasks),
        "rank_range": list(m.rank_range) if m.rank_range is not None else None,
        "reasonscore": {"center": s.center, "margin": s.margin, "ci_low": s.ci_low, "ci_high": s.ci_high},
        "band": m.band, "avg_tokens": m.avg_tokens, "score_per_token": m.score_per_token,
        "truncation_rate": m.truncation_rate, "tied_count": m.tied_count,
        "distinct_from_next": m.distinct_from_next,
        "tasks": {task: _task_document(t, m.evaluation.tokens_observed, m.evaluation.truncation_observed)
                  for task, t in m.tasks.items()},
        "tiers": {name: {"reasonscore": t.reasonscore, "avg_tokens": t.avg_tokens} for name, t in m.tiers.items()},
        "score_per_token_v1": m.score_per_token_v1,
    }


def _task_document(t: TaskResult, tokens_observed: bool = True, truncation_observed: bool = True) -> dict[str, Any]:
    """A task's counters; `tokens` and `truncated` are null where the harness did not record
    them (evals.json `observed`: lm-eval records neither), never a 0 nobody counted."""
    return {
        "total": t.total, "truncated": t.truncated if truncation_observed else None, "correct": t.correct,
        "guess": t.guess, "tokens": t.tokens if tokens_observed else None,
        "trials": t.total, "samples": t.samples, "effective_trials": t.effective_trials, "partial": t.partial,
        "preliminary": t.preliminary,
        "estimate": t.estimate, "low": t.low, "high": t.high,
        "modes": {mode: list(values) for mode, values in zip(MODES, t.modes)},
    }


def pairwise_document(pw: Pairwise, comparisons: Comparisons | None = None) -> dict[str, Any]:
    """`pairwise.json`: the top models' matrix and Bradley–Terry ranking, every ranked
    model's neighbours, and, with trials, the paired comparisons on shared items."""
    doc = {
        "schema": PAIRWISE_SCHEMA, "models": list(pw.models),
        "win_rate": [list(row) for row in pw.win_rate],
        "tasks_shared": [list(row) for row in pw.tasks_shared],
        "expected_wins": dict(pw.expected_wins),
        "bradley_terry": [{"id": s.id, "strength": s.strength, "rank": s.rank} for s in pw.bradley_terry],
        "neighbours": {model: [{"id": n.id, "win_rate": n.win_rate, "tasks_shared": n.tasks_shared} for n in near]
                       for model, near in pw.neighbours.items()},
    }
    if comparisons is not None and comparisons.draws:
        doc["paired"] = paired_document(comparisons)
    return doc


def paired_document(c: Comparisons) -> dict[str, Any]:
    """The paired entries (SAMPLES.md section 5): each with the shared items, the effect (first
    minus second: ReasonScore points on the board, `C_P` on a task) and its interval, the raw
    p, the method, and `significant` after Holm over the entries of its list (one list per
    page that shows them together: the first board's adjacent pairs, a model's neighbours, the
    matrix, a task's adjacent rows, and by name each other board's adjacent pairs)."""
    def entry(a: str, r: PairedResult) -> dict[str, Any]:
        return {"a": a, "b": r.other, "shared": r.shared, "effect": r.effect, "low": r.low, "high": r.high,
                "p": r.p, "method": r.method, "significant": r.significant}

    return {
        "min_samples": c.min_samples, "draws": c.draws,
        "adjacent": [entry(a, r) for a, r in c.board_next.items()],
        "neighbours": {a: [entry(a, r) for r in near] for a, near in c.neighbours.items()},
        "matrix": [entry(a, r) for a, r in c.matrix],
        "tasks": {task: [entry(a, r) for a, r in found.items()] for task, found in c.task_next.items()},
        "boards": {name: [entry(a, r) for a, r in found.items()] for name, found in c.boards.items()},
    }


def leaderboard_csv(leaderboard: Leaderboard) -> bytes:
    """One row per evaluation, in leaderboard order; lists joined with `;`."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for m in leaderboard.models:
        rs = m.score
        rank_range: tuple[int | None, int | None] = m.rank_range or (None, None)
        writer.writerow([
            _cell(m.rank), _cell(rank_range[0]), _cell(rank_range[1]), _text(m.id), _text(m.label), _text(m.model),
            _text(m.template), _text(m.sampler), _cell(m.complete), _cell(rs.center), _cell(rs.margin),
            _cell(rs.ci_low), _cell(rs.ci_high), _cell(m.band), _cell(m.avg_tokens),
            _cell(m.score_per_token), _cell(m.truncation_rate), _cell(m.distinct_from_next),
            _text(";".join(m.missing_tasks)), m.status, _text(";".join(m.preliminary_tasks)),
        ])
    return out.getvalue().encode("utf-8")


def _text(value: str) -> str:
    """A text cell a spreadsheet will not evaluate: one starting with `=`, `+`, `-`, `@`, a
    tab or a carriage return gets a leading `'` (OWASP, "CSV injection"). Numbers are
    written by `_cell` and never start so, except a negative one, which stays a number."""
    return "'" + value if value[:1] in FORMULA_STARTS else value


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _cell(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def data_files(leaderboard: Leaderboard, pairwise: Pairwise, signals: Signals | None,
               comparisons: Comparisons | None = None) -> dict[str, bytes]:
    """Every data file of the site: the board's and the signals'."""
    return {**board_files(leaderboard, pairwise, comparisons), **signals_files(signals)}


def board_files(leaderboard: Leaderboard, pairwise: Pairwise, comparisons: Comparisons | None = None) -> dict[str, bytes]:
    """The board's data files: the leaderboard (JSON and CSV) and `pairwise.json`, with its
    paired entries when `comparisons` are given."""
    return {
        "data/leaderboard.json": dump_json(leaderboard_document(leaderboard)),
        "data/leaderboard.csv": leaderboard_csv(leaderboard),
        "data/pairwise.json": dump_json(pairwise_document(pairwise, comparisons)),
    }


def signals_files(signals: Signals | None) -> dict[str, bytes]:
    return {"data/signals.json": signals_json(signals)} if signals is not None else {}


def signals_json(signals: Signals) -> bytes:
    """`dump_json(signals.to_json())` in about a third of the time: the triples' lines (59,000
    at 2,500 evaluations, nine tenths of the file) are assembled by `triple_lines`."""
    return layout(signals.summary_json(), {"triples": triple_lines(signals.sorted_triples())})


# -- signals.json triples --------------------------------------------------------------------
#
# Each line must equal `compact(triple.to_json())`. `compact` sorts every object's keys, so a
# line is the keys in sorted order, each followed by its value's `compact` text: `_TRIPLE` is
# that frame, made once (`_object` checks the keys are listed sorted), and the values are
# filled in the same order. Most triples share their Reproducibility, Provenance and N/A
# Divergence objects (`signals.compute._triples`), so those texts are encoded once per object
# (by identity, within one call; the memo holds the object, so its id cannot be reused);
# only the triple's own strings, parties and party scores are encoded per line. Strings go
# through `_string` and numbers through `_scalar`, the functions the C encoder itself calls.


def _object(*keys: str) -> str:
    """The `%`-format of a JSON object whose (sorted) `keys` take already encoded values."""
    assert list(keys) == sorted(keys), "fill the values in sorted key order"
    return "{" + ",".join(compact(key).replace("%", "%%") + ":%s" for key in keys) + "}"


_TRIPLE = _object("benchmark", "comparability", "metric", "model", "parties", "provenance", "reports",
                  "reproducibility")
_LITERALS = {None: "null", True: "true", False: "false"}
#: What `compact` writes strings with (ensure_ascii=False: the C `encode_basestring`).
_string: Callable[[str], str] = json.encoder.encode_basestring


def _scalar(value: object) -> str:
    """`compact` of None, a bool, an int or a finite float without the encoder's per-call
    set-up; anything else (NaN, which `compact` refuses, say) goes through `compact` itself."""
    if value is None or value is True or value is False:
        return _LITERALS[value]
    if type(value) is float and math.isfinite(value):
        return float.__repr__(value)
    if type(value) is int:
        return int.__repr__(value)
    return compact(value)


def _around_scores(c: Comparability) -> tuple[str, str]:
    """`compact(c.to_json())` cut where the party scores go: everything else depends on the
    two checks alone (the combined flag too), which most triples share. The scores are
    encoded as `{}` and found by their key: in compact JSON `"scores":` is always a key (a
    string followed by a colon; a quote inside a string is escaped), and only the
    cross-party check has that key."""
    document = c.to_json()
    document["cross_party"]["scores"] = {}
    before, key, after = compact(document).partition('"scores":{}')
    assert key, "the cross-party check publishes its scores"
    return before + '"scores":', after


def _scores(c: Comparability) -> str:
    """`compact(c.scores_json())`: {party: r6(score)}, most often of a single party."""
    if len(c.scores) == 1:
        only = c.scores[0]
        return "{" + _string(only.party) + ":" + _scalar(r6(only.score)) + "}"
    return compact(c.scores_json())


class _Texts(dict[Any, str]):
    """Texts made once per key: `texts[key]` is `make(key)`, computed on first use."""

    def __init__(self, make: Callable[[Any], str]) -> None:
        super().__init__()
        self.make = make

    def __missing__(self, key: Any) -> str:
        text = self[key] = self.make(key)
        return text


def triple_lines(triples: Iterable[TripleSignals]) -> list[str]:
    """`[compact(t.to_json()) for t in triples]`, sharing the texts of shared objects."""
    strings = _Texts(_string)  # model, benchmark and metric keys repeat from line to line
    party_lists = _Texts(compact)
    # By identity (the records are not hashable by value); each entry holds its object(s).
    checks: dict[tuple[int, int], tuple[Comparability, str, str]] = {}
    records: dict[int, tuple[Reproducibility | Provenance, str]] = {}
    lines = []
    for t in triples:
        c = t.comparability
        pair = (id(c.variant), id(c.cross_party))
        around = checks.get(pair)
        if around is None:
            around = checks[pair] = (c, *_around_scores(c))
        provenance = records.get(id(t.provenance))
        if provenance is None:
            provenance = records[id(t.provenance)] = (t.provenance, compact(t.provenance.to_json()))
        reproducibility = records.get(id(t.reproducibility))
        if reproducibility is None:
            reproducibility = records[id(t.reproducibility)] = (t.reproducibility,
                                                                compact(t.reproducibility.to_json()))
        lines.append(_TRIPLE % (
            strings[t.benchmark], around[1] + _scores(c) + around[2], strings[t.metric], strings[t.model],
            party_lists[t.parties], provenance[1], _scalar(t.reports), reproducibility[1]))
    return lines
