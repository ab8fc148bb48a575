"""Relative URLs from each page's depth, so the site works from file:// (PRODUCT.md "Outputs")."""

import posixpath

import pytest
from hypothesis import given
from hypothesis import strategies as st
from reasonboard.site.urls import Linker, check_output_path, page_path, relative_url


def test_links_climb_out_of_sections_and_never_start_or_end_with_a_slash():
    assert relative_url("index.html", "models/a.html") == "models/a.html"
    assert relative_url("models/a.html", "tasks/b.html") == "../tasks/b.html"
    assert relative_url("models/a.html", "index.html") == "../index.html"
    assert relative_url("models/a.html", "models/c.html") == "c.html"
    assert relative_url("models/a.html", "assets/style-1.css") == "../assets/style-1.css"
    assert relative_url("index.html", "index.html") == "index.html"
    assert relative_url("tasks/x.html", "benchmarks/y.html", "t-1") == "../benchmarks/y.html#t-1"


# Directories and files have distinct names, as in a real tree (`benchmarks/gpqa.html` next
# to the directory `benchmarks/gpqa/` of its row pages).
_directory = st.sampled_from(["models", "tasks", "benchmarks", "a", "gpqa"])
_file = st.sampled_from(["x.html", "gpqa.html", "rows-2.html", "index.html"])
_output_path = st.tuples(st.lists(_directory, max_size=3), _file).map(lambda p: "/".join([*p[0], p[1]]))


@given(_output_path, _output_path)
def test_relative_urls_agree_with_posixpath_relpath(page, target):
    """The fast relative path is the standard library's, for every pair of output paths."""
    expected = posixpath.relpath(target, posixpath.dirname(page) or ".")
    assert relative_url(page, target) == expected
    assert posixpath.normpath(posixpath.join(posixpath.dirname(page), relative_url(page, target))) == target


def test_a_linker_is_bound_to_its_page():
    url = Linker("benchmarks/gpqa.html")
    assert url("signals.html") == "../signals.html"
    assert url("models/m.html", "r-3") == "../models/m.html#r-3"


@pytest.mark.parametrize("bad", ["", "/etc/passwd", "a/../../b.html", "models/", "./x.html", "a//b.html",
                                 "a\\b.html", "models/../x.html"])
def test_unsafe_output_paths_are_refused(bad):
    with pytest.raises(ValueError):
        check_output_path(bad)


def test_page_paths_refuse_unsafe_slugs():
    assert page_path("models", "aurora-7b") == "models/aurora-7b.html"
    assert page_path("index", "", 1) == "index.html"
    assert page_path("index", "", 3) == "index-3.html"
    for slug in ["..", "a/b", "A", "", "con"]:
        with pytest.raises(ValueError):
            page_path("models", slug)


def test_evaluation_pages_sit_under_their_models_page_and_nowhere_else():
    from reasonboard.site.urls import evaluation_page_path

    assert evaluation_page_path("aurora-7b") == "models/aurora-7b.html"
    assert evaluation_page_path("aurora-7b/zerocot-greedy") == "models/aurora-7b/zerocot-greedy.html"
    for slug in ["..", "a/..", "a//b", "a/b/c", "/a", "a/", "A/b", "a/con"]:
        with pytest.raises(ValueError):
            evaluation_page_path(slug)
