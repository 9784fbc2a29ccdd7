"""The report's charts: Plotly figures (plain dicts) made from the report's datasets.

Each function takes the :class:`~ofc_stats.report.data.ReportData` and returns a
:class:`Chart`: a title, a caption saying how the figure is computed, and the figure
as ``{"data": [...], "layout": {...}}`` (the JSON Plotly.js draws). Every name that
comes from the warehouse is escaped with :func:`plot_text`, because Plotly renders a
few HTML tags in text (``<b>``, ``<br>``, entities) and a name must appear as typed.

Legends sit under the plot (the toolbar, top right, never covers an entry), axes of
counts tick at whole numbers only, and no number is drawn as ``-0.0``.
"""

from __future__ import annotations

import datetime as dt
import html
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import polars as pl

from ofc_stats.engine.evaluate import CATEGORY_LABELS
from ofc_stats.engine.rules import Row
from ofc_stats.report.data import ReportData, wilson_interval

Figure = dict[str, Any]

PALETTE = ["#2563eb", "#dc2626", "#059669", "#d97706", "#7c3aed", "#0891b2", "#db2777",
           "#65a30d", "#475569", "#ea580c"]
ROW_COLOURS = {Row.TOP: "#7c3aed", Row.MIDDLE: "#0891b2", Row.BOTTOM: "#d97706"}
WON, TIED, LOST = "#16a34a", "#9ca3af", "#dc2626"
# High card grey, pairs in blues, made hands warmer as they get rarer.
CATEGORY_COLOURS = ["#d1d5db", "#bfdbfe", "#60a5fa", "#1d4ed8", "#6ee7b7", "#059669",
                    "#f59e0b", "#dc2626", "#7c3aed", "#111827"]  # the last: five of a kind
DIVERGING = [[0.0, "#b91c1c"], [0.5, "#f8fafc"], [1.0, "#15803d"]]
GRID, ZERO_LINE, TEXT = "#e5e7eb", "#9ca3af", "#1f2937"
FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif"

AXIS = {"gridcolor": GRID, "zerolinecolor": ZERO_LINE, "linecolor": "#d1d5db",
        "automargin": True, "title": {"font": {"size": 12}}}
BASE_LAYOUT: Figure = {
    "font": {"family": FONT, "size": 13, "color": TEXT},
    "paper_bgcolor": "#ffffff",
    "plot_bgcolor": "#ffffff",
    "colorway": PALETTE,
    "height": 380,
    "margin": {"l": 56, "r": 16, "t": 32, "b": 48},
    "hovermode": "closest",
    "hoverlabel": {"bgcolor": "#ffffff", "bordercolor": "#d1d5db",
                   "font": {"family": FONT, "color": TEXT, "size": 12}},
    # Under the plot, in the figure's own space (the margin grows to hold it): the
    # toolbar Plotly shows at the top right on hover never covers an entry.
    "legend": {"orientation": "h", "x": 0, "xanchor": "left", "yref": "container", "y": 0,
               "yanchor": "bottom", "font": {"size": 12}},
    "xaxis": AXIS,
    "yaxis": AXIS,
}


@dataclass(frozen=True)
class Chart:
    """One figure of the report, with the text around it."""

    key: str  # the element id on the page
    title: str
    caption: str
    figure: Figure


def plot_text(text: object) -> str:
    """Text for a Plotly label: its HTML-like markup escaped, so it shows as typed.

    >>> plot_text("<b>Ann & Bo</b>")
    '&lt;b&gt;Ann &amp; Bo&lt;/b&gt;'
    """
    return html.escape(str(text), quote=False)


def merged(base: Figure, extra: Figure) -> Figure:
    """``base`` updated by ``extra``, nested dicts merged (neither is changed).

    >>> merged({"a": {"x": 1, "y": 2}}, {"a": {"y": 3}, "b": 4})
    {'a': {'x': 1, 'y': 3}, 'b': 4}
    """
    result = dict(base)
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(result.get(key), dict):
            result[key] = merged(result[key], value)
        else:
            result[key] = value
    return result


def figure(data: list[Figure], layout: Figure | None = None) -> Figure:
    """A figure with the report's common look."""
    return {"data": data, "layout": merged(BASE_LAYOUT, layout or {})}


