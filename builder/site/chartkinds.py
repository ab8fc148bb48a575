"""The chart kinds, written with Altair against one named data source (`rows`).

Each function returns an Altair chart whose row fields are documented in its docstring;
the page model fills those rows. `build_specs()` validates every kind once and returns the
Vega-Lite specs that `charts.chart_specs` caches, so a warm build never imports Altair.
"""

from __future__ import annotations

from typing import Any, Callable

import altair as alt

DATA_NAME = "rows"
#: Mark colours readable on the light and the dark background alike.
POINT = "#2f6fd0"
RANGE = "#6f9fe6"
SERIES = ["#2f6fd0", "#d9730d", "#2e9e57", "#c43c6b", "#7d5cc6", "#0f9aa8",
          "#b8860b", "#8c564b", "#5a7d00", "#d14f2d"]
#: Point shapes of the difficulty curves' series, in the order of `SERIES`: a second cue
#: besides colour (at most `views.task.CURVE_SERIES` series are drawn).
SHAPES = ["circle", "square", "triangle-up", "diamond", "cross", "triangle-down", "triangle-right",
          "triangle-left", "stroke", "wedge"]


def _rows() -> alt.NamedData:
    return alt.NamedData(DATA_NAME)


#: Charts as wide as their container and as tall as their rows need. Vega-Lite's default
#: for `width="container"` fits both directions, and a height of one step per row cannot be
#: fitted, so every page logged `WARN Dropping "fit-y" because spec has discrete height.`
#: Fitting the width alone is what these charts mean.
FIT_WIDTH = alt.AutoSizeParams(type="fit-x", contains="padding")


def _forest(domain_max: float, value_format: str, axis_title: str) -> alt.LayerChart | alt.FacetChart:
    """Intervals as horizontal lines with a dot at the centre, one row per item.

    Rows: `label` (y), `order` (sort key), `low`, `high`, `center`, `text` (the
    `center ± margin` wording for the tooltip), `hollow` (true for items drawn as open
    circles: incomplete models, which have no rank).
    """
    base = alt.Chart(_rows()).encode(
        y=alt.Y("label:N", sort=alt.EncodingSortField(field="order", order="ascending"), title=None),
    )
    scale = alt.Scale(domain=[0, domain_max], nice=False, zero=True)
    tooltip = [alt.Tooltip("label:N", title="item"), alt.Tooltip("text:N", title="interval")]
    line = base.mark_rule(strokeWidth=3, color=RANGE).encode(
        x=alt.X("low:Q", scale=scale, title=axis_title,
                axis=alt.Axis(format=value_format, values=[domain_max * k / 10 for k in range(11)])),
        x2="high:Q", tooltip=tooltip)
    dot = base.mark_point(size=50, color=POINT, strokeWidth=2).encode(
        x=alt.X("center:Q", scale=scale),
        fill=alt.condition("datum.hollow", alt.value("transparent"), alt.value(POINT)),
        tooltip=tooltip)
    return alt.layer(line, dot).properties(width="container", height={"step": 18}, autosize=FIT_WIDTH)


def forest_score() -> alt.LayerChart | alt.FacetChart:
    """ReasonScore intervals on the 0-1000 scale (leaderboard forest plot)."""
    return _forest(1000, "d", "ReasonScore, 95% interval")


def forest_probability() -> alt.LayerChart | alt.FacetChart:
    """Task-level intervals on the 0-1 scale (model pages: per task; task pages: per model)."""
    # The site's estimator (site setting `mode`) is named in the caption: the axis holds for any.
    return _forest(1, ".1f", "task estimate, 95% interval")


