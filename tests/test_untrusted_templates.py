"""A project's templates run in Jinja's sandbox (PRODUCT.md, "Untrusted checkouts"): each
way out of a template that an unsandboxed Jinja allows, as a hostile pull request would
write it, is a one-line error naming the template and its line; the payload's command never
runs (its marker file does not exist) and the last site stays as it was."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers_lab import build, built_lab, copy_lab, error_line, snapshot


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, Path]:
    return built_lab(tmp_path_factory.mktemp("templates"))


PAYLOADS = [
    '{{ cycler.__init__.__globals__.os.popen("touch MARKER").read() }}',
    '{{ joiner.__init__.__globals__["os"].system("touch MARKER") }}',
    '{{ lipsum.__globals__["os"].popen("touch MARKER").read() }}',
    "{% for c in ''.__class__.__mro__[1].__subclasses__() %}{% if c.__name__ == 'Popen' %}"
    '{{ c(["touch", "MARKER"]) }}{% endif %}{% endfor %}',
    '{{ url.__globals__["os"].system("touch MARKER") }}',
    '{{ fmt.count.__globals__["os"].system("touch MARKER") }}',
    '{{ self._TemplateReference__context.cycler.__init__.__globals__.os.system("touch MARKER") }}',
    "{{ page.__class__.__init__.__globals__ }}",
    "{% set s = site.nav %}{{ s.append(1) }}{{ s.clear() }}",
]


@pytest.mark.parametrize("payload", PAYLOADS)
def test_a_template_cannot_reach_python(tmp_path, built, payload):
    project = copy_lab(built[0], tmp_path / "lab")
    marker = tmp_path / "MARKER"
    before = snapshot(project / "site")
    (project / "templates" / "404.html").write_text(
        '{% extends "base.html" %}\n{% block main %}\n<p>hello</p>\n'
        + payload.replace("MARKER", str(marker)) + "\n{% endblock %}\n", encoding="utf-8")
    message = error_line(build(project, built[1]))
    assert "404.html, line 4" in message and "template error" in message, message
    assert not marker.exists()
    assert snapshot(project / "site") == before


def test_an_ordinary_override_still_renders(tmp_path, built):
    project = copy_lab(built[0], tmp_path / "lab")
    (project / "templates" / "404.html").write_text(
        '{% extends "base.html" %}\n{% block main %}\n<p>{{ site.title | upper }}: {{ fmt.count(12345) }}, '
        '{{ [3, 1, 2] | sort | join(",") }}, {{ url("index.html") }}</p>\n{% endblock %}\n', encoding="utf-8")
    result = build(project, built[1])
    assert result.exit_code == 0, result.output
    text = (project / "site" / "404.html").read_text(encoding="utf-8")
    assert "LEADERBOARD: 12,345, 1,2,3, index.html" in text


def test_the_sandbox_decides_as_jinjas_own_each_time():
    """The build's sandbox decides once per (type, attribute name) what Jinja's immutable
    sandbox decides; asked again (the decision kept), it answers the same."""
    from collections import deque
    from types import SimpleNamespace

    from jinja2.sandbox import ImmutableSandboxedEnvironment
    from reasonboard.site.templating import FORMAT, sandboxed

    def gen():
        yield 1

    env, jinja = sandboxed([]), ImmutableSandboxedEnvironment()
    objects = [[], {}, set(), deque(), (), "text", 1, FORMAT, FORMAT.count, SimpleNamespace(a=1), gen(), type,
               str.upper, "x".upper, Path("a")]
    names = ["append", "clear", "pop", "add", "index", "keys", "items", "upper", "count", "a", "mro", "gi_frame",
             "__globals__", "__class__", "__init__", "_private", "func_globals", "__self__", "__func__", "name"]
    for _ in range(2):
        for obj in objects:
            for name in names:
                value = getattr(obj, name, None)
                assert env.is_safe_attribute(obj, name, value) == jinja.is_safe_attribute(obj, name, value), (obj, name)


def test_the_sandbox_reads_attributes_as_jinjas_own():
    """The build's sandbox reads a plain value with the kept decision alone; what it returns
    is what Jinja's immutable sandbox returns: the value, an undefined that refuses to be used
    (an internal or a method that changes a list), or a wrapped `str.format`."""
    from types import SimpleNamespace

    from jinja2.runtime import StrictUndefined, Undefined
    from jinja2.sandbox import ImmutableSandboxedEnvironment
    from markupsafe import Markup
    from reasonboard.site.templating import sandboxed

    env, jinja = sandboxed([]), ImmutableSandboxedEnvironment(undefined=StrictUndefined)
    record = SimpleNamespace(text="a", markup=Markup("<b>"), n=1, x=1.5, flag=True, none=None, items=(1,), rows=[1],
                             table={"a": 1}, _private="secret", mro="shadow")
    names = ["text", "markup", "n", "x", "flag", "none", "items", "rows", "table", "_private", "mro", "absent",
             "format", "append", "__class__", "upper"]
    for _ in range(2):
        for obj in (record, "text", [1], {"a": 1}, (1,)):
            for name in names:
                ours, theirs = env.getattr(obj, name), jinja.getattr(obj, name)
                assert type(ours) is type(theirs), (obj, name)
                if not isinstance(theirs, Undefined) and not callable(theirs):
                    assert ours == theirs and type(ours) is type(theirs), (obj, name)
    assert isinstance(env.getattr(record, "_private"), Undefined)


RUNAWAYS = [
    # Each was a traceback (RecursionError, OverflowError) or a build killed for memory.
    ("{% for i in range(10**9) %}x{% endfor %}", "Range too big"),
    ("{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}", "calls itself without end"),
    ('{% include "404.html" %}', "calls itself without end"),
    ("{{ 'x' * 20000000 }}", "longer than 10,000,000 items (the limit)"),
    ("{{ [1, 2] * 6000000 }}", "longer than 10,000,000 items (the limit)"),
    ("{{ 10 ** 400000 }}", "a power larger than"),
]


@pytest.mark.parametrize("payload, problem", RUNAWAYS)
def test_a_runaway_template_is_a_one_line_error(tmp_path, built, payload, problem):
    """A template that would recurse without end, loop past the sandbox's range or build a
    text, list or number too large to hold: one line naming the template, the last site kept."""
    project = copy_lab(built[0], tmp_path / "lab")
    before = snapshot(project / "site")
    (project / "templates" / "404.html").write_text(
        '{% extends "base.html" %}\n{% block main %}\n<p>hello</p>\n' + payload + "\n{% endblock %}\n",
        encoding="utf-8")
    result = build(project, built[1])
    message = error_line(result)
    assert result.exit_code == 2 and "404.html, line" in message and problem in message, result.output
    assert snapshot(project / "site") == before


def test_small_products_still_render(tmp_path, built):
    project = copy_lab(built[0], tmp_path / "lab")
    (project / "templates" / "404.html").write_text(
        '{% extends "base.html" %}\n{% block main %}\n<p>{{ "ab" * 3 }} {{ 2 ** 10 }} {{ 3 * [1] | length }}'
        " {{ 1.5 * 2 }}</p>\n{% endblock %}\n", encoding="utf-8")
    result = build(project, built[1])
    assert result.exit_code == 0, result.output
    assert "ababab 1024 3 3.0" in (project / "site" / "404.html").read_text(encoding="utf-8")
