"""The report as one self-contained HTML page.

The page embeds plotly.js once (from the installed ``plotly`` package, never a CDN),
the figures as one JSON document in a ``<script type="application/json">`` element,
and a few lines that draw them. A Content-Security-Policy forbids any network request.
Everything that comes from the warehouse is escaped: :func:`html.escape` in markup,
and ``<``, ``>`` and ``&`` as ``\\u003c`` etc. in the JSON, so no name can close the
script element.
"""

from __future__ import annotations

import datetime as dt
import html
import json
import math
from collections.abc import Callable, Sequence
from functools import cache
from typing import Any

import polars as pl

from ofc_stats.engine.cards import RANKS, SUITS, display_order, parse_card
from ofc_stats.engine.rules import Row
from ofc_stats.errors import InvalidCardError
from ofc_stats.report.data import ReportData, format_moment
from ofc_stats.report.figures import Chart, counted
from ofc_stats.version import __version__

SUIT_SYMBOLS = {"c": "♣", "d": "♦", "h": "♥", "s": "♠"}
WIDE_CHARTS = {"cumulative", "head-to-head"}
# Nothing may leave the page: no script, style, image or connection from elsewhere.
CONTENT_SECURITY_POLICY = ("default-src 'none'; script-src 'unsafe-inline'; "
                           "style-src 'unsafe-inline'; img-src data: blob:; font-src data:")
PLOT_CONFIG = {"displaylogo": False, "responsive": True,
               "modeBarButtonsToRemove": ["select2d", "lasso2d", "autoScale2d"],
               "toImageButtonOptions": {"format": "png", "scale": 2}}


def escape(value: object) -> str:
    """Text for HTML markup, quotes included.

    >>> escape('<script>alert("x")</script>')
    '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;'
    """
    return html.escape(str(value), quote=True)


def script_json(value: object) -> str:
    """JSON that is safe inside a ``<script>`` element: ``<``, ``>``, ``&`` escaped.

    >>> script_json({"name": "</script><b>"})
    '{"name":"\\\\u003c/script\\\\u003e\\\\u003cb\\\\u003e"}'
    """
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


@cache
def plotly_js() -> str:
    """The plotly.js bundle of the installed plotly package (about 4.8 MB)."""
    from plotly.offline import get_plotlyjs  # type: ignore[import-untyped]

    # It holds no "</script", but a future bundle must not end the element early.
    return str(get_plotlyjs()).replace("</script", "<\\/script")


# --- numbers -------------------------------------------------------------------------


def _finite(value: object) -> float | None:
    if value is None:
        return None
    number = float(value)  # type: ignore[arg-type]
    return number if math.isfinite(number) else None


def signed(value: object, digits: int = 0) -> str:
    """A number with its sign, e.g. ``+1,234`` or ``−0.35``; zero unsigned (never
    ``-0.00``); an en dash if unknown.

    >>> signed(-0.001, 2), signed(3), signed(-0.35, 2)
    ('0.00', '+3', '−0.35')
    """
    number = _finite(value)
    if number is None:
        return "–"
    number = round(number, digits) + 0.0
    if number == 0:
        return f"{0:.{digits}f}"
    return f"{number:+,.{digits}f}".replace("-", "−")


def plain(value: object, digits: int = 0) -> str:
    """A number without a forced sign, e.g. ``1,234`` or ``2.66``; never ``-0``."""
    number = _finite(value)
    if number is None:
        return "–"
    return f"{round(number, digits) + 0.0:,.{digits}f}".replace("-", "−")


def percent(value: object) -> str:
    """A percentage, e.g. ``17.6%``."""
    number = _finite(value)
    return "–" if number is None else f"{number:.1f}%"


def interval(low: object, high: object, format_number: Callable[[object], str]) -> str:
    """A 95% interval as text, e.g. ``95% CI 16.7% to 18.6%``."""
    if _finite(low) is None or _finite(high) is None:
        return "no sample"
    return f"95% CI {format_number(low)} to {format_number(high)}"


# --- headline ------------------------------------------------------------------------


