"""Markup in data comes out inert (PRODUCT.md "Bad input, safety, nothing lost").

A whole build runs on a data directory whose every name and text field carries markup:
`<script>`, `<img onerror>`, `javascript:` URLs, images that would phone home. The pages
must show these as text, run no script of theirs, load nothing and link only to the web
or inside the site.
"""

from __future__ import annotations

import json
import re

import pytest
from conftest import build_site
from helpers_site import html_pages, page

SCRIPT = "<script>alert('pwned')</script>"
IMG = '<img src=x onerror="alert(1)">'
JS_URL = "javascript:alert(1)"


def _points(model: str, sampler: str, tasks: list[str]) -> list[str]:
    rows = []
    for task in tasks:
        for level, correct in ((1, 50), (2, 30)):
            rows.append(f'"{model}",zerocot,"{sampler}","{task}","{{""depth"":{level}}}",64,{correct},2,0,6400,"easy"')
    return rows


@pytest.fixture(scope="module")
def hostile_build(tmp_path_factory) -> object:
    base = tmp_path_factory.mktemp("hostile")
    data = base / "data"
    (data / "points").mkdir(parents=True)
    tasks = ["arith", "<i>italic</i>task"]
    header = "model,template,sampler,base_task,params,total,correct,truncated,guess,tokens,tiers"
    lines = [header, *_points(SCRIPT.replace('"', '""'), "greedy", tasks),
             *_points("plain-model", IMG.replace('"', '""'), tasks[:1])]
    (data / "points" / "evil.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    evals = [
        {"model": SCRIPT, "template": "zerocot", "sampler": "greedy", "label": IMG + " label",
         "groups": [SCRIPT], "hf_id": SCRIPT + "/hf", "organization": IMG, "relationship": "first_party",
         "generation_args": {"temperature": SCRIPT, "max_tokens": 10}, "harness": JS_URL, "simulated": True},
        {"model": "plain-model", "template": "zerocot", "sampler": IMG, "label": "Plain " + SCRIPT,
         "groups": [], "hf_id": "org/plain", "organization": "Org", "relationship": "third_party",
         "generation_args": {}, "harness": "h", "simulated": True},
    ]
    (data / "evals.json").write_text(json.dumps(evals), encoding="utf-8")
    (data / "eee" / "evil").mkdir(parents=True)
    record = {
        "schema_version": "0.2.0", "evaluation_id": SCRIPT,
        "source_metadata": {"source_name": SCRIPT, "source_type": "documentation",
                            "source_organization_name": IMG, "evaluator_relationship": "third_party"},
        "model_info": {"name": SCRIPT, "id": SCRIPT + "/hf"},
        "evaluation_results": [{
            "evaluation_name": JS_URL, "source_data": {"dataset_name": "<b>Bench</b>"},
            "metric_config": {"min_score": 0, "max_score": 1, "evaluation_description": SCRIPT},
            "score_details": {"score": 0.5},
            "generation_config": {"generation_args": {"temperature": SCRIPT}},
        }],
    }
    (data / "eee" / "evil" / "record.json").write_text(json.dumps(record), encoding="utf-8")
    (data / "cards").mkdir()
    card = {"benchmark_card": {
        "benchmark_details": {"name": "<b>Bench</b>",
                              "overview": f"{SCRIPT} [click]({JS_URL}) ![x](https://tracker.example/p.png) {IMG}",
                              "resources": [JS_URL, "https://ok.example/paper"]},
        "purpose_and_intended_users": {"goal": f"<a href=\"{JS_URL}\">goal</a>"},
        "possible_risks": [{"category": IMG, "description": SCRIPT, "url": JS_URL},
                           {"category": "Fine", "description": "ok", "url": "https://ok.example/risk"}],
    }}
    (data / "cards" / "benchmark_card_Evil.json").write_text(json.dumps(card), encoding="utf-8")
    return build_site(data, base / "site", base / "cache")


def test_no_script_runs_and_nothing_loads(hostile_build):
    site = hostile_build.out
    for rel in html_pages(site):
        doc = page(site, rel)
        for el in doc.iter():
            # Forms: the filters (never submitted) and the compare page's menus (GET to itself).
            assert el.tag not in ("img", "iframe", "object", "embed", "svg", "form") or (el.tag == "form" and (
                "data-filter-for" in el.attrs or el.attrs.get("action") == "compare.html")), (rel, el.tag)
            assert not [a for a in el.attrs if a.lower().startswith("on")], (rel, el.tag, el.attrs)
            if el.tag == "script":
                # Our assets, JSON, or the compare page's data (checked below to be JSON only).
                assert el.attrs.get("src", "").startswith(("assets/", "../assets/")) or \
                    el.attrs.get("type") == "application/json" or \
                    (rel == "compare.html" and el.attrs.get("src") == "data/compare/index.js"), (rel, el.attrs)
            for attr in ("href", "src", "action"):
                value = el.attrs.get(attr, "").strip().lower()
                assert not value.startswith(("javascript:", "data:text", "vbscript:")), (rel, el.attrs)
        raw = (site / rel).read_text(encoding="utf-8")
        assert "alert('pwned')</script>" not in raw
        assert "<img" not in raw
        for blob in re.findall(r'<script type="application/json"[^>]*>(.*?)</script>', raw, re.S):
            assert "<" not in blob and ">" not in blob
            json.loads(blob)


def test_the_compare_data_scripts_are_json_literals(hostile_build):
    """The compare page loads its data as scripts (a page opened from disk cannot fetch JSON):
    each file is one JSON document assigned to a `window` property and nothing else, so a
    hostile name in it is a string, never code."""
    folder = hostile_build.out / "data" / "compare"
    files = sorted(folder.rglob("*.js"))
    assert len(files) >= 3
    seen_script = False
    for path in files:
        text = path.read_text(encoding="utf-8")
        keyed = re.fullmatch(r"window\.(RB_COMPARE_EVALS)=window\.\1\|\|\{\};window\.\1\[(\"(?:[^\"\\]|\\.)*\")\]=(.*);\n",
                             text, re.S)
        whole = re.fullmatch(r"window\.RB_COMPARE=(.*);\n", text, re.S)
        assert keyed or whole, path
        if keyed:
            json.loads(keyed.group(2))
        document = json.loads((keyed or whole).group(3 if keyed else 1))  # type: ignore[union-attr]
        seen_script |= SCRIPT in json.dumps(document, ensure_ascii=False)
    assert seen_script  # the hostile label is in there, as a JSON string


def test_hostile_names_are_shown_as_text(hostile_build):
    site = hostile_build.out
    index = page(site, "index.html").find("main").text
    assert IMG + " label" in index
    benchmark = next(r for r in html_pages(site) if r.startswith("benchmarks/b-bench-b"))
    card = page(site, benchmark)
    assert "<b>Bench</b>" in card.find("h1").text
    assert SCRIPT in card.find("main").text
    links = [a.attrs["href"] for a in card.find_all("a")]
    assert "https://ok.example/paper" in links and "https://ok.example/risk" in links
    assert not any(h.lower().startswith("javascript") for h in links)


def test_slugs_from_hostile_names_stay_inside_the_site(hostile_build):
    site = hostile_build.out
    for path in site.rglob("*"):
        assert path.resolve().is_relative_to(site.resolve())
        rel = path.relative_to(site).as_posix()
        assert re.fullmatch(r"[a-z0-9.\-/_]+", rel.lower()), rel
    assert (site / "models").is_dir() and len(list((site / "models").iterdir())) == 2
