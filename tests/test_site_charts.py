"""Chart kinds: Altair specs that Vega really draws, cached, and safe to embed in a page."""

from __future__ import annotations

import json
import sys

import pytest
from reasonboard.site.charts import chart_specs, script_json, specs_script

SAMPLES = {
    "forest-score": [{"label": "1. A", "order": 0, "low": 700.0, "high": 720.0, "center": 710.0,
                      "text": "710.0 ± 10.0", "hollow": False},
                     {"label": "* B", "order": 1, "low": 300.0, "high": 340.0, "center": 320.0,
                      "text": "320.0 ± 20.0", "hollow": True}],
    "forest-probability": [{"label": "arith", "order": 0, "low": 0.5, "high": 0.6, "center": 0.55,
                            "text": "0.550 ± 0.050", "hollow": False}],
    "curves": [{"model": f"{i + 1}. {m}", "series_order": i + 1, "level": str(lv), "level_order": lv,
                "estimate": 0.9 - 0.1 * lv - i / 10, "low": 0.1, "high": 0.9, "text": "x"}
               for i, m in enumerate(["A", "B"]) for lv in range(3)],
    "heatmap": [{"row": f"{a + 1}. M{a}", "col": str(b + 1), "opponent": f"{b + 1}. M{b}", "row_order": a,
                 "col_order": b, "win_rate": None if a == b else 0.7, "text": "" if a == b else "70",
                 "percent": "" if a == b else "70%"} for a in range(2) for b in range(2)],
    "rates": [{"label": "temperature", "order": 0, "rate": 0.85, "text": "85.0%"}],
    "history": [{"label": "v1", "order": 0, "low": 600.0, "high": 630.0, "center": 615.0, "text": "615.0 ± 15.0",
                 "move": "no significant move"},
                {"label": "v2", "order": 1, "low": 650.0, "high": 670.0, "center": 660.0, "text": "660.0 ± 10.0",
                 "move": "significantly up"}],
}


@pytest.mark.parametrize("kind", sorted(SAMPLES))
def test_every_kind_draws_with_vega(kind):
    vl_convert = pytest.importorskip("vl_convert")
    spec = json.loads(json.dumps(chart_specs()[kind]))
    spec["datasets"] = {"rows": SAMPLES[kind]}
    spec["width"] = 400  # "container" needs a page; vl-convert draws at a fixed width
    svg = vl_convert.vegalite_to_svg(spec)
    assert svg.startswith("<svg") and "role-mark" in svg
    assert "http://" not in svg.replace("http://www.w3.org", "")


def test_specs_name_no_network_resource():
    text = json.dumps(chart_specs())
    assert "$schema" not in text and "url" not in json.dumps([v.get("data") for v in chart_specs().values()])
    assert set(chart_specs()) == set(SAMPLES)


def test_cached_specs_are_the_built_ones_and_spare_altair(tmp_path):
    built = specs_script(tmp_path)
    assert list(tmp_path.glob("chart-specs-*.json"))
    assert specs_script(tmp_path) == built
    # A fresh interpreter with a warm cache never imports Altair.
    import subprocess

    code = ("import sys; from pathlib import Path; from reasonboard.site.charts import specs_script; "
            f"specs_script(Path({str(tmp_path)!r})); print('altair' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_embedded_json_cannot_close_its_script_tag():
    text = script_json({"label": "</script><script>alert(1)</script>", "amp": "a&b", "line": "\u2028"})
    assert "<" not in text and ">" not in text and "&" not in text and "\u2028" not in text
    assert json.loads(text)["label"] == "</script><script>alert(1)</script>"
