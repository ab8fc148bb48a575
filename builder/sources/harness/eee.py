"""Every Eval Ever instance-level JSONL (schema 0.2.0 to 0.3.0) as trials (INGEST.md).

One line per sample: `model_id`, `evaluation_name`, `sample_id`, `evaluation.is_correct`,
`input.choices`, `token_usage`, `metadata` (`stop_reason`, `epoch` from Inspect
conversions), `error`. Lines are decoded one at a time with msgspec Structs that name only
those fields, so the long `input.raw`, `output.raw` and `interactions` are skipped unbuilt.

The run's settings (temperature, token limit, the harness that produced it) are not in
the lines: they are in the aggregate record the instance file belongs to. That record is
looked for beside the file (`<uuid>.json` next to `<uuid>_samples.jsonl`), else, for a file
in the EEE repository's `instance_level_data/`, among the records under the `data/` beside
it whose `detailed_evaluation_results.file_path` names this file. Nowhere else: a search
further up could walk a user's whole home directory.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterator

import msgspec

from ..trials import (
    SILENT_STOPS,
    Evaluation,
    ReadOptions,
    Run,
    Trial,
    UnreadableInput,
    compressed_size,
    count_tokens,
    is_truncated,
    pick_params,
    sampler_name,
)

FORMAT = "eee"
HARNESS = "every_eval_ever"
#: The EEE repository keeps instance files here, their aggregate records under `../data/`.
INSTANCE_DIR = "instance_level_data"
#: Aggregate records are small; anything larger is not read while searching.
AGGREGATE_MAX_BYTES = 5_000_000


class _Evaluation(msgspec.Struct):
    is_correct: bool | None = None


class _Input(msgspec.Struct):
    choices: list[Any] | None = None
    reference: Any = None


class _Usage(msgspec.Struct):
    input_tokens: int | None = None
    output_tokens: int | None = None
    reasoning_tokens: int | None = None


class _Output(msgspec.Struct):
    raw: Any = None


class _Line(msgspec.Struct):
    model_id: str = ""
    evaluation_name: str = ""
    sample_id: int | str | None = None
    schema_version: str | None = None
    evaluation: _Evaluation | None = None
    input: _Input | None = None
    output: _Output | None = None
    token_usage: _Usage | None = None
    metadata: dict[str, Any] | None = None
    error: Any = None


_line_decoder = msgspec.json.Decoder(_Line)


def detect(path: Path) -> bool:
    """A JSON Lines file whose first record has `evaluation` with `is_correct` and `sample_id`."""
    if not path.is_file() or path.suffix.lower() not in (".jsonl", ".json"):
        return False
    try:
        with path.open("rb") as fh:
            first = fh.readline(4_000_000)
    except OSError:
        return False
    if b'"is_correct"' not in first or b'"sample_id"' not in first:
        return False
    try:
        line = _line_decoder.decode(first.removeprefix(BOM))
    except (msgspec.DecodeError, msgspec.ValidationError):
        return False
    return line.evaluation is not None and line.sample_id is not None


def read(path: Path, options: ReadOptions) -> Iterator[Run]:
    """One run per (model, evaluation_name) in the file (normally exactly one)."""
    aggregate = find_aggregate(path)
    settings = _settings(aggregate)
    try:
        with path.open("rb") as fh:
            first = _decode(fh.readline(), 1, path)
    except OSError as exc:
        raise UnreadableInput(f"cannot read ({exc.strerror})") from None
    model, task = first.model_id.strip(), first.evaluation_name.strip()
    if not model or not task:
        raise UnreadableInput("line 1: no model_id or evaluation_name")
    evaluation = Evaluation(
        harness=settings["harness"], harness_version=settings["version"], model=model, template="default",
        sampler=sampler_name(settings["temperature"], settings["max_tokens"]), task=task,
        metric="evaluation.is_correct", generation_args=settings["generation_args"],
        truncation_observed=_truncation_observable(path, first, settings["max_tokens"]), tokens_observed=True,
    )
    run = Run(source=path, format=FORMAT, evaluation=evaluation, trials=())
    run.trials = _trials(run, path, options, settings["max_tokens"], model, task)
    yield run


def _errored(line: _Line) -> bool:
    """Whether the harness recorded an error for this sample (such a sample is no trial)."""
    return line.error not in (None, "", {})


#: Lines read past errored ones to find a sample that shows what the converter records.
LOOK_AHEAD = 1000


def _truncation_observable(path: Path, first: _Line, limit: int | None) -> bool:
    """Whether the file can tell a truncated trial (INGEST.md section 3): its lines carry stop
    reasons that speak (not absent or "unknown"), or output tokens and the run's limit is
    known. A converter writes the same fields on every sample, so the first sample without
    an error tells. An instance file whose aggregate record is not found has no limit, and
    without stop reasons its "0 truncated" would be a count nobody made."""
    line = first
    if _errored(line):
        with path.open("rb") as fh:
            for line_no, raw in enumerate(fh, start=1):
                if line_no > LOOK_AHEAD:
                    break
                if raw.strip():
                    line = _decode(raw, line_no, path)
                    if not _errored(line):
                        break
    stop = (line.metadata or {}).get("stop_reason")
    speaks = isinstance(stop, str) and stop.strip().lower() not in SILENT_STOPS
    tokens = line.token_usage is not None and line.token_usage.output_tokens is not None
    return speaks or (tokens and limit is not None)


#: The UTF-8 byte order mark that Windows editors put before a file's first line.
BOM = b"\xef\xbb\xbf"


def _decode(raw: bytes, line_no: int, path: Path) -> _Line:
    try:
        return _line_decoder.decode(raw.removeprefix(BOM) if line_no == 1 else raw)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise UnreadableInput(f"line {line_no}: {exc}") from None


def _trials(run: Run, path: Path, options: ReadOptions, limit: int | None, model: str, task: str) -> Iterator[Trial]:
    with path.open("rb") as fh:
        for line_no, raw in enumerate(fh, start=1):
            if not raw.strip():
                continue
            line = _decode(raw, line_no, path)
            if line.model_id.strip() != model or line.evaluation_name.strip() != task:
                raise UnreadableInput(f"line {line_no}: a second evaluation in one file "
                                      f"({line.model_id} / {line.evaluation_name}); split it per evaluation")
            if _errored(line):
                run.counts["errors"] += 1
                continue
            if line.evaluation is None or line.evaluation.is_correct is None or line.sample_id is None:
                run.counts["unscored"] += 1
                continue
            metadata = line.metadata or {}
            usage = line.token_usage or _Usage()
            stop = metadata.get("stop_reason")
            epoch = metadata.get("epoch")
            choices = _options(line.input)
            yield Trial(
                sample_id=str(line.sample_id), epoch=epoch if isinstance(epoch, int) and epoch > 0 else 1,
                params=pick_params(metadata, options.params), score=1.0 if line.evaluation.is_correct else 0.0,
                truncated=is_truncated(stop if isinstance(stop, str) else None, usage.output_tokens, limit),
                options=choices,
                tokens=count_tokens(usage.output_tokens, usage.reasoning_tokens),
                input_tokens=usage.input_tokens, compressed=compressed_size(_output_text(line.output)),
            )


def _output_text(output: _Output | None) -> str | None:
    """The instance's output: `output.raw` as a string (schema 0.2) or the first of a list (0.3)."""
    raw = output.raw if output is not None else None
    if isinstance(raw, list):
        raw = raw[0] if raw else None
    return raw if isinstance(raw, str) else None