def empty_figure(message: str) -> Figure:
    """A figure that says there is nothing to draw (still an SVG, so the page is whole)."""
    hidden = {"visible": False}
    return figure([], {"xaxis": hidden, "yaxis": hidden, "annotations": [{
        "text": plot_text(message), "showarrow": False, "x": 0.5, "y": 0.5,
        "xref": "paper", "yref": "paper", "font": {"size": 14, "color": "#6b7280"}}]})


def rounded(values: Sequence[Any] | pl.Series, digits: int = 2) -> list[float | None]:
    """Numbers rounded for the page (smaller JSON); null, NaN and infinity as null, and
    no negative zero (which Plotly draws as ``-0.00``).

    >>> rounded([1.23456, None, float("nan"), -0.001])
    [1.23, None, None, 0.0]
    """
    return [None if v is None or not math.isfinite(v) else round(float(v), digits) + 0.0
            for v in values]


def number_text(value: float | None, digits: int, sign: bool = False) -> str:
    """A number as a label, rounded, never ``-0.0``; empty if unknown.

    >>> number_text(-0.04, 1), number_text(0.36, 1, sign=True), number_text(None, 1)
    ('0.0', '+0.4', '')
    """
    if value is None or not math.isfinite(value):
        return ""
    number = round(float(value), digits) + 0.0
    return f"{number:+.{digits}f}" if sign and number else f"{number:.{digits}f}"


def whole_numbers(values: Sequence[Any] | pl.Series) -> Figure:
    """An axis of counts (hands, sessions, points): ticks at whole numbers only, not
    ``1.5`` on a span of a few.

    >>> whole_numbers([0, 1, 3]), whole_numbers([0, 400])
    ({'tickformat': ',d', 'dtick': 1}, {'tickformat': ',d'})
    """
    finite = [float(v) for v in values if v is not None and math.isfinite(float(v))]
    span = (max(finite) - min(finite)) if finite else 0.0
    return {"tickformat": ",d", **({"dtick": 1} if span <= 10 else {})}


def moments(values: Sequence[dt.datetime | None] | pl.Series) -> list[str | None]:
    """UTC moments as Plotly date strings, to the minute."""
    return [None if v is None else v.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M")
            for v in values]


def names(values: Sequence[Any] | pl.Series) -> list[str]:
    """Warehouse names (players, tables) escaped for Plotly."""
    return [plot_text(v) for v in values]


def counted(count: object, noun: str) -> str:
    """``1 site``, ``3 sites``.

    >>> counted(1, "site"), counted(1234, "table")
    ('1 site', '1,234 tables')
    """
    number = int(count)  # type: ignore[call-overload]
    return f"{number:,} {noun}{'' if number == 1 else 's'}"


def line_mode(points: int) -> str:
    """Lines, or markers where a line of one point would not show."""
    return "lines" if points > 1 else "markers"


def _players_note(shown: int, total: int) -> str:
    """Says so when the chart leaves players out."""
    if total <= shown:
        return ""
    return f" Showing the {shown} players with the most hands of {total}."


# --- cumulative points ---------------------------------------------------------------


