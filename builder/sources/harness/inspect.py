"""Inspect AI logs (`.eval` zip archives and `.json` logs) as trials (INGEST.md sections 1-5).

A `.eval` log is a zip: `header.json` (the eval spec, plan, results, status) and one
`samples/<id>_epoch_<n>.json` member per trial. Members are decoded one at a time, and
only the handful of fields a trial needs (msgspec Structs skip the rest without building
it), so memory stays flat however long the log. Newer Inspect versions compress members
with zstd (zip method 93), which Python's zipfile cannot read: those are decompressed
with `zstandard` from the member's raw bytes.

A `.json` log is one JSON document (`eval`, `plan`, `results`, `samples`); it is decoded
once with the same Structs, so it holds only the small per-sample records, never the
messages and events that make up most of its bytes.

Which score: the log's primary scorer (the first of `results.scores`) or `--scorer`.
Inspect records a dict-valued scorer's main value by naming a results entry after the
key (`name` = key, `scorer` = the scorer): that key is used; a dict value without such a
record has no single correctness, and the task is skipped.
"""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any, Iterator

import msgspec

from ..trials import (
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
    score_value,
    strip_registry,
)
from .archive import bounded, check_member, zstd_member
from .inspect_text import headline, output_text

FORMAT = "inspect"
HARNESS = "inspect_ai"
ZSTD_METHOD = 93
#: The zip compression methods Python's zipfile decompresses; zstd is handled here.
ZIPFILE_METHODS = frozenset({zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA})
#: A field that is absent or JSON null (msgspec.Raw cannot be optional).
NULL = msgspec.Raw(b"null")
#: Generation settings copied into `evals.json` `generation_args` when recorded.
GENERATION_KEYS = ("temperature", "max_tokens", "top_p", "top_k", "seed", "reasoning_effort",
                   "reasoning_tokens", "frequency_penalty", "presence_penalty", "num_choices")


# -- what is decoded (everything else in a log is skipped) ---------------------------------


class _ScorerRef(msgspec.Struct):
    name: str = ""
    scorer: str | None = None
    metrics: Any = None  # results: {name: {"value": ...}}; the eval spec's scorers: a list


class _Results(msgspec.Struct):
    scores: list[_ScorerRef] = []


class _EvalConfig(msgspec.Struct):
    epochs: int | None = None


class _Spec(msgspec.Struct):
    task: str = ""
    model: str = ""
    model_generate_config: dict[str, Any] | None = None
    config: _EvalConfig | None = None
    packages: dict[str, str] | None = None
    scorers: list[_ScorerRef] | None = None


class _Plan(msgspec.Struct):
    config: dict[str, Any] | None = None


class _Header(msgspec.Struct):
    eval: _Spec
    status: str = "success"
    plan: _Plan | None = None
    results: _Results | None = None


class _Score(msgspec.Struct):
    value: Any = None


class _Usage(msgspec.Struct):
    input_tokens: int | None = None
    output_tokens: int | None = None
    reasoning_tokens: int | None = None


class _Part(msgspec.Struct):
    type: str = ""
    text: str | None = None


class _Message(msgspec.Struct):
    content: str | list[_Part] | None = None


class _Choice(msgspec.Struct):
    stop_reason: str | None = None
    message: _Message | None = None


class _Output(msgspec.Struct):
    usage: _Usage | None = None
    choices: list[_Choice] = []
    stop_reason: str | None = None
    completion: str | None = None


class _Event(msgspec.Struct):
    event: str = ""
    config: msgspec.Raw = NULL


class _GenConfig(msgspec.Struct):
    max_tokens: int | None = None


class _Sample(msgspec.Struct):
    id: int | str
    epoch: int = 1
    choices: list[msgspec.Raw] | None = None
    metadata: dict[str, msgspec.Raw] | None = None
    scores: dict[str, _Score] | None = None
    output: _Output | None = None
    error: msgspec.Raw = NULL
    events: list[_Event] | None = None


class _JsonLog(_Header):
    samples: list[_Sample] | None = None


_header_decoder = msgspec.json.Decoder(_Header)
_sample_decoder = msgspec.json.Decoder(_Sample)
_log_decoder = msgspec.json.Decoder(_JsonLog)
_gen_decoder = msgspec.json.Decoder(_GenConfig)
_raw_decoder = msgspec.json.Decoder()


# -- recognising ------------------------------------------------------------------------


def detect(path: Path) -> bool:
    """A `.eval` file (zip; a corrupt one is still ours, to be named with its reason) or a
    JSON document that starts like an Inspect log (`version` / `status` / `eval` keys)."""
    if not path.is_file():
        return False
    if path.suffix.lower() == ".eval":
        return True
    if path.suffix.lower() != ".json":
        return False
    try:
        with path.open("rb") as fh:
            head = fh.read(4096)
    except OSError:
        return False
    text = head.removeprefix(BOM).lstrip()
    return text.startswith(b"{") and b'"eval"' in head and (b'"version"' in head[:200] or b'"status"' in head[:400])