def _stat_card(label: str, value: str, details: Sequence[str], tone: str = "") -> str:
    lines = "".join(f'<div class="stat-detail">{escape(detail)}</div>' for detail in details)
    tone_class = f" {tone}" if tone else ""
    return (f'<div class="stat"><div class="stat-label">{escape(label)}</div>'
            f'<div class="stat-value{tone_class}">{escape(value)}</div>{lines}</div>')


def _tone(value: object) -> str:
    number = _finite(value)
    return "" if number is None or number == 0 else "positive" if number > 0 else "negative"


def player_headline(record: dict[str, Any]) -> str:
    """The headline figures of one player, as cards with intervals and sample sizes."""
    hands = record["hands"]

    def share(name: str, successes: str, trials: str, what: str) -> list[str]:
        return [interval(record[f"{name}_low"], record[f"{name}_high"], percent),
                f"{plain(record[successes])} of {plain(record[trials])} {what}"]

    span = f"{format_moment(record['first_hand'])} to {format_moment(record['last_hand'])}"
    cards = [
        _stat_card("Hands", plain(hands), [counted(record["tables"], "table"), span]),
        _stat_card("Points", signed(record["points"]), ["net, all opponents"],
                   _tone(record["points"])),
        _stat_card("Points / hand", signed(record["points_per_hand"], 2),
                   [interval(record["points_per_hand_low"], record["points_per_hand_high"],
                             lambda v: signed(v, 2)), counted(hands, "hand")],
                   _tone(record["points_per_hand"])),
        _stat_card("Foul rate", percent(record["foul_pct"]),
                   share("foul_pct", "fouls", "hands", "hands")),
        _stat_card("Fantasyland entry", percent(record["fl_entry_pct"]),
                   share("fl_entry_pct", "fl_entries", "non_fl_hands",
                         "hands outside Fantasyland")),
        _stat_card("Fantasyland stay", percent(record["fl_stay_pct"]),
                   share("fl_stay_pct", "fl_stays", "fl_hands", "Fantasyland hands")),
        _stat_card("Scoops", percent(record["scoop_pct"]),
                   share("scoop_pct", "scoops", "matchups", "matchups")),
        _stat_card("Royalties / hand", plain(record["royalties_per_hand"], 2),
                   [interval(record["royalties_per_hand_low"],
                             record["royalties_per_hand_high"], lambda v: plain(v, 2)),
                    counted(hands, "hand")]),
    ]
    return f'<div class="stats">{"".join(cards)}</div>'


def _cell(value: str, low: object, high: object, format_number: Callable[[object], str],
          sample: str = "") -> str:
    """A table cell's content: the value, then its interval and sample in small print."""
    small = []
    if _finite(low) is not None and _finite(high) is not None:
        small.append(f"{format_number(low)} to {format_number(high)}")
    if sample:
        small.append(sample)
    detail = f'<span class="ci">{escape(" · ".join(small))}</span>' if small else ""
    return f"{escape(value)}{detail}"


def players_table(headline: pl.DataFrame) -> str:
    """The overview's table: one row per player, figures with their 95% intervals."""
    header = ("<tr><th>player</th><th>hands</th><th>points</th><th>points / hand</th>"
              "<th>foul rate</th><th>FL entry</th><th>FL stay</th><th>scoops</th>"
              "<th>royalties / hand</th></tr>")
    body = []
    for r in headline.iter_rows(named=True):
        def rate(name: str, successes: str, trials: str, r: dict[str, Any] = r) -> str:
            return _cell(percent(r[f"{name}_pct"]), r[f"{name}_pct_low"],
                         r[f"{name}_pct_high"], lambda v: plain(v, 1),
                         f"{plain(r[successes])}/{plain(r[trials])}")

        cells = [
            f'<th scope="row" title="{escape(r["player"])}">{escape(r["player"])}</th>',
            f'<td>{plain(r["hands"])}</td>',
            f'<td class="{_tone(r["points"])}">{signed(r["points"])}</td>',
            "<td>" + _cell(signed(r["points_per_hand"], 2), r["points_per_hand_low"],
                           r["points_per_hand_high"], lambda v: signed(v, 2)) + "</td>",
            f'<td>{rate("foul", "fouls", "hands")}</td>',
            f'<td>{rate("fl_entry", "fl_entries", "non_fl_hands")}</td>',
            f'<td>{rate("fl_stay", "fl_stays", "fl_hands")}</td>',
            f'<td>{rate("scoop", "scoops", "matchups")}</td>',
            "<td>" + _cell(plain(r["royalties_per_hand"], 2), r["royalties_per_hand_low"],
                           r["royalties_per_hand_high"], lambda v: plain(v, 2)) + "</td>",
        ]
        body.append(f"<tr>{''.join(cells)}</tr>")
    return (f'<div class="table-wrap"><table class="players"><thead>{header}</thead>'
            f'<tbody>{"".join(body)}</tbody></table></div>')


