"""fpdb-3's hand JSON as raw frames: every shape fpdb-3 writes, read by one query.

fpdb-3 keeps an OFC hand in two shapes (docs/formats.md has both):

- the hand object its database holds in ``HttpOFCHands.rawJson``: ``variant`` flags,
  ``players`` with their rows, ``rounds``, ``result`` (``points_settled`` and
  ``points_breakdown`` per player, ``collections``);
- the capture envelope it writes as ``hand_<id>.json``: the players without rows (the
  final boards are the last of its ``steps``), ``game_type`` (SwC's game, from its
  game code), ``ofc_variant``, ``ofc_rounds``, ``ofc_result``.

Both, and the hand objects earlier versions of ofc-stats wrote (``"active": true``,
``points_settled`` a number, ``in_fantasyland`` on a player), go through one DuckDB
``json_transform`` per batch that names the fields of all of them; polars then takes
each value from wherever the hand holds it. fpdb-3's quirks: a ``round`` is a running
counter over all players, so streets are rebuilt from each player's own order of
rounds; rows may hold ``--`` for an empty slot; ``seat_idx`` is null for a native
capture (seats then follow the players' order); tens are ``10h``. fpdb-3 records no
Fantasyland: a player whose first street lays the whole board was dealt Fantasyland,
and the cards they were dealt are the distinct cards seen for them.
"""

from __future__ import annotations

import json

import polars as pl

from ofc_stats.engine.cards import card_codes_expr
from ofc_stats.engine.rules import Row, Variant
from ofc_stats.formats.card_lists import with_card_lists
from ofc_stats.formats.reading import (
    first_error,
    parse_bool,
    parse_int_in,
    street_actions,
)

_TEXT = "VARCHAR"
_PLAYER = {
    "name": _TEXT, "seat_idx": _TEXT, "starting_stack": _TEXT, "top": _TEXT,
    "middle": _TEXT, "bottom": _TEXT, "active": _TEXT, "points": _TEXT, "collected": _TEXT,
    # What earlier versions of ofc-stats wrote on a player (fpdb-3 has none of them).
    "in_fantasyland": _TEXT, "fl_cards": _TEXT, "royalties": _TEXT, "discards": _TEXT,
    "money": _TEXT,
}
_ROUND = {"player": _TEXT, "dealt": _TEXT,
          "placed": {"top": _TEXT, "middle": _TEXT, "bottom": _TEXT}, "discarded": _TEXT}
_COLLECTION = {"player": _TEXT, "pot": _TEXT}
_RESULT = {"points_settled": "JSON", "points_breakdown": "JSON", "collections": [_COLLECTION]}
_FLAGS = {"variant": _TEXT, "pineapple": _TEXT, "deuce_to_seven": _TEXT}
STRUCTURE = json.dumps({
    "site": _TEXT, "hand_id": _TEXT, "table_id": _TEXT, "timestamp": _TEXT,
    "variant": _TEXT, "ofc_variant": _FLAGS, "game_type": _TEXT, "game": {"label": _TEXT},
    "players": [_PLAYER], "rounds": [_ROUND], "ofc_rounds": [_ROUND],
    "result": _RESULT, "ofc_result": _RESULT,
    "showdown": {"points_settled": "JSON", "points_breakdown": "JSON"},
    "collections": [_COLLECTION], "steps": [{"placed": "JSON"}],
})
_SETTLED = json.dumps("MAP(VARCHAR, VARCHAR)")
_BREAKDOWN = json.dumps("MAP(VARCHAR, STRUCT(top_royalty VARCHAR, middle_royalty VARCHAR, "
                        "bottom_royalty VARCHAR))")
_BOARDS = json.dumps("MAP(VARCHAR, STRUCT(top VARCHAR, middle VARCHAR, bottom VARCHAR, "
                     "active VARCHAR, points VARCHAR))")


def _as_map(value: str, structure: str) -> str:
    """SQL: a JSON object as a map, null for anything else (a number, a list)."""
    return (f"CASE WHEN json_type({value}) = 'OBJECT' "
            f"THEN TRY(json_transform({value}, '{structure}')) END")


