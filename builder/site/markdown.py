"""Markdown rendering for content pages and for text that comes from data (PRODUCT.md "safety").

One markdown-it-py configuration, CommonMark plus tables, with these safety choices:

* raw HTML is off, so `<script>` in a benchmark card is shown as text;
* in text from data, images are off (an image is a network request and pages make none) and a
  link survives only when its URL is `http(s)`;
* the publisher's own content pages (and the `footer` of site.toml) may also link `mailto:`
  addresses and other pages of the site (`guide.html#bands`), and show local images
  (`img/chart.png`, from the project's `static/`): relative paths that cannot climb out of
  the site (no `..`). A remote image is shown as its alt text.

Anything else (`javascript:`, `data:`, `//host`, `/abs`) stays plain text. Relative URLs
are written for a page at the site root; text shown on deeper pages (the footer) is rendered
with a `prefix` (`../`) added to each of them.

Content pages carry TOML front matter between `+++` lines (title, order, ...).
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from markdown_it import MarkdownIt

from ..errors import InputError
from ..sources.text import read_text

_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")
_HEADING_ID = re.compile(r"[^a-z0-9]+")


def is_web_url(url: str) -> bool:
    """True for an absolute `http://` or `https://` URL with a host."""
    lowered = url.strip().lower()
    return (lowered.startswith("http://") or lowered.startswith("https://")) and len(lowered.split("//", 1)[1]) > 0


def is_mailto(url: str) -> bool:
    """True for a `mailto:` URL with an address."""
    return url.strip().lower().startswith("mailto:") and len(url.strip()) > len("mailto:")


def _site_relative(url: str) -> bool:
    url = url.strip()
    if not url or _SCHEME.match(url) or url.startswith(("/", "\\")) or "\\" in url:
        return False
    path = url.split("#", 1)[0].split("?", 1)[0]
    return not path.endswith("/")


def _local_file(url: str) -> bool:
    """A relative path to a file of the site that stays inside it (images)."""
    if not _site_relative(url) or "#" in url or "?" in url:
        return False
    return all(part not in ("", ".", "..") for part in url.strip().split("/"))


def _local_urls(state: Any) -> None:
    """Images: only local files render (others become their alt text). Relative link and
    image URLs get the page's `prefix` (env), so the same text works at any depth."""
    prefix = state.env.get("prefix", "") if isinstance(state.env, dict) else ""
    for block in state.tokens:
        if not block.children:
            continue
        children = []
        for token in block.children:
            if token.type == "image":
                src = token.attrGet("src") or ""
                if not _local_file(src):
                    alt = token.content
                    token = type(token)("text", "", 0)
                    token.content = alt
                elif prefix:
                    token.attrSet("src", prefix + src)
            elif token.type == "link_open" and prefix:
                href = token.attrGet("href") or ""
                if _site_relative(href) and not href.startswith("#"):
                    token.attrSet("href", prefix + href)
            children.append(token)
        block.children = children


def _heading_ids(state: Any) -> None:
    """Give each heading an id from its text so sections can be linked (`#bands`)."""
    seen: dict[str, int] = {}
    tokens = state.tokens
    for i, token in enumerate(tokens):
        if token.type != "heading_open":
            continue
        text = tokens[i + 1].content if i + 1 < len(tokens) else ""
        base = _HEADING_ID.sub("-", text.lower()).strip("-") or "section"
        seen[base] = seen.get(base, 0) + 1
        token.attrSet("id", base if seen[base] == 1 else f"{base}-{seen[base]}")


@lru_cache(maxsize=2)
def _parser(allow_relative: bool) -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "typographer": False}).enable("table")
    if allow_relative:
        md.validateLink = lambda url: is_web_url(url) or is_mailto(url) or _site_relative(url)  # type: ignore[method-assign]
        md.core.ruler.push("local_urls", _local_urls)
    else:
        md.disable("image")
        md.validateLink = is_web_url  # type: ignore[method-assign]
    md.core.ruler.push("heading_ids", _heading_ids)
    return md


def render_markdown(text: str, allow_relative: bool = False, prefix: str = "") -> str:
    """Markdown to an HTML fragment, safe to insert unescaped (see the module docstring).

    `allow_relative` is for the publisher's own text (content pages, footer); `prefix`
    leads every relative URL (`../` for a page one folder down). A code block or a table
    may be wider than a phone: it scrolls in its own box, which takes keyboard focus so it
    can be scrolled without a pointer (WCAG 2.1.1). Raw HTML is off, so these tags come
    only from the renderer."""
    html: str = _parser(allow_relative).render(text, {"prefix": prefix})
    return (html.replace("<pre>", '<pre tabindex="0">')
            .replace("<table>", '<div class="table-wrap" role="region" aria-label="Table" tabindex="0"><table>')
            .replace("</table>", "</table></div>"))


@dataclass(frozen=True)
class ContentPage:
    """One `content/*.md` page: its slug (the file stem), front matter and rendered body."""

    slug: str
    title: str
    order: int
    description: str
    html: str


FRONT_MATTER_KEYS = {"title", "order", "description"}


def split_front_matter(text: str, path: Path | str) -> tuple[dict[str, Any], str]:
    """Split `+++`-fenced TOML front matter from the Markdown body; no fence means no metadata."""
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].strip() != "+++":
        return {}, text
    for end in range(1, len(lines)):
        if lines[end].strip() == "+++":
            try:
                meta = tomllib.loads("".join(lines[1:end]))
            except tomllib.TOMLDecodeError as exc:
                raise InputError(path, f"invalid TOML front matter: {exc}") from None
            return meta, "".join(lines[end + 1:])
    raise InputError(path, "front matter opened with +++ but never closed")


def load_content_page(path: Path) -> ContentPage:
    """Read one content page; unknown front-matter keys are an error that names the key."""
    meta, body = split_front_matter(read_text(path), path)
    unknown = sorted(set(meta) - FRONT_MATTER_KEYS)
    if unknown:
        raise InputError(path, f"unknown front matter key '{unknown[0]}' (known: {', '.join(sorted(FRONT_MATTER_KEYS))})")
    title = meta.get("title", path.stem.replace("-", " ").title())
    order = meta.get("order", 100)
    if not isinstance(title, str) or not isinstance(order, int) or isinstance(order, bool):
        raise InputError(path, "front matter 'title' must be a string and 'order' an integer")
    description = meta.get("description", "")
    if not isinstance(description, str):
        raise InputError(path, "front matter 'description' must be a string")
    return ContentPage(path.stem, title, order, description, render_markdown(body, allow_relative=True))