def overview_headline(data: ReportData) -> str:
    """The overview's cards (what the warehouse holds) and its table of players."""
    summary = data.summary
    headline = data.headline
    total_players = int(headline["total_players"][0])
    span = (f"{format_moment(summary['first_hand'])} to "
            f"{format_moment(summary['last_hand'])}")
    days = (summary["last_hand"].date() - summary["first_hand"].date()).days + 1
    cards = [
        _stat_card("Hands", plain(summary["hands"]),
                   [f"{plain(summary['player_hands'])} boards"]),
        _stat_card("Players", plain(summary["players"]), [counted(summary["sites"], "site")]),
        _stat_card("Tables", plain(summary["tables"]), [summary["variants"] or ""]),
        _stat_card("Period", counted(days, "day"), [span]),
    ]
    note = ""
    if headline.height < total_players:
        note = (f'<p class="note">The {headline.height} players with the most hands of '
                f'{total_players:,}, by points; <code>ofc-stats stats</code> lists them all.'
                "</p>")
    return (f'<div class="stats">{"".join(cards)}</div>'
            f'<h2 class="section-title">Players</h2>{note}{players_table(headline)}'
            '<p class="note">Small print: 95% confidence intervals (normal approximation '
            "for per-hand means, Wilson for rates) and the sample each rate is taken from: "
            "fouls/hands, entries/hands outside Fantasyland, stays/Fantasyland hands, "
            "scoops/matchups.</p>")


# --- boards --------------------------------------------------------------------------


def card_html(text: str, became: str | None = None) -> str:
    """One card as a small tile, its suit coloured (four-colour deck); a joker shows
    the card it ``became`` under a star.

    >>> card_html("Td")
    '<span class="card d">T♦</span>'
    >>> card_html("Xj", became="Kh")
    '<span class="card j h" title="joker, as K♥"><small>★</small>K♥</span>'
    """
    try:
        code = parse_card(text)
    except InvalidCardError:
        return f'<span class="card x">{escape(text)}</span>'
    if code >= len(RANKS) * len(SUITS):
        try:
            resolved = parse_card(became or "")
        except InvalidCardError:
            return '<span class="card x" title="joker">★</span>'
        suit = SUITS[resolved % 4]
        name = f"{RANKS[resolved // 4]}{SUIT_SYMBOLS[suit]}"
        return (f'<span class="card j {suit}" title="joker, as {name}"><small>★</small>'
                f'{name}</span>')
    suit = SUITS[code % 4]
    return f'<span class="card {suit}">{RANKS[code // 4]}{SUIT_SYMBOLS[suit]}</span>'


def row_html(text: str | None, size: int, jokers: Sequence[str] = ()) -> str:
    """A row's cards as players read them (quads before their kicker, pairs before the
    rest, higher first; a joker where the card it became goes), padded with empty
    slots to the row's size; ``jokers`` are the cards the row's jokers became, in order."""
    cards = (text or "").split()
    became = iter(jokers)
    shown = [next(became, None) if card.lower() in ("xj", "jk", "joker") else None
             for card in cards]
    # Order the positions by the cards they show (a joker as the card it became).
    order = display_order([str(index) for index in range(len(cards))],
                          [became_card or card for became_card, card
                           in zip(shown, cards, strict=True)])
    tiles = [card_html(cards[int(index)], shown[int(index)]) for index in order]
    tiles += ['<span class="card e" title="empty slot"></span>'] * (size - len(cards))
    return f'<div class="cards">{"".join(tiles)}</div>'


