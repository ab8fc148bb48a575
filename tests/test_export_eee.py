"""`reasonboard export eee`: the leaderboard's own results as Every Eval Ever records.

What a lab relies on when it sends the records to the shared corpus: every record is valid
against the EEE 0.3.0 schema (checked with `jsonschema`, an independent validator), the
numbers are the leaderboard's (checked against C_P recomputed here from the points files
with STATISTICS.md's formulas), an export is byte-for-byte repeatable and its ids change
exactly when a result does, and the records read back through the normal EEE reader
reproduce the leaderboard's own result rows, with the reproducibility signal the exported
generation arguments call for (worked out here from `evals.json`, not from the code).
"""

from __future__ import annotations

import csv
import io
import json
import math
import shutil
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner
from helpers_points import trial_counters, write_demo_points
from reasonboard import __version__
from reasonboard.build import BuildOptions, Gathered, gather, load_settings
from reasonboard.cli import main
from reasonboard.export.eee import EEEExport, eee_records, split_generation_args
from reasonboard.export.writer import MANIFEST

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "data"
SCHEMA = json.loads((ROOT / "tests" / "data" / "eee-schema" / "eval.schema.json").read_text(encoding="utf-8"))
INSPECT_LOGS = ROOT / "tests" / "data" / "per-instance" / "inspect" / "inspect_ai" / "log-sets" / "set"
Z975 = 2.241402727604947


@dataclass(frozen=True)
class Exported:
    gathered: Gathered
    export: EEEExport


def export_of(data_dir: Path, cache_dir: Path, timestamp: str | None = None) -> Exported:
    options = BuildOptions(project=ROOT, data_dir=data_dir, cache_dir=cache_dir)
    project, config, bands = load_settings(options)
    gathered = gather(options, project, config, bands)
    board = gathered.board
    return Exported(gathered, eee_records(board.leaderboard, gathered.config, __version__, timestamp))


@pytest.fixture(scope="module")
def default_export(tmp_path_factory: pytest.TempPathFactory) -> Exported:
    return export_of(DATA, tmp_path_factory.mktemp("export-cache"))


def cli_export(data_dir: Path, out: Path, cache: Path, env: dict[str, str] | None = None):
    return CliRunner().invoke(main, ["export", "eee", "--project", str(ROOT), "--data", str(data_dir),
                                     "--cache", str(cache), "--out", str(out)], env=env)


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


# -- independent readings -------------------------------------------------------------------


def wilson(s: float, t: float, z: float) -> tuple[float, float]:
    """(low, high) of STATISTICS.md section 1."""
    if t <= 0:
        return 0.0, 1.0
    s = min(max(s, 0.0), t)
    p, d = s / t, 1 + z * z / t
    center = (p + z * z / (2 * t)) / d
    margin = z * math.sqrt(p * (1 - p) / t + z * z / (4 * t * t)) / d
    return center - margin, center + margin


def c_p_from_points(data_dir: Path) -> dict[tuple[str, str, str, str], tuple[float, float, float, int]]:
    """(model, template, sampler, task) -> (estimate, low, high, trials), summing the
    counters of the points files and applying C_P as STATISTICS.md section 2 states it."""
    sums: dict[tuple, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0, 0.0])
    for path in sorted((data_dir / "points").glob("*.csv")):
        with path.open(newline="", encoding="utf-8") as f:
            for row in csv.DictReader(f):
                acc = sums[(row["model"], row["template"], row["sampler"], row["base_task"])]
                for i, name in enumerate(("total", "truncated", "correct", "guess")):
                    acc[i] += float(row[name])
    for key, counters in trial_counters(data_dir).items():
        sums[key] = counters[:4]
    out = {}
    for k, (n, n_t, n_e, g) in sums.items():
        n_u = n - n_t
        a, u = wilson(n_e - g, n_u - g, Z975), wilson(n_u, n, Z975)
        ac, uc = sum(a) / 2, sum(u) / 2
        out[k] = (ac * uc, a[0] * u[0], a[1] * u[1], int(n))
    return out


def evals_by_id(data_dir: Path) -> dict[str, dict]:
    entries = json.loads((data_dir / "evals.json").read_text(encoding="utf-8"))
    return {f"{e['model']}|{e['template']}|{e['sampler']}": e for e in entries}


# -- the records ----------------------------------------------------------------------------


def test_every_record_is_valid_eee_0_3_0(default_export: Exported) -> None:
    validator = jsonschema.Draft7Validator(SCHEMA)
    records = default_export.export.records
    assert len(records) == len(default_export.gathered.board.leaderboard.models) == 20
    for record in records:
        document = json.loads(record.data)
        errors = sorted(validator.iter_errors(document), key=lambda e: list(e.path))
        assert not errors, f"{record.path}: {errors[0].message} at {list(errors[0].path)}"
        assert document["schema_version"] == "0.3.0"


