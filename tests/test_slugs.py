"""Slugs of model pages (`builder/slugs.py`): lowercase ASCII, safe for any file system,
unique, never empty, stable across builds (PRODUCT.md "Outputs")."""

from __future__ import annotations

import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reasonboard.slugs import MAX_LENGTH, slugify, unique_slugs

SAFE = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
# Windows refuses these as file names whatever the extension ("con.html" is the console).
RESERVED = {"con", "prn", "aux", "nul", *(f"com{i}" for i in range(10)), *(f"lpt{i}" for i in range(10))}


def safe(slug: str) -> bool:
    return bool(SAFE.match(slug)) and len(slug) <= MAX_LENGTH and slug not in RESERVED


@pytest.mark.parametrize("name, slug", [
    ("GPT-4o (2024-08-06)", "gpt-4o-2024-08-06"),
    ("Ünïcode Módel", "unicode-model"),
    ("org/model:v1.5", "org-model-v1-5"),
    ("../../etc/passwd", "etc-passwd"),
    ("  --lead & trail--  ", "lead-trail"),
])
def test_readable_slugs(name, slug):
    assert slugify(name) == slug
    assert unique_slugs([name]) == [slug]


@pytest.mark.parametrize("name", ["", "???", "模型", "...", "/"])
def test_never_empty(name):
    assert safe(slugify(name)) and safe(unique_slugs([name])[0])


@pytest.mark.parametrize("name", ["CON", "aux", "Nul", "com1", "LPT9", "prn"])
def test_reserved_device_names_are_avoided(name):
    assert safe(unique_slugs([name])[0])


def test_clashing_names_get_their_own_hash():
    names = ["Model A", "model-a", "MODEL_A", "other"]
    slugs = unique_slugs(names)
    assert len(set(slugs)) == 4 and slugs[3] == "other"
    assert all(s.startswith("model-a-") and safe(s) for s in slugs[:3])
    # The suffix depends on the item's own key only: the same in any order, with any company.
    shuffled = unique_slugs(["MODEL_A", "other", "Model A"])
    assert shuffled[0] == slugs[2] and shuffled[2] == slugs[0]


def test_long_names_with_a_shared_prefix():
    base = "a" * 70 + "-" + "b" * 30
    names = [base + "-one", base + "-two"]
    slugs = unique_slugs(names)
    assert len(set(slugs)) == 2 and all(safe(s) for s in slugs)


def test_keys_disambiguate_and_must_be_unique():
    slugs = unique_slugs(["m", "m"], keys=["m|t1|s", "m|t2|s"])
    assert len(set(slugs)) == 2
    with pytest.raises(ValueError):
        unique_slugs(["a", "b"], keys=["k", "k"])


@settings(max_examples=80, deadline=None)
@given(st.lists(st.text(min_size=0, max_size=120), min_size=1, max_size=12, unique=True))
def test_slug_properties(names):
    slugs = unique_slugs(names)
    assert all(safe(s) for s in slugs), slugs
    assert len(set(slugs)) == len(slugs)
    assert unique_slugs(names) == slugs  # deterministic
    order = list(range(len(names)))
    random.Random(0).shuffle(order)
    assert unique_slugs([names[i] for i in order]) == [slugs[i] for i in order]  # order-free


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet=st.sampled_from("ab-"), min_size=60, max_size=90))
def test_cut_points_never_leave_double_or_trailing_hyphens(stem):
    # Names that clash only after the cut to the maximum length.
    names = [stem + "!", stem + "?"]
    slugs = unique_slugs(names)
    assert all(safe(s) for s in slugs), slugs


def test_a_plain_slug_equal_to_another_suffixed_one():
    import hashlib

    # "a" and "A" clash and get suffixes; a third model is literally named like one of them.
    impostor = "a-" + hashlib.sha256(b"A").hexdigest()[:8]
    slugs = unique_slugs(["a", "A", impostor])
    assert len(set(slugs)) == 3 and all(safe(s) for s in slugs)