def _joker_cards_by_row(seat: dict[str, Any]) -> list[list[str]]:
    """The cards a board's jokers became (``joker_cards``, board order), row by row."""
    became = iter((seat.get("joker_cards") or "").split())
    return [[next(became, "") for card in (seat[row.value] or "").split()
             if card.lower() in ("xj", "jk", "joker")] for row in Row]


def board_html(name: str, rows: Sequence[str | None], result: str, foot: str,
               classes: str = "", jokers: Sequence[Sequence[str]] = ()) -> str:
    """One board drawn as cards: a head (name and result), its three rows (top, middle,
    bottom) and a foot; ``rows`` may add a fourth, the cards thrown; ``jokers``: per
    row, the cards its jokers became."""
    drawn = "".join(row_html(text, row.size, jokers[index] if index < len(jokers) else ())
                    for index, (text, row) in enumerate(zip(rows, Row, strict=False)))
    if len(rows) > 3 and rows[3]:
        thrown = str(rows[3])
        drawn += (f'<div class="thrown" title="thrown">{row_html(thrown, len(thrown.split()))}'
                  "</div>")
    extra = f" {classes}" if classes else ""
    return (f'<div class="board{extra}"><div class="board-head">'
            f'<span class="board-player">{escape(name)}</span>{result}</div>{drawn}'
            f'<div class="board-foot">{foot}</div></div>')


def _hand_html(seats: pl.DataFrame) -> str:
    first = seats.row(0, named=True)
    subject = first["subject"]
    points = first["subject_points"]
    title = (f'<span class="{_tone(points)}">{escape(signed(points))}</span> '
             f'{escape(subject)}')
    boards = []
    for seat in seats.iter_rows(named=True):
        badges = []
        if seat["in_fantasyland"]:
            badges.append('<span class="badge fl">Fantasyland</span>')
        if seat["fouled"]:
            badges.append('<span class="badge foul">fouled</span>')
        if seat["problem"]:
            badges.append(f'<span class="badge foul">{escape(seat["problem"])}</span>')
        if seat.get("capped"):
            badges.append(f'<span class="badge cap" title="table stakes: the money was '
                          f'capped at the stacks">capped {escape(signed(seat["money_capped"], 2))}'
                          '</span>')
        result = f'<span class="{_tone(seat["points"])}">{escape(signed(seat["points"]))}</span>'
        boards.append(board_html(
            seat["player"], [seat[row.value] for row in Row], result,
            f'royalties {plain(seat["royalties"])} {"".join(badges)}',
            "subject" if seat["player"] == subject else "", _joker_cards_by_row(seat)))
    return (f'<article class="hand"><header><div class="hand-title">{title}</div>'
            f'<div class="hand-where">{_where(first)}</div></header>'
            f'<div class="boards">{"".join(boards)}</div></article>')


def _where(record: dict[str, Any]) -> str:
    """When and where a hand was played, as markup."""
    return (f'{escape(format_moment(record["started_at"]))} · table '
            f'{escape(record["table"])} · {escape(record["variant"])} · hand '
            f'{escape(record["hand_id"])}')


def biggest_hands_html(data: ReportData) -> str:
    """The biggest wins and losses, every board in those hands drawn as cards."""
    frame = data.biggest_hands
    whose = "any player's" if data.overview else "the player's"
    columns = []
    for kind, heading in (("win", "Biggest wins"), ("loss", "Biggest losses")):
        part = frame.filter(pl.col("kind") == kind)
        hands = [_hand_html(seats) for _, seats in
                 part.group_by(["place"], maintain_order=True)]
        content = "".join(hands) or '<p class="note">None in this scope.</p>'
        columns.append(f'<div class="hands-column"><h3>{heading}</h3>{content}</div>')
    return (f'<section class="hands-section"><h2 class="section-title">Biggest wins and '
            f'losses</h2><p class="note">The {data.limits.biggest} hands with the most '
            f"points won and lost ({whose}), with every board at the table; suits: "
            '<span class="suit-s">♠ spades</span>, <span class="suit-h">♥ hearts</span>, '
            '<span class="suit-d">♦ diamonds</span>, <span class="suit-c">♣ clubs</span>.</p>'
            f'<div class="hands-grid">{"".join(columns)}</div></section>')


