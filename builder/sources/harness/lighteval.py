"""lighteval details Parquet files as trials (INGEST.md sections 3-6).

lighteval (0.13) saves, per task, `details/<model>/<timestamp>/details_<task>_<timestamp>.parquet`
with one row per sample and three struct columns: `doc` (id, task name, choices, sampling
methods, generation size, task-specific metadata in `specific`), `metric` (the per-sample
metric values) and `model_response` (texts, logprobs, output token ids). The run's
`results/<model>/results_<timestamp>.json` adds the model name, the generation parameters and
the tasks' configurations. The Parquet file is read with DuckDB (no pyarrow): the metric
choice is one aggregate query per candidate, and the trials are streamed from one query.

The rules, in the spirit of the lm-eval reader, since INGEST.md names none for lighteval:

* Score: `acc`, else `exact_match`, else `em` (lighteval's name for exact match), else the
  first per-sample metric whose values are all 0 or 1 (booleans count), or `--scorer NAME`.
  A chosen metric with values outside [0, 1] means no binary correctness: the run is skipped
  with the task, the metric and an example value. A null metric value is an unscored sample.
* Task and template: the task name is `task|shots` (`anli:r1|0`; older versions prefix a
  suite, `lighteval|arc:challenge|25`): the task is the name without suite and shots, and the
  template is `{shots}shot` as for lm-eval (`-chat` when the model config says a chat template
  was used), so a 0-shot and a 5-shot run are different evaluations, not one point.
* Options: the number of `doc.choices` of a loglikelihood task (`sampling_methods` LOGPROBS
  only); a generative task's `choices` are its gold answers, not options.
* Tokens: the length of the first `model_response.output_tokens` list when recorded
  (None otherwise). lighteval records no stop reasons, so truncation is the output length
  reaching the limit (`max_new_tokens` of the model, else the task's `generation_size`) on
  generative tasks, and observable only when tokens are recorded.
* Model: the results file's `model_name`, else the `<model>` folders of the details path.
  The version: lighteval records only `lighteval_sha` (often "?").
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb

from ..trials import (
    Evaluation,
    ReadOptions,
    Run,
    Trial,
    UnreadableInput,
    is_truncated,
    mapping_of,
    pick_params,
    read_json_file,
    sampler_name,
    score_value,
)

FORMAT = "lighteval"
HARNESS = "lighteval"
MAGIC = b"PAR1"
#: The struct columns of a 0.13 details file.
COLUMNS = ("doc", "metric", "model_response")
PREFERRED = ("acc", "exact_match", "em")
NUMERIC = re.compile(r"\A(BOOLEAN|TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT"
                     r"|UINTEGER|UBIGINT|FLOAT|DOUBLE|DECIMAL\(\d+,\d+\))\Z")
#: Rows fetched at a time while streaming trials.
BATCH = 2048

_SCAN_SQL = """
SELECT count(v), count(v) FILTER (WHERE v IN (0, 1)),
       any_value(v) FILTER (WHERE NOT (v BETWEEN 0 AND 1)),
       any_value(v) FILTER (WHERE v NOT IN (0, 1))
FROM (SELECT CAST(metric[?] AS DOUBLE) AS v FROM read_parquet(?))
"""


def detect(path: Path) -> bool:
    """A Parquet file (magic bytes at both ends) whose columns are lighteval's three structs;
    the column check reads only the file's footer."""
    if not path.is_file():
        return False
    if path.name.startswith("details_") and path.suffix == ".parquet":
        return True  # lighteval's own name: a damaged one is still ours, skipped with its reason
    try:
        with path.open("rb") as handle:
            if handle.read(4) != MAGIC:
                return False
            handle.seek(-4, 2)
            if handle.read(4) != MAGIC:
                return False
    except OSError:
        return False
    try:
        with duckdb.connect() as con:
            columns = _columns(con, path)
    except duckdb.Error:
        return False
    return all(columns.get(name, "").startswith("STRUCT(") for name in ("doc", "metric"))