def curves() -> alt.LayerChart | alt.FacetChart:
    """Difficulty curves: estimate against one difficulty parameter, a line per model.

    Rows: `model` ("3. name", the series), `series_order`, `level` (x, as text),
    `level_order`, `estimate`, `low`, `high`, `text`.

    Each model's points have their own shape as well as their own colour, and the legend
    shows both, so a line can be told from the others without colour. Numbers printed at the
    ends of the lines did that before, but lines that end close together printed them on top
    of each other; a legend cannot collide. The twin table lists every
    number.
    """
    series = alt.EncodingSortField(field="series_order", order="ascending")
    legend = alt.Legend(title="model", orient="bottom", columns=2, labelLimit=280, symbolStrokeWidth=1.5)
    color = alt.Color("model:N", sort=series, scale=alt.Scale(range=SERIES), legend=legend)
    shape = alt.Shape("model:N", sort=series, scale=alt.Scale(range=SHAPES), legend=legend)
    base = alt.Chart(_rows()).encode(
        x=alt.X("level:N", sort=alt.EncodingSortField(field="level_order", order="ascending"),
                title="difficulty level", axis=alt.Axis(labelAngle=0)),
        y=alt.Y("estimate:Q", scale=alt.Scale(domain=[0, 1]), title="C_P estimate", axis=alt.Axis(format=".1f")),
    )
    tooltip = [alt.Tooltip("model:N"), alt.Tooltip("level:N"), alt.Tooltip("text:N", title="interval")]
    # One legend whose entries show each model's colour and shape. The lines are coloured
    # through `stroke`, not `color`: with `color` on both layers Vega-Lite draws a second,
    # colourless legend for the shapes; stroke, color and shape with one definition merge.
    line = base.mark_line(strokeWidth=1.5).encode(
        stroke=alt.Stroke("model:N", sort=series, scale=alt.Scale(range=SERIES), legend=legend), tooltip=tooltip)
    points = base.mark_point(size=55, filled=True, opacity=1).encode(color=color, shape=shape, tooltip=tooltip)
    return alt.layer(line, points).properties(width="container", height=240, autosize=FIT_WIDTH)


def heatmap() -> alt.LayerChart | alt.FacetChart:
    """Pairwise win rates: row model beats column model with this probability.

    Rows: `row` ("3. name"), `col` (the opponent's position, "5"), `opponent` ("5. name"),
    `row_order`, `col_order`, `win_rate` (null on the diagonal), `text` (the percentage
    printed in the cell without its sign, so the value never depends on colour), `percent`.
    """
    # No gridlines: on a band scale they run through the middle of every cell, across its
    # printed number. The cells themselves mark the grid.
    base = alt.Chart(_rows()).encode(
        y=alt.Y("row:N", sort=alt.EncodingSortField(field="row_order", order="ascending"), title=None,
                axis=alt.Axis(grid=False)),
        x=alt.X("col:N", sort=alt.EncodingSortField(field="col_order", order="ascending"),
                title="opponent (by position in the rows)", axis=alt.Axis(labelAngle=0, orient="top", grid=False)),
    )
    tooltip = [alt.Tooltip("row:N", title="model"), alt.Tooltip("opponent:N", title="opponent"),
               alt.Tooltip("percent:N", title="P(model beats opponent)")]
    cells = base.mark_rect().encode(
        color=alt.Color("win_rate:Q", scale=alt.Scale(scheme="blueorange", domain=[0, 1], reverse=True),
                        legend=alt.Legend(title="win rate (cells in %)", format=".0%", orient="bottom",
                                          values=[0, 0.25, 0.5, 0.75, 1], gradientLength=220)),
        tooltip=tooltip)
    labels = base.mark_text(fontSize=10).encode(
        text="text:N",
        color=alt.condition("datum.win_rate != null && (datum.win_rate > 0.75 || datum.win_rate < 0.25)",
                            alt.value("#ffffff"), alt.value("#1d232b")))
    return alt.layer(cells, labels).properties(width={"step": 28}, height={"step": 22})


def rates() -> alt.Chart:
    """Shares as horizontal bars on 0-100 % (signals dashboard).

    Rows: `label`, `order`, `rate` (0-1), `text` (the printed percentage), `group` (the
    measure; one colour per measure, and the measure is also in the twin table).
    """
    chart: alt.Chart = alt.Chart(_rows()).mark_bar(color=POINT, height={"band": 0.7}).encode(
        y=alt.Y("label:N", sort=alt.EncodingSortField(field="order", order="ascending"), title=None),
        x=alt.X("rate:Q", scale=alt.Scale(domain=[0, 1]), title="share",
                axis=alt.Axis(format=".0%", values=[0, 0.25, 0.5, 0.75, 1])),
        tooltip=[alt.Tooltip("label:N", title="item"), alt.Tooltip("text:N", title="share")],
    ).properties(width="container", height={"step": 18}, autosize=FIT_WIDTH)
    return chart


