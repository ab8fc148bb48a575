"""Shares as a page prints them: a share that is not zero never reads as none, nor one short
of all as all (the real EEE corpus has 15 of 35,093 triples reported by two organisations,
which `{:.1f}` would print as "0.0%" beside the count 15)."""

from __future__ import annotations

import random

from reasonboard.site.format import MISSING, percent


def test_shares_that_round_to_none_or_all_say_so():
    assert percent(15 / 35_093) == "<0.1%"
    assert percent(0) == "0.0%" and percent(1) == "100.0%"
    assert percent(1 - 1e-6) == ">99.9%" and percent(0.125) == "12.5%"
    assert percent(0.004, 0) == "<1%" and percent(None) == MISSING


def test_every_other_share_is_its_rounded_percentage():
    rng = random.Random(3)
    for _ in range(2000):
        x = rng.random()
        digits = rng.choice([0, 1, 2])
        text = percent(x, digits)
        plain = f"{100 * x:.{digits}f}"
        if float(plain) in (0, 100):
            assert text[0] in "<>", (x, text)
        else:
            assert text == plain + "%", (x, text)
