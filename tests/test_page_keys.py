"""Page keys (site/reuse.py): a page's key is the digest of everything its template
receives, so a page whose key is unchanged renders to the same bytes, and every value a page
shows moves its key. Checked on the default build's results under random changes."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reasonboard.site.model import build_page_model
from reasonboard.site.render import Assets, PageInputs, environment, load_content, render_page
from reasonboard.site.reuse import encode, page_key
from reasonboard.site.views.base import Ref

ROOT = Path(__file__).resolve().parent.parent
TEMPLATES = (ROOT / "templates",)
#: What a build salts its page keys with: its settings key (buildstate.py).
SALT = "settings"
ASSETS = Assets(css="assets/a.css", js="assets/a.js", charts="assets/c.js", vega="assets/v.js",
                compare="assets/p.js")


def keyed_pages(results: Any, content: Any) -> dict[str, tuple[str, PageInputs]]:
    """Every page of `results`: its key and the record its template receives."""
    model = build_page_model(results, content)
    site, salt = replace(model, pages=()), SALT
    out = {}
    for page in model.pages:
        inputs = PageInputs(page, site, ASSETS, results.signals is not None, results.config.footer)
        out[page.path] = (page_key(salt, inputs), inputs)
    return out


@pytest.fixture(scope="module")
def original(default_build):
    """The default build's results, its content pages, and each page's key and bytes."""
    content = load_content(default_build.content_dir)
    env = environment(TEMPLATES)
    pages = keyed_pages(default_build.results, content)
    rendered = {path: (key, render_page(env, inputs)) for path, (key, inputs) in pages.items()}
    return default_build.results, content, env, rendered


def leaves(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[tuple[Any, ...], Any]]:
    """The float and string values inside a results record, each with its path."""
    if type(value) in (float, str):
        return [(path, value)]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [leaf for f in dataclasses.fields(value) for leaf in leaves(getattr(value, f.name), (*path, f.name))]
    if isinstance(value, tuple):
        return [leaf for n, item in enumerate(value) for leaf in leaves(item, (*path, n))]
    if isinstance(value, Mapping):
        return [leaf for k, item in value.items() for leaf in leaves(item, (*path, ("key", k)))]
    return []


def with_leaf(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    """`value` with the leaf at `path` replaced by `new` (every record on the way copied)."""
    if not path:
        return new
    step, rest = path[0], path[1:]
    if isinstance(step, tuple):  # a mapping's key
        return {**value, step[1]: with_leaf(value[step[1]], rest, new)}
    if isinstance(step, int):
        return (*value[:step], with_leaf(value[step], rest, new), *value[step + 1:])
    return replace(value, **{step: with_leaf(getattr(value, step), rest, new)})


#: An evaluation's texts that pages show (its id, slug, anchor and model name its pages instead).
TEXTS = ("label", "template", "sampler", "organization", "harness", "price_source")


def changed(old: Any, draw: Any) -> Any:
    """Another value of the leaf's kind: a float moved, or a string with text added."""
    if isinstance(old, str):
        return old + draw(st.sampled_from(["x", " (new)", "<b>&"]))
    return old + draw(st.floats(min_value=0.001, max_value=0.5)) * draw(st.sampled_from([1, -1]))


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                  HealthCheck.too_slow])
@given(data=st.data())
def test_equal_keys_give_equal_pages_under_random_changes_to_the_results(original, data):
    """One value of one evaluation's leaderboard row changes (a score, an interval's end, a
    task estimate, a label, ...): every page whose key stayed the same renders to the bytes it
    had, and every page whose bytes changed has a new key. (A value no page shows, such as
    an estimator's end that no table prints, moves no key.)"""
    results, content, env, before = original
    rows = results.leaderboard.models
    n = data.draw(st.integers(0, len(rows) - 1), label="row")
    # Every number of the row, and the texts a reader sees (not the ids pages are found by).
    shown = [(p, v) for p, v in leaves(rows[n]) if isinstance(v, float) or p[-1] in TEXTS]
    path, old = data.draw(st.sampled_from(shown), label="leaf")
    row = with_leaf(rows[n], path, changed(old, data.draw))
    after = keyed_pages(replace(results, leaderboard=replace(results.leaderboard,
                                                             models=(*rows[:n], row, *rows[n + 1:]))), content)
    assert sorted(after) == sorted(before)
    same = [p for p, (key, _) in after.items() if key == before[p][0]]
    for page in same:
        assert render_page(env, after[page][1]) == before[page][1], f"{page}: same key, other bytes"
    moved = [p for p in after if p not in same]
    for page in moved[:8]:  # a changed key is only a page rendered again; a few are enough
        render_page(env, after[page][1])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_every_value_a_page_receives_moves_its_key(original, data):
    """Any value of any page's record (its view, the site's facts, the assets) changed
    alone gives another key."""
    results, content, _env, before = original
    pages = keyed_pages(results, content)
    page = data.draw(st.sampled_from(sorted(pages)), label="page")
    key, inputs = pages[page]
    assert key == before[page][0]
    path, old = data.draw(st.sampled_from(leaves(inputs)), label="leaf")
    moved = with_leaf(inputs, path, changed(old, data.draw))
    assert page_key(SALT, moved) != key


def test_the_encoding_keeps_kinds_apart():
    """Values a template would show alike but not render alike (a `Markup` and its text, a
    tuple and a list, 1 and 1.0 and True) encode apart; mappings in their order."""
    from markupsafe import Markup

    values = ["<b>", Markup("<b>"), 1, 1.0, True, "1", (1,), [1], {"a": 1, "b": 2}, {"b": 2, "a": 1}, None, ""]
    assert len({encode(v) for v in values}) == len(values)
    assert encode(("ab", "c")) != encode(("a", "bc"))
    assert encode(frozenset({"x", "y"})) == encode(frozenset({"y", "x"}))


def test_a_value_with_no_encoding_is_refused_naming_where_it_is():
    """A view holding something the key cannot hold (a function, a context object) is an
    error, never a key that misses it."""
    with pytest.raises(TypeError, match=r"builtins\.function") as raised:
        encode((Ref("a", lambda: "b"),))  # type: ignore[arg-type]
    assert any("views.base.Ref" in note for note in raised.value.__notes__)


def test_the_settings_salt_every_key(tmp_path):
    """Another template (or any file along the lookup order, or another order) gives the
    build another settings key, which salts every page's key (build.py)."""
    import shutil

    from reasonboard.buildstate import settings_key

    def salt(*templates: Path) -> str:
        return settings_key(config_path=None, content_dirs=(), templates_dirs=templates, static_dir=None, strict=False)

    copy = tmp_path / "templates"
    shutil.copytree(ROOT / "templates", copy)
    before = salt(copy)
    (copy / "partials" / "tie.html").write_text("{# edited #}\n" + (copy / "partials" / "tie.html").read_text())
    assert salt(copy) != before
    assert salt(tmp_path, copy) != salt(copy)