def compression() -> alt.LayerChart | alt.FacetChart:
    """Bits per output token by outcome: the quartiles as a bar, the median as a tick, one
    row per task and outcome (model pages).

    Rows: `label` ("task · outcome"), `order`, `outcome`, `q1`, `median`, `q3`.
    """
    base = alt.Chart(_rows()).encode(
        y=alt.Y("label:N", sort=alt.EncodingSortField(field="order", order="ascending"), title=None),
    )
    colour = alt.Color("outcome:N", scale=alt.Scale(domain=["correct", "incorrect", "truncated"],
                                                    range=[SERIES[2], SERIES[1], SERIES[3]]),
                       legend=alt.Legend(title="outcome", orient="bottom"))
    tooltip = [alt.Tooltip("label:N", title="task and outcome"), alt.Tooltip("median:Q", format=".2f"),
               alt.Tooltip("q1:Q", title="lower quartile", format=".2f"),
               alt.Tooltip("q3:Q", title="upper quartile", format=".2f")]
    box = base.mark_bar(height={"band": 0.6}, opacity=0.55).encode(
        x=alt.X("q1:Q", title="bits per output token (gzip), quartiles and median", scale=alt.Scale(zero=True)),
        x2="q3:Q", color=colour, tooltip=tooltip)
    tick = base.mark_tick(thickness=3, size=14).encode(x="median:Q", color=colour, tooltip=tooltip)
    return alt.layer(box, tick).properties(width="container", height={"step": 18}, autosize=FIT_WIDTH)


def hazard() -> alt.LayerChart | alt.FacetChart:
    """Token hazard: per bin of output tokens, the risk of ending wrong given the answer got
    that far, with its 95 % interval; one series per task (model pages) or model (task pages).

    Rows: `series`, `series_order`, `bin` ("32–64"), `bin_order`, `hazard`, `low`, `high`.
    """
    series = alt.EncodingSortField(field="series_order", order="ascending")
    # One column: two columns of model names overflow a phone's width.
    legend = alt.Legend(title=None, orient="bottom", columns=1, labelLimit=300, symbolStrokeWidth=1.5)
    base = alt.Chart(_rows()).encode(
        x=alt.X("bin:N", sort=alt.EncodingSortField(field="bin_order", order="ascending"),
                title="output tokens reached", axis=alt.Axis(labelAngle=-40)),
    )
    tooltip = [alt.Tooltip("series:N", title="series"), alt.Tooltip("bin:N", title="tokens"),
               alt.Tooltip("hazard:Q", format=".3f"), alt.Tooltip("low:Q", title="95% low", format=".3f"),
               alt.Tooltip("high:Q", title="95% high", format=".3f")]
    y = alt.Y("hazard:Q", scale=alt.Scale(domain=[0, 1]), title="risk of ending wrong in the bin",
              axis=alt.Axis(format=".1f"))
    # One legend, of the points (colour and shape); the intervals and lines share their colours.
    bars = base.mark_rule(strokeWidth=1.5, opacity=0.5).encode(
        y=alt.Y("low:Q", scale=alt.Scale(domain=[0, 1])), y2="high:Q",
        stroke=alt.Stroke("series:N", sort=series, scale=alt.Scale(range=SERIES), legend=None))
    line = base.mark_line(strokeWidth=1.5).encode(
        y=y, stroke=alt.Stroke("series:N", sort=series, scale=alt.Scale(range=SERIES), legend=None), tooltip=tooltip)
    points = base.mark_point(size=45, filled=True, opacity=1).encode(
        y=y, color=alt.Color("series:N", sort=series, scale=alt.Scale(range=SERIES), legend=legend),
        shape=alt.Shape("series:N", sort=series, scale=alt.Scale(range=SHAPES), legend=legend), tooltip=tooltip)
    return alt.layer(bars, line, points).properties(width="container", height=240, autosize=FIT_WIDTH)


def budget() -> alt.LayerChart | alt.FacetChart:
    """The budget sweep: the ReasonScore with its 95 % interval at each output-token budget.

    Rows: `budget` ("L/16 (1,024)"), `order`, `center`, `low`, `high`, `text`.
    """
    base = alt.Chart(_rows()).encode(
        x=alt.X("budget:N", sort=alt.EncodingSortField(field="order", order="ascending"),
                title="output-token budget", axis=alt.Axis(labelAngle=0)),
    )
    tooltip = [alt.Tooltip("budget:N", title="budget"), alt.Tooltip("text:N", title="ReasonScore")]
    scale = alt.Scale(domain=[0, 1000])
    bars = base.mark_rule(strokeWidth=3, color=RANGE).encode(
        y=alt.Y("low:Q", scale=scale, title="ReasonScore, 95% interval"), y2="high:Q", tooltip=tooltip)
    line = base.mark_line(color=POINT, strokeWidth=1.5).encode(y=alt.Y("center:Q", scale=scale))
    dots = base.mark_point(size=50, filled=True, color=POINT).encode(y=alt.Y("center:Q", scale=scale), tooltip=tooltip)
    return alt.layer(bars, line, dots).properties(width="container", height=220, autosize=FIT_WIDTH)
