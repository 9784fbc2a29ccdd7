"""``ofc-stats hand ID``: one hand drawn in the terminal, as a hand replayer shows it.

The boards with coloured suits (a four-colour deck: spades plain, hearts red,
diamonds blue, clubs green), what each row made and earned, the points between every
pair of players, Fantasyland, what the room reported, the audit's findings, and with
``--streets`` the placements street by street.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated, Any

import polars as pl
import typer
from rich.console import Console
from rich.text import Text

from ofc_stats.cli.app import JsonOption, ScoringOption, WarehouseOption, app
from ofc_stats.cli.errors import reported_errors
from ofc_stats.cli.tables import View, console, print_table, terminal_width

if TYPE_CHECKING:
    from ofc_stats.db.hand import HandDetail

SUIT_SYMBOLS = {"c": "♣", "d": "♦", "h": "♥", "s": "♠"}
SUIT_STYLES = {"c": "green", "d": "blue", "h": "red", "s": "bold"}
ROWS = (("top", 3), ("middle", 5), ("bottom", 5))
JOKERS = ("xj", "jk", "joker")
RESULTS = {1: "won", 0: "tied", -1: "lost"}
PAIRS_VIEW = View(("player", "opponent", "top", "middle", "bottom", "scoop", "royalties",
                   "points"))

EXAMPLES = """Examples:

\b
  ofc-stats hand deneb-000340
  ofc-stats hand deneb-000340 --streets
  ofc-stats query hand_list -p player=ColdWhale     (lists hand ids to look at)