def decode_query(hands_query: str) -> str:
    """The query reading fpdb hands out of ``hands_query`` (``valid``, ``hand``)."""
    settled = ("coalesce(hand.result.points_settled, hand.ofc_result.points_settled, "
               "hand.showdown.points_settled)")
    breakdown = ("coalesce(hand.result.points_breakdown, hand.ofc_result.points_breakdown, "
                 "hand.showdown.points_breakdown)")
    return f"""
SELECT valid, hand,
       CASE WHEN starts_with(hand.variant, '{{')
            THEN json_transform(hand.variant, '{json.dumps(_FLAGS)}') END AS flags,
       {_as_map(settled, _SETTLED)} AS settled,
       {_as_map(breakdown, _BREAKDOWN)} AS breakdown,
       {_as_map("hand.steps[-1].placed", _BOARDS)} AS boards
FROM ({hands_query})
"""


PLAIN_OFC = ("", "ofc", "classic", "regular", "open face chinese", "chinese", "classic ofc")
PINEAPPLE_OFC = ("ofcp", "ofc/p", "ofc pineapple")
DEUCE_TO_SEVEN = Variant.DEUCE_TO_SEVEN.value
# Variants whose Fantasyland deals 13 cards and no more (as classic OFC).
_THIRTEEN_CARD_DEALS = [variant.value for variant in Variant if not variant.pineapple_deal]
# SwC's OFC games by game code, with the names fpdb-3 gives them (``game_type``).
SWC_GAMES: dict[int, tuple[str, str]] = {
    70: ("OFC", Variant.CLASSIC.value), 73: ("Turbo OFC", Variant.CLASSIC.value),
    74: ("OFC/P", Variant.PINEAPPLE.value),
    75: ("OFC/P Progressive", Variant.PROGRESSIVE.value),
    76: ("OFC/P 2-7", DEUCE_TO_SEVEN), 77: ("OFC/P Variant", Variant.PINEAPPLE.value),
    84: ("OFC Variant", Variant.CLASSIC.value),
}
_GAME_VARIANTS = {name.lower(): variant for name, variant in SWC_GAMES.values()}
_CODE_VARIANTS = {str(code): variant for code, (_, variant) in SWC_GAMES.items()}


def _game_variant() -> pl.Expr:
    """The variant SwC's game says (``game_type``, or ``game.label``), if it is known:
    by name (``OFC/P Progressive``) or by code (``poker (type 75)``)."""
    label = (pl.coalesce(pl.col("game_type"), pl.col("game").struct.field("label"))
             .str.strip_chars().str.to_lowercase())
    by_name = label.replace_strict(_GAME_VARIANTS, default=None, return_dtype=pl.String)
    code = label.str.extract(r"type\s*(\d+)", 1)
    by_code = code.replace_strict(_CODE_VARIANTS, default=None, return_dtype=pl.String)
    return pl.coalesce(by_name, by_code)


def with_variant(frame: pl.DataFrame) -> pl.DataFrame:
    """Decoded hands with ``_variant`` (the name for
    :func:`~ofc_stats.formats.canonical.normalise`) and ``_variant_error`` (a flag
    that is not true or false).

    ``ofcp`` is Pineapple, Progressive where SwC's game says so; ``ofc`` (or none) is
    classic, Pineapple if the ``pineapple`` flag is set (as earlier exports wrote);
    ``ofcp_27`` or the ``deuce_to_seven`` flag is deuce-to-seven (SwC's OFC/P 2-7, its
    middle row scored as lowball). Other names (``progressive``, ``joker-ultimate``)
    go on as they are.
    """
    flags = frame["flags"].struct
    envelope = pl.col("ofc_variant").struct
    named = pl.coalesce(flags.field("variant"), envelope.field("variant"),
                        pl.when(~pl.col("variant").str.starts_with("{"))
                        .then(pl.col("variant")))
    name = named.fill_null("").str.strip_chars().str.to_lowercase()
    pineapple_text = pl.coalesce(flags.field("pineapple"), envelope.field("pineapple"))
    lowball_text = pl.coalesce(flags.field("deuce_to_seven"), envelope.field("deuce_to_seven"))
    frame = frame.with_columns(pineapple_text.alias("_pineapple"),
                               lowball_text.alias("_lowball"))
    pineapple, pineapple_error = parse_bool("_pineapple", "pineapple")
    lowball, lowball_error = parse_bool("_lowball", "deuce_to_seven")
    game = _game_variant()
    variant = (
        pl.when(lowball.fill_null(False) | (name == "ofcp_27") | (game == DEUCE_TO_SEVEN))
        .then(pl.lit(DEUCE_TO_SEVEN))
        .when(name.is_in(PINEAPPLE_OFC))
        .then(pl.when(game == Variant.PROGRESSIVE.value).then(game)
              .otherwise(pl.lit(Variant.PINEAPPLE.value)))
        .when(name.is_in(PLAIN_OFC))
        .then(pl.when(pineapple.fill_null(False)).then(pl.lit(Variant.PINEAPPLE.value))
              .when((name == "") & game.is_not_null()).then(game)
              .otherwise(pl.lit(Variant.CLASSIC.value)))
        .otherwise(named))
    return frame.with_columns(variant.alias("_variant"),
                              first_error([pineapple_error, lowball_error])
                              .alias("_variant_error"))