def read(path: Path, options: ReadOptions) -> Iterator[Run]:
    """One run: the task of this details file."""
    con = duckdb.connect()
    try:
        columns = _columns(con, path)
        doc = _fields(con, path, "doc")
        metric_types = _fields(con, path, "metric")
        response = _fields(con, path, "model_response") if "model_response" in columns else {}
        first = con.execute(_first_doc_sql(doc), [str(path)]).fetchone()
        full_task = (first[0] if first and first[0] else None) or _task_from_name(path)
        if not full_task:
            raise UnreadableInput("no task name (doc.task_name is empty and the file is not details_<task>_<time>.parquet)")
        methods = [m.upper() for m in (first[1] or [])] if first else []
        generative = "GENERATIVE" in methods or not methods
        task, shots = _split_task(full_task)

        results = _results(path)
        general = mapping_of(results.get("config_general"))
        model_config = mapping_of(general.get("model_config"))
        generation = {k: v for k, v in mapping_of(model_config.get("generation_parameters")).items()
                      if v is not None}
        task_config = mapping_of(mapping_of(results.get("config_tasks")).get(full_task))
        limit = _limit(generation, task_config, first[2] if first else None) if generative else None
        temperature = generation.get("temperature")

        tokens_sql = _tokens_sql(response)
        tokens_recorded = tokens_sql != "NULL" and bool(_one(con.execute(
            f"SELECT count(*) FROM read_parquet(?) WHERE {tokens_sql} > 0", [str(path)]))[0])
        choice = _choose_metric(con, path, metric_types, options.scorer)
        evaluation = Evaluation(
            harness=HARNESS,
            harness_version=_version(general),
            model=_model(general, path),
            template=_template(shots, model_config),
            sampler=sampler_name(temperature if _is_number(temperature) else None, limit),
            task=task,
            metric=choice.metric or "none",
            generation_args=generation,
            truncation_observed=generative and tokens_recorded and limit is not None,
            tokens_observed=tokens_recorded,
            sampled=generative,
        )
    except duckdb.Error as error:
        con.close()
        raise UnreadableInput(f"cannot be read as lighteval details ({_one_line(error)})") from None
    except BaseException:
        con.close()
        raise
    if choice.problem is not None:
        con.close()
        yield Run(path, FORMAT, evaluation, (), skip=f"{task}: {choice.problem}")
        return
    assert choice.metric is not None
    counts: Counter[str] = Counter()
    sql = _trials_sql(doc, tokens_sql, with_options=not generative)
    yield Run(path, FORMAT, evaluation,
              _trials(con, sql, [choice.metric, str(path)], limit, options.params, counts), counts)


# -- schema ----------------------------------------------------------------------------


def _columns(con: duckdb.DuckDBPyConnection, path: Path) -> dict[str, str]:
    rows = con.execute("DESCRIBE SELECT * FROM read_parquet(?)", [str(path)]).fetchall()
    return {row[0]: row[1] for row in rows}


def _fields(con: duckdb.DuckDBPyConnection, path: Path, column: str) -> dict[str, str]:
    """Field name -> type of a struct column (`column` is one of `COLUMNS`, never data)."""
    assert column in COLUMNS
    rows = con.execute(f"DESCRIBE SELECT unnest({column}) FROM read_parquet(?)", [str(path)]).fetchall()
    return {row[0]: row[1] for row in rows}


def _field(fields: Mapping[str, str], name: str, sql: str, kind: str | None = None) -> str:
    """`sql` when the struct has the field (of the kind, if given), else NULL: old and new
    files differ in which fields exist, and a missing field is a binding error in SQL."""
    present = name in fields and (kind is None or re.search(kind, fields[name]) is not None)
    return sql if present else "NULL"


def _first_doc_sql(doc: Mapping[str, str]) -> str:
    return ("SELECT "
            + _field(doc, "task_name", "doc.task_name", r"\AVARCHAR\Z") + ", "
            + _field(doc, "sampling_methods", "doc.sampling_methods", r"\AVARCHAR\[\]\Z") + ", "
            + _field(doc, "generation_size", "doc.generation_size", r"INT")
            + " FROM read_parquet(?) LIMIT 1")