def _setting_html(miss: dict[str, Any], which: str) -> str:
    """The board played, or the best setting, of a reviewed Fantasyland hand."""
    rows = [miss[f"{which}_{row}"] for row in ("top", "middle", "bottom", "discards")]
    badges = []
    if miss[f"{which}_stays"]:
        badges.append('<span class="badge fl">stays</span>')
    if which == "played" and miss["played_fouled"]:
        badges.append('<span class="badge foul">fouled</span>')
    value = f'<span>value {escape(plain(miss[f"{which}_value"], 1))}</span>'
    points = miss[f"{which}_points"]
    foot = (f'royalties {plain(miss[f"{which}_royalties"])} · '
            f'<span class="{_tone(points)}">{escape(signed(points))}</span> against the '
            f'table {"".join(badges)}')
    return board_html("played" if which == "played" else "best setting", rows, value, foot,
                      "subject" if which == "played" else "best")


def fl_review_html(data: ReportData) -> str:
    """A player's Fantasyland review (``ofc-stats review``): how well the boards were
    set, and the worst misses drawn as the board played beside the best setting."""
    review = data.fl_review
    if data.overview or not (review["fl_played"] or review["fl_hands"]):
        return ""
    title = '<h2 class="section-title">Fantasyland review</h2>'
    hands = review["fl_hands"]
    if not hands:
        return (f'<section class="review-section">{title}<p class="note">None of the '
                f'{plain(review["fl_played"])} Fantasyland hands in scope is reviewed yet: '
                "run <code>ofc-stats review</code>.</p></section>")
    unknown = review["cards_unknown"]
    cards = [
        _stat_card("Fantasyland hands", plain(hands),
                   [f'reviewed, of {plain(review["fl_played"])} played'] + (
                       [f"{plain(unknown)} with only the 13 placed cards known"]
                       if unknown else [])),
        _stat_card("Set optimally", percent(review["optimal_pct"]),
                   [interval(review["optimal_pct_low"], review["optimal_pct_high"], percent),
                    f'{plain(review["optimal"])} of {plain(hands)} hands']),
        _stat_card("Value lost / FL hand", plain(review["value_lost_per_hand"], 2),
                   [interval(review["value_lost_per_hand_low"],
                             review["value_lost_per_hand_high"], lambda v: plain(v, 2)),
                    "royalties + the stay value"]),
        _stat_card("Stays missed", plain(review["stays_missed"]),
                   [f'stayed {plain(review["stays"])} times of '
                    f'{plain(review["stays_possible"])} possible']),
        _stat_card("Royalties left", plain(review["royalties_left"]),
                   [f'{plain(review["royalties_left_per_hand"], 2)} per Fantasyland hand']),
        _stat_card("Points left / FL hand", signed(review["points_lost_per_hand"], 2),
                   ["what the best setting would have scored more against the "
                    "opponents' boards"]),
    ]
    misses = []
    for miss in data.fl_misses.iter_rows(named=True):
        known = ("" if miss["cards_known"] == "dealt" else
                 f' · only {miss["known_cards"]} cards known')
        heading = (f'<span class="negative">{escape(plain(miss["value_lost"], 1))}</span> '
                   f'lost{" · a stay missed" if miss["stay_missed"] else ""}')
        misses.append(
            f'<article class="hand miss"><header><div class="hand-title">{heading}</div>'
            f'<div class="hand-where">{_where(miss)}{escape(known)}</div></header>'
            f'<div class="boards">{_setting_html(miss, "played")}'
            f'{_setting_html(miss, "best")}</div></article>')
    worst = "".join(misses) or '<p class="note">Every board was set optimally.</p>'
    return (f'<section class="review-section">{title}<p class="note">Every Fantasyland hand '
            "solved exactly: the best setting of the cards dealt (value: royalties, plus "
            "the ruleset's stay value if the board stays in Fantasyland) beside the board "
            "played, each scored against the opponents' actual boards.</p>"
            f'<div class="stats">{"".join(cards)}</div>'
            f'<h3>The worst misses</h3><div class="misses">{worst}</div></section>')


# --- the page ------------------------------------------------------------------------