def cumulative_chart(data: ReportData) -> Chart:
    """Cumulative points over hands: total, rows and scoops, royalties; FL hands marked."""
    timeline = data.timeline
    caption = ("Points won so far after each hand, in the order the hands were played. "
               f"Drawn at up to {data.limits.points} points per line, each at the last hand "
               "of its stretch. ")
    if timeline.is_empty():
        return Chart("cumulative", "Cumulative points", caption, empty_figure("No hands"))
    hover_hand = "hand %{x:,}<br>%{customdata}<br>"
    if data.overview:
        # No dates here: ten players' dates would outweigh the rest of the page's data.
        traces: list[Figure] = []
        for (player,), rows in timeline.group_by(["player"], maintain_order=True):
            traces.append({
                "type": "scatter", "mode": "lines", "name": plot_text(player),
                "x": [0, *rows["hand_number"]], "y": [0, *rows["cumulative_points"]],
                "hovertemplate": "hand %{x:,}: %{y:+,} points<extra>%{fullData.name}</extra>",
            })
        total = int(data.summary["players"])
        caption += ("Each player's line counts that player's own hands." +
                    _players_note(data.limits.players_shown, total))
        layout = {"xaxis": {"title": {"text": "hands played"},
                            **whole_numbers([0, *timeline["hand_number"]])},
                  "yaxis": {"title": {"text": "points"},
                            **whole_numbers([0, *timeline["cumulative_points"]])}}
        return Chart("cumulative", "Cumulative points", caption, figure(traces, layout))
    # Every line starts at 0 points before the first hand.
    x = [0, *timeline["hand_number"]]
    when = ["start", *moments(timeline["started_at"])]
    series = [("total", "cumulative_points", PALETTE[0], "solid", 3),
              ("rows and scoops", "cumulative_rows", PALETTE[2], "dash", 2),
              ("royalties", "cumulative_royalties", PALETTE[3], "dot", 2)]
    traces = [{"type": "scatter", "mode": "lines", "name": name, "x": x,
               "y": [0, *timeline[column]], "customdata": when,
               "line": {"color": colour, "dash": dash, "width": width},
               "hovertemplate": hover_hand + "%{y:+,} points<extra>" + name + "</extra>"}
              for name, column, colour, dash, width in series]
    fl = timeline.filter(pl.col("fl_hands") > 0).with_columns(
        (pl.col("hand_number") - pl.col("sample_hands") + 1).alias("from_hand"))
    if not fl.is_empty():
        traces.append({
            "type": "scatter", "mode": "markers", "name": "Fantasyland hands",
            "x": fl["hand_number"].to_list(), "y": fl["cumulative_points"].to_list(),
            "marker": {"symbol": "circle", "size": 6, "color": "#f59e0b",
                       "line": {"color": "#92400e", "width": 1}},
            "customdata": [list(row) for row in zip(
                fl["from_hand"].to_list(), fl["fl_hands"].to_list(),
                fl["fl_points"].to_list(), strict=True)],
            "hovertemplate": ("hands %{customdata[0]:,}–%{x:,}: %{customdata[1]} in "
                              "Fantasyland, %{customdata[2]:+,} points there"
                              "<extra>Fantasyland</extra>"),
        })
    caption += ("Royalties are the royalty points exchanged with the opponents (your "
                "royalties minus theirs); rows and scoops is everything else (rows, scoop "
                "bonuses, foul penalties). Gold dots mark the stretches with Fantasyland hands.")
    series_values = [0, *(v for _, column, *_ in series for v in timeline[column])]
    layout = {"xaxis": {"title": {"text": "hands played"}, **whole_numbers(x)},
              "yaxis": {"title": {"text": "points"}, **whole_numbers(series_values)}}
    return Chart("cumulative", "Cumulative points", caption, figure(traces, layout))


# --- sessions ------------------------------------------------------------------------


def sessions_chart(data: ReportData) -> Chart:
    """Points by session: the player's sessions as bars, or each player's spread."""
    sessions = data.sessions
    gap = "30 minutes"
    if sessions.is_empty():
        return Chart("sessions", "Points by session", "", empty_figure("No sessions"))
    if data.overview:
        caption = ("The spread of session results per player: the box holds the middle half "
                   "of the sessions (25th to 75th percentile) with the median inside and the "
                   "mean dashed; the whiskers reach the 5th and 95th percentiles. A session "
                   f"is a run of hands at one table with no break longer than {gap}." +
                   _players_note(data.limits.players_shown, int(data.summary["players"])))
        trace = {
            "type": "box", "name": "sessions", "x": names(sessions["player"]),
            "q1": rounded(sessions["p25"], 1), "median": rounded(sessions["p50"], 1),
            "q3": rounded(sessions["p75"], 1), "lowerfence": rounded(sessions["p05"], 1),
            "upperfence": rounded(sessions["p95"], 1), "mean": rounded(sessions["mean"], 1),
            "boxmean": True, "marker": {"color": PALETTE[0]},
            "fillcolor": "rgba(37, 99, 235, 0.25)", "line": {"color": PALETTE[0]},
        }
        layout = {"showlegend": False, "yaxis": {"title": {"text": "points per session"}},
                  "xaxis": {"tickangle": -30}}
        return Chart("sessions", "Points by session", caption, figure([trace], layout))
    total = int(sessions["total_sessions"][0])
    shown = sessions.height
    caption = (f"Points won in each session ({total:,} in all"
               + (f"; the latest {shown} shown" if shown < total else "") +
               f"). A session is a run of hands at one table with no break longer "
               f"than {gap}.")
    points = sessions["points"].to_list()
    trace = {
        "type": "bar", "name": "session", "x": sessions["session"].to_list(), "y": points,
        "marker": {"color": [WON if p > 0 else LOST if p < 0 else TIED for p in points]},
        "customdata": [list(row) for row in zip(
            names(sessions["table"]), moments(sessions["started_at"]),
            sessions["hands"].to_list(), sessions["fouls"].to_list(),
            sessions["fantasyland_hands"].to_list(), strict=True)],
        "hovertemplate": ("session %{x}: %{y:+,} points<br>table %{customdata[0]}, "
                          "%{customdata[1]}<br>%{customdata[2]} hands, %{customdata[3]} fouls, "
                          "%{customdata[4]} in Fantasyland<extra></extra>"),
    }
    layout = {"showlegend": False, "bargap": 0.15,
              "xaxis": {"title": {"text": "session"}, **whole_numbers(sessions["session"])},
              "yaxis": {"title": {"text": "points"}, **whole_numbers([0, *points])}}
    return Chart("sessions", "Points by session", caption, figure([trace], layout))