def _cards(column: str) -> pl.Expr:
    """A card list without fpdb's empty slots (``--``)."""
    return pl.col(column).list.eval(pl.element().filter(pl.element() != "--")).alias(column)


def _timestamp() -> pl.Expr:
    """ISO 8601 text (a ``Z`` read as ``+00:00``); Unix seconds (or milliseconds) as UTC."""
    text = pl.col("timestamp").str.strip_chars()
    number = text.cast(pl.Float64, strict=False)
    micros = (pl.when(number.abs() > 1e11).then(number * 1_000).otherwise(number * 1_000_000)
              .round(0).cast(pl.Int64, strict=False))
    epoch = pl.from_epoch(micros, time_unit="us").dt.strftime("%Y-%m-%dT%H:%M:%S%.6f")
    return (pl.when(number.is_not_null()).then(epoch)
            .otherwise(text.str.replace(r"[Zz]$", "+00:00")))


def raw_hand_columns() -> list[pl.Expr]:
    """The hand-level columns (but the variant) of the raw hands frame."""
    return [pl.col("record"), pl.col("line"), pl.col("text").alias("raw"), pl.col("site"),
            pl.col("hand_id"), pl.col("table_id").alias("table"),
            _timestamp().alias("started_at")]


def _collections() -> pl.Expr:
    return pl.coalesce(pl.col("result").struct.field("collections"),
                       pl.col("ofc_result").struct.field("collections"), pl.col("collections"))


