"""The leaderboard's own results as Every Eval Ever (EEE) aggregate records, schema 0.3.0.

reasonboard reads the shared EEE corpus and gives every result in it Evaluation Card
signals; this module lets a publisher give its own numbers back. One record per evaluation
(model, template, sampler), laid out like the corpus, `<source>/<developer>/<model>/<uuid>.json`:

* one `evaluation_results[]` entry per task: the task's estimate (the site's estimator,
  `C_P` by default: guess- and truncation-corrected accuracy) on [0, 1] with its 95 %
  interval and the number of trials, under the metric id `p_correct` that the leaderboard's
  own result rows carry (EVALCARDS.md section 1), so a record read back lands in the same
  (model, benchmark, metric) triple as the row it came from;
* one more entry for the ReasonScore, on its 10-1000 scale, with its bootstrap interval.

Every number is the leaderboard's own, as `leaderboard.json` has it (already rounded);
nothing is recomputed here. Organisation, relationship, harness and generation arguments
come from the evaluation's `evals.json` entry, else the site config, exactly as the own
result rows take them.

Deterministic by construction: the uuid (the file name, and the tail of `evaluation_id`)
is a hash of the evaluation's identity and of the record's content, so the same results
give the same bytes and a changed result a changed id. Two fields are left out of the hash
so they cannot change an id on their own: `retrieved_timestamp`, which the schema requires,
is `SOURCE_DATE_EPOCH` when that is set and otherwise the fixed value "0" (never the wall
clock), and `eval_library.version`, so upgrading reasonboard alone does not retire every id.
The hash is shaped as a version-4 UUID (version and variant bits set) because the corpus
names its records with uuid4s.

Generation arguments: the schema closes `generation_args` to a fixed set of typed fields
(`temperature`, `max_tokens`, ...). Those keys go there when their values have the schema's
type; any other key, and a known key whose value does not fit (`"max_tokens": "16k"`), goes
to `generation_config.additional_details` as text, and the latter is reported as a warning
because the reproducibility signal of the exported record will then differ from the site's.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..config import SiteConfig
from ..errors import InputError
from ..slugs import slugify
from ..sources.eee import EXPORTING_LIBRARY
from ..stats.board import EvaluationRow, Leaderboard, TaskResult
from ..stats.evaluations import Evaluation
from ..store.reported import OWN_METRIC, OWN_SOURCE_TYPE

SCHEMA_VERSION = "0.3.0"
#: The site's methodology page, linked from every metric description.
METHODOLOGY_PAGE = "methodology.html"
#: The ReasonScore's metric id: namespaced, as the schema asks for leaderboard-specific metrics.
REASONSCORE_METRIC = "reasonboard.reasonscore"
REASONSCORE_NAME = "ReasonScore"
#: `retrieved_timestamp` when `SOURCE_DATE_EPOCH` is not set.
FIXED_TIMESTAMP = "0"
#: Bumped when the hashed content changes meaning, so old and new ids never coincide.
ID_NAMESPACE = "reasonboard.export.eee/1"

#: What each estimator measures (STATISTICS.md section 2), and how its interval is made.
ESTIMATORS: dict[str, tuple[str, str]] = {
    "E_I": ("accuracy over completed trials (truncated trials left out)", "wilson"),
    "E_P": ("accuracy over all trials (truncated trials count as wrong)", "wilson"),
    "E_O": ("accuracy over all trials (truncated trials count as correct)", "wilson"),
    "C_I": ("guess-corrected accuracy over completed trials (truncated trials left out)", "wilson"),
    "C_P": ("guess- and truncation-corrected accuracy (truncated trials count as failures)", "wilson_product"),
    "C_O": ("guess-corrected accuracy, truncated trials counted as correct", "wilson_product"),
}
INTERVAL_TEXT = {
    "wilson": "Wilson score interval, z = 1.96, on the summed counters of the task's points",
    "wilson_product": ("product of two 97.5 % Wilson score intervals (accuracy among completed trials "
                       "and the completion rate), so the product keeps at least 95 % coverage"),
}


@dataclass(frozen=True)
class ExportedRecord:
    """One EEE record: where it goes in the corpus layout, and its bytes."""

    #: `<source>/<developer>/<model>/<uuid>.json`, POSIX, relative to the export directory.
    path: str
    #: The leaderboard's id of the evaluation (`model|template|sampler`).
    evaluation: str
    evaluation_id: str
    document: dict[str, Any]
    data: bytes


@dataclass(frozen=True)
class EEEExport:
    records: tuple[ExportedRecord, ...]
    #: Generation arguments that could not go where the schema wants them, per evaluation.
    warnings: tuple[str, ...]
    #: How many of the records are simulated demo data (never to be contributed).
    simulated: int

    @property
    def results(self) -> int:
        return sum(len(r.document["evaluation_results"]) for r in self.records)

    def files(self) -> dict[str, bytes]:
        return {r.path: r.data for r in self.records}


def source_date_epoch(value: str | None) -> str | None:
    """`SOURCE_DATE_EPOCH` as the record's timestamp text (None when unset or empty)."""
    if value is None or not value.strip():
        return None
    if not re.fullmatch(r"\s*\d+\s*", value):
        raise InputError("SOURCE_DATE_EPOCH", f"must be a whole number of seconds, got {value!r}")
    return str(int(value))


