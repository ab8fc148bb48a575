"""Markdown from data and content: raw HTML off; from data no images and only http(s) links; content
pages also local images, mailto and site-relative links (PRODUCT.md "safety")."""

from html.parser import HTMLParser
from pathlib import Path

import pytest
from reasonboard.errors import InputError
from reasonboard.site.markdown import load_content_page, render_markdown, split_front_matter


class Elements(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags: list[tuple[str, dict]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def elements(html: str) -> list[tuple[str, dict]]:
    parser = Elements()
    parser.feed(html)
    return parser.tags


def test_raw_html_is_shown_as_text():
    html = render_markdown('<script>alert(1)</script> <img src=x onerror="alert(1)"> <b>bold</b>')
    assert [t for t, _ in elements(html)] == ["p"]
    assert "&lt;script&gt;" in html


def test_only_web_urls_become_links():
    html = render_markdown("[a](javascript:alert(1)) [b](JaVaScRiPt:x) [c](data:text/html,x) [d](//evil.example) "
                           "[e](/etc/passwd) [f](https://example.org/x) <http://example.org>")
    links = [a["href"] for t, a in elements(html) if t == "a"]
    assert links == ["https://example.org/x", "http://example.org"]


def test_images_never_load_anything():
    html = render_markdown("![pixel](https://tracker.example/p.png)")
    assert all(t != "img" for t, _ in elements(html))


def test_content_pages_may_link_inside_the_site_but_not_to_directories_or_roots():
    html = render_markdown("[g](guide.html#bands) [m](methodology.html) [d](dir/) [r](/root.html) [j](javascript:x)",
                           allow_relative=True)
    assert [a["href"] for t, a in elements(html) if t == "a"] == ["guide.html#bands", "methodology.html"]


def test_headings_get_ids_for_deep_links():
    html = render_markdown("## The six estimators\n\n## The six estimators\n")
    ids = [a["id"] for t, a in elements(html) if t == "h2"]
    assert ids == ["the-six-estimators", "the-six-estimators-2"]


def test_front_matter_is_toml_between_plus_lines(tmp_path: Path):
    page = tmp_path / "guide.md"
    page.write_text('+++\ntitle = "Guide"\norder = 2\n+++\n# Hello\n', encoding="utf-8")
    loaded = load_content_page(page)
    assert (loaded.slug, loaded.title, loaded.order) == ("guide", "Guide", 2)
    assert "<h1" in loaded.html
    assert split_front_matter("no front matter", "x") == ({}, "no front matter")


@pytest.mark.parametrize("text, problem", [
    ('+++\ntitle = "x"\n', "never closed"),
    ('+++\ntitle = \n+++\n', "invalid TOML"),
    ('+++\ntitel = "x"\n+++\n', "unknown front matter key 'titel'"),
])
def test_bad_front_matter_names_the_file_and_the_problem(tmp_path: Path, text, problem):
    page = tmp_path / "about.md"
    page.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as err:
        load_content_page(page)
    assert problem in err.value.message and "about.md" in err.value.message


def test_content_pages_show_local_images_only():
    html = render_markdown("![chart](img/chart.png) ![t](https://tracker.example/p.png) ![up](../secret.png) "
                           "![abs](/etc/x.png) ![d](data:image/png;base64,AAAA)", allow_relative=True)
    images = [a["src"] for t, a in elements(html) if t == "img"]
    assert images == ["img/chart.png"]
    assert "> t up " in html  # a remote or climbing image is its alt text; the rest stays literal text


def test_content_pages_may_link_mailto_but_data_may_not():
    text = "[write](mailto:evals@lab.example) <evals@lab.example> [x](mailto:)"
    own = [a["href"] for t, a in elements(render_markdown(text, allow_relative=True)) if t == "a"]
    assert own == ["mailto:evals@lab.example", "mailto:evals@lab.example"]
    assert [t for t, _ in elements(render_markdown(text)) if t == "a"] == []


def test_a_prefix_leads_relative_urls_only():
    """The footer is rendered once per page depth: relative URLs climb to the site root."""
    html = render_markdown("[g](guide.html#bands) [w](https://example.org) [m](mailto:a@b.example) [s](#top) "
                           "![l](img/logo.svg)", allow_relative=True, prefix="../")
    urls = [a.get("href") or a.get("src") for t, a in elements(html) if t in ("a", "img")]
    assert urls == ["../guide.html#bands", "https://example.org", "mailto:a@b.example", "#top", "../img/logo.svg"]