# --- rolling foul rate ---------------------------------------------------------------


def fouls_chart(data: ReportData) -> Chart:
    """The foul rate over the last hands, along the hands played: one player's line, or
    in the overview one small panel per player (ten lines in one plot are spaghetti)."""
    timeline = data.timeline
    if timeline.is_empty():
        return Chart("fouls", "Rolling foul rate", "", empty_figure("No hands"))
    windows = sorted(set(timeline["window_hands"].to_list()))
    window_text = (f"the last {counted(windows[0], 'hand')}" if len(windows) == 1 else
                   "the last twentieth of each player's hands (20 to 500 hands)")
    caption = (f"The share of fouled boards over {window_text}, at each hand (fewer at the "
               "start).")
    if data.overview:
        caption += (" One panel per player, on the same scale; dashed: the player's overall "
                    "rate." + _players_note(data.limits.players_shown,
                                            int(data.summary["players"])))
        return Chart("fouls", "Rolling foul rate", caption, _foul_panels(data))
    overall = float(data.headline["foul_pct"][0])
    trace: Figure = {
        "type": "scatter", "mode": line_mode(timeline.height), "name": "foul rate",
        "x": timeline["hand_number"].to_list(), "y": rounded(timeline["foul_pct"], 1),
        "customdata": moments(timeline["started_at"]),
        "line": {"color": PALETTE[1], "width": 2},
        "hovertemplate": "hand %{x:,}<br>%{customdata}<br>%{y:.1f}% fouled<extra></extra>",
    }
    layout: Figure = {
        "showlegend": False,
        "xaxis": {"title": {"text": "hands played"}, **whole_numbers(timeline["hand_number"])},
        "yaxis": {"title": {"text": "fouled, %"}, "rangemode": "tozero"},
        "shapes": [{"type": "line", "xref": "paper", "x0": 0, "x1": 1, "y0": overall,
                    "y1": overall, "line": {"color": ZERO_LINE, "dash": "dash", "width": 1}}],
        "annotations": [{"xref": "paper", "x": 1, "xanchor": "right", "y": overall,
                         "yanchor": "bottom", "showarrow": False,
                         "text": f"overall {overall:.1f}%",
                         "font": {"size": 11, "color": "#6b7280"}}]}
    return Chart("fouls", "Rolling foul rate", caption, figure([trace], layout))


PANEL_COLUMNS = 5


