"""A benchmark page's comparisons show each party's score of a model–metric pair. Where a
party reported the pair several times in one setup, that score is the mean of its reports, a
figure none of them gave: the page must say so (as it does for a mean over setups), or it
reads as the score the party reported. Read on the default build, whose Every Eval Ever
records hold such pairs; the premise comes from signals.json (one party, several reports,
no setup field differing), never from the page."""

from __future__ import annotations

import json
from itertools import pairwise

from helpers_site import html_pages, page
from reasonboard.site.views.badges import triple_anchor


def test_a_party_score_over_several_reports_says_it_is_their_mean(default_build):
    site = default_build.out
    signals = json.loads((site / "data" / "signals.json").read_text(encoding="utf-8"))
    sections = {}
    for rel in html_pages(site):
        if rel.startswith("benchmarks/") and rel.count("/") == 1:
            for s in page(site, rel).find_all("section", cls="triple"):
                sections[s.attrs["id"]] = s
    checked = 0
    for t in signals["triples"]:
        c = t["comparability"]
        if len(t["parties"]) != 1 or t["reports"] < 2 or c["variant"]["differing_fields"]:
            continue
        section = sections.get(triple_anchor(t["model"], t["benchmark"], t["metric"]))
        if section is None:  # a page shows the divergent comparisons first, up to its limit
            continue
        said = _fact(section, "Parties' scores")
        assert f"(mean of its {t['reports']} reports)" in said, (t["model"], t["benchmark"], said)
        checked += 1
    assert checked, "the default data should have a party with several reports of one pair"


def _fact(section, term: str) -> str:
    """The text of the `<dd>` that follows the `<dt>` reading `term`."""
    items = [n for n in section.find("dl").children if not isinstance(n, str)]
    return next(dd.text for dt, dd in pairwise(items) if dt.tag == "dt" and dt.text == term)
