"""Interpretation bands (STATISTICS.md section 9) and their wording file `content/bands.toml`."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reasonboard.errors import InputError
from reasonboard.stats.bands import load_bands

SHIPPED = Path(__file__).resolve().parent.parent / "content" / "bands.toml"


@pytest.fixture(scope="module")
def bands():
    return load_bands(SHIPPED)


def test_shipped_edges_follow_the_spec(bands):
    edges = {scale: [b.low for b in bs] for scale, bs in bands.all().items()}
    assert edges["reasonscore"][:5] == [900, 700, 500, 300, 100]
    assert edges["reasonscore"][5] <= 10  # the last band covers 10-100 (and anything lower)
    assert edges["score_per_token"] == [0.7, 0.5, 0.3, 0.1, 0.0]
    assert edges["ci_width"] == [20, 10, 0]
    for bs in bands.all().values():
        assert all(b.label and b.text and b.key for b in bs)
        assert bs[0].high is None and all(bs[k].high == bs[k - 1].low for k in range(1, len(bs)))


@pytest.mark.parametrize("value, key", [
    (1000, "near-perfect"), (900, "near-perfect"), (899.999, "strong"), (700, "strong"), (699.9, "good"),
    (500, "good"), (300, "limited"), (299.9999, "deficient"), (100, "deficient"), (99.9, "catastrophic"),
    (10, "catastrophic"), (3, "catastrophic"),
])
def test_reasonscore_bands_lower_edge_inclusive(bands, value, key):
    assert bands.reasonscore(value).key == key
    assert bands.keys("reasonscore", np.array([value])) == [key]


@pytest.mark.parametrize("value, key", [
    (1.2, "excellent"), (0.7, "excellent"), (0.6999, "good"), (0.5, "good"), (0.3, "decent"), (0.1, "poor"),
    (0.0999, "catastrophic"), (0.0, "catastrophic"),
])
def test_score_per_token_bands(bands, value, key):
    assert bands.score_per_token(value).key == key


@pytest.mark.parametrize("margin, key", [(0.0, "tight"), (9.999, "tight"), (10, "moderate"), (19.99, "moderate"),
                                         (20, "wide"), (55, "wide")])
def test_ci_width_bands(bands, margin, key):
    assert bands.ci_width(margin).key == key


def test_no_value_no_band(bands):
    assert bands.reasonscore(None) is None and bands.reasonscore(float("nan")) is None
    assert bands.by_key("reasonscore", "strong").label == "Strong" and bands.by_key("reasonscore", "x") is None


@settings(max_examples=50, deadline=None)
@given(st.lists(st.one_of(st.floats(-50, 1200), st.sampled_from([0, 10, 100, 300, 500, 700, 900, 1000])),
                max_size=30))
def test_vectorised_keys_agree_with_classify(values):
    bands = load_bands(SHIPPED)
    assert bands.keys("reasonscore", np.array(values, dtype=float)) == [bands.reasonscore(v).key for v in values]
    scaled = [v / 1000 for v in values]
    assert bands.keys("score_per_token", np.array(scaled)) == [bands.score_per_token(v).key for v in scaled]


def test_wording_comes_from_the_file(tmp_path):
    text = SHIPPED.read_text(encoding="utf-8").replace('label = "Strong"', 'label = "Sturdy"')
    path = tmp_path / "bands.toml"
    path.write_text(text, encoding="utf-8")
    assert load_bands(path).reasonscore(800).label == "Sturdy"


ONE = '[[{s}]]\nkey = "a"\nmin = 0\nlabel = "A"\ntext = "t"\n'
VALID = "".join(ONE.format(s=s) for s in ("reasonscore", "score_per_token", "ci_width"))


@pytest.mark.parametrize("text, words", [
    (VALID + ONE.format(s="colour"), "unknown key 'colour'"),
    (ONE.format(s="reasonscore") + ONE.format(s="ci_width"), "'score_per_token' must list at least one band"),
    (VALID.replace('label = "A"', 'label = "A"\nicon = "x"', 1), "unknown key 'icon'"),
    (VALID.replace('min = 0', 'min = "low"', 1), "needs key, min (a number), label and text"),
    (VALID.replace('text = "t"\n', '', 1), "needs key, min (a number), label and text"),
    (VALID + ONE.format(s="ci_width").replace("min = 0", "min = 5"), "'min' must be below the band above it"),
    ("reasonscore = [", "invalid TOML"),
])
def test_bad_band_files_name_the_file(tmp_path, text, words):
    path = tmp_path / "bands.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as err:
        load_bands(path)
    assert err.value.path == str(path) and words in err.value.problem


def test_missing_band_file(tmp_path):
    with pytest.raises(InputError) as err:
        load_bands(tmp_path / "none.toml")
    assert "not found" in err.value.problem