def chart_html(chart: Chart) -> str:
    """A chart's frame: title, the element Plotly draws into, caption."""
    wide = " wide" if chart.key in WIDE_CHARTS else ""
    return (f'<figure class="chart{wide}" id="chart-{chart.key}"><h2>{escape(chart.title)}'
            f'</h2><div class="plot" id="plot-{chart.key}"></div>'
            f'<figcaption>{escape(chart.caption)}</figcaption></figure>')


def render_page(data: ReportData, charts: Sequence[Chart], generated: dt.datetime) -> str:
    """The whole report page."""
    scope = data.scope
    subject = scope.player if scope.player is not None else "all players"
    title = f"OFC report: {subject}"
    scope_parts = []
    if scope.table is not None:
        scope_parts.append(f"table {scope.table}")
    if scope.since is not None:
        scope_parts.append(f"since {format_moment(scope.since)}")
    scope_text = ", ".join(scope_parts) or "every table, all dates"
    hands = counted(data.summary["hands"], "hand")
    headline = (overview_headline(data) if data.overview
                else player_headline(data.headline.row(0, named=True)))
    figures = {chart.key: chart.figure for chart in charts}
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="{CONTENT_SECURITY_POLICY}">
<meta name="generator" content="ofc-stats {__version__}">
<title>{escape(title)}</title>
<style>{STYLE}</style>
</head>
<body>
<header class="page-head">
<h1>OFC report <span class="subject">{escape(subject)}</span></h1>
<p class="scope">{escape(scope_text)} · {escape(hands)}
({escape(data.summary["variants"] or "")}) · {escape(data.rules)} ·
generated {escape(format_moment(generated))} UTC by ofc-stats {escape(__version__)}</p>
</header>
<main>
<section class="headline">{headline}</section>
<section class="charts">{"".join(chart_html(chart) for chart in charts)}</section>
{biggest_hands_html(data)}
{fl_review_html(data)}
</main>
<footer class="page-foot">Made with ofc-stats from the warehouse's scored hands. Every figure
is an aggregate computed by DuckDB; how each is computed: docs/reports.md.</footer>
<script>{plotly_js()}</script>
<script type="application/json" id="report-figures">{script_json(figures)}</script>
<script type="application/json" id="report-config">{script_json(PLOT_CONFIG)}</script>
<script>{DRAW_SCRIPT}</script>
</body>
</html>
"""


DRAW_SCRIPT = """
(function () {
  "use strict";
  var figures = JSON.parse(document.getElementById("report-figures").textContent);
  var config = JSON.parse(document.getElementById("report-config").textContent);
  Object.keys(figures).forEach(function (key) {
    var element = document.getElementById("plot-" + key);
    Plotly.newPlot(element, figures[key].data, figures[key].layout, config);
  });
})();
"""

STYLE = """
:root { --text: #1f2937; --muted: #6b7280; --line: #e5e7eb; --card: #ffffff;
  --page: #f3f4f6; --won: #15803d; --lost: #b91c1c; --accent: #2563eb;
  --spades: #111827; --hearts: #dc2626; --diamonds: #2563eb; --clubs: #15803d; }
* { box-sizing: border-box; }
body { margin: 0; background: var(--page); color: var(--text);
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial,
  sans-serif; }
.page-head { padding: 20px 28px 8px; }
h1 { margin: 0; font-size: 24px; font-weight: 650; }
h1 .subject { color: var(--accent); overflow-wrap: anywhere; }
.scope { margin: 4px 0 0; color: var(--muted); }
main { padding: 8px 28px 28px; max-width: 1600px; }
.section-title { font-size: 17px; margin: 22px 0 8px; }
.note { color: var(--muted); margin: 4px 0 10px; font-size: 13px; }
.stats { display: grid; grid-template-columns: repeat(auto-fit, minmax(148px, 1fr));
  gap: 12px; }
.stat { background: var(--card); border: 1px solid var(--line); border-radius: 10px;
  padding: 12px 14px; }
.stat-label { color: var(--muted); font-size: 12px; text-transform: uppercase;
  letter-spacing: .04em; }
.stat-value { font-size: 26px; font-weight: 650; margin: 2px 0 4px;
  font-variant-numeric: tabular-nums; }
.stat-detail { color: var(--muted); font-size: 12px; }
.positive { color: var(--won); }
.negative { color: var(--lost); }
.table-wrap { overflow-x: auto; background: var(--card); border: 1px solid var(--line);
  border-radius: 10px; }
table.players { border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums; }
table.players th, table.players td { padding: 6px 10px; text-align: right;
  border-bottom: 1px solid var(--line); white-space: nowrap; vertical-align: top; }
table.players th[scope=row], table.players thead th:first-child { text-align: left;
  max-width: 16em; overflow: hidden; text-overflow: ellipsis; }
table.players thead th { font-size: 12px; color: var(--muted); font-weight: 600; }
table.players tbody tr:hover { background: #f9fafb; }
.ci { display: block; font-size: 11px; color: var(--muted); }
.charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(520px, 1fr));
  gap: 16px; margin-top: 20px; }
