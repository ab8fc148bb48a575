"""Charts: Altair specifications drawn in the reader's browser by one local copy of Vega.

Why this design (PRODUCT.md "Charts", measured on the build machine):

* vl-convert draws one small chart to SVG in about 37 ms, and Altair's validated
  `to_dict` costs another 25-40 ms. Inlining an SVG per model page would cost minutes for a
  5,000-model site.
* So each chart *kind* is written once with Altair (`chartkinds.py`) against a named data
  source (`rows`), validated once per release of the tool and shipped with the package
  as JSON (`vendor/chart-specs.json`), then once per site in `assets/charts-<hash>.js`. A page carries only its
  data rows as JSON; its chart costs one `json.dumps` (well under a millisecond).
* The drawing library is the Vega + Vega-Lite + vega-embed bundle that vl-convert
  builds offline (`javascript_bundle()`, ~0.9 MB), made once per release of the tool
  (`vendor/vega.js`) and written once per site to `assets/vega-<hash>.js` as a classic script.
  Nothing is fetched from a network at build time or in the browser.

Every chart has a twin (a table or text on the same page) for screen readers, for readers
without JavaScript and for print; the figure carries an `aria-label` and says where its
twin is. Axis and legend colours come from the page's CSS so dark mode and print follow the
site's palette; data marks use colours legible on both backgrounds.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jinja2.utils import htmlsafe_json_dumps


@dataclass(frozen=True)
class Chart:
    """One chart on one page: which kind, its data rows, and how it is described.

    `twin` is the id of the element (table or text) holding the same numbers. With
    `from_twin`, the page carries no data of its own: `site.js` reads the chart's rows from
    the twin table (its reader of this kind), so the numbers are on the page once and the
    chart cannot disagree with its table; `rows` are then empty (the views do not make rows
    no page carries, and a page's key does not hold them twice). `series`: how many of the
    twin's rows a chart of series draws.
    """

    kind: str
    id: str
    label: str
    twin: str
    rows: tuple[dict[str, Any], ...]
    from_twin: bool = False
    series: int = 0

    @property
    def data_json(self) -> str:
        """The rows as JSON safe inside `<script type="application/json">` (no `<`, `>`, `&`),
        by column (`columns`)."""
        return script_json(columns(self.rows))


def columns(rows: tuple[dict[str, Any], ...]) -> dict[str, list[Any]]:
    """Rows as `{"keys": every field, sorted, "rows": each row's values in that order}`: a
    field's name is written once, not once a row (half a model page's chart bytes). A field a
    row lacks is null, and `site.js` leaves a null out of the row it rebuilds: Vega reads a
    null field and a missing one alike. Numbers keep six significant digits (`drawn`)."""
    keys = sorted({key for row in rows for key in row})
    return {"keys": keys, "rows": [[drawn(row.get(key)) for key in keys] for row in rows]}


def drawn(value: Any) -> Any:
    """A float to six significant digits: a millionth of a chart's scale is far below a
    pixel, and a reader reads the figure from its twin table, not from the page's source
    (`0.8127165000000001` costs 18 bytes, `0.812717` 8). Anything else as it is."""
    if isinstance(value, float) and math.isfinite(value):
        return float(f"{value:.6g}")
    return value


def script_json(value: Any) -> str:
    """JSON text that cannot close or open a tag when embedded in HTML: Jinja's
    `htmlsafe_json_dumps` (`<`, `>`, `&` and `'` as `\\u` escapes), with sorted keys, compact
    separators and no NaN, so equal values give equal bytes."""
    return str(htmlsafe_json_dumps(value, dumps=json.dumps, ensure_ascii=False, sort_keys=True,
                                   separators=(",", ":"), allow_nan=False))


# -- the chart kinds and the Vega bundle, shipped with the package --------------------

#: Made once per release of the tool by `scripts/chart_assets.py` (Altair writes the specs,
#: vl-convert the bundle); tests/test_site_charts.py checks they match `chartkinds.py`.
VENDOR = Path(__file__).with_name("vendor")
SPECS_FILE = VENDOR / "chart-specs.json"
BUNDLE_FILE = VENDOR / "vega.js"


def chart_specs() -> dict[str, dict[str, Any]]:
    """Every chart kind's Vega-Lite spec, without data (the pages carry their rows)."""
    specs: dict[str, dict[str, Any]] = json.loads(SPECS_FILE.read_text(encoding="utf-8"))
    return specs


def specs_script() -> bytes:
    """`assets/charts-<hash>.js`: the chart kinds, for `site.js` to combine with page data."""
    return f"window.RB_CHART_SPECS = {script_json(chart_specs())};\n".encode()


def vega_bundle() -> bytes:
    """`assets/vega-<hash>.js`: Vega, Vega-Lite and vega-embed as one classic script (no
    network, no modules); it exports `vegaEmbed`, `vega` and `vegaLite` on `window`."""
    return BUNDLE_FILE.read_bytes()


def content_hash(data: bytes, length: int = 10) -> str:
    return hashlib.sha256(data).hexdigest()[:length]