def test_layout_and_metadata_follow_the_corpus_and_evals_json(default_export: Exported) -> None:
    evals = evals_by_id(DATA)
    for record in default_export.export.records:
        document = json.loads(record.data)
        entry = evals[record.evaluation]
        hf_id = entry["hf_id"]
        uid = record.path.rsplit("/", 1)[1].removesuffix(".json")
        developer, name = hf_id.split("/", 1)
        assert record.path == f"reasonboard-demo-leaderboard/{developer}/{name}/{uid}.json"
        assert document["evaluation_id"].endswith(uid)
        assert document["model_info"]["id"] == hf_id and document["model_info"]["developer"] == developer
        assert document["model_info"]["additional_details"]["simulated"] == "true"
        source = document["source_metadata"]
        assert source["source_organization_name"] == entry["organization"]
        assert source["evaluator_relationship"] == entry["relationship"]
        assert source["source_type"] == "evaluation_run"
        assert document["eval_library"] == {"name": "reasonboard", "version": __version__,
                                            "additional_details": {"harness": entry["harness"]}}
        for result in document["evaluation_results"]:
            assert result["generation_config"] == {"generation_args": entry["generation_args"]}


def test_task_results_are_the_c_p_estimates_of_the_points(default_export: Exported) -> None:
    expected = c_p_from_points(DATA)
    seen = 0
    for record in default_export.export.records:
        document = json.loads(record.data)
        model, template, sampler = record.evaluation.split("|")
        for result in document["evaluation_results"][:-1]:
            estimate, low, high, trials = expected[(model, template, sampler, result["evaluation_name"])]
            score = result["score_details"]
            interval = score["uncertainty"]["confidence_interval"]
            assert score["score"] == pytest.approx(estimate, abs=1e-6)
            assert (interval["lower"], interval["upper"]) == (pytest.approx(low, abs=1e-6), pytest.approx(high, abs=1e-6))
            assert interval["confidence_level"] == 0.95
            assert score["uncertainty"]["num_samples"] == trials
            metric = result["metric_config"]
            assert (metric["metric_id"], metric["min_score"], metric["max_score"]) == ("p_correct", 0.0, 1.0)
            assert "guess- and truncation-corrected accuracy" in metric["metric_name"]
            assert metric["evaluation_description"].endswith("Method: methodology.html")
            seen += 1
    assert seen == len(expected)  # every (evaluation, task) of the points, once


def test_the_reasonscore_is_the_leaderboards_on_its_own_scale(default_export: Exported) -> None:
    models = {m.id: m for m in default_export.gathered.board.leaderboard.models}
    for record in default_export.export.records:
        result = json.loads(record.data)["evaluation_results"][-1]
        rs = models[record.evaluation].score
        interval = result["score_details"]["uncertainty"]["confidence_interval"]
        assert result["evaluation_name"] == "ReasonScore"
        assert (result["score_details"]["score"], interval["lower"], interval["upper"]) == (
            rs.center, rs.ci_low, rs.ci_high)
        assert 10 <= interval["lower"] <= result["score_details"]["score"] <= interval["upper"] <= 1000
        assert result["score_details"]["score"] == pytest.approx((interval["lower"] + interval["upper"]) / 2, abs=1e-3)
        assert result["score_details"]["uncertainty"]["num_bootstrap_samples"] == 5000
        assert (result["metric_config"]["min_score"], result["metric_config"]["max_score"]) == (10.0, 1000.0)


def test_generation_args_the_schema_cannot_hold_go_to_additional_details() -> None:
    args, extra, notes = split_generation_args({"temperature": 0.6, "max_tokens": "16k", "seed": 7,
                                                "stop": ["\n"], "top_k": None})
    assert args == {"temperature": 0.6, "top_k": None}
    assert extra == {"max_tokens": "16k", "seed": "7", "stop": '["\\n"]'}
    assert len(notes) == 1 and "max_tokens" in notes[0]


# -- determinism and ids --------------------------------------------------------------------


def test_two_exports_are_byte_identical(tmp_path: Path) -> None:
    first = cli_export(DATA, tmp_path / "a", tmp_path / "cache")
    second = cli_export(DATA, tmp_path / "b", tmp_path / "cache")
    assert first.exit_code == 0, first.output
    assert second.exit_code == 0, second.output
    assert "Exported 20 EEE records" in first.output and "simulated demo data" in first.output
    a, b = tree(tmp_path / "a"), tree(tmp_path / "b")
    assert a == b and len(a) == 21  # 20 records and the manifest
    again = cli_export(DATA, tmp_path / "a", tmp_path / "cache")  # replacing an earlier export is fine
    assert again.exit_code == 0, again.output
    assert tree(tmp_path / "a") == b


