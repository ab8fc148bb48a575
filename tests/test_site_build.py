"""The default build: every page exists, every internal link resolves, output is deterministic."""

from __future__ import annotations

import json
import posixpath
from pathlib import Path
from urllib.parse import unquote, urlsplit

from helpers_site import html_pages, page
from reasonboard.site.render import render_site
from reasonboard.store.keys import key as signal_key


def test_the_default_build_writes_every_page(default_build):
    site = default_build.out
    board = json.loads((site / "data" / "leaderboard.json").read_text())
    signals = json.loads((site / "data" / "signals.json").read_text())
    expected = {"index.html", "signals.html", "pairwise.html", "404.html",
                "methodology.html", "guide.html", "about.html"}
    expected |= {f"models/{m['slug']}.html" for m in board["models"]}
    pages = set(html_pages(site))
    assert expected <= pages
    assert len([p for p in pages if p.startswith("tasks/")]) == len(board["config"]["tasks"]) == 12
    assert len([p for p in pages if p.startswith("benchmarks/") and p.count("/") == 1]) == len(signals["benchmarks"])
    assert (site / ".nojekyll").is_file()
    assert len(board["models"]) >= 16


def _targets(node):
    for el in node.iter():
        for attr in ("href", "src"):
            if attr in el.attrs:
                yield el.tag, el.attrs[attr]


def test_every_internal_link_resolves_and_no_url_is_absolute_or_a_directory(default_build):
    site = default_build.out
    ids: dict[str, set[str]] = {}
    broken, bad = [], []
    for rel in html_pages(site):
        doc = page(site, rel)
        ids[rel] = {n.attrs["id"] for n in doc.iter() if "id" in n.attrs}
    for rel in html_pages(site):
        if rel == "404.html":
            continue  # linked relative to the root; checked below like any root page
        for tag, url in _targets(page(site, rel)):
            parts = urlsplit(url)
            if parts.scheme in ("http", "https"):
                assert tag == "a", f"{rel}: {tag} loads {url} from the network"
                continue
            if url.startswith("data:"):
                continue
            assert not parts.scheme, f"{rel}: unexpected URL scheme in {url}"
            if url.startswith("/") or parts.path.endswith("/"):
                bad.append((rel, url))
                continue
            target = posixpath.normpath(posixpath.join(posixpath.dirname(rel), unquote(parts.path))) if parts.path else rel
            if not (site / target).is_file() or (parts.fragment and target.endswith(".html") and parts.fragment not in ids[target]):
                broken.append((rel, url))
    assert not bad, bad[:10]
    assert not broken, broken[:10]


def test_no_page_repeats_an_id(default_build):
    from collections import Counter

    for rel in html_pages(default_build.out):
        counts = Counter(n.attrs["id"] for n in page(default_build.out, rel).iter() if "id" in n.attrs)
        assert [i for i, c in counts.items() if c > 1] == [], rel


def test_the_404_page_links_from_the_site_root(default_build):
    doc = page(default_build.out, "404.html")
    hrefs = [a.attrs["href"] for a in doc.find_all("a")]
    assert "index.html" in hrefs
    assert all((default_build.out / urlsplit(h).path).exists() for h in hrefs if not urlsplit(h).fragment)


def test_rendering_twice_gives_identical_bytes(default_build, tmp_path: Path):
    from reasonboard import TEMPLATES_DIR

    first = render_site(default_build.results, default_build.content_dir, TEMPLATES_DIR)
    second = render_site(default_build.results, default_build.content_dir, TEMPLATES_DIR)
    assert first.keys() == second.keys()
    assert all(first[k] == second[k] for k in first)
    for path, data in first.items():
        if path.endswith(".html"):
            assert (default_build.out / path).read_bytes() == data, path


def test_assets_are_local_and_content_hashed(default_build):
    assets = sorted(p.name for p in (default_build.out / "assets").iterdir())
    assert any(a.startswith("style-") and a.endswith(".css") for a in assets)
    assert any(a.startswith("vega-") and a.endswith(".js") for a in assets)
    css = next((default_build.out / "assets").glob("style-*.css")).read_text()
    assert "@font-face" not in css and "url(" not in css  # system fonts, nothing to fetch
    assert "prefers-color-scheme: dark" in css and "@media print" in css


def test_navigation_is_the_same_small_set_of_links_everywhere(default_build):
    site = default_build.out
    navs = set()
    for rel in html_pages(site):
        nav = page(site, rel).find("nav", aria_label="Site")
        navs.add(tuple(a.text for a in nav.find_all("a")))
    assert len(navs) == 1
    assert len(next(iter(navs))) <= 8


def test_each_task_page_links_its_evaluation_card(default_build):
    site = default_build.out
    titles = {page(site, p).find("h1").text: p for p in html_pages(site) if p.startswith("tasks/")}
    for task in default_build.leaderboard["config"]["tasks"]:
        rel = titles[task]
        card = page(site, rel).by_id("card").parent
        links = [a.attrs["href"] for a in card.find_all("a") if "benchmarks/" in a.attrs["href"]]
        assert links and links[0].endswith(f"{signal_key(task)}.html")