def _options(given: _Input | None) -> int | None:
    """The number of answer options, or None for write-in. A generation task whose
    converter copied its reference answers into `choices` (EEE narrativeqa from HELM) is
    write-in: in a multiple-choice sample the references are some of the choices, not all."""
    if given is None or not given.choices:
        return None
    references = given.reference if isinstance(given.reference, list) else [given.reference]
    if all(choice in references for choice in given.choices):
        return None
    return len(given.choices)


# -- the aggregate record beside an instance file ---------------------------------------------


def find_aggregate(path: Path) -> dict[str, Any] | None:
    """The EEE aggregate record this instance file belongs to, or None."""
    stem = path.name.removesuffix(".jsonl").removesuffix("_samples")
    sibling = path.with_name(stem + ".json")
    if sibling.is_file():
        record = _load(sibling)
        if record is not None:
            return record
    if path.parent.name == INSTANCE_DIR:
        found = _aggregates_under(path.parent.parent / "data").get(path.name)
        if found is not None:
            return _load(found)
    return None


def is_aggregate(path: Path) -> bool:
    """An EEE aggregate record (read with the instance file it describes, not on its own)."""
    if path.suffix.lower() != ".json" or not path.is_file():
        return False
    try:
        with path.open("rb") as fh:
            head = fh.read(4096)
    except OSError:
        return False
    return b'"schema_version"' in head and (b'"evaluation_results"' in head or b'"source_metadata"' in head
                                            or b'"model_info"' in head)


@lru_cache(maxsize=64)
def _aggregates_under(root: Path) -> dict[str, Path]:
    """Instance file name -> aggregate record, for the records under `root` that point at one."""
    found: dict[str, Path] = {}
    try:
        candidates = sorted(root.rglob("*.json")) if root.is_dir() else []
    except OSError:
        return found
    for candidate in candidates:
        try:
            if candidate.stat().st_size > AGGREGATE_MAX_BYTES:
                continue
            head = candidate.read_bytes()
        except OSError:
            continue
        if b'"detailed_evaluation_results"' not in head:
            continue
        try:
            record = json.loads(head)
        except ValueError:
            continue
        detail = record.get("detailed_evaluation_results") if isinstance(record, dict) else None
        file_path = detail.get("file_path") if isinstance(detail, dict) else None
        if isinstance(file_path, str) and file_path:
            found.setdefault(Path(file_path).name, candidate)
    return found


def _load(path: Path) -> dict[str, Any] | None:
    try:
        record = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) else None


def _settings(record: dict[str, Any] | None) -> dict[str, Any]:
    """Temperature, token limit, generation arguments and harness from an aggregate record
    (schema 0.1: `generation_config` flat; 0.2+: `generation_config.generation_args`)."""
    out: dict[str, Any] = {"harness": HARNESS, "version": None, "temperature": None, "max_tokens": None,
                           "generation_args": {}}
    if not record:
        return out
    results = record.get("evaluation_results")
    first = _object(results[0]) if isinstance(results, list) and results else {}
    config = _object(first.get("generation_config"))
    args = _object(config.get("generation_args")) or config
    gen = {k: args[k] for k in ("temperature", "max_tokens", "top_p", "top_k") if _number(args.get(k))}
    out["generation_args"] = gen
    out["temperature"] = gen.get("temperature")
    out["max_tokens"] = int(gen["max_tokens"]) if "max_tokens" in gen else None
    library = _object(record.get("eval_library"))
    source = _object(record.get("source_metadata"))
    name = next((n for n in (library.get("name"), source.get("source_name"))
                 if isinstance(n, str) and n.strip() and n.strip().lower() != "unknown"), None)
    if name:
        out["harness"] = name.strip()
        version = library.get("version")
        out["version"] = version if isinstance(version, str) else None
    return out


def _object(value: Any) -> dict[str, Any]:
    """A JSON object, or an empty one for anything else (converters write all sorts)."""
    return value if isinstance(value, dict) else {}


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)