def methodology_url(config: SiteConfig) -> str:
    """The methodology page: absolute from the site's `base_url` when one is set."""
    if config.base_url.strip():
        return config.base_url.strip().rstrip("/") + "/" + METHODOLOGY_PAGE
    return METHODOLOGY_PAGE


def eee_records(leaderboard: Leaderboard, config: SiteConfig, version: str,
                timestamp: str | None = None) -> EEEExport:
    """One record per leaderboard evaluation that has a result, in path order.

    `leaderboard` is the statistics' result (each row carries its evaluation's `evals.json`
    facts), `version` the reasonboard version, `timestamp` the `SOURCE_DATE_EPOCH` text or None.
    """
    source = slugify(config.title or "reasonboard")
    url = methodology_url(config)
    records, warnings = [], []
    simulated = 0
    for model in leaderboard.models:
        if not model.tasks:
            continue  # an evals.json entry without points: no result to report
        evaluation = model.evaluation
        record, notes = _record(model, evaluation, config, source, url, version, timestamp)
        records.append(record)
        warnings += [f"{model.id}: {note}" for note in notes]
        simulated += evaluation.simulated
    records.sort(key=lambda r: r.path)
    return EEEExport(tuple(records), tuple(warnings), simulated)


def _record(model: EvaluationRow, evaluation: Evaluation, config: SiteConfig, source: str,
            url: str, version: str, timestamp: str | None) -> tuple[ExportedRecord, list[str]]:
    model_id = (evaluation.hf_id or model.model).strip()
    organization = (evaluation.organization or config.organization or "").strip()
    if not organization:
        raise InputError(config.path, f"evaluation '{model.id}' names no organisation, and an EEE record "
                                      "must: set 'organization' in the site config or in its evals.json entry")
    args, extra, notes = split_generation_args(evaluation.generation_args or {})
    generation: dict[str, Any] = {"generation_args": args}
    if extra:
        generation["additional_details"] = extra
    harness = evaluation.harness
    tasks = config.tasks or tuple(model.tasks)
    results = [_task_result(task, model.tasks[task], config.mode, url, generation)
               for task in tasks if task in model.tasks and model.tasks[task].estimate is not None]
    if model.score.center is not None:
        results.append(_reasonscore_result(model, tasks, config, url, generation))
    developer, name = corpus_dirs(model_id)
    document: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "evaluation_id": "",
        "retrieved_timestamp": timestamp or FIXED_TIMESTAMP,
        "source_metadata": {
            "source_name": config.title or "reasonboard",
            "source_type": OWN_SOURCE_TYPE,
            "source_organization_name": organization,
            "evaluator_relationship": evaluation.relationship or config.relationship,
            "additional_details": _texts({
                "leaderboard_url": config.base_url.strip() or None,
                "reasonboard_evaluation": model.id,
                "template": model.template,
                "sampler": model.sampler,
            }),
        },
        "model_info": {
            "name": evaluation.label or model.model,
            "id": model_id,
            # The developer as the id names it (the directory is that, made file-name safe).
            **({"developer": model_id.split("/", 1)[0]} if "/" in model_id else {}),
            "additional_details": _texts({
                "deployment_type": "unknown",
                "model_availability": "unknown",
                "reasonboard_model": model.model,
                "simulated": "true" if evaluation.simulated else None,
            }),
        },
        "eval_library": {
            "name": EXPORTING_LIBRARY,
            "version": version,
            **({"additional_details": {"harness": str(harness)}} if harness else {}),
        },
        "evaluation_results": results,
    }
    uid = record_uuid(model.id, document)
    document["evaluation_id"] = f"{source}/{model_id}/{uid}"
    path = f"{source}/{developer}/{name}/{uid}.json"
    return ExportedRecord(path, model.id, document["evaluation_id"], document, dump_record(document)), notes


