"""The R badge of a model whose one result has two reports, only one of which leaves
temperature and max_tokens out: real HELM and EEE-converted outputs of the same
pythia-1b-v0 hellaswag run (tests/data/per-instance), ingested as two evaluations (the HELM
run records `max_tokens: 1, temperature: 0`; the EEE conversion records neither). The result
has a gap (EVALCARDS.md section 4: any report), but "its one result leaves out max_tokens,
temperature" printed beside the HELM row, whose settings state both, reads as false; the
sentence says the gap is in at least one of its reports. Expectations come from evals.json
and signals.json, not from the badge code."""

from __future__ import annotations

import json
from pathlib import Path

from helpers_lab import cli_ok
from helpers_site import page

DATA = Path(__file__).parent / "data" / "per-instance"
INPUTS = (DATA / "helm" / "every_eval_ever", DATA / "eee" / "every_eval_ever" / "None")


def test_a_gap_in_one_of_several_reports_is_said_so(tmp_path):
    data, site = tmp_path / "data", tmp_path / "site"
    cli_ok("ingest", *map(str, INPUTS), "--data", str(data))
    # One board over mmlu (gpt2's), so pythia has no score: its rows show what an evaluation
    # without one shows.
    config = tmp_path / "site.toml"
    config.write_text('[[boards]]\nname = "MMLU"\ntasks = ["mmlu"]\n', encoding="utf-8")
    cli_ok("build", "--data", str(data), "--out", str(site), "--cache", str(tmp_path / "cache"), "--quiet",
         "--config", str(config))
    evals = [e for e in json.loads((data / "evals.json").read_text(encoding="utf-8"))
             if e["model"] == "eleutherai/pythia-1b-v0"]
    stated = [e for e in evals if {"temperature", "max_tokens"} <= set(e.get("generation_args") or {})]
    assert len(evals) == 2 and len(stated) == 1
    signals = json.loads((site / "data" / "signals.json").read_text(encoding="utf-8"))
    triples = [t for t in signals["triples"] if t["model"] == "eleutherai/pythia-1b-v0"]
    assert len(triples) == 1 and triples[0]["reports"] == 2 and triples[0]["reproducibility"]["gap"]
    board = json.loads((site / "data" / "leaderboard.json").read_text(encoding="utf-8"))
    slugs = [m["slug"] for m in board["models"] if m["model"] == "eleutherai/pythia-1b-v0"]
    assert len(slugs) == 2
    # The group page: an evaluation with no score on the board has no score per token to
    # withhold (the HELM run's 1-token cap was given as the reason for withholding it).
    group = page(site, f"models/{slugs[0].split('/')[0]}.html")
    rows = group.by_id("evaluations").parent.find("tbody").find_all("tr")
    assert len(rows) == 2
    for row in rows:
        cells = {c.attrs.get("data-label"): c.text for c in row.children if hasattr(c, "attrs")}
        assert all(m["reasonscore"]["center"] is None for m in board["models"] if m["model"] == "eleutherai/pythia-1b-v0")
        assert cells["Score/token"] == "—", cells
    for slug in [*slugs, slugs[0].split("/")[0]]:
        doc = page(site, f"models/{slug}.html")
        said = [b.text for b in doc.find_all("span", cls="badge-text") if "leaves out" in b.text]
        assert said, slug
        for sentence in said:
            assert sentence.endswith("in at least one of its reports"), (slug, sentence)


def test_a_model_scored_only_by_log_likelihood_is_not_said_to_report_its_settings(tmp_path):
    """Real lm-eval outputs (tests/data/per-instance/lm-eval): Llama-3-8B-Instruct's asdiv and
    Qwen3-8B's two 4-option negotiationtom subtasks are scored by log-likelihood (evals.json
    `likelihood_tasks`) with no generation settings at all; Qwen3-8B's third subtask samples
    with temperature 0 and 48 tokens. No badge says a likelihood-only model "reports every
    reproducibility field": it reports none, and none applies."""
    data, site = tmp_path / "data", tmp_path / "site"
    cli_ok("ingest", str(DATA / "lm-eval"), "--data", str(data))
    cli_ok("build", "--data", str(data), "--out", str(site), "--cache", str(tmp_path / "cache"), "--quiet")
    evals = json.loads((data / "evals.json").read_text(encoding="utf-8"))
    board = json.loads((site / "data" / "leaderboard.json").read_text(encoding="utf-8"))
    checked = 0
    for model in sorted({e["model"] for e in evals}):
        mine = [e for e in evals if e["model"] == model]
        tasks = [(e, t) for e in mine for m in board["models"]
                 if (m["model"], m["template"], m["sampler"]) == (e["model"], e["template"], e["sampler"])
                 for t in m["tasks"]]
        idle = [t for e, t in tasks if t in (e.get("likelihood_tasks") or [])]
        if not idle:
            continue
        slugs = [m["slug"] for m in board["models"] if m["model"] == model]
        for slug in slugs:
            doc = page(site, f"models/{slug}.html")
            said = [b.text for b in doc.find_all("span", cls="badge-text") if b.text.startswith("Reproducibility")
                    or "reproducibility field" in b.text or "log-likelihood" in b.text]
            assert said, slug
            for sentence in said:
                if len(idle) == len(tasks):
                    assert "reports every reproducibility field" not in sentence, (slug, sentence)
                    assert "nothing was sampled" in sentence, (slug, sentence)
                elif "every reproducibility field" in sentence:
                    assert f"({len(idle)} scored by log-likelihood sampled nothing)" in sentence, (slug, sentence)
            checked += 1
    assert checked >= 3  # Llama's one page, Qwen3's two evaluation pages
