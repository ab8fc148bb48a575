"""Chart kinds: Altair specs that Vega really draws, shipped with the package, and safe to embed in a page."""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys

import pytest
from reasonboard.site.charts import Chart, chart_specs, script_json, vega_bundle

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
    "cost-score": [{"label": "A", "cost": 1.5, "cost_text": "$1.50", "low": 600.0, "high": 630.0, "center": 615.0,
                    "text": "615.0 ± 15.0", "frontier": "on the frontier"},
                   {"label": "B", "cost": 12.0, "cost_text": "$12.00", "low": 590.0, "high": 640.0, "center": 615.0,
                    "text": "615.0 ± 25.0", "frontier": "dominated"}],
    "compression": [{"label": f"arith · {o}", "order": k, "outcome": o, "q1": 1.0 + k, "median": 1.5 + k, "q3": 2.0 + k}
                    for k, o in enumerate(["correct", "incorrect", "truncated"])],
    "hazard": [{"series": s, "series_order": i, "bin": f"{32 << b}–{64 << b}", "bin_order": b, "hazard": 0.1 * (b + i),
                "low": 0.05 * (b + i), "high": 0.2 * (b + i)} for i, s in enumerate(["arith", "dates"]) for b in range(3)],
    "budget": [{"budget": f"L/{d} ({8192 // d:,})", "order": k, "center": 300.0 + 50 * k, "low": 280.0 + 50 * k,
                "high": 320.0 + 50 * k, "text": "x"} for k, d in enumerate([16, 8, 4, 2, 1])],
}


#: Draws each spec given on stdin, in a process of its own: vl-convert's runtime keeps its
#: threads for the life of the process, and the test session forks render pools later.
DRAW = ("import json, sys, vl_convert; json.dump({k: vl_convert.vegalite_to_svg(s) "
        "for k, s in json.load(sys.stdin).items()}, sys.stdout)")


@pytest.fixture(scope="module")
def drawn() -> dict[str, str]:
    if importlib.util.find_spec("vl_convert") is None:
        pytest.skip("vl-convert is not installed")
    specs = {}
    for kind, rows in SAMPLES.items():
        spec = json.loads(json.dumps(chart_specs()[kind]))
        spec["datasets"] = {"rows": rows}
        spec["width"] = 400  # "container" needs a page; vl-convert draws at a fixed width
        specs[kind] = spec
    done = subprocess.run([sys.executable, "-c", DRAW], input=json.dumps(specs), capture_output=True, text=True,
                          check=True)
    return json.loads(done.stdout)


@pytest.mark.parametrize("kind", sorted(SAMPLES))
def test_every_kind_draws_with_vega(kind, drawn):
    svg = drawn[kind]
    assert svg.startswith("<svg") and "role-mark" in svg
    assert "http://" not in svg.replace("http://www.w3.org", "")


def test_specs_name_no_network_resource():
    text = json.dumps(chart_specs())
    assert "$schema" not in text and "url" not in json.dumps([v.get("data") for v in chart_specs().values()])
    assert set(chart_specs()) == set(SAMPLES)


def test_shipped_specs_are_the_chart_kinds():
    """The specs the package ships (scripts/chart_assets.py writes them) are what Altair makes
    of `chartkinds.py` now: a changed chart kind without regenerated specs fails here."""
    from reasonboard.site.chartkinds import build_specs

    assert chart_specs() == json.loads(json.dumps(build_specs()))


def test_the_shipped_bundle_is_a_classic_script_of_vl_convert():
    """Made by `scripts/chart_assets.py` with a vl-convert that pyproject.toml allows (1.x):
    not necessarily the one installed, which at the lowest allowed versions is older."""
    bundle = vega_bundle().decode("utf-8")
    made_by = re.search(r"bundled offline by vl-convert (\d+)\.(\d+)\.(\d+)", bundle.split("\n", 1)[0])
    assert bundle.startswith("/* Vega, Vega-Lite and vega-embed") and made_by is not None
    assert (1, 6, 1) <= tuple(int(n) for n in made_by.groups()) < (2, 0, 0)
    assert "import " not in bundle.split("\n", 1)[0] and bundle.rstrip().endswith("})();")


def test_a_build_never_imports_altair():
    """The specs are package data: making the chart assets needs neither Altair nor vl-convert."""
    import subprocess

    code = ("import sys; from reasonboard.site.charts import specs_script, vega_bundle; specs_script(); vega_bundle(); "
            "print('altair' in sys.modules, 'vl_convert' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False False"


def test_embedded_json_cannot_close_its_script_tag():
    text = script_json({"label": "</script><script>alert(1)</script>", "amp": "a&b", "quote": "it's"})
    assert "<" not in text and ">" not in text and "&" not in text and "'" not in text
    assert json.loads(text)["label"] == "</script><script>alert(1)</script>"


def test_rows_are_written_by_column_with_the_digits_a_chart_can_draw():
    rows = ({"center": 0.8127165000000001, "hollow": False, "label": "a", "order": 0},
            {"center": 5339.673295454545, "label": "b", "order": 1, "high": 1e-9 / 3})
    chart = Chart(kind="forest-probability", id="x", label="x", twin="t", rows=rows)
    data = json.loads(chart.data_json)
    assert data == {"keys": ["center", "high", "hollow", "label", "order"],
                    "rows": [[0.812717, None, False, "a", 0], [5339.67, 3.33333e-10, None, "b", 1]]}
    # Rebuilt as site.js does (a null left out), every value within a millionth of itself.
    rebuilt = [{k: v for k, v in zip(data["keys"], values) if v is not None} for values in data["rows"]]
    for before, after in zip(rows, rebuilt):
        assert after.keys() == before.keys()
        assert all(after[k] == (pytest.approx(v, rel=1e-6) if isinstance(v, float) else v) for k, v in before.items())