def raw_seats(frame: pl.DataFrame, variants: pl.DataFrame
              ) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame | None]:
    """Raw seats and streets of decoded hands, and (``record``, ``error``) rows.

    ``variants`` has each hand's ``record`` and canonical ``variant`` name (for the
    Fantasyland card count).
    """
    players = (frame.select("record", "players", "settled", "breakdown", "boards")
               .filter(pl.col("players").is_not_null())
               .explode("players").filter(pl.col("players").is_not_null())
               .with_columns(pl.int_range(pl.len()).over("record").alias("_order"))
               .unnest("players"))
    board = pl.col("boards").map.get(pl.col("name")).struct
    breakdown = pl.col("breakdown").map.get(pl.col("name")).struct
    players = players.with_columns(
        *(pl.coalesce(pl.col(row.value), board.field(row.value)).alias(row.value)
          for row in Row),
        pl.coalesce("active", board.field("active")).alias("active"),
        pl.coalesce(pl.col("settled").map.get(pl.col("name")), pl.col("points"),
                    board.field("points")).alias("points"),
        *(breakdown.field(f"{row.value}_royalty").alias(f"_{row.value}_royalty")
          for row in Row))
    players = with_card_lists(players, [*(row.value for row in Row), "discards"])
    players = players.with_columns(*(_cards(row.value) for row in Row))
    listed = pl.col("active").str.strip_chars().str.starts_with("[")
    players = players.with_columns(pl.when(~listed).then(pl.col("active")).alias("_active"))
    active, active_error = parse_bool("_active", "active")
    seat, seat_error = parse_int_in(players, "seat_idx")
    points, points_error = parse_int_in(players, "points")
    royalties, royalties_error = parse_int_in(players, "royalties")
    row_royalties = [parse_int_in(players, f"_{row.value}_royalty", f"{row.value}_royalty")
                     for row in Row]
    fl_cards, fl_error = parse_int_in(players, "fl_cards")
    in_fl, in_fl_error = parse_bool("in_fantasyland")
    # "active": false (earlier exports): not dealt in, left out. fpdb-3's "active" is
    # the list of cards not yet placed.
    playing = players.filter(active.fill_null(True) | active_error.is_not_null())
    seats = playing.select(
        "record", pl.coalesce(seat, pl.col("_order")).alias("seat"),
        pl.col("name").alias("player"), *(pl.col(row.value) for row in Row),
        in_fl.alias("in_fantasyland"), fl_cards.alias("fl_cards"), "discards",
        points.alias("reported_points"),
        # fpdb-3 has royalties per row (points_breakdown); ofc-stats keeps their sum.
        pl.coalesce(royalties, pl.when(pl.all_horizontal(
            value.is_not_null() for value, _ in row_royalties)).then(pl.sum_horizontal(
                value for value, _ in row_royalties))).alias("reported_royalties"),
        "starting_stack", "collected", pl.col("money").alias("reported_money"),
        pl.concat_str([pl.format("player '{}': ", pl.col("name").fill_null("?")), first_error([
            active_error, seat_error, points_error, royalties_error,
            *(error for _, error in row_royalties), fl_error, in_fl_error,
            *(pl.when(pl.col(row.value).is_null()).then(pl.lit(f"missing {row.value}"))
              for row in Row),
        ])]).alias("error"),
    )
    seats = _with_collected(seats, frame)
    errors = [seats.select("record", "error")]
    seats = seats.drop("error")
    streets, street_errors, seen = _streets(frame, seats)
    errors.append(street_errors)
    if streets is not None:
        seats = _with_fantasyland(seats, streets, seen, variants)
    return seats, pl.concat(errors, how="diagonal"), streets


def _with_collected(seats: pl.DataFrame, frame: pl.DataFrame) -> pl.DataFrame:
    """``collected`` from the collections where the player's own is not given (the
    capture envelope's players have none): the pots each player collected, summed."""
    if not seats["collected"].is_null().any():
        return seats
    pots = (frame.select("record", _collections().alias("collection"))
            .filter(pl.col("collection").is_not_null())
            .explode("collection").unnest("collection")
            .filter(pl.col("player").is_not_null())
            .with_columns(pl.col("pot").str.strip_chars()
                          .cast(pl.Decimal(38, 6), strict=False).alias("_pot")))
    # An envelope with collections: a player without one collected nothing (as fpdb-3
    # reads it). The database's hand object names each player's own.
    listed = (frame.select("record", (_collections().is_not_null()
                                      & pl.col("steps").is_not_null()).alias("_listed"))
              .filter("_listed"))
    summed = pots.group_by("record", "player").agg(pl.col("_pot").sum().alias("_collected"))
    return (seats.join(listed, on="record", how="left", maintain_order="left")
            .join(summed, on=["record", "player"], how="left", maintain_order="left")
            .with_columns(pl.coalesce(
                "collected", pl.col("_collected").cast(pl.String),
                pl.when(pl.col("_listed")).then(pl.lit("0"))).alias("collected"))
            .drop("_collected", "_listed"))


