"""Benchmark pages (the Evaluation Card) and the signals dashboard as a reader sees them."""

from __future__ import annotations

import json
import posixpath

from helpers_site import badge_sentence, html_pages, page, section
from reasonboard.site.views.badges import triple_anchor
from reasonboard.store.cardfields import FIELDS


def _benchmark_pages(built):
    """{benchmark key: parsed page}, read from the key each page prints."""
    out = {}
    for rel in html_pages(built.out):
        if rel.startswith("benchmarks/") and rel.count("/") == 1:
            doc = page(built.out, rel)
            out[doc.find("p", cls="meta").find("code").text] = (rel, doc)
    return out


def test_each_benchmark_page_shows_completeness_and_names_every_fully_missing_field(default_build):
    signals = json.loads((default_build.out / "data" / "signals.json").read_text())
    pages = _benchmark_pages(default_build)
    assert set(pages) == {b["benchmark"] for b in signals["benchmarks"]}
    by_key = {b.key: b for b in default_build.results.signals.benchmarks}
    for b in signals["benchmarks"]:
        rel, doc = pages[b["benchmark"]]
        headline = doc.by_id("h-completeness").parent
        assert f"{100 * b['completeness']:.0f}%" in headline.text, rel
        listed = [li.text for li in section(doc, "missing").find_all("li")]
        assert listed == list(by_key[b["benchmark"]].fully_missing), rel
        assert len(listed) == b["fully_missing"]


def test_the_28_fields_are_marked_populated_partial_or_missing(default_build):
    pages = _benchmark_pages(default_build)
    with_card = next(b for b in default_build.results.signals.benchmarks if b.has_card)
    rel, doc = pages[with_card.key]
    items = [li for li in doc.find_all("li") if (li.attrs.get("id") or "").startswith("f-")]
    assert [li.attrs["id"] for li in items] == [f"f-{f.position}" for f in FIELDS]
    for li, score in zip(items, with_card.fields):
        mark = li.find("span", cls="mark").text
        state = li.find("span", cls="state").text
        assert mark == {"populated": "●", "partial": "◐", "missing": "○"}[score.status]
        assert state.startswith(score.status) and score.count_text in state
        assert score.field in li.text
        if score.text and score.status == "populated":
            assert score.text.split()[0] in li.text
    partial = [li for li, s in zip(items, with_card.fields) if s.status == "partial"]
    for li in partial:
        assert " of " in li.find("span", cls="state").text


def test_not_checked_never_reads_like_within_threshold(default_build):
    signals = default_build.results.signals
    pages = _benchmark_pages(default_build)
    compared = [t for t in signals.triples if t.reports >= 2]
    na = next(t for t in compared if t.comparability.cross_party.flag is None)
    within = next(t for t in compared if t.comparability.cross_party.flag is False)
    texts = {}
    for name, t in (("na", na), ("within", within)):
        _, doc = pages[t.benchmark_key]
        box = doc.by_id(triple_anchor(*t.key))
        assert box is not None
        texts[name] = box
    na_text = texts["na"].text
    within_text = texts["within"].text
    assert "not checked" in na_text
    assert "checked: within" in within_text
    na_dd = [dd for dd in texts["na"].find_all("dd") if dd.text.startswith("not checked")]
    within_dd = [dd for dd in texts["within"].find_all("dd") if dd.text.startswith("checked: within")]
    assert na_dd and within_dd
    assert {"status-na"} <= na_dd[0].classes and {"status-ok"} <= within_dd[0].classes


def test_within_badge_names_each_check_once(default_build):
    docs = [page(default_build.out, rel) for rel in html_pages(default_build.out) if rel.startswith("benchmarks/")]
    titles = [badge_sentence(doc, li) for doc in docs for li in doc.find_all("li", cls="badge")
              if li.find("b").text == "X"]
    within = [t for t in titles if "within" in t]
    assert within, "the default data has results whose reports agree"
    for title in within:
        assert "checked: checked" not in title
        assert title.count("checked: within") == sum(title.count(k) for k in ("variant checked", "cross-party checked"))


def test_badges_distinguish_not_checked_from_within(default_build):
    doc = page(default_build.out, "index.html")
    badges = [li for li in doc.find_all("li", cls="badge") if li.find("b").text == "X"]
    states = {frozenset(b.classes) for b in badges}
    words = {b.text for b in badges}
    assert any("badge-na" in s for s in states) and any("not checked" in w for w in words)
    assert all(("not checked" in b.text) == ("badge-na" in b.classes) for b in badges)


def test_dashboard_numbers_match_signals_json(default_build):
    signals = json.loads((default_build.out / "data" / "signals.json").read_text())
    corpus = signals["corpus"]
    doc = page(default_build.out, "signals.html")
    text = doc.find("main").text
    assert f"{100 * corpus['reproducibility_gap_rate']:.1f}%" in text
    assert f"{100 * corpus['completeness_median']:.1f}%" in text
    rows = doc.by_id("population-table").find("tbody").find_all("tr")
    assert len(rows) == 28
    benchmarks = doc.by_id("benchmarks-table").find("tbody").find_all("tr")
    assert len(benchmarks) == len(signals["benchmarks"])
    # Links go down to every benchmark page and to flagged comparisons.
    assert all(tr.find("a").attrs["href"].startswith("benchmarks/") for tr in benchmarks)
    flagged = doc.by_id("flagged")
    if corpus["comparability"]["flagged"]:
        assert flagged is not None


def test_risks_are_cues_with_web_links_only(default_build):
    pages = _benchmark_pages(default_build)
    with_risks = next(b for b in default_build.results.signals.benchmarks if b.risks)
    _, doc = pages[with_risks.key]
    risks = section(doc, "risks")
    for risk in with_risks.risks:
        if risk.category:
            assert risk.category in risks.text
    assert risks.find_all("a")
    for a in risks.find_all("a"):
        assert a.attrs["href"].startswith(("http://", "https://"))


def test_every_result_row_is_on_some_page_and_no_page_lists_more_than_page_size(default_build):
    site = default_build.out
    page_size = default_build.results.config.page_size
    signals = default_build.results.signals
    big = max(signals.benchmarks, key=lambda b: b.rows)
    assert big.rows > page_size, "the default data has a benchmark with more rows than a page holds"
    card_rel, card = _benchmark_pages(default_build)[big.key]
    pages = [card_rel, *sorted((p for p in html_pages(site) if p.startswith(card_rel[:-5] + "/")), key=lambda p: int(p.rsplit("-", 1)[1][:-5]))]
    seen = []
    for rel in pages:
        table = page(site, rel).by_id("result-rows")
        rows = table.find("tbody").find_all("tr")
        assert 0 < len(rows) <= page_size
        seen += [tr.attrs["id"] for tr in rows]
    assert len(seen) == len(set(seen)) == big.rows
    # Following "Next" from the card walks every row page in order; each pager links a
    # window of pages (first, last, neighbours), all of them real pages.
    walked, current = [card_rel], card
    while (following := current.find("a", rel="next")) is not None:
        walked.append(posixpath.normpath(posixpath.join(posixpath.dirname(walked[-1]), following.attrs["href"])))
        current = page(site, walked[-1])
    assert walked == pages
    for rel in pages:
        links = page(site, rel).find("nav", cls="pager").find_all("a")
        targets = {posixpath.normpath(posixpath.join(posixpath.dirname(rel), a.attrs["href"])) for a in links}
        assert targets <= set(pages) and pages[-1] in targets | {rel} and len(targets) <= 9