def history() -> alt.LayerChart | alt.FacetChart:
    """A model's ReasonScore across releases: its interval as a vertical line and its centre
    as a point at each release (x, in release order), a significant move drawn as a
    triangle in its own colour (shape and colour both say it, and the twin table in words).

    Rows: `label` (the release, or "this build"), `order`, `low`, `high`, `center`, `text`,
    `move` ("significantly up", "significantly down" or "no significant move").
    """
    x = alt.X("label:N", sort=alt.EncodingSortField(field="order", order="ascending"), title="release",
              axis=alt.Axis(labelAngle=0))
    scale = alt.Scale(zero=False, nice=True)
    tooltip = [alt.Tooltip("label:N", title="release"), alt.Tooltip("text:N", title="ReasonScore"),
               alt.Tooltip("move:N", title="since the point before")]
    base = alt.Chart(_rows()).encode(x=x)
    line = base.mark_rule(strokeWidth=3, color=RANGE).encode(
        y=alt.Y("low:Q", scale=scale, title="ReasonScore, 95% interval"), y2="high:Q", tooltip=tooltip)
    moves = ["no significant move", "significantly up", "significantly down"]
    legend = alt.Legend(title=None, orient="bottom")
    dot = base.mark_point(size=70, filled=True, opacity=1).encode(
        y=alt.Y("center:Q", scale=scale),
        shape=alt.Shape("move:N", scale=alt.Scale(domain=moves, range=["circle", "triangle-up", "triangle-down"]),
                        legend=legend),
        color=alt.Color("move:N", scale=alt.Scale(domain=moves, range=[POINT, SERIES[2], SERIES[3]]), legend=legend),
        tooltip=tooltip)
    return alt.layer(line, dot).properties(width="container", height=220, autosize=FIT_WIDTH)


def cost_score() -> alt.LayerChart | alt.FacetChart:
    """ReasonScore (y, with its interval) against cost per run (x, log scale), the frontier's
    evaluations filled and the dominated ones hollow (PRODUCT.md, Cost).

    Rows: `label`, `cost` (USD), `cost_text`, `low`, `high`, `center`, `text`, `frontier`
    ("on the frontier" or "dominated").
    """
    x = alt.X("cost:Q", scale=alt.Scale(type="log"), title="cost per run (US dollars, log scale)")
    scale = alt.Scale(zero=False, nice=True)
    tooltip = [alt.Tooltip("label:N", title="evaluation"), alt.Tooltip("text:N", title="ReasonScore"),
               alt.Tooltip("cost_text:N", title="cost per run"), alt.Tooltip("frontier:N", title="frontier")]
    base = alt.Chart(_rows()).encode(x=x)
    line = base.mark_rule(strokeWidth=2, color=RANGE).encode(
        y=alt.Y("low:Q", scale=scale, title="ReasonScore, 95% interval"), y2="high:Q", tooltip=tooltip)
    kinds = ["on the frontier", "dominated"]
    dot = base.mark_point(size=70, strokeWidth=2, opacity=1).encode(
        y=alt.Y("center:Q", scale=scale),
        shape=alt.Shape("frontier:N", scale=alt.Scale(domain=kinds, range=["diamond", "circle"]),
                        legend=alt.Legend(title=None, orient="bottom")),
        color=alt.value(POINT),
        fill=alt.condition("datum.frontier == 'on the frontier'", alt.value(POINT), alt.value("transparent")),
        tooltip=tooltip)
    return alt.layer(line, dot).properties(width="container", height=300, autosize=FIT_WIDTH)


KINDS: dict[str, Callable[[], alt.TopLevelMixin]] = {
    "compression": compression,
    "hazard": hazard,
    "budget": budget,
    "forest-score": forest_score,
    "forest-probability": forest_probability,
    "curves": curves,
    "heatmap": heatmap,
    "rates": rates,
    "history": history,
    "cost-score": cost_score,
}


def build_specs() -> dict[str, dict[str, Any]]:
    """Every kind's Vega-Lite spec, validated by Altair."""
    specs = {}
    for kind, build in sorted(KINDS.items()):
        spec = build().to_dict()
        spec.pop("$schema", None)  # a URL the browser never needs; vega-embed is told the mode
        spec["background"] = None
        spec.setdefault("config", {}).update({
            "view": {"stroke": None}, "axis": {"labelFontSize": 11, "titleFontSize": 11, "grid": True},
            "font": "system-ui, -apple-system, Segoe UI, Roboto, sans-serif",
        })
        specs[kind] = spec
    return specs