def test_source_date_epoch_sets_the_timestamp_and_not_the_id(default_export: Exported, tmp_path: Path) -> None:
    # The same results written with a timestamp (the records are a function of the results).
    gathered = default_export.gathered
    stamped = eee_records(gathered.board.leaderboard, gathered.config, __version__, "1767225600")
    plain = {r.evaluation: r for r in default_export.export.records}
    for record in stamped.records:
        assert json.loads(record.data)["retrieved_timestamp"] == "1767225600"
        assert json.loads(plain[record.evaluation].data)["retrieved_timestamp"] == "0"
        assert record.evaluation_id == plain[record.evaluation].evaluation_id
    result = cli_export(DATA, tmp_path / "out", tmp_path / "cache", env={"SOURCE_DATE_EPOCH": "yesterday"})
    assert result.exit_code == 2 and "SOURCE_DATE_EPOCH" in result.output and not (tmp_path / "out").exists()


def copy_inputs(tmp_path: Path, with_reported: bool = False) -> Path:
    data = tmp_path / "data"
    write_demo_points(data, 16, 0)  # the default data's evaluations, as points files to edit
    if with_reported:
        shutil.copytree(DATA / "eee", data / "eee")
        shutil.copytree(DATA / "cards", data / "cards")
    return data


def test_a_changed_point_changes_that_evaluations_id_and_only_its(default_export: Exported, tmp_path: Path) -> None:
    data = copy_inputs(tmp_path)
    points = data / "points" / "bramble-4b-instruct.csv"
    lines = points.read_text(encoding="utf-8").splitlines(keepends=True)
    header = lines[0].strip().split(",")
    row = next(csv.reader([lines[1]]))
    changed = f"{row[0]}|{row[1]}|{row[2]}"
    correct = header.index("correct")
    row[correct] = str(int(row[correct]) - 1)
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerow(row)
    points.write_text("".join([lines[0], out.getvalue(), *lines[2:]]), encoding="utf-8")

    unchanged = copy_inputs(tmp_path / "unchanged")
    before = {r.evaluation: r.evaluation_id for r in export_of(unchanged, tmp_path / "cache0").export.records}
    after = {r.evaluation: r.evaluation_id for r in export_of(data, tmp_path / "cache").export.records}
    assert before.keys() == after.keys()
    assert [e for e in before if before[e] != after[e]] == [changed]


# -- the output directory -------------------------------------------------------------------


def test_a_directory_holding_other_files_is_never_replaced(tmp_path: Path) -> None:
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("mine", encoding="utf-8")
    result = cli_export(DATA, out, tmp_path / "cache")
    assert result.exit_code == 2
    assert "refusing to replace" in result.output and "notes.txt" in result.output
    assert tree(out) == {"notes.txt": b"mine"}

    # An earlier export with a file the user added inside it is refused too.
    export = tmp_path / "export"
    assert cli_export(DATA, export, tmp_path / "cache").exit_code == 0
    added = next(export.rglob("*.json")).parent / "review.md"
    added.write_text("my review", encoding="utf-8")
    result = cli_export(DATA, export, tmp_path / "cache")
    assert result.exit_code == 2 and "review.md" in result.output
    assert added.read_text(encoding="utf-8") == "my review"
    assert (export / MANIFEST).is_file()


# -- the round trip -------------------------------------------------------------------------


