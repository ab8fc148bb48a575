"""What `reasonboard ingest` tells a lab about each input (INGEST.md section 6), on real files.

Every line names the evaluation it made (model / template / sampler), so one run split into
several evaluations shows, and a warning says how to join them; fixture models are named;
a path holding no harness output fails; and `aliases` make one run ingested under two names
(an Inspect log and its EEE conversion) one evaluation on the built site.
"""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner
from helpers_site import html_pages, page
from reasonboard.cli import main

DATA = Path(__file__).parent / "data" / "per-instance"
INSPECT = DATA / "inspect" / "inspect_ai" / "tests" / "log" / "test_eval_log"
SHORT = DATA / "inspect" / "every_eval_ever" / "tests" / "data" / "inspect" / "inspect_shortened"
ARC_INSPECT = DATA / "inspect" / "every_eval_ever" / "tests" / "data" / "inspect" / "data_arc_qwen.json"
ARC_EEE = DATA / "eee" / "every_eval_ever" / "instance_level_data" / "ai2_arc_ollama_qwen2.5:0.5b_1761001924.jsonl"


def _ingest(tmp_path: Path, *args: str) -> tuple[int, list[str]]:
    result = CliRunner().invoke(main, ["ingest", *args, "--data", str(tmp_path / "data")])
    return result.exit_code, result.output.splitlines()


def _line(lines: list[str], path: Path) -> str:
    (found,) = [line for line in lines if line.endswith(f"({path.as_posix()})")]
    return found


def test_each_line_names_template_sampler_and_samples_by_epochs(tmp_path):
    streaming, formats = INSPECT / "log_streaming.eval", INSPECT / "log_formats.eval"
    agentic = next((DATA / "inspect" / "inspect-action").rglob("small.eval"))
    code, lines = _ingest(tmp_path, str(streaming), str(formats), str(formats.with_suffix(".json")), str(agentic))
    assert code == 0, lines
    assert _line(lines, streaming).startswith(
        "inspect   azureai/Meta-Llama-3-1-405B-Instruct-jqf / default / default, popularity: 2 samples × 2 epochs  (")
    assert ": 1 sample × 6 epochs  (" in _line(lines, agentic)
    # The same run saved as .eval and .json: the earlier input's trial is replaced, and its line says so.
    assert _line(lines, formats).split(": ", 1)[1].startswith("1 sample × 1 epoch; 1 replaced by a later input  (")
    assert "replaced" not in _line(lines, formats.with_suffix(".json"))


def test_partial_credit_is_counted_on_its_line(tmp_path):
    lingoly = SHORT / "lingoly.json"
    code, lines = _ingest(tmp_path, str(lingoly))
    assert code == 0
    summary = next(line for line in lines if line.startswith("samples left out:"))
    partial = int(summary.split("; ")[1].split()[0])
    assert partial > 0
    assert f"; {partial} with partial credit (counted as not correct)  (" in _line(lines, lingoly)


def test_one_model_split_by_sampler_is_warned_with_the_fix(tmp_path):
    code, lines = _ingest(tmp_path, str(SHORT))
    assert code == 0
    samplers = {line.split(" / ")[2].split(",")[0] for line in lines
                if line.startswith("inspect   hf/Qwen/Qwen2.5-7B-Instruct / ")}
    assert samplers == {"default", "t0.001", "t0.5", "t0.001-12000"}
    (warning,) = [line for line in lines if line.startswith("warning: hf/Qwen/Qwen2.5-7B-Instruct")]
    assert "became 4 evaluations, one per sampler (default, t0.001, t0.001-12000, t0.5)" in warning
    assert "--sampler NAME" in warning
    # The fix joins them: one evaluation, no warning.
    code, lines = _ingest(tmp_path / "again", str(SHORT), "--sampler", "mixed")
    assert code == 0
    assert not [line for line in lines if line.startswith("warning: hf/")]
    evals = json.loads((tmp_path / "again" / "data" / "evals.json").read_text())
    assert [(e["model"], e["sampler"]) for e in evals] == [("hf/Qwen/Qwen2.5-7B-Instruct", "mixed")]


