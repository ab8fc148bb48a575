"""Permalinks: a model's address does not depend on how many evaluations
it has, and rows are anchored by the evaluation they show, never by their rank.

Two real builds of a small data directory: the second adds a second evaluation of one model
and a new model that takes first place. Every inbound link a reader could have saved from
the first build must still lead to the same model.
"""

from __future__ import annotations

import json
import posixpath
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from conftest import build_site
from helpers_site import html_pages, page
from reasonboard.slugs import evaluation_slugs, is_safe_slug

TASKS = ("arith", "logic")


def _data(base: Path, evaluations: list[tuple[str, str, str, int]]) -> Path:
    """A data directory: each (model, template, sampler, correct out of 100 per task)."""
    lines = ["model,template,sampler,base_task,params,total,correct,truncated,guess,tokens"]
    for model, template, sampler, correct in evaluations:
        for task in TASKS:
            lines.append(f'{model},{template},{sampler},{task},"{{""depth"":1}}",100,{correct},0,0,10000')
    (base / "points").mkdir(parents=True)
    (base / "points" / "points.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    evals = [{"model": m, "template": t, "sampler": s, "label": m.title(), "generation_args": {"temperature": 0}}
             for m, t, s, _ in evaluations]
    (base / "evals.json").write_text(json.dumps(evals), encoding="utf-8")
    return base


BEFORE = [("aurora-70b", "zerocot", "greedy", 60), ("basalt-8b", "zerocot", "greedy", 30)]
AFTER = [*BEFORE, ("aurora-70b", "zerocot", "t0.7", 55), ("zephyr-400b", "zerocot", "greedy", 95)]


@pytest.fixture(scope="module")
def builds(tmp_path_factory):
    base = tmp_path_factory.mktemp("permalinks")
    cache = base / "cache"
    before = build_site(_data(base / "before", BEFORE), base / "site-before", cache)
    after = build_site(_data(base / "after", AFTER), base / "site-after", cache)
    return before, after


def _row_links(out: Path) -> dict[str, str]:
    """Leaderboard row id -> the page its model link leads to (relative to the site root)."""
    doc = page(out, "index.html")
    rows = doc.by_id("leaderboard").find_all("tr")
    return {tr.attrs["id"]: tr.find("th").find("a").attrs["href"] for tr in rows if "data-row" in tr.attrs}


def test_a_model_keeps_its_address_when_an_evaluation_is_added(builds):
    before, after = builds
    assert (before.out / "models" / "aurora-70b.html").is_file()
    assert (after.out / "models" / "aurora-70b.html").is_file()
    assert (before.out / "models" / "basalt-8b.html").is_file() and (after.out / "models" / "basalt-8b.html").is_file()
    # The model's page now lists both evaluations, each linked to its own page, which exists.
    doc = page(after.out, "models/aurora-70b.html")
    links = [a.attrs["href"] for a in doc.by_id("evaluation-list").find_all("a")]
    assert sorted(links) == ["aurora-70b/zerocot-greedy.html", "aurora-70b/zerocot-t0-7.html"]
    for link in links:
        assert (after.out / "models" / link).is_file()
    assert "greedy" in doc.text and "t0.7" in doc.text
    # An evaluation page leads back to its model's page.
    sub = page(after.out, "models/aurora-70b/zerocot-t0-7.html")
    assert "../aurora-70b.html" in [a.attrs.get("href") for a in sub.find("p", cls="breadcrumb").find_all("a")]


def test_every_old_model_address_still_exists(builds):
    before, after = builds
    old = {p for p in html_pages(before.out) if p.startswith("models/")}
    assert old and all((after.out / p).is_file() for p in old)


def test_row_anchors_name_the_evaluation_not_the_rank(builds):
    before, after = builds
    first, second = _row_links(before.out), _row_links(after.out)
    anchor = "m-aurora-70b-zerocot-greedy"
    # aurora was first; zephyr now is. The anchor still leads to aurora's row.
    assert next(iter(first)) == anchor and next(iter(second)) != anchor
    assert first[anchor] == "models/aurora-70b.html"
    assert second[anchor] == "models/aurora-70b/zerocot-greedy.html"
    assert second["m-aurora-70b-zerocot-t0-7"] == "models/aurora-70b/zerocot-t0-7.html"
    assert not any(a.removeprefix("m-").isdigit() for a in second)


def test_leaderboard_json_slug_is_the_rows_page(builds):
    _, after = builds
    doc = json.loads((after.out / "data" / "leaderboard.json").read_text(encoding="utf-8"))
    slugs = {m["id"]: m["slug"] for m in doc["models"]}
    assert slugs["aurora-70b|zerocot|greedy"] == "aurora-70b/zerocot-greedy"
    assert slugs["basalt-8b|zerocot|greedy"] == "basalt-8b"
    assert all((after.out / "models" / f"{s}.html").is_file() for s in slugs.values())


def test_every_internal_link_resolves(builds):
    _, after = builds
    broken = []
    for rel in html_pages(after.out):
        for a in page(after.out, rel).find_all("a"):
            href = a.attrs.get("href", "")
            parts = urlsplit(href)
            if parts.scheme or not parts.path:
                continue
            target = posixpath.normpath(posixpath.join(posixpath.dirname(rel), unquote(parts.path)))
            if not (after.out / target).is_file():
                broken.append((rel, href))
    assert broken == []


def test_slugs_of_one_evaluation_do_not_depend_on_the_others():
    one = evaluation_slugs([("Aurora 70B", "zerocot", "greedy")])[0]
    two = evaluation_slugs([("Aurora 70B", "zerocot", "greedy"), ("Aurora 70B", "zerocot", "t0.7"),
                            ("Basalt", "x", "y")])
    assert one.model == two[0].model == two[1].model == "aurora-70b"
    assert (one.page, two[0].page, two[1].page) == ("aurora-70b", "aurora-70b/zerocot-greedy", "aurora-70b/zerocot-t0-7")
    assert one.anchor == two[0].anchor == "aurora-70b-zerocot-greedy"
    # Case-only differences are different models: both get a hashed, distinct, safe slug.
    clash = evaluation_slugs([("Aurora", "t", "s"), ("aurora", "t", "s")])
    assert clash[0].model != clash[1].model and all(is_safe_slug(c.model) for c in clash)
    assert len({c.anchor for c in clash}) == 2
