"""Slugs: the file-name part of every page URL (PRODUCT.md "Outputs"), for models, tasks,
benchmarks and content pages alike.

A slug is lowercase ASCII `[a-z0-9-]`, never empty, never `.` or `..`, at most
`MAX_LENGTH` characters, and never a name some file system reserves (`con`, `nul`, ...).
So a slug can be joined under `models/`, `tasks/` or `benchmarks/` without escaping
the output directory on any platform.

Stability: an item's slug depends only on its name, its unique key (the name itself unless
the caller has a better one, such as a model's `model|template|sampler` id) and on whether
another item in the same set maps to the same readable slug. Colliding items all get a
short hash of their own key appended (never "the first one keeps the plain slug"), so
adding a model can retire a URL but can never make an old URL silently point at a
different model.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass
from typing import Iterable, Sequence

MAX_LENGTH = 80
HASH_LENGTH = 8

# Names Windows refuses as file names whatever the extension ("con.html" is the console).
RESERVED = frozenset({"con", "prn", "aux", "nul", *(f"com{i}" for i in range(10)), *(f"lpt{i}" for i in range(10))})
_NOT_SLUG = re.compile(r"[^a-z0-9]+")
_VALID = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")


def name_hash(name: str, length: int = HASH_LENGTH) -> str:
    """A short, stable hex digest of a name (sha256: the same on every machine and run)."""
    return hashlib.sha256(name.encode("utf-8")).hexdigest()[:length]


def slugify(name: str, key: str | None = None) -> str:
    """The readable slug of one name, without regard to other names.

    Accents are folded to ASCII (`Ünïcode` -> `unicode`), every other run of characters
    outside `[a-z0-9]` becomes one hyphen. A name that is too long is cut and gets a hash of
    `key` (default: the name), so long names with a shared prefix stay apart; a name with
    nothing readable left (`"???"`, `"模型"`) or a reserved device name gets one too, so the
    result is never empty and never reserved.
    """
    key = str(name) if key is None else key
    folded = unicodedata.normalize("NFKD", str(name)).encode("ascii", "ignore").decode("ascii").lower()
    slug = _NOT_SLUG.sub("-", folded).strip("-")
    if len(slug) > MAX_LENGTH:
        return _suffixed(slug, key, HASH_LENGTH)
    if not slug:
        return "x-" + name_hash(key)
    if slug in RESERVED:
        return f"{slug}-{name_hash(key)}"
    return slug


def unique_slugs(names: Iterable[str], keys: Iterable[str] | None = None) -> list[str]:
    """Slugs for a set of items, in the same order, all different.

    `keys` (default: the names) identify the items and feed the disambiguating hashes.
    Raises `ValueError` if a key appears twice: two pages for one item is a bug upstream,
    not something to paper over with a suffix.
    """
    names = [str(n) for n in names]
    keys = list(names) if keys is None else [str(k) for k in keys]
    if len(keys) != len(names):
        raise ValueError("one key per name is needed")
    repeated = [k for k, c in Counter(keys).items() if c > 1]
    if repeated:
        raise ValueError(f"name listed twice (slug keys must be unique): {repeated[0]!r}")
    plain = [slugify(n, k) for n, k in zip(names, keys)]
    counts = Counter(plain)
    slugs = [s if counts[s] == 1 else _suffixed(s, k, HASH_LENGTH) for s, k in zip(plain, keys)]
    # A suffixed slug can, in theory, equal another item's plain slug (a model literally
    # called "a-1b2c3d4e"); lengthen the hash of the suffixed ones until all differ.
    length = HASH_LENGTH
    while len(set(slugs)) < len(slugs):
        length += 4
        if length > 64:
            raise ValueError("cannot make slugs unique")  # would need a sha256 collision
        counts = Counter(slugs)
        slugs = [s if counts[s] == 1 or s == p else _suffixed(p, k, length)
                 for s, p, k in zip(slugs, plain, keys)]
    return slugs


def _suffixed(slug: str, key: str, length: int) -> str:
    # rstrip: a cut just after a hyphen would leave "--" before the hash.
    room = MAX_LENGTH - length - 1
    return slug[:room].rstrip("-") + "-" + name_hash(key, length)


def is_safe_slug(slug: str) -> bool:
    """True when `slug` is what `slugify` promises: usable as a file name anywhere."""
    return bool(_VALID.match(slug)) and len(slug) <= MAX_LENGTH and slug not in RESERVED


@dataclass(frozen=True)
class EvaluationSlug:
    """Where one evaluation (model, template, sampler) lives on the site.

    `model` names the model's page, `models/<model>.html`; it depends on the model name
    only, so the page keeps its address when evaluations of the model are added or removed
   . `page` is the evaluation's own page under `models/`: the model
    page itself while the model has one evaluation, else `<model>/<evaluation>` with the
    evaluation part made from its template and sampler alone. `anchor` names the evaluation
    wherever a list has one row per evaluation (never its rank, which moves).
    """

    model: str
    page: str
    anchor: str


def evaluation_slugs(evaluations: Sequence[tuple[str, str, str]]) -> list[EvaluationSlug]:
    """Slugs for (model, template, sampler) triples, in the same order.

    Each part is made by `unique_slugs` among its own kind only (model names among model
    names, template/sampler pairs among the same model's pairs), so adding an evaluation
    changes no other evaluation's page unless its model goes from one evaluation to two.
    """
    triples = [tuple(map(str, e)) for e in evaluations]
    names = sorted({m for m, _, _ in triples})
    model_slug = dict(zip(names, unique_slugs(names)))
    per_model: dict[str, list[tuple[str, str]]] = {}
    for m, t, s in triples:
        per_model.setdefault(m, []).append((t, s))
    own: dict[tuple[str, str, str], str] = {}
    for m, pairs in per_model.items():
        if len(pairs) > 1:
            slugs = unique_slugs([f"{t} {s}" for t, s in pairs], [f"{t}|{s}" for t, s in pairs])
            own.update({(m, t, s): slug for (t, s), slug in zip(pairs, slugs)})
    anchors = unique_slugs([" ".join(e) for e in triples], ["|".join(e) for e in triples])
    out = []
    for e, anchor in zip(triples, anchors):
        base = model_slug[e[0]]
        out.append(EvaluationSlug(base, f"{base}/{own[e]}" if e in own else base, anchor))
    return out