def test_fixture_models_are_ingested_with_a_warning(tmp_path):
    fixtures = [next((DATA / "inspect" / "inspect-action").rglob("test.eval")),
                INSPECT / "log_message_deduplication.eval",
                next((DATA / "lighteval").rglob("details_anli*.parquet"))]
    code, lines = _ingest(tmp_path, *map(str, fixtures))
    assert code == 0
    warned = sorted(line.split()[2] for line in lines if line.startswith("warning: model "))
    assert warned == ["eee-smoke/dummy-model", "hardcoded/hardcoded", "mockllm/model"]
    assert all("looks like a test fixture" in line for line in lines if line.startswith("warning: model "))
    models = {e["model"] for e in json.loads((tmp_path / "data" / "evals.json").read_text())}
    assert models == set(warned)  # ingested all the same
    code, lines = _ingest(tmp_path / "real", str(INSPECT / "log_streaming.eval"))
    assert not [line for line in lines if "fixture" in line]


def test_no_harness_output_is_exit_2_naming_what_ingest_reads(tmp_path):
    empty = tmp_path / "logs"
    empty.mkdir()
    (empty / "notes.txt").write_text("not a log")
    result = CliRunner().invoke(main, ["ingest", str(empty), "--data", str(tmp_path / "data")])
    assert result.exit_code == 2
    first = result.output.splitlines()[0]
    assert first.startswith(f"error: {empty.as_posix()}: no harness output found (ingest reads Inspect AI logs")
    for reads in ("lm-evaluation-harness", "HELM run directories", "lighteval", "Every Eval Ever"):
        assert reads in first
    assert "Traceback" not in result.output
    assert not (tmp_path / "data").exists()


def test_aliases_make_one_run_under_two_names_one_evaluation(tmp_path):
    from conftest import build_site

    code, lines = _ingest(tmp_path, str(ARC_INSPECT), str(ARC_EEE))
    assert code == 0
    assert {line.split(" / ")[0].split()[-1] for line in lines if " / " in line} == {
        "ollama/qwen2.5:0.5b", "ollama/qwen2.5-0.5b"}

    def models(site: Path) -> list[str]:
        return sorted(rel for rel in html_pages(site) if rel.startswith("models/") and "qwen" in rel)

    unaliased = build_site(tmp_path / "data", tmp_path / "before", tmp_path / "cache")
    assert len(models(unaliased.out)) == 2
    # The project's site.toml names them one: ingest writes one evaluation, the build shows one.
    project = tmp_path / "project"
    (project / "content").mkdir(parents=True)
    (project / "content" / "site.toml").write_text(
        '[aliases.models]\n"ollama/qwen2.5-0.5b" = "ollama/qwen2.5:0.5b"\n'
        '[aliases.benchmarks]\n"allenai/ai2_arc" = "arc_easy"\n')
    result = CliRunner().invoke(main, ["ingest", str(ARC_INSPECT), str(ARC_EEE), "--project", str(project)])
    assert result.exit_code == 0, result.output
    assert "ollama/qwen2.5-0.5b" not in result.output and "allenai/ai2_arc" not in result.output
    assert "3 replaced by a later input" in result.output  # the same three samples, read twice
    evals = json.loads((project / "data" / "evals.json").read_text())
    assert [e["model"] for e in evals] == ["ollama/qwen2.5:0.5b"]
    from reasonboard.build import BuildOptions, run_build

    run_build(BuildOptions(project=project))
    (model_page,) = models(project / "site")
    text = page(project / "site", model_page).text
    assert "ollama/qwen2.5:0.5b" in text and "ollama/qwen2.5-0.5b" not in text
    assert "allenai/ai2_arc" not in text
    front = page(project / "site", "index.html").text
    assert "ollama/qwen2.5-0.5b" not in front and "allenai/ai2_arc" not in front
