"""Keys (EVALCARDS.md section 2) and the populated rule (section 3)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st
from reasonboard.signals.comparability import sorted_values
from reasonboard.store.keys import UNNAMED_ORGANIZATION, Aliases, benchmark_path, fold, key, org_key, rho
from reasonboard.store.populated import ABSENT, EMPTY, POPULATED, level, populated, threshold
from reasonboard.store.setup import canonical


@pytest.mark.parametrize("text, expected", [
    ("MMLU-PRO", "mmlu-pro"), ("MMLU-Pro", "mmlu-pro"), ("MATH Level 5", "math-level-5"),
    ("CNN/DailyMail", "cnn-dailymail"), ("  GPQA  ", "gpqa"), ("MS MARCO (TREC)", "ms-marco-trec"),
    ("helm_capabilities", "helm-capabilities"), ("", ""), (None, ""), ("---", ""),
])
def test_key(text, expected):
    assert key(text) == expected


@given(st.text())
def test_key_is_lowercase_runs_and_idempotent(text):
    k = key(text)
    assert re.fullmatch(r"([a-z0-9]+(-[a-z0-9]+)*)?", k)
    assert key(k) == k
    # Case and punctuation never matter; the alphanumeric runs do.
    assert key(text.upper()) == k or not text.isascii()
    assert k.replace("-", "") == "".join(re.findall(r"[a-z0-9]", text.lower()))


def test_model_and_org_keys():
    assert fold("  allenai/OLMo-2-1124-7B-Instruct ") == "allenai/olmo-2-1124-7b-instruct"
    spelled = ("New York University,  Princeton University, University of California San Diego, "
               "University of Washington and Canyon Crest Academy")
    assert org_key(spelled) == org_key(spelled.replace(",  ", ", ")) == org_key(" " + spelled.upper() + "\t")
    assert org_key(None) == org_key("   ") == org_key(7) == UNNAMED_ORGANIZATION
    assert benchmark_path("gpqa", None) == "gpqa" and benchmark_path("helm-mmlu", "anatomy") == "helm-mmlu/anatomy"


def test_aliases_are_normalised_on_both_sides():
    aliases = Aliases.from_tables({"Org/Old-Name ": "ORG/New-Name"}, {"MMLU Pro": "mmlu-pro", "IFEval": "Instruction Following"})
    assert aliases.model("org/old-name") == "org/new-name"
    assert aliases.model("Org/Unrelated") == "org/unrelated"
    assert aliases.benchmark("mmlu-pro") == "mmlu-pro"
    assert aliases.benchmark("ifeval") == "instruction-following"
    assert aliases.benchmark("gpqa") == "gpqa"


@pytest.mark.parametrize("value, expected", [
    (None, ABSENT), ("", EMPTY), ("   ", EMPTY), ("Not specified", EMPTY), ("not specified.", EMPTY),
    ("  Unknown ", EMPTY), ("N/A", EMPTY), ("NA", EMPTY), ("none", EMPTY), ("null", EMPTY), ("TBD.", EMPTY),
    ("No information found", EMPTY), ("unknown model", POPULATED), ("Not specified by the paper", POPULATED),
    ([], EMPTY), ({}, EMPTY), (["Not specified", ""], EMPTY), (["Not specified", "x"], POPULATED),
    ([[], ["x"]], POPULATED), ({"a": None}, POPULATED), (0, POPULATED), (0.0, POPULATED), (False, POPULATED),
    ("0", POPULATED), (2048, POPULATED),
])
def test_levels(value, expected):
    assert level(value) == expected


def test_rules():
    assert threshold("strict") == POPULATED and threshold("presence") == EMPTY
    assert not populated("Not specified", "strict") and populated("Not specified", "presence")
    assert not populated(None, "presence")
    assert populated(0, "strict")
    with pytest.raises(ValueError):
        threshold("lenient")


@pytest.mark.parametrize("raw, expected", [
    ("first_party", "first_party"), (" Third_Party ", "third_party"), ("collaborative", "collaborative"),
    ("other", "unspecified"), (None, "unspecified"), ("", "unspecified"), (3, "unspecified"),
])
def test_rho(raw, expected):
    assert rho(raw) == expected


@pytest.mark.parametrize("value, expected", [
    (None, None), (0.7, "0.7"), (0.70000000001, "0.7"), (1, "1"), (1.0, "1"), (4096, "4096"),
    (123456789, "1.2345679e+08"), (True, "true"), (" plain ", "plain"),
    ({"b": 1, "a": [2, 3]}, '{"a":[2,3],"b":1}'),
])
def test_canonical_setup_values(value, expected):
    assert canonical(value) == expected


def test_setup_values_read_in_numeric_order():
    assert sorted_values(["4096", "512", "2048"], False) == ("512", "2048", "4096")
    assert sorted_values(["b", "a"], True) == ("a", "b", None)


def test_record_builder_makes_the_same_frozen_record():
    """`record_builder` (the fast ResultRow constructor) gives what the dataclass's own
    constructor gives: equal, same hash, same fields, still frozen; wrong arity is refused."""
    import dataclasses

    import pytest
    from reasonboard.signals.model import ResultRow, record_builder

    values = tuple(f"v{k}" for k in range(len(dataclasses.fields(ResultRow))))
    fast, plain = record_builder(ResultRow)(*values), ResultRow(*values)
    assert fast == plain and hash(fast) == hash(plain) and vars(fast) == vars(plain)
    with pytest.raises(dataclasses.FrozenInstanceError):
        fast.row_id = 1  # type: ignore[misc]
    with pytest.raises(TypeError):
        record_builder(ResultRow)(*values[:-1])