def _streets(frame: pl.DataFrame, seats: pl.DataFrame
             ) -> tuple[pl.DataFrame | None, pl.DataFrame, pl.DataFrame]:
    """Raw streets out of the rounds, (``record``, ``error``) rows, and how many
    distinct cards each seat's rounds show (``record``, ``seat``, ``_seen``).

    A player's street is the number of their rounds that placed cards so far: a round
    that only shows cards dealt (fpdb-3 records a snapshot of the deal) belongs to the
    player's next placement, and its discards to the last one.
    """
    no_errors = pl.DataFrame(schema={"record": pl.Int64, "error": pl.String})
    rounds = (frame.select("record", pl.coalesce("rounds", "ofc_rounds").alias("round"))
              .filter(pl.col("round").is_not_null())
              .explode("round").filter(pl.col("round").is_not_null())
              .unnest("round"))
    if rounds.is_empty():
        return None, no_errors, pl.DataFrame()
    rounds = rounds.select(
        "record", "player", "dealt",
        *(pl.col("placed").struct.field(row.value).alias(row.value) for row in Row),
        "discarded")
    kinds = [*(row.value for row in Row), "discarded", "dealt"]
    rounds = with_card_lists(rounds, kinds).with_columns(
        *(_cards(kind) for kind in kinds))
    placing = pl.any_horizontal(pl.col(row.value).list.len() > 0 for row in Row)
    placed_before = placing.cast(pl.Int64).cum_sum().over("record", "player")
    entries = rounds.with_columns(
        pl.when(placing).then(placed_before).otherwise(pl.max_horizontal(placed_before, 1))
        .alias("street"),
        # The most cards one round shows: a Fantasyland deal (its copies of a card or
        # its jokers, which distinct cards would count once, included).
        pl.max_horizontal(pl.sum_horizontal(pl.col(kind).list.len() for kind in kinds[:-1]),
                          pl.col("dealt").list.len()).alias("_round_cards"),
        *(pl.col(kind).list.join(" ") for kind in kinds),
    ).join(seats.select("record", "player", "seat"), on=["record", "player"], how="left",
           maintain_order="left")
    actions, errors = street_actions(
        entries.filter(pl.col("seat").is_not_null()).drop("dealt"), seats, clean=False)
    unknown = (entries.filter(pl.col("seat").is_null())
               .select("record", pl.format("a round names '{}', who is not an active player",
                                           pl.col("player").fill_null("?")).alias("error")))
    seen = (entries.filter(pl.col("seat").is_not_null())
            .select("record", "seat", "_round_cards", pl.concat_str(kinds, separator=" ")
                    .str.split(" ").alias("card"))
            .explode("card").filter(pl.col("card") != "")
            .group_by("record", "seat")
            .agg(pl.max_horizontal(card_codes_expr(pl.col("card")).n_unique(),
                                   pl.col("_round_cards").max()).alias("_seen")))
    return actions, pl.concat([errors, unknown], how="diagonal"), seen


def _with_fantasyland(seats: pl.DataFrame, streets: pl.DataFrame, seen: pl.DataFrame,
                      variants: pl.DataFrame) -> pl.DataFrame:
    """Seats with Fantasyland, the Fantasyland card count and discards derived from the
    streets where the hand does not say (fpdb-3 records none of them).

    A player whose first street places the whole board (13 cards at once) was dealt
    Fantasyland; the cards they were dealt are those seen for them in any round
    (dealt, placed or discarded; or as many as one round shows, where a card may come
    twice), or 13 in classic OFC, which deals no more. A
    Pineapple Fantasyland with no discard seen has an unknown count.
    """
    per_seat = streets.group_by("record", "seat").agg(
        ((pl.col("street") == 1) & (pl.col("action") == "place")).sum().alias("_first"),
        pl.col("card").filter(pl.col("action") == "discard").alias("_discards"))
    per_seat = (per_seat.join(seen, on=["record", "seat"], how="left")
                .join(variants, on="record", how="left")
                .with_columns((pl.col("_first") >= 13).alias("_in_fl")))
    classic = pl.col("variant").str.to_lowercase().is_in([*PLAIN_OFC, *_THIRTEEN_CARD_DEALS])
    per_seat = per_seat.select(
        "record", "seat", "_in_fl", "_discards",
        pl.when(pl.col("_in_fl")).then(
            pl.when(pl.col("_seen") > 13).then(pl.col("_seen"))
            .when(classic).then(pl.lit(13))).alias("_fl_cards"))
    joined = seats.join(per_seat, on=["record", "seat"], how="left", maintain_order="left")
    return joined.with_columns(
        pl.coalesce("in_fantasyland", "_in_fl").alias("in_fantasyland"),
        pl.when(pl.col("in_fantasyland").is_null()).then(pl.col("_fl_cards"))
        .otherwise(pl.col("fl_cards")).alias("fl_cards"),
        pl.when(pl.col("discards").is_null() & (pl.col("_discards").list.len() > 0))
        .then(pl.col("_discards")).otherwise(pl.col("discards")).alias("discards"),
    ).drop("_in_fl", "_fl_cards", "_discards")
