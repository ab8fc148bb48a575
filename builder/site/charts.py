"""Charts: Altair specifications drawn in the reader's browser by one local copy of Vega.

Why this design (PRODUCT.md "Charts", measured on the build machine):

* vl-convert draws one small chart to SVG in about 37 ms, and Altair's validated
  `to_dict` costs another 25-40 ms. Inlining an SVG per model page would cost minutes for a
  5,000-model site.
* So each chart *kind* is written once with Altair (`chartkinds.py`) against a named data
  source (`rows`), validated once, cached as JSON by Altair version and definition source,
  and shipped once in `assets/charts-<hash>.js`. A page carries only its
  data rows as JSON; its chart costs one `json.dumps` (well under a millisecond).
* The drawing library is the Vega + Vega-Lite + vega-embed bundle that vl-convert
  builds offline (`javascript_bundle()`, ~0.9 MB, about 2 s to produce). It is written once to
  `assets/vega-<hash>.js` as a classic script and cached on disk by vl-convert version.
  Nothing is fetched from a network at build time or in the browser.

Every chart has a twin (a table or text on the same page) for screen readers, for readers
without JavaScript and for print; the figure carries an `aria-label` and says where its
twin is. Axis and legend colours come from the page's CSS so dark mode and print follow the
site's palette; data marks use colours legible on both backgrounds.
"""

from __future__ import annotations

import hashlib
import json
from contextlib import suppress
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..atomic import write_atomically
from ..cachekey import salted


@dataclass(frozen=True)
class Chart:
    """One chart on one page: which kind, its data rows, and how it is described.

    `twin` is the id of the element (table or text) holding the same numbers.
    """

    kind: str
    id: str
    label: str
    twin: str
    rows: tuple[dict[str, Any], ...]

    @property
    def data_json(self) -> str:
        """The rows as JSON safe inside `<script type="application/json">` (no `<`, `>`, `&`)."""
        return script_json(list(self.rows))


def script_json(value: Any) -> str:
    """JSON text that cannot close or open a tag when embedded in HTML."""
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"), allow_nan=False)
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e") \
        .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


# -- the chart kinds (Altair, in chartkinds.py), cached as plain JSON -------------------

def _specs_key() -> str:
    """What the specs depend on: the Altair version and the chart definitions' source."""
    from importlib.metadata import version

    source = Path(__file__).with_name("chartkinds.py").read_bytes()
    return content_hash(version("altair").encode() + b"\0" + source, 16)


def chart_specs(cache_dir: Path | None = None) -> dict[str, dict[str, Any]]:
    """Every kind's Vega-Lite spec. Built by Altair (about a second with its import) only
    when the definitions or Altair changed; otherwise read from `cache_dir`."""
    key = _specs_key()
    cached = cache_dir / f"chart-specs-{salted(key)}.json" if cache_dir is not None else None
    if cached is not None and cached.is_file():
        with suppress(OSError, ValueError):  # a damaged entry is made again
            return dict(json.loads(cached.read_text(encoding="utf-8")))
    specs = _specs_in_process(key)
    if cached is not None:
        write_atomically(cached, json.dumps(specs, sort_keys=True).encode("utf-8"))
    return specs


@lru_cache(maxsize=1)
def _specs_in_process(key: str) -> dict[str, dict[str, Any]]:
    from .chartkinds import build_specs

    # A JSON round trip gives the same plain structure whether built or read from the cache.
    return json.loads(json.dumps(build_specs(), sort_keys=True))


def specs_script(cache_dir: Path | None = None) -> bytes:
    """`assets/charts-<hash>.js`: the chart kinds, for `site.js` to combine with page data."""
    body = script_json(chart_specs(cache_dir))
    return f"window.RB_CHART_SPECS = {body};\n".encode("utf-8")



# -- the Vega bundle -------------------------------------------------------------------

def vega_bundle(cache_dir: Path | None = None) -> bytes:
    """The Vega + Vega-Lite + vega-embed bundle as one classic script.

    Produced offline by vl-convert (no network). It is wrapped in a function so the
    bundle's top-level names stay out of the page's global scope; it exports `vegaEmbed`,
    `vega` and `vegaLite` on `window` itself. Cached in `cache_dir` under the vl-convert
    version, since producing it takes about two seconds.
    """
    import vl_convert

    version = getattr(vl_convert, "__version__", "unknown")
    found = _cached_bundle(cache_dir, version) if cache_dir is not None else None
    if found is not None:
        return found
    data = _bundle_in_process(version)
    if cache_dir is not None:
        write_atomically(cache_dir / f"vega-bundle-{salted(version)}-{content_hash(data, 32)}.js", data)
    return data


def _cached_bundle(cache_dir: Path, version: str) -> bytes | None:
    """The bundle this machine made for `version`, when its bytes still have the digest its
    name records: a truncated or edited bundle is made again, never published."""
    for path in sorted(cache_dir.glob(f"vega-bundle-{salted(version)}-*.js")):
        with suppress(OSError):
            data = path.read_bytes()
            if path.stem.rsplit("-", 1)[-1] == content_hash(data, 32):
                return data
    return None


@lru_cache(maxsize=1)
def _bundle_in_process(version: str) -> bytes:
    import vl_convert

    source = vl_convert.javascript_bundle()  # type: ignore[call-arg]  # the snippet is optional
    return ("/* Vega, Vega-Lite and vega-embed (BSD-3-Clause, the Vega project), bundled offline by "
            f"vl-convert {version}. */\n(function () {{\n{source}\n}})();\n").encode("utf-8")


def cached(cache_dir: Path) -> bool:
    """Whether `cache_dir` holds both the chart specs and the Vega bundle of this version
    (else a build makes them in a process forked when it starts, `render.chart_warmup`:
    about three seconds from an empty cache)."""
    import vl_convert

    version = getattr(vl_convert, "__version__", "unknown")
    return (cache_dir / f"chart-specs-{salted(_specs_key())}.json").is_file() and \
        any(cache_dir.glob(f"vega-bundle-{salted(version)}-*.js"))


def content_hash(data: bytes, length: int = 10) -> str:
    return hashlib.sha256(data).hexdigest()[:length]