def _task_result(task: str, t: TaskResult, mode: str, url: str,
                 generation: Mapping[str, Any]) -> dict[str, Any]:
    what, interval = ESTIMATORS[mode]
    return {
        "evaluation_result_id": task,
        "evaluation_name": task,
        "source_data": {"dataset_name": task, "source_type": "other"},
        "metric_config": {
            "evaluation_description": (f"{mode} estimate on the task '{task}': {what}, from the summed counters "
                                       f"of all the evaluation's points in the task. Method: {url}"),
            "metric_id": OWN_METRIC,
            "metric_name": f"{mode} ({what.split(' (')[0]})",
            "metric_kind": "accuracy",
            "metric_unit": "proportion",
            "lower_is_better": False,
            "score_type": "continuous",
            "min_score": 0.0,
            "max_score": 1.0,
            "additional_details": {"estimator": mode, "methodology_url": url},
        },
        "score_details": {
            "score": t.estimate,
            "details": _texts({"trials": t.total, "truncated": t.truncated, "correct": t.correct,
                               "guess": t.guess}),
            "uncertainty": {
                "confidence_interval": {"lower": t.low, "upper": t.high, "confidence_level": 0.95,
                                        "method": INTERVAL_TEXT[interval]},
                "num_samples": int(t.samples if t.samples is not None else t.total),  # epochs are not samples
            },
        },
        "generation_config": dict(generation),
    }


def _reasonscore_result(model: EvaluationRow, tasks: tuple[str, ...], config: SiteConfig, url: str,
                        generation: Mapping[str, Any]) -> dict[str, Any]:
    rs = model.score
    covered = [t for t in tasks if t in model.tasks]
    return {
        "evaluation_result_id": REASONSCORE_METRIC,
        "evaluation_name": REASONSCORE_NAME,
        "source_data": {"dataset_name": REASONSCORE_NAME, "source_type": "other",
                        "additional_details": {"tasks": ",".join(covered)}},
        "metric_config": {
            "evaluation_description": (
                f"ReasonScore v2: 1000 times the geometric mean of the per-task {config.mode} interval bounds "
                f"(floored at 0.01), as a {config.bootstrap}-draw bootstrap interval whose midpoint is the score; "
                f"10 to 1000. Over {len(covered)} task(s)"
                + ("" if model.complete else f"; incomplete, missing {', '.join(model.missing_tasks)}")
                + f". Method: {url}"),
            "metric_id": REASONSCORE_METRIC,
            "metric_name": REASONSCORE_NAME,
            "metric_kind": "score",
            "metric_unit": "points",
            "lower_is_better": False,
            "score_type": "continuous",
            "min_score": 10.0,
            "max_score": 1000.0,
            "additional_details": {"methodology_url": url},
        },
        "score_details": {
            "score": rs.center,
            "details": _texts({"margin": rs.margin, "complete": "true" if model.complete else "false",
                               "missing_tasks": ",".join(model.missing_tasks) or None}),
            "uncertainty": {
                "confidence_interval": {"lower": rs.ci_low, "upper": rs.ci_high, "confidence_level": 0.95,
                                        "method": "bootstrap (percentile) of the geometric mean of task bounds"},
                "num_bootstrap_samples": int(config.bootstrap),
            },
        },
        "generation_config": dict(generation),
    }


# -- identity and layout ------------------------------------------------------------------