def _tokens_sql(response: Mapping[str, str]) -> str:
    """Output tokens of the first response: `output_tokens` is one list of token ids per
    returned sample (a list of lists); in the dummy model's files it is an empty list of nulls."""
    return _field(response, "output_tokens", "len(model_response.output_tokens[1])", r"\[\]\[\]\Z")


def _trials_sql(doc: Mapping[str, str], tokens_sql: str, *, with_options: bool) -> str:
    """One row per sample: id, score, choices, output tokens, metadata. The score is cast to
    DOUBLE so booleans, integers and DECIMAL columns all arrive as Python floats."""
    return ("SELECT "
            + _field(doc, "id", "CAST(doc.id AS VARCHAR)") + ", "
            + "CAST(metric[?] AS DOUBLE), "
            + (_field(doc, "choices", "len(doc.choices)", r"\[\]\Z") if with_options else "NULL") + ", "
            + tokens_sql + ", "
            + _field(doc, "specific", "doc.specific", r"\A(STRUCT|MAP)\(")
            + " FROM read_parquet(?)")


def _one(con: duckdb.DuckDBPyConnection) -> tuple[Any, ...]:
    """The row of an aggregate query (which always has one)."""
    row = con.fetchone()
    assert row is not None
    return row


def _one_line(error: Exception) -> str:
    return " ".join(str(error).split())


# -- the evaluation --------------------------------------------------------------------



def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


_NAME = re.compile(r"\Adetails_(?P<task>.+)_(?P<time>\d{4}-\d\d-\d\dT[0-9.\-:]+)\.parquet\Z")


def _task_from_name(path: Path) -> str | None:
    match = _NAME.match(path.name)
    return match["task"] if match else None


def _split_task(full: str) -> tuple[str, int | None]:
    """`anli:r1|0` -> (`anli:r1`, 0); `lighteval|arc:challenge|25` -> (`arc:challenge`, 25)."""
    parts = full.split("|")
    shots = int(parts[-1]) if len(parts) > 1 and parts[-1].isdigit() else None
    if shots is not None:
        parts = parts[:-1]
    if len(parts) > 1:
        parts = parts[1:]
    return "|".join(parts).strip(), shots


def _template(shots: int | None, model_config: Mapping[str, Any]) -> str:
    if shots is None:
        return "default"
    chat = "-chat" if model_config.get("use_chat_template") is True else ""
    return f"{shots}shot{chat}"


def _limit(generation: Mapping[str, Any], task_config: Mapping[str, Any], doc_size: Any) -> int | None:
    """The output token limit of a generative task: the model's `max_new_tokens`, else the
    task's `generation_size` (as lighteval itself decides)."""
    for value in (generation.get("max_new_tokens"), task_config.get("generation_size"), doc_size):
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
            return int(value)
    return None


def _version(general: Mapping[str, Any]) -> str | None:
    for key in ("lighteval_version", "version"):
        value = general.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    sha = general.get("lighteval_sha")
    if isinstance(sha, str) and sha.strip() and sha.strip() != "?":
        return f"git {sha.strip()}"
    return None


def _details_layout(path: Path) -> tuple[Path, str] | None:
    """(the output root, the model as a relative path) when the file sits in
    `<root>/details/<model...>/<timestamp>/`."""
    for ancestor in path.parents:
        if ancestor.name == "details" and path.parent.parent != ancestor:
            model = path.parent.parent.relative_to(ancestor).as_posix()
            return ancestor.parent, model
    return None


def _results(path: Path) -> Mapping[str, Any]:
    """The run's results file (`results/<model>/results_<timestamp>.json`), or {} when it is
    not there; a results file that is there but unreadable makes the input unreadable."""
    layout = _details_layout(path)
    if layout is None:
        return {}
    root, model = layout
    candidate = root / "results" / model / f"results_{path.parent.name}.json"
    if not candidate.is_file():
        return {}
    return mapping_of(read_json_file(candidate))


