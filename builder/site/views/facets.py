"""Filter facets of the leaderboard and the matrix (PRODUCT.md "Filters"): the evaluations'
`evals.json` groups, "family:llama" read as the facet "family" with the value "llama" (a
group without a colon is a value of the facet "group"). A row carries its groups in
`data-groups` ("|family:llama|size:large|"); site.js filters by them and keeps the choice
in the page's URL fragment."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable


@dataclass(frozen=True)
class Facet:
    """One group key ("family") and its options across the evaluations: each the group as
    evals.json spells it ("family:llama") and the value shown ("llama")."""

    key: str
    options: tuple[tuple[str, str], ...]


def facets(groups: Iterable[Iterable[str]]) -> tuple[Facet, ...]:
    """The facets of rows with these `groups`, keys and values sorted."""
    options: dict[str, set[tuple[str, str]]] = {}
    for row in groups:
        for g in row:
            key, _, value = g.partition(":") if ":" in g else ("group", "", g)
            options.setdefault(key, set()).add((g, value))
    return tuple(Facet(k, tuple(sorted(v, key=lambda o: (o[1], o[0])))) for k, v in sorted(options.items()))


def groups_attribute(groups: Iterable[str]) -> str:
    """A row's `data-groups`: each group between bars, so one is matched whole."""
    text = "|".join(g.replace("|", "/") for g in groups)
    return f"|{text}|" if text else ""