def check_round_trip(data: Path, tmp_path: Path) -> int:
    """Export `data`, add the records under its `eee/`, gather again, and check that every
    own result row comes back as a reported row of the same triple, score, party and
    reproducibility; returns how many rows were checked."""
    first = export_of(data, tmp_path / "cache-1")
    written = tmp_path / "export"
    result = cli_export(data, written, tmp_path / "cache-1")
    assert result.exit_code == 0, result.output
    shutil.copytree(written, data / "eee" / "reasonboard-export")
    evals = evals_by_id(data)
    again = export_of(data, tmp_path / "cache-2")
    rows = again.gathered.signals.rows
    own = [r for r in rows if r.own]
    back = {(r.evaluation_id, r.benchmark_key): r for r in rows
            if not r.own and r.source_path and r.source_path.startswith("eee/reasonboard-export/")}
    exported_id = {r.evaluation: r.evaluation_id for r in first.export.records}
    assert own and len(back) == first.export.results
    for row in own:
        twin = back[(exported_id[row.evaluation_id], row.benchmark_key)]
        assert (twin.triple, twin.score, twin.org_key, twin.relationship) == (
            row.triple, row.score, row.org_key, row.relationship)
        assert twin.metric_key == "p-correct" and twin.min_score == 0.0 and twin.max_score == 1.0
        args = evals[row.evaluation_id].get("generation_args") or {}
        expected_missing = tuple(f for f in ("temperature", "max_tokens") if args.get(f) is None)
        if twin.agentic:
            expected_missing += tuple(f for f in ("eval_plan", "eval_limits") if args.get(f) is None)
        assert twin.missing == row.missing == expected_missing
        for name in ("temperature", "max_tokens", "top_p"):
            value = twin.setup_fields[name]
            assert (None if value is None else float(value)) == args.get(name)
        # The whole setup agrees, the harness included: the EEE reader takes the harness a
        # reasonboard export names in eval_library.additional_details, not "reasonboard".
        differing = {f for f in row.setup_fields if row.setup_fields[f] != twin.setup_fields[f]}
        assert differing == set()
        assert twin.setup_fields["harness"] == (evals[row.evaluation_id].get("harness") or None)
    # The ReasonScore comes back too, on its own scale.
    models = {m.id: m for m in first.gathered.board.leaderboard.models}
    for evaluation, eid in exported_id.items():
        assert back[(eid, "reasonscore")].score == models[evaluation].score.center
    return len(own)


def test_round_trip_on_the_default_data(tmp_path: Path) -> None:
    data = copy_inputs(tmp_path, with_reported=True)
    evals = json.loads((data / "evals.json").read_text(encoding="utf-8"))
    assert any("max_tokens" not in e["generation_args"] for e in evals)  # a reproducibility gap is exercised
    assert any("temperature" not in e["generation_args"] for e in evals)
    assert check_round_trip(data, tmp_path) == len(c_p_from_points(data))  # every (evaluation, task)


def test_round_trip_on_ingested_inspect_logs(tmp_path: Path) -> None:
    data = tmp_path / "data"
    result = CliRunner().invoke(main, ["ingest", str(INSPECT_LOGS), "--data", str(data),
                                       "--organization", "Example Lab", "--relationship", "third_party"])
    assert result.exit_code == 0, result.output
    assert len(evals_by_id(data)) == 3  # the popularity logs of three models
    assert check_round_trip(data, tmp_path) > 0


def test_an_evaluation_without_an_organisation_is_an_error_naming_the_config(tmp_path: Path) -> None:
    data = copy_inputs(tmp_path)
    entries = json.loads((data / "evals.json").read_text(encoding="utf-8"))
    (data / "evals.json").write_text(json.dumps([{k: v for k, v in e.items() if k not in ("organization", "simulated")}
                                                 for e in entries]), encoding="utf-8")
    config = tmp_path / "site.toml"
    config.write_text('title = "Lab board"\n', encoding="utf-8")
    result = CliRunner().invoke(main, ["export", "eee", "--data", str(data), "--config", str(config),
                                       "--cache", str(tmp_path / "cache"), "--out", str(tmp_path / "out")])
    assert result.exit_code == 2
    assert f"{config}: evaluation " in result.output and "names no organisation" in result.output
    assert "Traceback" not in result.output and not (tmp_path / "out").exists()


def test_arguments_outside_the_schema_still_give_valid_records_and_a_warning(tmp_path: Path) -> None:
    data = copy_inputs(tmp_path)
    entries = json.loads((data / "evals.json").read_text(encoding="utf-8"))
    entries[0]["generation_args"] = {"temperature": 0.6, "max_tokens": "16k", "seed": 7, "stop": ["\n"]}
    (data / "evals.json").write_text(json.dumps(entries), encoding="utf-8")
    result = cli_export(data, tmp_path / "out", tmp_path / "cache")
    assert result.exit_code == 0, result.output
    ident = f"{entries[0]['model']}|{entries[0]['template']}|{entries[0]['sampler']}"
    assert f"warning: {ident}: generation_args.max_tokens" in result.output
    validator = jsonschema.Draft7Validator(SCHEMA)
    records = sorted((tmp_path / "out").rglob("*.json"))
    assert len(records) == 20
    for path in records:
        document = json.loads(path.read_text(encoding="utf-8"))
        assert not list(validator.iter_errors(document)), path
        if document["source_metadata"]["additional_details"]["reasonboard_evaluation"] == ident:
            generation = document["evaluation_results"][0]["generation_config"]
            assert generation == {"generation_args": {"temperature": 0.6},
                                  "additional_details": {"max_tokens": "16k", "seed": "7", "stop": '["\\n"]'}}
