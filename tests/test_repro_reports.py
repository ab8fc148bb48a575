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

from click.testing import CliRunner
from helpers_site import page
from reasonboard.cli import main

DATA = Path(__file__).parent / "data" / "per-instance"
INPUTS = (DATA / "helm" / "every_eval_ever", DATA / "eee" / "every_eval_ever" / "None")


def _run(*args: str) -> None:
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == 0, result.output


def test_a_gap_in_one_of_several_reports_is_said_so(tmp_path):
    data, site = tmp_path / "data", tmp_path / "site"
    _run("ingest", *map(str, INPUTS), "--data", str(data))
    _run("build", "--data", str(data), "--out", str(site), "--cache", str(tmp_path / "cache"), "--quiet")
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
    for slug in [*slugs, slugs[0].split("/")[0]]:
        doc = page(site, f"models/{slug}.html")
        said = [b.text for b in doc.find_all("span", cls="badge-text") if "leaves out" in b.text]
        assert said, slug
        for sentence in said:
            assert sentence.endswith("in at least one of its reports"), (slug, sentence)