.chart { margin: 0; background: var(--card); border: 1px solid var(--line);
  border-radius: 10px; padding: 12px 14px 10px; min-width: 0; }
.chart.wide { grid-column: 1 / -1; }
.chart h2 { font-size: 16px; margin: 0 0 2px; }
.chart figcaption { color: var(--muted); font-size: 12.5px; margin-top: 4px; }
.plot { width: 100%; }
.hands-grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(600px, 1fr));
  gap: 16px; }
.hands-column h3 { font-size: 15px; margin: 6px 0 8px; }
.hand { background: var(--card); border: 1px solid var(--line); border-radius: 10px;
  padding: 10px 12px; margin-bottom: 12px; }
.hand-title { font-weight: 650; font-size: 15px; overflow-wrap: anywhere; }
.hand-where { color: var(--muted); font-size: 12px; overflow-wrap: anywhere; }
.boards { display: flex; flex-wrap: wrap; gap: 10px; margin-top: 8px; }
.board { border: 1px solid var(--line); border-radius: 8px; padding: 6px 8px;
  background: #fafafa; }
.board.subject { border-color: var(--accent); box-shadow: 0 0 0 1px var(--accent) inset; }
.board-head { display: flex; justify-content: space-between; gap: 10px; font-size: 13px;
  font-weight: 600; margin-bottom: 4px; }
.board-player { max-width: 12em; overflow: hidden; text-overflow: ellipsis;
  white-space: nowrap; }
.board-foot { color: var(--muted); font-size: 11.5px; margin-top: 3px; }
.cards { display: flex; gap: 3px; margin: 3px 0; }
.card { display: inline-flex; align-items: center; justify-content: center; width: 30px;
  height: 38px; border: 1px solid #d1d5db; border-radius: 5px; background: #fff;
  font-weight: 700; font-size: 14px; line-height: 1; letter-spacing: -0.5px;
  box-shadow: 0 1px 1px rgba(0,0,0,.06); }
.card.e { border-style: dashed; background: transparent; box-shadow: none; }
.card.x { color: var(--muted); font-size: 11px; }
.card.j { background: #fef9c3; border-color: #ca8a04; flex-direction: column; gap: 0; }
.card.j small { font-size: 9px; color: #a16207; line-height: 1; }
.card.s, .suit-s { color: var(--spades); } .card.h, .suit-h { color: var(--hearts); }
.card.d, .suit-d { color: var(--diamonds); } .card.c, .suit-c { color: var(--clubs); }
.badge { display: inline-block; border-radius: 4px; padding: 0 5px; margin-left: 4px;
  font-size: 11px; }
.badge.fl { background: #fef3c7; color: #92400e; }
.badge.foul { background: #fee2e2; color: #991b1b; }
.badge.cap { background: #e0e7ff; color: #3730a3; }
.board.best { border-color: var(--won); box-shadow: 0 0 0 1px var(--won) inset; }
.thrown { opacity: .55; border-top: 1px dashed var(--line); margin-top: 4px; }
.misses { display: grid; grid-template-columns: repeat(auto-fill, minmax(480px, 1fr));
  gap: 12px; }
.review-section h3 { font-size: 15px; margin: 16px 0 8px; }
.page-foot { color: var(--muted); font-size: 12px; padding: 0 28px 24px; }
@media (max-width: 600px) {
  main, .page-head, .page-foot { padding-left: 12px; padding-right: 12px; }
  .charts, .hands-grid { grid-template-columns: 1fr; }
}
"""
