"""Regenerate the chart assets the package ships (builder/site/vendor/): the Vega-Lite
spec of every chart kind (written with Altair in builder/site/chartkinds.py, without data)
and the Vega + Vega-Lite + vega-embed bundle (built offline by vl-convert).

    python scripts/chart_assets.py          # rewrite both files
    python scripts/chart_assets.py --check  # exit 1 when they differ from what would be written

Run it after changing a chart kind or upgrading Altair or vl-convert; a build only reads the
files. tests/test_site_charts.py checks that the shipped specs are the chart kinds'.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from reasonboard.site.chartkinds import build_specs

VENDOR = Path(__file__).resolve().parent.parent / "builder" / "site" / "vendor"


def specs_text() -> str:
    return json.dumps(build_specs(), sort_keys=True, indent=1) + "\n"


def bundle_text() -> str:
    import vl_convert

    version = getattr(vl_convert, "__version__", "unknown")
    source = vl_convert.javascript_bundle()
    # Wrapped in a function so the bundle's top-level names stay out of the page's scope.
    return ("/* Vega, Vega-Lite and vega-embed (BSD-3-Clause, the Vega project), bundled offline by "
            f"vl-convert {version}. */\n(function () {{\n{source}\n}})();\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    args = parser.parse_args()
    wanted = {VENDOR / "chart-specs.json": specs_text(), VENDOR / "vega.js": bundle_text()}
    if args.check:
        stale = [path.name for path, text in wanted.items()
                 if not path.is_file() or path.read_text(encoding="utf-8") != text]
        if stale:
            print(f"out of date: {', '.join(stale)} (run python scripts/chart_assets.py)")
            return 1
        print("chart assets up to date")
        return 0
    VENDOR.mkdir(parents=True, exist_ok=True)
    for path, text in wanted.items():
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path.relative_to(VENDOR.parent.parent.parent)} ({len(text.encode()):,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