"""


def card_text(card: str) -> Text:
    """A card as ``Q♠``, its suit coloured; anything unreadable as it is, dimmed."""
    if len(card) == 2 and card[1] in SUIT_SYMBOLS:
        return Text(card[0] + SUIT_SYMBOLS[card[1]], style=SUIT_STYLES[card[1]])
    return Text(card, style="dim")


def row_text(cards: list[str], size: int, pad: int = 0,
             jokers: list[str] | None = None) -> Text:
    """A row's cards in reading order (quads before their kicker), a joker as ``★7♣``
    (the card it stood for, ``jokers`` in the row's order) where that card goes, empty
    slots as ``··``, padded to ``pad`` slots so that rows of 3 and 5 cards line up."""
    from ofc_stats.engine.cards import display_order

    became = iter(jokers or [])
    stood_for = [next(became, None) if card.lower() in JOKERS else None for card in cards]
    order = [int(index) for index in display_order(
        [str(index) for index in range(len(cards))],
        [joker or card for joker, card in zip(stood_for, cards, strict=True)])]
    text = Text()
    width = 0
    for slot in range(max(size, len(cards))):
        if slot:
            text.append(" ")
            width += 1
        if slot >= len(cards):
            text.append("··", "dim")
            width += 2
            continue
        index = order[slot]
        joker = stood_for[index]
        if joker:
            text.append("★", style="yellow")
            text.append_text(card_text(joker))
            width += 3
        else:
            text.append_text(card_text(cards[index]))
            width += len(cards[index])
    text.append(" " * max(3 * pad - 1 - width, 0))
    return text


def _json_value(value: object) -> object:
    """A value JSON has no type for: money (a Decimal) as its exact text, others as text."""
    return str(value)


def _money(value: Any) -> str:
    """``+5.40``, ``-12``: a money amount signed, without trailing zeros."""
    text = f"{value.normalize():f}" if hasattr(value, "normalize") else f"{value}"
    return text if text.startswith("-") else f"+{text}"


def _signed(value: object) -> str:
    return "" if value is None else f"{int(value):+d}"  # type: ignore[call-overload]


def _seat_heading(seat: dict[str, Any], button: int | None, scored: bool) -> Text:
    head = Text(f"seat {seat['seat']}  ", style="dim")
    head.append(seat["player"], style="bold")
    if button is not None and seat["seat"] == button:
        head.append("  (button)", style="dim")
    if seat["in_fantasyland"]:
        cards = f", {seat['fl_cards']} cards" if seat["fl_cards"] is not None else ""
        head.append(f"  in Fantasyland{cards}", style="yellow")
    if scored:
        head.append(f"   {_signed(seat['points'])} points",
                    style="green" if (seat["points"] or 0) > 0 else
                    "red" if (seat["points"] or 0) < 0 else "")
    if seat["reported_points"] is not None:
        differs = scored and seat["reported_points"] != seat["points"]
        head.append(f"  (room {_signed(seat['reported_points'])})",
                    style="bold red" if differs else "dim")
    return head


def _jokers_by_row(seat: dict[str, Any]) -> dict[str, list[str]]:
    """The cards a board's jokers stood for (``joker_cards``, board order), by row."""
    became = iter((seat.get("joker_cards") or "").split())
    return {row: [next(became, "") for card in (seat[row] or "").split()
                  if card.lower() in JOKERS] for row, _ in ROWS}


def _seat_rows(seat: dict[str, Any], scored: bool) -> list[Text]:
    lines = []
    jokers = _jokers_by_row(seat)
    for row, size in ROWS:
        line = Text(f"  {row:7s} ")
        line.append_text(row_text((seat[row] or "").split(), size, pad=5,
                                  jokers=jokers[row]))
        if scored and seat[f"{row}_made"] is not None:
            line.append(f"  {seat[f'{row}_made']}")
            royalty = seat[f"royalties_{row}"]
            if royalty:
                line.append(f"  +{royalty}", style="green")
        lines.append(line)
    foot = Text("  ")
    parts: list[tuple[str, str]] = []
    if scored:
        if seat["problem"]:
            parts.append((f"flagged: {seat['problem']} (scored as fouled)", "bold red"))
        elif seat["fouled"]:
            parts.append(("fouled: rows out of order", "bold red"))
        room = seat["reported_royalties"]
        royalties = f"royalties {seat['royalties']}"
        if room is not None:
            royalties += f" (room {room})"
        parts.append((royalties, "bold red" if room is not None and room != seat["royalties"]
                      else ""))
        if seat["fl_next"]:
            how = "stays in" if seat["in_fantasyland"] else "enters"
            cards = (f", {seat['fl_cards_next']} cards" if seat["fl_cards_next"] is not None
                     else "")
            parts.append((f"{how} Fantasyland next hand{cards}", "yellow"))
        if seat["moon"]:
            parts.append(("shot the moon", "yellow"))
        if seat["money"] is not None:
            money = seat["money_capped"] if seat["capped"] else seat["money"]
            text = f"money {_money(money)}"
            if seat["capped"]:
                text += f" (capped at the stacks from {_money(seat['money'])})"
            room = seat["reported_money"]
            if room is not None:
                text += f" (room {_money(room)})"
            parts.append((text, "bold red" if room is not None and room != money else ""))
    for index, (text, style) in enumerate(parts):
        foot.append(" · " if index else "", style="dim")
        foot.append(text, style=style)
    if parts:
        lines.append(foot)
    if seat["discards"]:
        discards = Text("  discarded ", style="dim")
        for index, card in enumerate(seat["discards"].split()):
            discards.append(" " if index else "")
            discards.append_text(card_text(card))
        lines.append(discards)
    return lines


def pairs_frame(detail: HandDetail) -> pl.DataFrame:
    """Each pair once (the lower seat first): rows won, tied or lost, scoop, points."""
    pairs = detail.matchups.filter(pl.col("seat") < pl.col("opponent_seat"))
    results = {row: pl.col(f"{row}_result").replace_strict(RESULTS, return_dtype=pl.String)
               for row, _ in ROWS}
    return pairs.select(
        "player", "opponent", *(expr.alias(row) for row, expr in results.items()),
        pl.when(pl.col("scoop")).then(pl.lit("scoops")).when(pl.col("rows_lost") == 3)
        .then(pl.lit("scooped")).otherwise(pl.lit("")).alias("scoop"),
        pl.col("royalty_diff").alias("royalties"), "points")


def print_hand(detail: HandDetail, streets: bool) -> None:
    """Draw the hand on stdout."""
    out = console(terminal_width() or 100)
    hand = detail.hand
    when = hand["started_at"].strftime("%Y-%m-%d %H:%M:%S UTC") if hand["started_at"] else ""
    out.print(Text(f"hand {hand['hand_id']} · {hand['site']} · table {hand['table']} · "
                   f"{hand['variant']} · {when}", style="bold"))
    facts = []
    if hand["button_seat"] is not None:
        facts.append(f"button seat {hand['button_seat']}")
    if hand["point_value"] is not None:
        facts.append(f"{hand['point_value'].normalize():f} {hand['currency'] or ''} a point"
                     .replace("  ", " "))
    rulesets = ", ".join(sorted({str(r) for r in detail.seats["ruleset"].drop_nulls()}))
    facts.append(f"scored as {detail.scoring!r} ({rulesets})" if detail.scored
                 else "not scored yet: run 'ofc-stats score'")
    out.print(Text(" · ".join(facts), style="dim"))
    for seat in detail.seats.iter_rows(named=True):
        out.print()
        out.print(_seat_heading(seat, hand["button_seat"], detail.scored))
        for line in _seat_rows(seat, detail.scored):
            out.print(line)
    if detail.scored and not detail.matchups.is_empty():
        out.print()
        print_table(pairs_frame(detail), view=PAIRS_VIEW,
                    title="Between each pair (points: what the opponent pays the player)")
    _print_findings(out, detail.findings)
    if streets:
        _print_streets(out, detail)


def _print_findings(out: Console, findings: pl.DataFrame) -> None:
    out.print()
    if findings.is_empty():
        out.print(Text("audit: nothing wrong in this hand", style="dim"))
        return
    out.print(Text(f"audit: {findings.height} finding{'s' if findings.height > 1 else ''}",
                   style="bold"))
    for row in findings.iter_rows(named=True):
        line = Text(f"  {row['kind']} ({row['severity']}): ",
                    style="bold red" if row["severity"] == "error" else "yellow")
        line.append(row["detail"] or "")
        if row["ours"] or row["reported"]:
            line.append(f"; ours {row['ours'] or '-'}, the room's {row['reported'] or '-'}")
        out.print(line)


def _print_streets(out: Console, detail: HandDetail) -> None:
    out.print()
    steps = detail.streets
    if steps.is_empty():
        out.print(Text("no streets recorded: the history holds the final boards only",
                       style="dim"))
        return
    players = dict(detail.seats.select("seat", "player").iter_rows())
    boards: dict[int, dict[str, list[str]]] = {seat: {row: [] for row, _ in ROWS}
                                               for seat in players}
    width = max(len(name) for name in players.values())
    for (street,), actions in steps.group_by(["street"], maintain_order=True):
        dealt = int(actions.group_by("seat").len()["len"].max() or 0)  # type: ignore[arg-type]
        out.print(Text(f"street {int(street)} ({dealt} cards)", style="bold"))
        for (seat,), moves in actions.group_by(["seat"], maintain_order=True):
            board = boards.setdefault(int(seat), {row: [] for row, _ in ROWS})
            placed: dict[str, list[str]] = {}
            for move in moves.iter_rows(named=True):
                where = move["row"] if move["action"] == "place" else "discards"
                placed.setdefault(where or "discards", []).append(move["card"] or "?")
                if move["action"] == "place" and move["row"] in board:
                    board[move["row"]].append(move["card"])
            line = Text(f"  {players.get(int(seat), seat)!s:{width}s}  ")
            for index, (row, size) in enumerate(ROWS):
                line.append(" / " if index else "", style="dim")
                line.append_text(row_text(board[row], size))
            out.print(line)
            moved = Text(" " * (width + 4) + "+ ", style="dim")
            for index, (where, cards) in enumerate(placed.items()):
                moved.append(", " if index else "", style="dim")
                moved.append(f"{where} ", style="dim")
                for number, card in enumerate(cards):
                    moved.append(" " if number else "")
                    moved.append_text(card_text(card))
            out.print(moved)


@app.command(epilog=EXAMPLES, short_help="Draw one hand: boards, rows, points, "
                                         "Fantasyland, the audit.")
def hand(
    hand_id: Annotated[str, typer.Argument(
        metavar="HAND_ID", help="The hand's id, as 'ofc-stats query hand_list' and the "
        "audit show it.", show_default=False)],
    site: Annotated[str | None, typer.Option(
        metavar="SITE", help="The site (room) of the hand, if several use the id.",
        show_default=False)] = None,
    streets: Annotated[bool, typer.Option(
        "--streets", help="Replay the placements street by street.")] = False,
    scoring: ScoringOption = None,
    warehouse: WarehouseOption = None,
    as_json: JsonOption = False,
) -> None:
    """Draw one hand: every board with coloured suits, what each row made and earned,
    the points between each pair, Fantasyland, what the room reported and any audit
    finding; --streets replays the placements street by street."""
    from ofc_stats.db.hand import hand_detail
    from ofc_stats.warehouse import Warehouse

    with reported_errors():
        detail = hand_detail(Warehouse.open(warehouse), hand_id, site=site, scoring=scoring)
    if as_json:
        typer.echo(json.dumps({
            "hand": {key: str(value) if value is not None and not isinstance(
                value, int | str | bool) else value for key, value in detail.hand.items()},
            "scoring": detail.scoring, "scored": detail.scored,
            "seats": detail.seats.to_dicts(), "matchups": detail.matchups.to_dicts(),
            "streets": detail.streets.to_dicts(),
            "findings": detail.findings.with_columns(
                pl.col("started_at").dt.to_string()).to_dicts()}, indent=2,
            default=_json_value))
        return
    print_hand(detail, streets)
