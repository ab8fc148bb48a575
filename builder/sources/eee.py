"""Reading Every Eval Ever (EEE) aggregate records, leniently (EVALCARDS.md section 1).

Reported results come from many converters written against schema versions 0.1 to 0.3,
so the reader takes what it can use and ignores the rest: unknown keys, missing optional
blocks, `min_score`/`max_score` given as numbers, `"Infinity"`, `"-Infinity"` or null,
`additional_details` that are strings instead of objects. Only two things make a file
unusable: it is not valid JSON, or it has no `evaluation_results` list. Such a file is
reported as (path, reason) and skipped; the caller decides whether that is fatal
(`--strict`).

The reader keeps raw values (the score as written, the generation arguments as given);
deciding what counts as numeric, populated or the same setup is the signals' job.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from ..confined import refuse_linked_folders
from . import jsonfiles

#: The `eval_library.name` of records that `reasonboard export eee` writes.
EXPORTING_LIBRARY = "reasonboard"

EMPTY: Mapping[str, Any] = {}


@dataclass(frozen=True)
class EEEResult:
    """One `evaluation_results[]` entry, as reported."""

    index: int
    evaluation_name: str | None
    dataset_name: str | None
    metric_id: str | None
    metric_name: str | None
    metric_unit: str | None
    #: Bounds of the metric scale: a float (possibly ±inf) or None when absent or unreadable.
    min_score: float | None
    max_score: float | None
    #: The score exactly as written (the loader drops non-numeric ones and counts them).
    score: Any
    #: `generation_config.generation_args` (empty when absent or not an object).
    generation_args: Mapping[str, Any]
    #: `generation_config.additional_details` (empty when absent or not an object).
    generation_details: Mapping[str, Any]


@dataclass(frozen=True)
class EEERecord:
    """One EEE file: record-level metadata and its results."""

    #: Path of the file relative to the directory the caller named as base (POSIX form).
    path: str
    schema_version: str | None
    evaluation_id: str | None
    model_id: str | None
    model_name: str | None
    #: `model_info.additional_details` (empty when absent or not an object).
    model_details: Mapping[str, Any]
    organization: Any
    relationship: Any
    source_type: Any
    eval_library_name: Any
    eval_library_version: Any
    results: tuple[EEEResult, ...]


@dataclass(frozen=True)
class EEERead:
    records: tuple[EEERecord, ...]
    #: (path, reason) for every file that could not be used, in path order.
    problems: tuple[tuple[str, str], ...]


def discover(root: Path) -> list[Path]:
    """Every `*.json` file under `root`, sorted; directories named `*.json` are not records
    (the real corpus has a few, holding records of their own)."""
    return jsonfiles.discover(root, recursive=True)


def read_eee(root: Path, base: Path | None = None) -> EEERead:
    """Read every record under `root`; paths in the result are relative to `base` (default `root`)."""
    records: list[EEERecord] = []
    problems: list[tuple[str, str]] = []
    base = base or root
    if root.is_dir():
        refuse_linked_folders(root, base)
    for _path, rel, document in jsonfiles.read_documents(discover(root), base, problems):
        try:
            records.append(parse_record(document, rel))
        except ValueError as exc:
            problems.append((rel, str(exc)))
    return EEERead(tuple(records), tuple(problems))


def parse_record(document: Any, path: str) -> EEERecord:
    """One parsed JSON document as a record; `ValueError` names why it is unusable."""
    if not isinstance(document, dict):
        raise ValueError("not an EEE record: the top level is not a JSON object")
    results = document.get("evaluation_results")
    if not isinstance(results, list):
        raise ValueError("not an EEE record: no 'evaluation_results' list")
    source = _obj(document.get("source_metadata"))
    model = _obj(document.get("model_info"))
    # 0.2.1+ puts eval_library at the top level; older converters tucked it into
    # source_metadata. Either is accepted.
    library = _obj(document.get("eval_library")) or _obj(source.get("eval_library"))
    harness, harness_version = library.get("name"), library.get("version")
    # A reasonboard export (`reasonboard export eee`) names itself as the library and the
    # harness that produced its points in additional_details: that harness is what ran the
    # evaluation, so it is the one comparability and reproducibility compare.
    produced_by = _obj(library.get("additional_details")).get("harness")
    if harness == EXPORTING_LIBRARY and isinstance(produced_by, str) and produced_by.strip():
        harness, harness_version = produced_by, None
    return EEERecord(
        path=path,
        schema_version=_text(document.get("schema_version")),
        evaluation_id=_text(document.get("evaluation_id")),
        model_id=_text(model.get("id")),
        model_name=_text(model.get("name")),
        model_details=_obj(model.get("additional_details")),
        organization=source.get("source_organization_name"),
        relationship=source.get("evaluator_relationship"),
        source_type=source.get("source_type"),
        eval_library_name=harness,
        eval_library_version=harness_version,
        results=tuple(_result(i, entry) for i, entry in enumerate(results)),
    )


def _result(index: int, entry: Any) -> EEEResult:
    entry = _obj(entry)
    source_data = entry.get("source_data")
    # 0.1 records may give source_data as a bare URL or list of URLs: no dataset name then.
    dataset = _text(source_data.get("dataset_name")) if isinstance(source_data, dict) else None
    metric = _obj(entry.get("metric_config"))
    generation = _obj(entry.get("generation_config"))
    details = _obj(entry.get("score_details"))
    score = details.get("score") if details else entry.get("score")
    return EEEResult(
        index=index,
        evaluation_name=_text(entry.get("evaluation_name")),
        dataset_name=dataset,
        metric_id=_text(metric.get("metric_id", entry.get("metric_id"))),
        metric_name=_text(metric.get("metric_name", entry.get("metric_name"))),
        metric_unit=_text(metric.get("metric_unit", entry.get("metric_unit"))),
        min_score=bound(metric.get("min_score")),
        max_score=bound(metric.get("max_score")),
        score=score,
        generation_args=_obj(generation.get("generation_args")),
        generation_details=_obj(generation.get("additional_details")),
    )


def bound(value: Any) -> float | None:
    """A metric bound: numbers as floats, "Infinity"/"-Infinity" (any case) as ±inf, else None."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            return None
        return None if math.isnan(number) else number
    return None


def _obj(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, dict) else EMPTY


def _text(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float, bool)):
        return json.dumps(value)
    return None