def _foul_panels(data: ReportData) -> Figure:
    """Small multiples: each shown player's rolling foul rate in a panel of its own."""
    overall = {r["player"]: r["foul_pct"] for r in data.headline.iter_rows(named=True)}
    players = [(str(player), rows) for (player,), rows in
               data.timeline.group_by(["player"], maintain_order=True)]
    columns = min(PANEL_COLUMNS, len(players))
    top = max(float(data.timeline["foul_pct"].max() or 0), 1.0) * 1.08  # type: ignore[arg-type]
    traces: list[Figure] = []
    layout: Figure = {"showlegend": False, "height": 90 + 150 * -(-len(players) // columns),
                      "margin": {"l": 48, "r": 12, "t": 36, "b": 40},
                      "grid": {"rows": -(-len(players) // columns), "columns": columns,
                               "pattern": "independent", "xgap": 0.12, "ygap": 0.32},
                      "annotations": [], "shapes": []}
    for index, (player, rows) in enumerate(players):
        suffix = "" if index == 0 else str(index + 1)
        traces.append({
            "type": "scatter", "mode": line_mode(rows.height), "name": plot_text(player),
            "x": rows["hand_number"].to_list(), "y": rounded(rows["foul_pct"], 1),
            "xaxis": f"x{suffix}", "yaxis": f"y{suffix}",
            "line": {"color": PALETTE[index % len(PALETTE)], "width": 1.5},
            "hovertemplate": "hand %{x:,}<br>%{y:.1f}% fouled<extra>%{fullData.name}</extra>",
        })
        layout[f"xaxis{suffix}"] = {**AXIS, **whole_numbers(rows["hand_number"]),
                                    "tickfont": {"size": 10}, "nticks": 4}
        layout[f"yaxis{suffix}"] = {**AXIS, "range": [0, top], "tickfont": {"size": 10},
                                    "nticks": 4, "showticklabels": index % columns == 0}
        layout["annotations"].append({
            "text": plot_text(player), "showarrow": False, "xref": f"x{suffix} domain",
            "yref": f"y{suffix} domain", "x": 0, "y": 1.02, "xanchor": "left",
            "yanchor": "bottom", "font": {"size": 11, "color": TEXT}})
        if overall.get(player) is not None:
            layout["shapes"].append({
                "type": "line", "xref": f"x{suffix} domain", "x0": 0, "x1": 1,
                "yref": f"y{suffix}", "y0": overall[player], "y1": overall[player],
                "line": {"color": ZERO_LINE, "dash": "dash", "width": 1}})
    return figure(traces, layout)


# --- Fantasyland over time -----------------------------------------------------------


def fantasyland_chart(data: ReportData) -> Chart:
    """Fantasyland entry and stay rates per stretch of time, with 95% bands."""
    frame = data.fantasyland
    caption = ("The hands cut into equal stretches of time (about 20 Fantasyland hands "
               f"each; 4 to {data.limits.buckets}), each drawn at its middle. Entry: the "
               "share of hands played outside Fantasyland that earned it; stay: the share "
               "of Fantasyland hands that earned another. Bands are 95% Wilson intervals; "
               "hover for the sample sizes.")
    if data.overview:
        caption += " Every player's hands together."
    if frame.is_empty():
        return Chart("fantasyland", "Fantasyland over time", caption, empty_figure("No hands"))
    middle = frame.select(
        pl.col("first_hand") + (pl.col("last_hand") - pl.col("first_hand")) / 2)
    x = moments(middle.to_series())
    traces: list[Figure] = []
    for name, successes, trials, colour, fill in (
            ("entry", "fl_entries", "non_fl_hands", PALETTE[0], "rgba(37, 99, 235, 0.15)"),
            ("stay", "fl_stays", "fl_hands", PALETTE[4], "rgba(124, 58, 237, 0.15)")):
        low, high = wilson_interval(pl.col(successes), pl.col(trials))
        rates = frame.select(
            (100 * pl.col(successes) / pl.when(pl.col(trials) > 0).then(pl.col(trials)))
            .alias("pct"), low.alias("low"), high.alias("high"))
        band = {"type": "scatter", "mode": "lines", "x": x, "line": {"width": 0},
                "hoverinfo": "skip", "showlegend": False, "legendgroup": name}
        traces.append({**band, "y": rounded(rates["low"], 2)})
        traces.append({**band, "y": rounded(rates["high"], 2), "fill": "tonexty",
                       "fillcolor": fill})
        traces.append({
            "type": "scatter", "mode": "lines+markers", "name": f"{name} %",
            "legendgroup": name, "x": x, "y": rounded(rates["pct"], 2),
            "line": {"color": colour, "width": 2}, "marker": {"size": 6},
            "customdata": [list(row) for row in zip(
                frame[successes].to_list(), frame[trials].to_list(),
                moments(frame["first_hand"]), moments(frame["last_hand"]), strict=True)],
            "hovertemplate": ("%{customdata[2]} to %{customdata[3]}<br>%{y:.1f}% "
                              "(%{customdata[0]:,} of %{customdata[1]:,} hands)<extra>"
                              + name + "</extra>"),
        })
    layout = {"yaxis": {"title": {"text": "%"}, "rangemode": "tozero"},
              "xaxis": {"type": "date"}}
    return Chart("fantasyland", "Fantasyland over time", caption, figure(traces, layout))


# --- royalties by row ----------------------------------------------------------------


def royalties_chart(data: ReportData) -> Chart:
    """Royalties per hand, by row."""
    frame = data.royalties
    caption = ("Royalty points earned per hand in each row (0 on a fouled board); hover "
               "for the share of hands whose row earned any.")
    if frame.is_empty():
        return Chart("royalties", "Royalties by row", caption, empty_figure("No hands"))
    rows = list(Row)
    if data.overview:
        players = names(frame["player"])
        # Bottom row first, at the base of each bar, so the stack reads like a board.
        traces = [{
            "type": "bar", "name": row.value, "x": players,
            "y": rounded(frame[f"{row.value}_per_hand"], 4),
            "marker": {"color": ROW_COLOURS[row]},
            "customdata": rounded(frame[f"{row.value}_pct"], 1),
            "hovertemplate": (f"{row.value}: %{{y:.2f}} per hand<br>%{{customdata}}% of "
                              "hands earned some<extra>%{x}</extra>"),
        } for row in reversed(rows)]
        caption += (" Stacked, the bars add up to royalties per hand." +
                    _players_note(data.limits.players_shown, int(data.summary["players"])))
        layout: Figure = {"barmode": "stack", "yaxis": {"title": {"text": "royalties per hand"}},
                  "xaxis": {"tickangle": -30}}
        return Chart("royalties", "Royalties by row", caption, figure(traces, layout))
    record = frame.row(0, named=True)
    trace = {
        "type": "bar", "name": "royalties", "x": [row.value for row in rows],
        "y": [round(record[f"{row.value}_per_hand"], 3) for row in rows],
        "marker": {"color": [ROW_COLOURS[row] for row in rows]},
        "text": [f"{record[f'{row.value}_per_hand']:.2f}" for row in rows],
        "textposition": "outside",
        "customdata": [round(record[f"{row.value}_pct"], 1) for row in rows],
        "hovertemplate": ("%{x}: %{y:.2f} royalties per hand<br>%{customdata}% of hands "
                          "earned some<extra></extra>"),
    }
    layout = {"showlegend": False, "yaxis": {"title": {"text": "royalties per hand"},
                                             "rangemode": "tozero"}}
    return Chart("royalties", "Royalties by row", caption, figure([trace], layout))


# --- row win rates -------------------------------------------------------------------


def rows_chart(data: ReportData) -> Chart:
    """Rows won, tied and lost against each opponent, by row."""
    frame = data.row_results
    caption = ("Each row against each opponent's same row, counted once per opponent per "
               "hand: won, tied or lost (a fouled board loses every row to a board that did "
               "not foul; two fouled boards tie).")
    if frame.is_empty():
        return Chart("rows", "Row win rates", caption, empty_figure("No matchups"))
    rows = list(Row)
    if data.overview:
        players = names(frame["player"])
        traces = []
        for row in rows:
            won = pl.col(f"{row.value}_won")
            low, high = wilson_interval(won, pl.col("matchups"))
            rates = frame.select((100 * won / pl.col("matchups")).alias("pct"),
                                 low.alias("low"), high.alias("high"))
            traces.append({
                "type": "bar", "name": row.value, "x": players, "y": rounded(rates["pct"], 2),
                "marker": {"color": ROW_COLOURS[row]},
                "error_y": {"type": "data", "symmetric": False,
                            "array": rounded(rates["high"] - rates["pct"], 2),
                            "arrayminus": rounded(rates["pct"] - rates["low"], 2),
                            "color": "#374151", "thickness": 1, "width": 2},
                "customdata": frame["matchups"].to_list(),
                "hovertemplate": (f"{row.value} won %{{y:.1f}}% of %{{customdata:,}} "
                                  "matchups<extra>%{x}</extra>"),
            })
        caption += (" Bars are the share won, with 95% Wilson intervals." +
                    _players_note(data.limits.players_shown, int(data.summary["players"])))
        layout = {"barmode": "group", "yaxis": {"title": {"text": "rows won, %"}},
                  "xaxis": {"tickangle": -30}}
        return Chart("rows", "Row win rates", caption, figure(traces, layout))
    record = frame.row(0, named=True)
    matchups = record["matchups"]
    traces = []
    for outcome, colour in (("won", WON), ("tied", TIED), ("lost", LOST)):
        counts = [record[f"{row.value}_{outcome}"] for row in rows]
        traces.append({
            "type": "bar", "name": outcome, "x": [row.value for row in rows],
            "y": [round(100 * count / matchups, 2) for count in counts],
            "text": [f"{100 * count / matchups:.1f}%" for count in counts],
            "textposition": "inside", "insidetextanchor": "middle",
            "marker": {"color": colour}, "customdata": counts,
            "hovertemplate": (f"%{{x}} {outcome}: %{{y:.1f}}% (%{{customdata:,}} of "
                              f"{matchups:,} matchups)<extra></extra>"),
        })
    caption += f" {matchups:,} matchups."
    layout = {"barmode": "stack", "yaxis": {"title": {"text": "% of matchups"},
                                            "range": [0, 100]},
              "legend": {"traceorder": "normal"},
              "uniformtext": {"minsize": 11, "mode": "hide"}}
    return Chart("rows", "Row win rates", caption, figure(traces, layout))


# --- head to head --------------------------------------------------------------------


def head_to_head_chart(data: ReportData) -> Chart:
    """Points per hand between pairs of players, or the player's rows per opponent."""
    frame = data.head_to_head
    if frame.is_empty():
        return Chart("head-to-head", "Head to head", "",
                     empty_figure("No opponents in this scope"))
    if data.overview:
        met = set(frame["player"].to_list())
        players = [name for name in data.shown if name in met]
        index = {name: i for i, name in enumerate(players)}
        z: list[list[float | None]] = [[None] * len(players) for _ in players]
        hover: list[list[list[Any] | None]] = [[None] * len(players) for _ in players]
        for record in frame.iter_rows(named=True):
            i, j = index[record["player"]], index[record["opponent"]]
            z[i][j] = round(record["points_per_hand"], 2) + 0.0
            hover[i][j] = [record["hands"], record["points"]]
        limit = max((abs(v) for row in z for v in row if v is not None), default=1.0) or 1.0
        labels = names(players)
        trace = {
            "type": "heatmap", "x": labels, "y": labels, "z": z, "customdata": hover,
            "colorscale": DIVERGING, "zmin": -limit, "zmax": limit, "xgap": 2, "ygap": 2,
            "text": [[number_text(v, 1) for v in row] for row in z],
            "texttemplate": "%{text}", "textfont": {"size": 11},
            "colorbar": {"title": {"text": "points<br>per hand", "side": "top"},
                         "thickness": 12},
            "hovertemplate": ("%{y} against %{x}<br>%{z:+.2f} points per hand<br>"
                              "%{customdata[1]:+,} points in %{customdata[0]:,} hands"
                              "<extra></extra>"),
        }
        caption = ("Points per hand the player on the left won from the opponent below, "
                   "over the hands they played together (green: won, red: lost)." +
                   _players_note(data.limits.players_shown, int(data.summary["players"])))
        layout = {"height": max(380, 120 + 34 * len(players)),
                  "xaxis": {"title": {"text": "opponent"}, "tickangle": -30,
                            "showgrid": False},
                  "yaxis": {"title": {"text": "player"}, "autorange": "reversed",
                            "showgrid": False}}
        return Chart("head-to-head", "Head to head", caption, figure([trace], layout))
    opponents = names(frame["opponent"])
    rows = list(Row)
    net_rows = [[round(net / hands, 3) + 0.0 for net, hands in zip(
        frame[f"{row.value}_net"].to_list(), frame["hands"].to_list(), strict=True)]
        for row in rows]
    limit = max((abs(v) for row_values in net_rows for v in row_values), default=1.0) or 1.0
    customdata = [[[hands, points, round(pph, 2)] for hands, points, pph in zip(
        frame["hands"].to_list(), frame["points"].to_list(),
        frame["points_per_hand"].to_list(), strict=True)] for _ in rows]
    trace = {
        "type": "heatmap", "x": opponents, "y": [row.value for row in rows], "z": net_rows,
        "customdata": customdata, "colorscale": DIVERGING, "zmin": -limit, "zmax": limit,
        "xgap": 2, "ygap": 2, "text": [[number_text(v, 2, sign=True) for v in row_values]
                                       for row_values in net_rows],
        "texttemplate": "%{text}", "textfont": {"size": 11},
        "colorbar": {"title": {"text": "net rows<br>per hand", "side": "top"},
                     "thickness": 12},
        "hovertemplate": ("%{y} against %{x}: %{z:+.2f} net rows per hand<br>"
                          "%{customdata[0]:,} hands, %{customdata[1]:+,} points "
                          "(%{customdata[2]:+.2f} per hand)<extra></extra>"),
    }
    caption = ("Against each opponent, row by row: rows won minus rows lost, per hand "
               "played together (+1: won that row every time; green: won more). Hover for "
               "the points. The opponents met most, up to "
               f"{data.limits.players_shown}.")
    layout = {"height": 300, "xaxis": {"tickangle": -30, "showgrid": False},
              "yaxis": {"autorange": "reversed", "showgrid": False}}
    return Chart("head-to-head", "Head to head", caption, figure([trace], layout))


# --- hand categories -----------------------------------------------------------------


def categories_chart(data: ReportData) -> Chart:
    """The share of each hand category, row by row."""
    frame = data.categories
    caption = ("What each row ended as, in % of the boards (fouled boards included; "
               "incomplete ones left out). The top row holds three cards: high card, pair "
               "or trips only. A joker counts as the card it became; five of a kind needs "
               "two decks; a deuce-to-seven middle wants a high card (the low).")
    if data.overview:
        caption += " Every player's boards together."
    if frame.is_empty():
        return Chart("categories", "Hand categories per row", caption,
                     empty_figure("No complete boards"))
    rows = [row.value for row in Row]
    traces = []
    for category, colour in zip(CATEGORY_LABELS, CATEGORY_COLOURS, strict=True):
        part = frame.filter(pl.col("category") == category)
        if part.is_empty():
            continue
        by_row = {r: (pct, boards) for r, pct, boards in part.select(
            "row", "pct", "boards").iter_rows()}
        traces.append({
            "type": "bar", "orientation": "h", "name": category, "y": rows,
            "x": [round(by_row.get(r, (0.0, 0))[0], 2) for r in rows],
            "customdata": [by_row.get(r, (0.0, 0))[1] for r in rows],
            "marker": {"color": colour, "line": {"color": "#ffffff", "width": 1}},
            "texttemplate": "%{x:.0f}%", "textposition": "inside", "textangle": 0,
            "insidetextanchor": "middle",
            "hovertemplate": (f"{category}: %{{x:.1f}}% of %{{y}} rows "
                              "(%{customdata:,} boards)<extra></extra>"),
        })
    layout = {"barmode": "stack", "height": 300,
              "xaxis": {"title": {"text": "% of boards"}, "range": [0, 100]},
              "yaxis": {"autorange": "reversed"},
              "legend": {"traceorder": "normal"},
              "uniformtext": {"minsize": 10, "mode": "hide"}}
    return Chart("categories", "Hand categories per row", caption, figure(traces, layout))


# In page order: the wide ones (cumulative, head to head) first and last, so that the
# six half-width charts between them fill their rows in pairs.
CHARTS: tuple[Callable[[ReportData], Chart], ...] = (
    cumulative_chart, sessions_chart, fouls_chart, fantasyland_chart, royalties_chart,
    rows_chart, categories_chart, head_to_head_chart)


def report_charts(data: ReportData) -> list[Chart]:
    """Every chart of the report, in page order."""
    return [make(data) for make in CHARTS]