# -- reading ----------------------------------------------------------------------------


#: The UTF-8 byte order mark a Windows editor puts before a saved file's text.
BOM = b"\xef\xbb\xbf"


def read(path: Path, options: ReadOptions) -> Iterator[Run]:
    """The one run of an Inspect log (one evaluation on one task)."""
    if path.suffix.lower() == ".eval":
        yield from _read_eval(path, options)
    else:
        yield from _read_json(path, options)


def _read_eval(path: Path, options: ReadOptions) -> Iterator[Run]:
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as exc:
        raise UnreadableInput(f"not a readable .eval archive ({exc})") from None
    members = {info.filename: info for info in archive.infolist()}
    if "header.json" in members:
        header = _decode(_header_decoder, _member_bytes(archive, path, members["header.json"]), "header.json")
    elif "_journal/start.json" in members:
        # A log still being written (or killed) has only its start record: status "started".
        header = _decode(_header_decoder, _member_bytes(archive, path, members["_journal/start.json"]),
                         "_journal/start.json")
        header.status = "started"
    else:
        archive.close()
        raise UnreadableInput("a zip without header.json: not an Inspect log")
    _check_status(header, options)
    names = sorted(n for n in members if n.startswith("samples/") and n.endswith(".json"))

    def samples() -> Iterator[_Sample]:
        with archive:
            for name in names:
                yield _decode(_sample_decoder, _member_bytes(archive, path, members[name]), name)

    yield _run(path, header, samples(), options)


def _read_json(path: Path, options: ReadOptions) -> Iterator[Run]:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise UnreadableInput(f"cannot read ({exc.strerror})") from None
    log = _decode(_log_decoder, data.removeprefix(BOM), None)
    _check_status(log, options)
    yield _run(path, log, iter(log.samples or ()), options)


def _decode(decoder: msgspec.json.Decoder[Any], data: bytes, member: str | None) -> Any:
    where = f" in {member}" if member else ""
    try:
        return decoder.decode(data)
    except msgspec.ValidationError as exc:
        raise UnreadableInput(f"not an Inspect log{where} ({exc})") from None
    except msgspec.DecodeError as exc:
        raise UnreadableInput(f"invalid JSON{where} ({exc})") from None


def _member_bytes(archive: zipfile.ZipFile, path: Path, info: zipfile.ZipInfo) -> bytes:
    """One member's bytes within the limits (archive.py); zstd ones decompressed here."""
    if info.compress_type != ZSTD_METHOD and info.compress_type not in ZIPFILE_METHODS:
        raise UnreadableInput(f"member {info.filename} uses zip compression method {info.compress_type}, "
                              "which reasonboard cannot decompress")
    check_member(info)
    try:
        if info.compress_type != ZSTD_METHOD:
            with archive.open(info) as stream:
                return bounded(stream, info)
        return zstd_member(path, info)
    except (zipfile.BadZipFile, OSError, EOFError, ValueError) as exc:
        raise UnreadableInput(f"corrupt member {info.filename} ({exc})") from None


def _check_status(header: _Header, options: ReadOptions) -> None:
    if header.status != "success" and not options.partial:
        raise UnreadableInput(f"log status is '{header.status}', not 'success' (use --partial to read its samples)")


# -- from a log to a run -----------------------------------------------------------------


def _run(path: Path, header: _Header, samples: Iterator[_Sample], options: ReadOptions) -> Run:
    spec = header.eval
    config = {**(spec.model_generate_config or {}), **((header.plan.config if header.plan else None) or {})}
    limit = _int_or_none(config.get("max_tokens"))
    version = (spec.packages or {}).get("inspect_ai")
    scorer, main_key = _primary_scorer(header, options)
    evaluation = Evaluation(
        harness=HARNESS, harness_version=version, model=spec.model.strip(), template="default",
        sampler=sampler_name(config.get("temperature"), limit), task=strip_registry(spec.task),
        metric=(scorer + (f".{main_key}" if main_key and main_key != scorer else "")) if scorer else "(no scorer)",
        generation_args={k: config[k] for k in GENERATION_KEYS if config.get(k) is not None},
        headline=_headline(header, scorer, main_key),
    )
    run = Run(source=path, format=FORMAT, evaluation=evaluation, trials=())
    run.trials = _trials(run, samples, scorer, main_key, limit, options)
    return run


