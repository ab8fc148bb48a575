"""The reuse digest (site/reuse.py) covers every value a template can see.

A rebuild keeps a page's file when the digest of its view model is the one recorded: a
change anywhere in the view tree that left the digest alone would leave a stale page on
the site. The digest pickles a view as its class and field values (not pickle's default
dictionary), so these tests change one value at a time, at every depth of real pages,
and check the digest moves; and that an equal tree, however its objects are shared,
gives the same digest as before.
"""

from __future__ import annotations

import copy
import dataclasses
from typing import Any, Iterator

import pytest
from reasonboard.site.reuse import page_digest
from reasonboard.site.views.base import Page, Ref, made


def changed(value: Any) -> Iterator[Any]:
    """Copies of `value` that differ from it in exactly one leaf (a string, number, flag,
    None), one copy per leaf, through dataclasses, tuples and dictionaries."""
    if isinstance(value, bool):
        yield not value
    elif isinstance(value, (int, float)):
        yield value + 1
    elif isinstance(value, str):
        yield value + "x"
    elif value is None:
        yield "x"
    elif dataclasses.is_dataclass(value):
        for f in dataclasses.fields(value):
            for other in changed(getattr(value, f.name)):
                yield dataclasses.replace(value, **{f.name: other})
    elif isinstance(value, tuple):
        for k, item in enumerate(value):
            for other in changed(item):
                yield value[:k] + (other,) + value[k + 1:]
    elif isinstance(value, list):
        for k, item in enumerate(value):
            for other in changed(item):
                yield value[:k] + [other] + value[k + 1:]
    elif isinstance(value, dict):
        for key, item in value.items():
            for other in changed(item):
                yield {**value, key: other}


def pages_of(built, template: str) -> list[Page]:
    from reasonboard.site.model import plan_page_model

    return [made(p) for p in plan_page_model(built.results).pages if p.template == template]


@pytest.mark.parametrize("template", ["model.html", "benchmark.html", "task.html", "leaderboard.html"])
def test_every_value_of_a_page_moves_its_digest(default_build, template):
    pages = pages_of(default_build, template)
    assert pages, template
    page = max(pages, key=lambda p: len(repr(p)))  # the richest page of its kind
    digest = page_digest("", page)
    assert digest is not None
    variants = list(changed(page))
    assert len(variants) > 50  # the walk reaches the nested views
    unmoved = [repr(v)[:200] for v in variants if page_digest("", v) == digest]
    assert unmoved == []


def test_the_digest_is_the_view_model_s_not_its_objects(default_build):
    """An equal tree gives the same digest: a deep copy, and a page rebuilt field by field."""
    for page in pages_of(default_build, "model.html")[:20]:
        digest = page_digest("", page)
        assert page_digest("", copy.deepcopy(page)) == digest
        assert page_digest("", dataclasses.replace(page)) == digest
        assert page_digest("salt", page) != digest


def test_a_view_holding_more_than_its_fields_is_digested_whole():
    """A value kept on a view beside its fields (a cached property, say) is in the digest
    too: such a view is pickled the default way, names and all."""
    plain = Ref("a", "a.html")
    extra = Ref("a", "a.html")
    object.__setattr__(extra, "cached", "seen")
    assert page_digest("", extra) != page_digest("", plain)
    assert page_digest("", Ref("a", "b.html")) != page_digest("", plain)
    assert page_digest("", Ref("a.html", "a")) != page_digest("", plain)


def test_every_input_of_a_model_page_key_moves_it(default_build):
    """A model page is kept unmade when its key is as recorded (`Deferred.key`): the key
    holds the statistics' records (slotted dataclasses, digested as their class and field
    values), the page's row and neighbours, and its result rows by id with their model
    key's digest; a change to any value in it must move its digest."""
    from reasonboard.site.model import plan_page_model
    from reasonboard.site.views.base import Deferred

    keyed = [p for p in plan_page_model(default_build.results).pages
             if isinstance(p, Deferred) and p.template == "model.html" and p.key is not None]
    assert keyed
    key = max((p.key() for p in keyed), key=lambda k: len(repr(k)))
    digest = page_digest("", key)
    assert digest is not None and page_digest("", copy.deepcopy(key)) == digest
    variants = list(changed(key))
    assert len(variants) > 100  # through the statistics' records and the row's views
    unmoved = [repr(v)[:200] for v in variants if page_digest("", v) == digest]
    assert unmoved == []