def _model(general: Mapping[str, Any], path: Path) -> str:
    for value in (general.get("model_name"), mapping_of(general.get("model_config")).get("model_name")):
        if isinstance(value, str) and value.strip():
            return value.strip()
    layout = _details_layout(path)
    if layout is not None:
        return layout[1]
    raise UnreadableInput("no model: no results file beside it and not under details/<model>/<timestamp>/")


# -- the metric ------------------------------------------------------------------------


@dataclass(frozen=True)
class _Choice:
    metric: str | None
    problem: str | None = None


@dataclass(frozen=True)
class _Values:
    numbers: int
    binary: int
    out_of_range: float | None
    non_binary: float | None


def _values(con: duckdb.DuckDBPyConnection, path: Path, metric: str) -> _Values:
    numbers, binary, out_of_range, non_binary = _one(con.execute(_SCAN_SQL, [metric, str(path)]))
    return _Values(numbers, binary, out_of_range, non_binary)


def _choose_metric(con: duckdb.DuckDBPyConnection, path: Path, types: Mapping[str, str],
                   scorer: str | None) -> _Choice:
    numeric = [name for name, kind in types.items() if NUMERIC.match(kind)]
    chosen: str | None
    if scorer:
        if scorer not in types:
            return _Choice(scorer, f"no per-sample metric {scorer} (the file has: {', '.join(types) or 'none'})")
        if scorer not in numeric:
            return _Choice(scorer, f"no binary correctness: metric {scorer} is not a number ({types[scorer]})")
        chosen = scorer
    else:
        chosen = next((m for m in PREFERRED if m in numeric), None)
        if chosen is None:
            chosen = next((m for m in numeric if _binary(_values(con, path, m))), None)
        if chosen is None:
            shown = numeric[0] if numeric else None
            if shown is None:
                return _Choice(None, "no per-sample metric with 0/1 values "
                                     f"(the file has: {', '.join(types) or 'none'})")
            return _Choice(shown, _no_correctness(shown, _values(con, path, shown)))
    values = _values(con, path, chosen)
    if values.out_of_range is not None or not values.numbers:
        return _Choice(chosen, _no_correctness(chosen, values))
    return _Choice(chosen)


def _binary(values: _Values) -> bool:
    return values.numbers > 0 and values.binary == values.numbers


def _no_correctness(metric: str, values: _Values) -> str:
    if values.out_of_range is not None:
        return (f"no binary correctness: metric {metric} has values outside [0, 1] "
                f"(e.g. {values.out_of_range!r})")
    if not values.numbers:
        return f"no binary correctness: metric {metric} has no values"
    return (f"no binary correctness: metric {metric} has values other than 0 and 1 "
            f"(e.g. {values.non_binary!r})")


# -- trials ----------------------------------------------------------------------------


def _trials(con: duckdb.DuckDBPyConnection, sql: str, parameters: list[Any], limit: int | None,
            param_keys: tuple[str, ...], counts: Counter[str]) -> Iterator[Trial]:
    """Rows streamed in batches; the connection is closed when the stream ends."""
    try:
        cursor = con.execute(sql, parameters)
        row_number = 0
        while rows := cursor.fetchmany(BATCH):
            for sample_id, value, choices, tokens, specific in rows:
                row_number += 1
                score = score_value(value)
                if score is None:
                    counts["unscored"] += 1
                    continue
                yield Trial(
                    sample_id=str(sample_id) if sample_id is not None else str(row_number),
                    epoch=1,
                    params=pick_params(specific if isinstance(specific, dict) else None, param_keys),
                    score=score,
                    truncated=is_truncated(None, tokens, limit) if tokens is not None else False,
                    options=int(choices) if choices else None,
                    tokens=int(tokens) if tokens is not None else None,
                )
    except duckdb.Error as error:
        raise UnreadableInput(f"cannot be read as lighteval details ({_one_line(error)})") from None
    finally:
        con.close()