def _primary_scorer(header: _Header, options: ReadOptions) -> tuple[str | None, str | None]:
    """(the sample `scores` key to read, the key of a dict value or None).

    `--scorer NAME` names a results entry, a scorer, or a key inside the primary scorer's
    dict values (`--scorer prompt_level_strict` for ifeval)."""
    entries = list(header.results.scores if header.results else [])
    if options.scorer:
        for entry in entries:
            if options.scorer in (entry.name, entry.scorer):
                return _entry_key(entry)
    if entries:
        scorer, key = _entry_key(entries[0])
    elif header.eval.scorers:
        scorer, key = header.eval.scorers[0].name, None
    else:
        scorer, key = None, None
    if options.scorer:
        return options.scorer, options.scorer if key is None else key
    return scorer, key


def _headline(header: _Header, scorer: str | None, main_key: str | None) -> tuple[str, float] | None:
    """The log's own headline figure (`inspect_text.headline`) of the scorer the credit is from."""
    for entry in header.results.scores if header.results else []:
        if _entry_key(entry) == (scorer, main_key) and isinstance(entry.metrics, dict):
            return headline({name: metric.get("value") for name, metric in entry.metrics.items()
                             if isinstance(metric, dict)})
    return None


def _entry_key(entry: _ScorerRef) -> tuple[str, str | None]:
    scorer = entry.scorer or entry.name
    return scorer, (entry.name if entry.name and entry.name != scorer else None)


def _trials(run: Run, samples: Iterator[_Sample], scorer: str | None, main_key: str | None,
            limit: int | None, options: ReadOptions) -> Iterator[Trial]:
    # The scorers of the samples `--scorer` names nothing of: when no sample has it, every
    # one would be "unscored" and the task vanish with no word of why, so the run is skipped
    # naming them (a sample or two without it are counted unscored, as any other).
    named, others = False, set[str]()
    for sample in samples:
        if bytes(sample.error) != b"null":
            run.counts["errors"] += 1
            continue
        scores = sample.scores or {}
        key = _score_key(scores, scorer, main_key)
        if key is None:
            if options.scorer:
                others.update(scores)
            run.counts["unscored"] += 1
            continue
        named = True
        value = scores[key].value
        if isinstance(value, dict):
            if main_key is None or main_key not in value:
                keys = ", ".join(sorted(value))
                run.skip = (f"task {run.evaluation.task}: scorer '{key}' gives an object ({{{keys}}}) and the log "
                            f"records no main key for it; pick one with --scorer")
                return
            value = value[main_key]
        score = score_value(value)
        if score is None:
            run.counts["unscored"] += 1
            continue
        output = sample.output or _Output()
        usage = output.usage or _Usage()
        tokens = count_tokens(usage.output_tokens, usage.reasoning_tokens)
        stop = output.choices[0].stop_reason if output.choices else output.stop_reason
        message = output.choices[0].message if output.choices else None
        sample_limit = limit if limit is not None else _event_limit(sample.events)
        yield Trial(
            sample_id=str(sample.id), epoch=sample.epoch or 1,
            params=_params(sample.metadata, options.params), score=score,
            truncated=is_truncated(stop, usage.output_tokens, sample_limit),
            options=len(sample.choices) if sample.choices else None, tokens=tokens,
            input_tokens=usage.input_tokens,
            compressed=compressed_size(output_text(output.completion, message.content if message else None)),
        )
    if others and not named:
        run.skip = (f"{run.evaluation.task}: no scorer {options.scorer} (the samples have: "
                    f"{', '.join(sorted(others))}); pick one with --scorer")


def _score_key(scores: dict[str, _Score], scorer: str | None, main_key: str | None) -> str | None:
    """The sample's score to read: the named scorer; with no scorer recorded, the first; with
    `--scorer` naming a key of dict values, the first scorer whose value has that key."""
    if scorer in scores:
        return scorer
    if scorer is None:
        return next(iter(scores), None)
    if main_key is not None:
        return next((k for k, v in scores.items() if isinstance(v.value, dict) and main_key in v.value), None)
    return None


def _params(metadata: dict[str, msgspec.Raw] | None, keys: tuple[str, ...]) -> str:
    if not metadata:
        return "{}"
    wanted = {k: _raw_decoder.decode(metadata[k]) for k in keys if k in metadata}
    return pick_params(wanted, keys)


def _event_limit(events: list[_Event] | None) -> int | None:
    """The token limit of the sample's last model call, when the run config has none
    (providers' own defaults are recorded only there: Inspect's hf provider, 2048)."""
    for event in reversed(events or ()):
        if event.event == "model" and bytes(event.config) != b"null":
            try:
                return _gen_decoder.decode(event.config).max_tokens
            except msgspec.DecodeError:
                return None
    return None


def _int_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
