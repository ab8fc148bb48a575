"""Reproducibility fields by task kind (EVALCARDS.md section 4), on real lm-eval files.

A task scored by log-likelihood (lm-eval `loglikelihood` and `multiple_choice`) samples
nothing: no temperature or token limit applies, so its result rows must not list them as
missing. The rule is the task's kind as the harness recorded it (`likelihood_tasks` in
`evals.json`, written by ingest), not a harness: the same numbers without that entry list
both fields, and a generating task keeps needing them. A token limit recorded in the
harness's own spelling (`max_gen_toks`) is reported, not missing.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers_lab import cli_ok
from helpers_site import badge_sentence, column_cell, page
from reasonboard.cli import main
from reasonboard.signals.reproducibility import required_fields

LMEVAL = Path(__file__).parent / "data" / "per-instance" / "lm-eval" / "lm-evaluation-harness"
#: asdiv, output_type loglikelihood (Meta-Llama-3-8B-Instruct, a 2024 git build).
ASDIV = LMEVAL / "results" / "asdiv"
#: negotiationtom: two multiple_choice subtasks and one generate_until (max_gen_toks 48).
NEGOTIATION = LMEVAL / "outputs" / "qwen3-8b"


def _results(site: Path, model_page: str) -> dict[str, tuple[str, str]]:
    """{benchmark: (the "Missing for reproducibility" cell, the R badge's text)} of the result
    rows a model page shows, as a reader sees them."""
    rows = {}
    doc = page(site, model_page)
    table = doc.by_id("reported-results")
    for tr in table.find_all("tr"):
        if not tr.attrs.get("id", "").startswith("r-"):
            continue
        cell = column_cell(table, tr, "Missing for reproducibility")
        badge = next(li for li in tr.find_all("li", cls="badge") if li.find("b").text == "R")
        rows[tr.find("th").text.strip()] = (cell.text.strip(), badge_sentence(doc, badge))
    return rows


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    project = tmp_path_factory.mktemp("kind") / "lab"
    cli_ok("init", str(project))
    cli_ok("ingest", str(ASDIV), str(NEGOTIATION), "--project", str(project))
    cli_ok("build", "--project", str(project), "--quiet")
    return project


def test_ingest_records_the_tasks_scored_by_log_likelihood(built):
    evals = {(e["model"], e["sampler"]): e for e in json.loads((built / "data" / "evals.json").read_text())}
    assert evals[("meta-llama/Meta-Llama-3-8B-Instruct", "default")]["likelihood_tasks"] == ["asdiv"]
    assert evals[("Qwen/Qwen3-8B", "default")]["likelihood_tasks"] == ["negotiationtom_belief",
                                                                        "negotiationtom_desire"]
    generating = evals[("Qwen/Qwen3-8B", "greedy-48")]
    assert "likelihood_tasks" not in generating
    assert generating["generation_args"]["max_gen_toks"] == 48


def test_a_log_likelihood_task_lists_no_sampling_field_as_missing(built):
    site = built / "site"
    llama = _results(site, "models/meta-llama-meta-llama-3-8b-instruct.html")
    qwen = _results(site, "models/qwen-qwen3-8b/0shot-chat-default.html")
    assert set(llama) == {"asdiv"} and set(qwen) == {"negotiationtom-belief", "negotiationtom-desire"}
    for missing, badge in [*llama.values(), *qwen.values()]:
        assert missing == "none"
        assert badge == ("Reproducibility: scored by log-likelihood: nothing was sampled, "
                         "so no temperature or max_tokens applies")
    signals = json.loads((site / "data" / "signals.json").read_text())
    likelihood = [t for t in signals["triples"] if t["benchmark"] in ("asdiv", "negotiationtom-belief")]
    assert len(likelihood) == 2 and all(t["reproducibility"] == {"gap": False, "missing": [], "agentic": False}
                                        for t in likelihood)


def test_a_generating_task_needs_both_and_max_gen_toks_is_its_token_limit(built):
    (row,) = _results(built / "site", "models/qwen-qwen3-8b/0shot-chat-greedy-48.html").values()
    assert row == ("none", "Reproducibility: reports every required field (temperature, max_tokens)")


def test_the_rule_is_the_task_kind_not_the_harness(built, tmp_path):
    """The same evaluations without `likelihood_tasks` (a hand-written entry that does not say
    how its tasks were scored) list both fields as missing: nothing is assumed."""
    project = tmp_path / "lab"
    cli_ok("init", str(project))
    for part in ("trials", "evals.json"):
        source = built / "data" / part
        if source.is_dir():
            for f in source.iterdir():
                (project / "data" / part).mkdir(parents=True, exist_ok=True)
                (project / "data" / part / f.name).write_bytes(f.read_bytes())
    evals = json.loads((built / "data" / "evals.json").read_text())
    for e in evals:
        e.pop("likelihood_tasks", None)
    (project / "data" / "evals.json").write_text(json.dumps(evals))
    cli_ok("build", "--project", str(project), "--quiet")
    (missing, badge), = _results(project / "site", "models/meta-llama-meta-llama-3-8b-instruct.html").values()
    assert missing == "temperaturemax_tokens"  # two list items
    assert badge == ("Reproducibility: does not report temperature, max_tokens "
                     "(required: temperature, max_tokens)")


def test_required_fields_by_kind():
    assert required_fields(agentic=False) == ("temperature", "max_tokens")
    assert required_fields(agentic=False, sampled=False) == ()
    assert required_fields(agentic=True, sampled=False) == ("harness", "eval_plan", "eval_limits")
    assert required_fields(agentic=True) == ("temperature", "max_tokens", "harness", "eval_plan", "eval_limits")


def test_evals_json_likelihood_tasks_must_be_task_names(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    (data / "evals.json").write_text(json.dumps([{"model": "m", "template": "t", "sampler": "s",
                                                  "likelihood_tasks": "asdiv"}]))
    result = CliRunner().invoke(main, ["build", "--data", str(data), "--out", str(tmp_path / "site")])
    assert result.exit_code == 2
    assert "'likelihood_tasks' must be a list of task names" in result.output
    assert 'got "asdiv", a string' in result.output


def test_a_sampler_of_log_likelihood_tasks_is_named_in_the_split_warning(tmp_path):
    """negotiationtom's multiple-choice subtasks record no generation settings (they sample
    nothing), its generating one does: the warning about the split says why."""
    lines = cli_ok("ingest", str(NEGOTIATION), "--data", str(tmp_path / "data"))
    (warning,) = [line for line in lines if line.startswith("warning: Qwen/Qwen3-8B")]
    assert warning == (
        "warning: Qwen/Qwen3-8B (template 0shot-chat) became 2 evaluations, one per sampler (default, greedy-48), "
        "because its logs recorded different generation settings (default: negotiationtom_belief, "
        "negotiationtom_desire, scored by log-likelihood, sample nothing); "
        "if they are one run, ingest its files again with --sampler NAME")


def test_a_sampler_mixing_log_likelihood_and_generated_tasks_is_described_as_it_is(tmp_path):
    """The real negotiationtom run, ingested with a second copy of it whose generating task
    recorded no settings: that copy's `negotiationtom_intention` lands in the settings-free
    sampler beside the two multiple-choice subtasks, which sample nothing. The warning says
    both, and that the generating task recorded no settings (the first copy's did)."""
    import shutil

    second = tmp_path / "second" / "Qwen__Qwen3-8B"
    shutil.copytree(NEGOTIATION / "negotiationtom" / "Qwen__Qwen3-8B", second)
    results = next(second.glob("results_*.json"))
    doc = json.loads(results.read_text(encoding="utf-8"))
    del doc["configs"]["negotiationtom_intention"]["generation_kwargs"]
    results.write_text(json.dumps(doc), encoding="utf-8")
    samples = next(second.glob("samples_negotiationtom_intention_*.jsonl"))
    rows = [json.loads(line) for line in samples.read_text(encoding="utf-8").splitlines() if line.strip()]
    for row in rows:
        for request in row["arguments"].values():
            request["arg_1"] = {}
    samples.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    lines = cli_ok("ingest", str(NEGOTIATION), str(tmp_path / "second"), "--data", str(tmp_path / "data"))
    (warning,) = [line for line in lines if line.startswith("warning: Qwen/Qwen3-8B")]
    assert warning == (
        "warning: Qwen/Qwen3-8B (template 0shot-chat) became 2 evaluations, one per sampler (default, greedy-48), "
        "because its logs recorded different generation settings (default: negotiationtom_belief, "
        "negotiationtom_desire, scored by log-likelihood, sample nothing, beside negotiationtom_intention, "
        "generated with no generation settings recorded); if they are one run, ingest its files again with "
        "--sampler NAME")
    evals = {e["sampler"]: e for e in json.loads((tmp_path / "data" / "evals.json").read_text(encoding="utf-8"))}
    assert evals["default"]["likelihood_tasks"] == ["negotiationtom_belief", "negotiationtom_desire"]
