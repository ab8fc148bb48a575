"""Cost: prices in evals.json (checked), cost per run and per correct answer on model pages
(never a number for what was not recorded), the cost–score frontier and its headline, each
checked against a plain computation here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import build_site
from helpers_points import point, write_csv
from helpers_site import parse, row_cells, section
from reasonboard.errors import InputError
from reasonboard.sources.evals import read_evals

TASKS = ("t1", "t2")
#: model -> (correct of 400 per task, output tokens per task, price_in, price_out)
MODELS = {
    "best": (330, 400_000, 3.0, 15.0),
    "cheap-tied": (322, 300_000, 0.5, 2.0),       # tied with best, far cheaper
    "cheaper-worse": (200, 200_000, 0.1, 0.4),    # cheapest, significantly worse: on the frontier
    "pricey-worse": (190, 900_000, 5.0, 30.0),    # dominated by cheaper and significantly better ones
    "no-tokens": (300, 0, 1.0, 4.0),              # tokens not recorded: no cost
    "unpriced": (250, 100_000, None, None),
}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("cost")
    data = base / "data"
    evals = []
    for name, (correct, tokens, p_in, p_out) in MODELS.items():
        write_csv(data / "points" / f"{name}.csv",
                  [point(model=name, base_task=t, total=400, correct=correct, tokens=tokens) for t in TASKS])
        entry = {"model": name, "template": "tpl", "sampler": "smp", "label": name}
        if p_in is not None:
            entry.update(price_in=p_in, price_out=p_out, price_source="https://example.org/prices",
                         price_date="2026-03-01")
        if name == "no-tokens":
            entry["observed"] = {"tokens": False}
        evals.append(entry)
    (data / "evals.json").write_text(json.dumps(evals), encoding="utf-8")
    return build_site(data, base / "site", base / "cache").out


def _run_cost(name: str) -> float:
    correct, tokens, _, p_out = MODELS[name]
    return p_out * tokens * len(TASKS) / 1e6


def _scores(site: Path) -> dict[str, dict]:
    board = json.loads((site / "data" / "leaderboard.json").read_text(encoding="utf-8"))
    return {m["label"]: m for m in board["models"]}


def _usd(x: float) -> str:
    return f"${x:,.2f}" if x >= 1 else f"${x:.3g}"


def _facts(site: Path, name: str) -> dict[str, str]:
    """The cost section's term -> description."""
    doc = parse((site / "models" / f"{name}.html").read_text(encoding="utf-8"))
    terms = section(doc, "cost").find_all()
    dts = [n.text for n in terms if n.tag == "dt"]
    dds = [n.text for n in terms if n.tag == "dd"]
    return dict(zip(dts, dds))


def test_model_page_cost_lines(site):
    for name in ("best", "cheap-tied", "cheaper-worse"):
        facts = _facts(site, name)
        run = _run_cost(name)
        correct = MODELS[name][0] * len(TASKS)
        assert facts["Cost per run"] == f"{_usd(run)} (output tokens only: input tokens were not recorded)"
        assert facts["Per correct answer"] == f"{_usd(run / correct)} ({correct:,} correct trials)"
        assert facts["Prices"].endswith("(source: https://example.org/prices, read 2026-03-01)")
    assert _facts(site, "no-tokens") == {
        "Prices": "$1.00 per million input tokens, $4.00 per million output tokens (source: "
                  "https://example.org/prices, read 2026-03-01)",
        "Cost per run": "Not known: its output tokens were not recorded."}
    assert not parse((site / "models" / "unpriced.html").read_text(encoding="utf-8")).by_id("cost")


def test_frontier_counts_only_cheaper_and_significantly_better(site):
    scores = _scores(site)
    priced = [n for n in MODELS if MODELS[n][3] is not None and n != "no-tokens"]
    expected = {}
    for m in priced:
        better = [o for o in priced if _run_cost(o) < _run_cost(m)
                  and scores[o]["reasonscore"]["ci_low"] > scores[m]["reasonscore"]["ci_high"]]
        expected[m] = min(better, key=_run_cost) if better else None
    assert expected["cheaper-worse"] is None and expected["pricey-worse"] is not None
    doc = parse((site / "cost.html").read_text(encoding="utf-8"))
    shown = {}
    for row in doc.by_id("cost-table").find_all("tr"):
        cells = row_cells(row)
        if cells and cells[0].tag == "th" and row.parent.tag == "tbody":
            text = cells[4].text
            shown[cells[0].text] = None if text == "on the frontier" else text.removeprefix("dominated by ")
            assert cells[2].text == _usd(_run_cost(cells[0].text))
    assert shown == expected
    assert "no-tokens: its output tokens were not recorded." in doc.by_id("without").parent.text


def test_headline_names_the_cheapest_tied_with_the_best(site):
    scores = _scores(site)
    best = min((m for m in scores.values() if m["rank"]), key=lambda m: m["rank"])
    lo, hi = best["reasonscore"]["ci_low"], best["reasonscore"]["ci_high"]
    tied = [n for n in MODELS if MODELS[n][3] is not None and n != "no-tokens"
            and scores[n]["reasonscore"]["ci_high"] >= lo and scores[n]["reasonscore"]["ci_low"] <= hi]
    cheapest = min(tied, key=_run_cost)
    assert cheapest == "cheap-tied"
    headline = parse((site / "cost.html").read_text(encoding="utf-8")).by_id("cost-headline").text
    assert headline.startswith(f"The cheapest evaluation statistically tied with the best is {cheapest}: "
                               f"{_usd(_run_cost(cheapest))} per run")
    assert best["label"] in headline


@pytest.mark.parametrize("entry,problem", [
    ({"price_in": -1}, "'price_in' must be a price"),
    ({"price_out": "3"}, "'price_out' must be a price"),
    ({"price_out": True}, "'price_out' must be a price"),
    ({"price_date": "March"}, "'price_date' must be the date"),
    ({"price_source": ""}, "'price_source' must be a non-empty string"),
])
def test_prices_are_checked(tmp_path, entry, problem):
    path = tmp_path / "evals.json"
    path.write_text(json.dumps([{"model": "m", "template": "t", "sampler": "s", **entry}]), encoding="utf-8")
    with pytest.raises(InputError, match=problem):
        read_evals(path)