def record_uuid(evaluation: str, document: Mapping[str, Any]) -> str:
    """A uuid4-shaped hash of the evaluation's identity and the record's content, without
    its id, its timestamp and the reasonboard version (see the module docstring)."""
    hashed = {**document, "evaluation_id": "", "retrieved_timestamp": "",
              "eval_library": {**document["eval_library"], "version": ""}}
    text = "\n".join((ID_NAMESPACE, evaluation, _canonical(hashed)))
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return str(uuid.UUID(bytes=digest[:16], version=4))


_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def corpus_dirs(model_id: str) -> tuple[str, str]:
    """(developer, model) directories of the corpus layout: the id's prefix and the rest;
    a flat id goes under `unknown`, as the corpus files them. Characters a file name cannot
    safely hold become `_`."""
    developer, _, name = model_id.partition("/")
    if not name:
        developer, name = "unknown", model_id
    return _path_part(developer), _path_part(name.replace("/", "_"))


def _path_part(text: str) -> str:
    part = _UNSAFE.sub("_", text.strip()).strip(".")
    return part or "_"


def dump_record(document: Mapping[str, Any]) -> bytes:
    """Two-space indented JSON, keys in the order written (the corpus's own reading order)."""
    return (json.dumps(document, indent=2, ensure_ascii=False, allow_nan=False) + "\n").encode("utf-8")


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, allow_nan=False, separators=(",", ":"))


def _texts(values: Mapping[str, Any]) -> dict[str, str]:
    """An `additional_details` object: the schema wants every value as text; None is left out."""
    return {k: v if isinstance(v, str) else _canonical(v) for k, v in values.items() if v is not None}


# -- generation arguments -----------------------------------------------------------------


def _number_or_null(v: Any) -> bool:
    return v is None or (isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v))


def _integer(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _text(v: Any) -> bool:
    return isinstance(v, str)


def _text_map(v: Any) -> bool:
    return isinstance(v, dict) and all(isinstance(x, str) for x in v.values())


def _object(checks: Mapping[str, Callable[[Any], bool]]) -> Callable[[Any], bool]:
    """An object whose listed keys, where present, pass their checks (others are free)."""
    return lambda v: isinstance(v, dict) and all(check(v[k]) for k, check in checks.items() if k in v)


def _list_of(check: Callable[[Any], bool]) -> Callable[[Any], bool]:
    return lambda v: isinstance(v, list) and all(check(x) for x in v)


#: The schema's `generation_args` properties and their types (it allows no others).
GENERATION_ARGS: dict[str, Callable[[Any], bool]] = {
    "temperature": _number_or_null,
    "top_p": _number_or_null,
    "top_k": _number_or_null,
    "max_tokens": lambda v: _integer(v) and v >= 1,
    "execution_command": _text,
    "reasoning": lambda v: isinstance(v, bool),
    "prompt_template": _text,
    "agentic_eval_config": _object({
        "available_tools": _list_of(_object({"name": _text, "description": _text, "parameters": _text_map})),
        "additional_details": _text_map,
    }),
    "eval_plan": _object({"name": _text, "steps": _list_of(_text), "config": _text_map}),
    "eval_limits": _object({"time_limit": _integer, "message_limit": _integer, "token_limit": _integer}),
    "sandbox": _object({"type": _text, "config": _text}),
    "max_attempts": _integer,
    "incorrect_attempt_feedback": _text,
}


def split_generation_args(args: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, str], list[str]]:
    """(schema `generation_args`, `additional_details` as text, warnings) from the
    evaluation's generation arguments, keys sorted."""
    if not isinstance(args, Mapping):
        return {}, {}, []
    valid: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    notes = []
    for name in sorted(args):
        value = args[name]
        check = GENERATION_ARGS.get(name)
        if check is not None and check(value):
            valid[name] = value
        else:
            extra[name] = value
            if check is not None:
                notes.append(f"generation_args.{name} = {_as_text(value)[:40]} does not have the type the "
                             f"EEE schema gives it; written to generation_config.additional_details instead")
    return valid, {k: v if isinstance(v, str) else _as_text(v) for k, v in extra.items()}, notes


def _as_text(value: Any) -> str:
    """Any JSON value as compact text (NaN included: it is text now, not a number)."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
