"""Markdown rendering for content pages and for text that comes from data (PRODUCT.md "safety").

One markdown-it-py configuration, CommonMark plus tables, with three safety choices:

* raw HTML is off, so `<script>` in a benchmark card is shown as text;
* images are off, because an image is a network request and pages make none;
* a link survives only when its URL is `http(s)`; for the publisher's own content pages,
  relative links to other pages of the site are allowed too (`guide.html#bands`).
  Anything else (`javascript:`, `data:`, `//host`, `/abs`) stays plain text.

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


def _site_relative(url: str) -> bool:
    url = url.strip()
    if not url or _SCHEME.match(url) or url.startswith(("/", "\\")) or "\\" in url:
        return False
    path = url.split("#", 1)[0].split("?", 1)[0]
    return not path.endswith("/")


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
    md = MarkdownIt("commonmark", {"html": False, "typographer": False}).enable("table").disable("image")
    md.validateLink = (lambda url: is_web_url(url) or _site_relative(url)) if allow_relative else is_web_url
    md.core.ruler.push("heading_ids", _heading_ids)
    return md


def render_markdown(text: str, allow_relative: bool = False) -> str:
    """Markdown to an HTML fragment, safe to insert unescaped (see the module docstring)."""
    return _parser(allow_relative).render(text)


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
