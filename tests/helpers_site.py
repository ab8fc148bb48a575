"""Reading built pages the way a reader does: a small DOM from the stdlib HTML parser.

Site tests assert on what a page shows (text, links, marks), not on template source, so
they parse the output with `html.parser` into `Node`s and query them by tag, class or id.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache
from html.parser import HTMLParser
from pathlib import Path
from typing import Iterator

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


@dataclass
class Node:
    tag: str
    attrs: dict[str, str]
    children: list[Node | str] = field(default_factory=list)
    parent: Node | None = None

    @property
    def classes(self) -> set[str]:
        return set((self.attrs.get("class") or "").split())

    def iter(self) -> Iterator[Node]:
        yield self
        for child in self.children:
            if isinstance(child, Node):
                yield from child.iter()

    def find_all(self, tag: str | None = None, cls: str | None = None, **attrs: str) -> list[Node]:
        out = []
        for node in self.iter():
            if tag is not None and node.tag != tag:
                continue
            if cls is not None and cls not in node.classes:
                continue
            if any(node.attrs.get(k.replace("_", "-")) != v for k, v in attrs.items()):
                continue
            out.append(node)
        return out

    def find(self, tag: str | None = None, cls: str | None = None, **attrs: str) -> Node | None:
        found = self.find_all(tag, cls, **attrs)
        return found[0] if found else None

    def by_id(self, id_: str) -> Node | None:
        return next((n for n in self.iter() if n.attrs.get("id") == id_), None)

    @property
    def text(self) -> str:
        """The text a reader gets, a screen reader's hidden text included, with whitespace
        collapsed (script and style content left out)."""
        return self._text(skip=())

    @property
    def seen(self) -> str:
        """The text on the screen: `text` without what only a screen reader hears."""
        return self._text(skip=("visually-hidden",))

    def _text(self, skip: tuple[str, ...]) -> str:
        parts: list[str] = []

        def walk(node: Node) -> None:
            if node.tag in ("script", "style") or node.classes & set(skip):
                return
            for child in node.children:
                if isinstance(child, str):
                    parts.append(child)
                else:
                    walk(child)

        walk(self)
        return re.sub(r"\s+", " ", "".join(parts)).strip()


class _Builder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("#document", {})
        self.stack = [self.root]

    def handle_starttag(self, tag, attrs):
        node = Node(tag, {k: (v if v is not None else "") for k, v in attrs}, parent=self.stack[-1])
        self.stack[-1].children.append(node)
        if tag not in VOID:
            self.stack.append(node)

    def handle_startendtag(self, tag, attrs):
        node = Node(tag, {k: (v if v is not None else "") for k, v in attrs}, parent=self.stack[-1])
        self.stack[-1].children.append(node)

    def handle_endtag(self, tag):
        for i in range(len(self.stack) - 1, 0, -1):
            if self.stack[i].tag == tag:
                del self.stack[i:]
                return

    def handle_data(self, data):
        self.stack[-1].children.append(data)


def parse(html: str) -> Node:
    builder = _Builder()
    builder.feed(html)
    builder.close()
    return builder.root


def page(site: Path, rel: str) -> Node:
    """The parsed page; parsed once per session (built sites are not modified by tests)."""
    return _parsed(str(site / rel))


@cache
def _parsed(path: str) -> Node:
    return parse(Path(path).read_text(encoding="utf-8"))


def html_pages(site: Path) -> list[str]:
    return sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html"))


def section(doc: Node, heading_id: str) -> Node:
    """The heading with this id and everything after it up to the next heading of its level."""
    heading = doc.by_id(heading_id)
    siblings = heading.parent.children
    start = siblings.index(heading)
    out = Node("#section", {})
    for child in siblings[start:]:
        if isinstance(child, Node) and child is not heading and child.tag == heading.tag:
            break
        out.children.append(child)
    return out


def row_cells(row: Node) -> list[Node]:
    return [c for c in row.children if isinstance(c, Node) and c.tag in ("td", "th")]


def badge_sentence(doc: Node, badge: Node) -> str:
    """What a signal badge says in full, as a reader gets it: its own hidden sentence, or the
    sentence its `aria-describedby` names (the key under a result table)."""
    own = badge.find("span", cls="badge-text")
    if own is not None:
        return own.text
    note = doc.by_id(badge.attrs["aria-describedby"])
    assert note is not None, f"badge {badge.text!r} names a sentence the page lacks"
    found = note.find("span", cls="badge-sentence")
    assert found is not None
    return found.text


def column_cell(table: Node, row: Node, heading: str) -> Node:
    """The cell of `row` under the column `heading` of `table` (by position, as a reader
    lines them up)."""
    names = [c.text.strip() for c in row_cells(table.find("thead").find("tr"))]
    return row_cells(row)[names.index(heading)]
