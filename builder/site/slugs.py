"""Slugs: the file-name part of every page URL (PRODUCT.md "Outputs").

A slug is lowercase ASCII `[a-z0-9-]`, never empty, never `.` or `..`, at most
`MAX_LENGTH` characters, and never a name some file system reserves (`con`, `nul`, ...).
So a slug can be joined under `models/`, `tasks/` or `benchmarks/` without escaping
the output directory on any platform.

Stability: a name's slug depends only on the name and on whether another name in the same
set maps to the same readable slug. Colliding names all get a short hash of their own
name appended (never "the first one keeps the plain slug"), so adding a model can retire a
URL but can never make an old URL silently point at a different model.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections import Counter
from typing import Iterable

MAX_LENGTH = 80
HASH_LENGTH = 8

# Names Windows refuses as file names whatever the extension ("con.html" is the console).
_RESERVED = {"con", "prn", "aux", "nul", *(f"com{i}" for i in range(10)), *(f"lpt{i}" for i in range(10))}
_NOT_SLUG = re.compile(r"[^a-z0-9]+")
_VALID = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")


def name_hash(name: str, length: int = HASH_LENGTH) -> str:
    """A short, stable hex digest of a name (sha256: the same on every machine and run)."""
    return hashlib.sha256(name.encode("utf-8")).hexdigest()[:length]


def slugify(name: str) -> str:
    """The readable slug of one name, without regard to other names.

    Accents are folded to ASCII (`Ünïcode` -> `unicode`), every other run of characters
    outside `[a-z0-9]` becomes one hyphen. A name with nothing readable left (`"???"`,
    `"模型"`) or a reserved device name gets a hash, so the result is never empty.
    """
    folded = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii").lower()
    slug = _NOT_SLUG.sub("-", folded).strip("-")
    if len(slug) > MAX_LENGTH:
        # Truncating loses information, so the hash keeps long names with a shared prefix apart.
        slug = slug[: MAX_LENGTH - HASH_LENGTH - 1].rstrip("-") + "-" + name_hash(name)
    if not slug:
        return "x-" + name_hash(name)
    if slug in _RESERVED:
        return f"{slug}-{name_hash(name)}"
    return slug


def unique_slugs(names: Iterable[str]) -> list[str]:
    """Slugs for a set of distinct names, in the same order, all different.

    Raises `ValueError` if a name appears twice: two pages for one name is a bug upstream,
    not something to paper over with a suffix.
    """
    names = list(names)
    repeated = [n for n, c in Counter(names).items() if c > 1]
    if repeated:
        raise ValueError(f"name listed twice: {repeated[0]!r}")
    plain = [slugify(n) for n in names]
    counts = Counter(plain)
    slugs = [s if counts[s] == 1 else _suffixed(s, n, HASH_LENGTH) for s, n in zip(plain, names)]
    # A suffixed slug can, in theory, equal another name's plain slug (a model literally
    # called "a-1b2c3d4e"); lengthen the hash of the suffixed ones until all differ.
    length = HASH_LENGTH
    while len(set(slugs)) < len(slugs):
        length += 4
        if length > 64:
            raise ValueError("cannot make slugs unique")  # would need a sha256 collision
        counts = Counter(slugs)
        slugs = [s if counts[s] == 1 or s == p else _suffixed(p, n, length)
                 for s, p, n in zip(slugs, plain, names)]
    return slugs


def _suffixed(slug: str, name: str, length: int) -> str:
    room = MAX_LENGTH - length - 1
    return slug[:room].rstrip("-") + "-" + name_hash(name, length)


def is_safe_slug(slug: str) -> bool:
    """True when `slug` is what `slugify` promises: usable as a file name anywhere."""
    return bool(_VALID.match(slug)) and len(slug) <= MAX_LENGTH and slug not in _RESERVED
