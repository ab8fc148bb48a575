"""Slugs: the file names of model, task and benchmark pages.

Lowercase ASCII letters, digits and hyphens only, so a slug is safe on every file system
and can never climb out of the output directory (no `/`, no `.`); never empty; at most 80
characters; stable across builds because they depend only on the item's own name and id.
Names that fold to the same slug are told apart by a short hash of their unique id, so the
outcome does not depend on which other items exist or in what order they come.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections import Counter

MAX_LENGTH = 80
RESERVED = {"con", "prn", "aux", "nul", *(f"com{i}" for i in range(10)), *(f"lpt{i}" for i in range(10))}


def slugify(text: str) -> str:
    ascii_text = unicodedata.normalize("NFKD", str(text)).encode("ascii", "ignore").decode("ascii")
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")
    return slug[:MAX_LENGTH].strip("-") or "item"


def _suffix(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:8]


def unique_slugs(names: list[str], keys: list[str] | None = None) -> list[str]:
    """One slug per name; `keys` (default: the names) must be unique and disambiguate clashes."""
    keys = list(names) if keys is None else list(keys)
    if len(set(keys)) != len(keys):
        raise ValueError("slug keys must be unique")
    base = [slugify(n) for n in names]
    counts = Counter(base)

    def suffixed(b: str, k: str) -> str:
        # rstrip: a cut just after a hyphen would leave "--" before the hash.
        return f"{b[: MAX_LENGTH - 9].rstrip('-')}-{_suffix(k)}"

    # Device names Windows reserves ("con.html") are not safe file names: hash them too.
    slugs = [b if counts[b] == 1 and b not in RESERVED else suffixed(b, k) for b, k in zip(base, keys)]
    if len(set(slugs)) != len(slugs):  # a plain slug can equal another's suffixed form
        slugs = [suffixed(b, k) for b, k in zip(base, keys)]
    return slugs
