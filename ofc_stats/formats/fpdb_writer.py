"""Hands written the way fpdb-3 writes them: its database's hand object, and its envelope.

:func:`raw_json_lines` gives, per hand, the JSON fpdb-3 keeps in ``HttpOFCHands.rawJson``
(what its loader reads back: ``active`` a list, ``points`` text, ``points_settled`` a
dict per player, tens as ``10h``, keys sorted as its ``json.dumps`` sorts them);
:func:`envelope_texts` the capture envelope it writes as ``hand_<id>.json``. Each
street becomes the two snapshots fpdb-3 records (the cards dealt, then placed),
numbered by its running ``round`` counter. What fpdb-3 has no place for is left out:
stakes, the button, the ruleset, the local time offset (fpdb-3 writes UTC), the net
money a seat won, and Progressive or Ultimate, which fpdb-3's hand object does not
tell from Pineapple (``ofcp``; the envelope says Progressive through SwC's game name).
Deuce-to-seven is SwC's ``ofcp_27``; games SwC does not deal (jokers, two decks) are
written under their own names, which fpdb-3 does not read. Fantasyland is in
the streets (a whole board laid at once), as fpdb-3 records it.

``points_breakdown`` holds per-row royalties, which ofc-stats does not store: they are
the scorer's, with the bottom row's taking any difference from the reported total
(the sum is what a reader takes back); ``lines`` and ``total`` are the scorer's too.
"""

from __future__ import annotations

from collections.abc import Callable

import polars as pl

from ofc_stats.engine.boards import CARD_COLUMNS, card_frame_arrays, score_arrays
from ofc_stats.engine.cards import card_names_expr
from ofc_stats.engine.rules import Row, Variant, ruleset_for_variant
from ofc_stats.engine.scoring import compile_rules
from ofc_stats.formats.canonical import CanonicalBatch
from ofc_stats.formats.fpdb_hands import SWC_GAMES
from ofc_stats.formats.writing import card_list, decimal_text, street_entries

KEYS = ["site", "hand_id"]
SORTED_ROWS = sorted(row.value for row in Row)  # fpdb-3 writes its keys sorted
_EMPTY_LIST = pl.lit([], dtype=pl.List(pl.String))
# fpdb-3's name of each variant, and the SwC game a capture envelope names.
# Games SwC does not deal (jokers, two decks) keep their own names there (not fpdb-3's:
# only ofc-stats reads them back).
FPDB_VARIANTS = {
    **{variant.value: variant.value for variant in Variant},
    Variant.CLASSIC.value: "ofc", Variant.PINEAPPLE.value: "ofcp",
    Variant.PROGRESSIVE.value: "ofcp", Variant.ULTIMATE.value: "ofcp",
    Variant.DEUCE_TO_SEVEN.value: "ofcp_27"}
GAME_NAMES = {
    **{variant.value: variant.value for variant in Variant},
    Variant.CLASSIC.value: SWC_GAMES[70][0], Variant.PINEAPPLE.value: SWC_GAMES[74][0],
    Variant.PROGRESSIVE.value: SWC_GAMES[75][0], Variant.ULTIMATE.value: SWC_GAMES[77][0],
    Variant.DEUCE_TO_SEVEN.value: SWC_GAMES[76][0]}
_PINEAPPLE_DEALS = {variant.value: variant.pineapple_deal for variant in Variant}
_ROW_SIZES = '{"bottom":5,"middle":5,"top":3}'
_VALIDATION = '{"errors":[],"valid":true,"warnings":[]}'


def json_text(template: str, *values: pl.Expr | str) -> pl.Expr:
    """JSON text from a template whose ``%s`` are filled with ``values`` (JSON text
    columns or expressions); the template's own braces are JSON's."""
    pieces = template.split("%s")
    if len(pieces) != len(values) + 1:
        raise ValueError(f"{len(values)} values for {len(pieces) - 1} places")
    parts: list[pl.Expr] = []
    for piece, value in zip(pieces, [*values, None], strict=True):
        if piece:
            parts.append(pl.lit(piece))
        if value is not None:
            parts.append(pl.col(value) if isinstance(value, str) else value)
    return pl.concat_str(parts)


def json_string(expr: pl.Expr) -> pl.Expr:
    """A string column as JSON text (quoted, escaped)."""
    encoded = pl.struct(expr.alias("s")).struct.json_encode()
    return encoded.str.slice(5).str.strip_suffix("}")  # '{"s":...}' -> '...'


def without_nulls(json_text: pl.Expr) -> pl.Expr:
    """JSON text with its ``"key":null`` members left out (a struct's unset fields).

    A JSON string never holds an unescaped quote, so the patterns only meet keys.
    """
    return (json_text.str.replace_all(r',"[a-z_]+":null', "")
            .str.replace_all(r'\{"[a-z_]+":null,', "{")
            .str.replace_all(r'\{"[a-z_]+":null\}', "{}"))


def swc_cards(expr: pl.Expr) -> pl.Expr:
    """A list of card names as SwC spells them: tens as ``10h``."""
    return expr.list.eval(pl.element().str.replace(r"^T", "10"))


def _json_object(frame: pl.DataFrame, key: str, value: pl.Expr, name: str) -> pl.DataFrame:
    """One row per hand: ``name``, a JSON object of ``value`` (JSON text) by ``key``."""
    return frame.group_by(KEYS, maintain_order=True).agg(
        json_text("%s:%s", json_string(pl.col(key)), value).alias(name)
    ).with_columns(pl.concat_str([pl.lit("{"), pl.col(name).list.join(","), pl.lit("}")])
                   .alias(name))


def _scores(seats: pl.DataFrame) -> pl.DataFrame:
    """The scorer's view of each board, under its variant's preset."""
    parts = []
    for variant in seats["variant"].unique(maintain_order=True).to_list():
        group = seats.filter(pl.col("variant") == variant)
        ordered, arrays = card_frame_arrays(group, KEYS)
        scored = score_arrays(ordered, arrays, compile_rules(ruleset_for_variant(variant)),
                              keys=KEYS, board_columns=["seat"], restore_order=True)
        parts.append(scored.players)
    return pl.concat(parts)


def _players(seats: pl.DataFrame, scores: pl.DataFrame) -> pl.DataFrame:
    """Per hand: ``players``, ``points_settled``, ``points_breakdown``, ``rows`` and
    ``collections`` as JSON text."""
    seats = seats.join(scores, on=[*KEYS, "seat"], how="left", maintain_order="left")
    player = pl.struct(
        _EMPTY_LIST.alias("active"), swc_cards(card_list("bottom")).alias("bottom"),
        decimal_text("collected").alias("collected"),
        swc_cards(card_list("middle")).alias("middle"), pl.col("player").alias("name"),
        pl.col("reported_points").cast(pl.String).alias("points"),
        pl.col("seat").cast(pl.Int64).alias("seat_idx"),
        decimal_text("starting_stack").alias("starting_stack"),
        swc_cards(card_list("top")).alias("top"),
    )
    listed = seats.with_columns(without_nulls(player.struct.json_encode()).alias("_json"))
    players = listed.group_by(KEYS, maintain_order=True).agg(
        json_text("[%s]", pl.col("_json").str.join(",")).alias("players"))
    # The room's total royalties, split by row as the scorer splits them.
    reported = pl.col("reported_royalties")
    bottom = (pl.col("royalties_bottom") + reported - pl.col("royalties")).alias("bottom_royalty")
    lines = (pl.col("rows_won").cast(pl.Int64) - pl.col("rows_lost")).alias("lines")
    breakdown = pl.struct(
        bottom, lines, pl.col("royalties_middle").alias("middle_royalty"),
        pl.col("royalties_top").alias("top_royalty"),
        (pl.col("rows_won").cast(pl.Int64) - pl.col("rows_lost") + reported).alias("total"),
    ).struct.json_encode()
    category = {row: pl.col(f"{row}_category").cast(pl.String).str.to_titlecase()
                for row in ("top", "middle", "bottom")}
    rows = pl.struct(category["bottom"].alias("bot"), category["middle"].alias("mid"),
                     category["top"].alias("top")).struct.json_encode()
    settled = _json_object(seats.filter(pl.col("reported_points").is_not_null()), "player",
                           pl.col("reported_points").cast(pl.String), "points_settled")
    royalties = _json_object(seats.filter(reported.is_not_null()), "player", breakdown,
                             "points_breakdown")
    names = _json_object(seats.filter(pl.col("top_category").is_not_null()), "player",
                         without_nulls(rows), "rows")
    pots = (seats.filter(pl.col("collected") > 0)
            .with_columns(pl.struct(pl.col("player"), decimal_text("collected").alias("pot"))
                          .struct.json_encode().alias("_pot"))
            .group_by(KEYS, maintain_order=True)
            .agg(json_text("[%s]", pl.col("_pot").str.join(",")).alias("collections")))
    out = players
    for part in (settled, royalties, names, pots):
        out = out.join(part, on=KEYS, how="left", maintain_order="left")
    # Whether any collection is known: an envelope without one leaves its list out.
    known = seats.group_by(KEYS, maintain_order=True).agg(
        pl.col("collected").is_not_null().any().alias("collections_known"))
    out = out.join(known, on=KEYS, how="left", maintain_order="left")
    return out.with_columns(*(pl.col(name).fill_null(empty) for name, empty in (
        ("points_settled", "{}"), ("points_breakdown", "{}"), ("rows", "{}"),
        ("collections", "[]"))))


def _slots(seats: pl.DataFrame, streets: pl.DataFrame) -> pl.DataFrame:
    """Per seat, for each of the 13 slots (``top_1`` ...): ``_n_<slot>``, its card as
    JSON text (``"10h"``), and ``_e_<slot>``, the seat's street entry (0, 1, ...)
    that placed it (null if none did)."""
    entry = pl.col("street").rank("dense").over(*KEYS, "seat").cast(pl.Int64) - 1
    placed = (streets.filter(pl.col("action") == "place")
              .select(*KEYS, "seat", "row", "card", entry.alias("_entry")))
    frame = seats.select(*KEYS, "seat", *CARD_COLUMNS)
    for column in CARD_COLUMNS:
        row = column.split("_")[0]
        found = placed.filter(pl.col("row") == row).select(
            *KEYS, "seat", pl.col("card").alias(column), pl.col("_entry").alias(f"_e_{column}")
        ).unique([*KEYS, "seat", column], keep="first", maintain_order=True)  # two decks
        frame = frame.join(found, on=[*KEYS, "seat", column], how="left",
                           maintain_order="left")
    return frame.with_columns(
        pl.concat_str([pl.lit('"'), card_names_expr(pl.col(column)).str.replace(r"^T", "10"),
                       pl.lit('"')]).alias(f"_n_{column}") for column in CARD_COLUMNS
    ).drop(*CARD_COLUMNS)


def _card_list_json(expr: pl.Expr) -> pl.Expr:
    """A list of card names as JSON text, tens as SwC writes them."""
    joined = expr.list.join('","').str.replace_all(r'(^|")T', "${1}10")
    return pl.when(expr.list.len() > 0).then(pl.concat_str(
        [pl.lit('["'), joined, pl.lit('"]')])).otherwise(pl.lit("[]"))


def _rows_json(values: dict[str, pl.Expr]) -> pl.Expr:
    """A JSON object of the rows whose value (JSON text) is not null."""
    members = [pl.concat_str([pl.lit(f'"{row}":'), values[row]]) for row in SORTED_ROWS]
    return pl.concat_str([pl.lit("{"), pl.concat_str(members, separator=",", ignore_nulls=True),
                          pl.lit("}")])


def _layouts(entries: pl.DataFrame, slots: pl.DataFrame) -> pl.DataFrame:
    """Each street entry with, as JSON text, every row's layout before and after it
    (``--`` for an empty slot) and the slots its cards went to (their places in the
    final row)."""
    entries = entries.with_columns(
        pl.int_range(pl.len()).over(*KEYS, "seat").alias("_seat_entry")
    ).join(slots, on=[*KEYS, "seat"], how="left", maintain_order="left")
    here = pl.col("_seat_entry")

    def columns(row: str) -> list[tuple[int, pl.Expr, pl.Expr]]:
        return [(index, pl.col(f"_n_{row}_{index + 1}"), pl.col(f"_e_{row}_{index + 1}"))
                for index in range(Row(row).size)]

    def layout(row: str, placed: Callable[[pl.Expr], pl.Expr]) -> pl.Expr:
        cells = [pl.when(placed(entry)).then(name).otherwise(pl.lit('"--"'))
                 for _, name, entry in columns(row)]
        return pl.concat_str([pl.lit("["), pl.concat_str(cells, separator=","), pl.lit("]")])

    def placed_slots(row: str) -> pl.Expr:
        cells = [pl.when(entry == here).then(pl.concat_str(
            [pl.lit('{"card":'), name, pl.lit(f',"index":{index}}}')]))
            for index, name, entry in columns(row)]
        listed = pl.concat_str(cells, separator=",", ignore_nulls=True)
        return pl.when(listed != "").then(pl.concat_str([pl.lit("["), listed, pl.lit("]")]))

    return entries.with_columns(
        _rows_json({row: layout(row, lambda entry: entry < here) for row in SORTED_ROWS})
        .alias("_layout_before"),
        _rows_json({row: layout(row, lambda entry: entry <= here) for row in SORTED_ROWS})
        .alias("_layout_after"),
        _rows_json({row: placed_slots(row) for row in SORTED_ROWS}).alias("_slots"))


def _rounds(batch: CanonicalBatch, seats: pl.DataFrame) -> pl.DataFrame:
    """Per hand: ``rounds`` (JSON text), each street of each player as two snapshots,
    the deal and the placement, numbered by a running counter as fpdb-3 numbers them."""
    entries = (street_entries(batch.streets)
               .join(seats.select(*KEYS, "seat", "player"), on=[*KEYS, "seat"], how="left",
                     maintain_order="left"))
    if entries.is_empty():
        return pl.DataFrame(schema={"site": pl.String, "hand_id": pl.String,
                                    "rounds": pl.String, "round_count": pl.UInt32})
    entries = _layouts(entries, _slots(seats, batch.streets)).with_columns(
        pl.int_range(pl.len()).over(KEYS).alias("_entry"))
    dealt, player = _card_list_json(pl.col("dealt")), json_string(pl.col("player"))
    placed = _rows_json({row: pl.when(pl.col(row).list.len() > 0)
                         .then(_card_list_json(pl.col(row))) for row in SORTED_ROWS})
    # The two snapshots' JSON up to the running counter, which the sort numbers.
    deal = entries.select(*KEYS, "_entry", pl.lit(0).alias("_step"), json_text(
        '{"active":%s,"dealt":%s,"discarded":[],"layout":%s,"placed":{},"placed_slots":{},'
        '"player":%s', dealt, dealt, "_layout_before", player).alias("_json"))
    place = entries.select(*KEYS, "_entry", pl.lit(1).alias("_step"), json_text(
        '{"active":[],"dealt":[],"discarded":%s,"layout":%s,"placed":%s,"placed_slots":%s,'
        '"player":%s', _card_list_json(pl.col("discarded")), "_layout_after", placed, "_slots",
        player).alias("_json"))
    rounds = pl.concat([deal, place]).sort(*KEYS, "_entry", "_step", maintain_order=True)
    counter = pl.int_range(1, pl.len() + 1).over(KEYS).cast(pl.String)
    snapshot = json_text('%s,"round":%s,"source":"ofc_snapshot_rows","step_num":%s}',
                         "_json", counter, counter)
    return rounds.group_by(KEYS, maintain_order=True).agg(
        json_text("[%s]", snapshot.str.join(",")).alias("rounds"),
        pl.len().alias("round_count"))


def _timestamp() -> pl.Expr:
    """``started_at`` in UTC with a ``Z``, as fpdb-3 writes a capture's time."""
    at = pl.col("started_at")
    return (pl.when(at.dt.microsecond() == 0).then(at.dt.strftime("%Y-%m-%dT%H:%M:%SZ"))
            .otherwise(at.dt.strftime("%Y-%m-%dT%H:%M:%S%.6fZ")))


def _hand_id() -> pl.Expr:
    """SwC's hand numbers are integers: an id that reads back the same as one is
    written as a number, any other as text."""
    number = pl.col("hand_id").str.contains(r"^(0|[1-9][0-9]{0,17})$")
    return pl.when(number).then(pl.col("hand_id")).otherwise(json_string(pl.col("hand_id")))


def hand_parts(batch: CanonicalBatch) -> pl.DataFrame:
    """The JSON pieces of each hand, in ``batch.hands`` order: ``players``, ``result``,
    ``rounds``, ``variant`` and the rest as JSON text."""
    seats = batch.seats.sort(*KEYS, "seat", maintain_order=True)
    players = _players(seats, _scores(seats))
    rounds = _rounds(batch, seats)
    frame = (batch.hands.select(*KEYS, "table", "started_at", "variant")
             .join(players, on=KEYS, how="left", maintain_order="left")
             .join(rounds, on=KEYS, how="left", maintain_order="left"))
    fpdb_name = pl.col("variant").replace_strict(FPDB_VARIANTS, return_dtype=pl.String)
    pineapple = pl.col("variant").replace_strict(_PINEAPPLE_DEALS, return_dtype=pl.Boolean)
    flags = json_text(
        '{"deuce_to_seven":%s,"family":"ofc","hand_py_importable":false,"pineapple":%s,'
        '"rows":' + _ROW_SIZES + ',"variant":"%s"}',
        pl.when(fpdb_name == "ofcp_27").then(pl.lit("true")).otherwise(pl.lit("false")),
        pl.when(pineapple).then(pl.lit("true")).otherwise(pl.lit("false")), fpdb_name)
    return frame.select(
        *KEYS, pl.col("variant").alias("_variant"), "collections", "collections_known",
        "points_breakdown", "points_settled", "rows",
        _hand_id().alias("hand_id_json"), json_string(pl.col("site")).alias("site_json"),
        json_string(pl.col("table")).alias("table_json"),
        json_string(_timestamp()).alias("timestamp_json"),
        "players", pl.col("rounds").fill_null("[]"), pl.col("round_count").fill_null(0),
        json_text('{"collections":%s,"points_breakdown":%s,"points_settled":%s,"rows":%s}',
                  "collections", "points_breakdown", "points_settled", "rows").alias("result"),
        json_text('{"points_settled":%s,"rows":%s,"points_breakdown":%s}', "points_settled",
                  "rows", "points_breakdown").alias("showdown"),
        flags.alias("variant"))


def raw_json_lines(batch: CanonicalBatch) -> pl.Series:
    """One line per hand: the JSON fpdb-3 keeps in ``HttpOFCHands.rawJson``."""
    parts = hand_parts(batch)
    return parts.select(json_text(
        '{"hand_id":%s,"players":%s,"raw_refs":[],"result":%s,"rounds":%s,"site":%s,'
        '"table_id":%s,"timestamp":%s,"validation":' + _VALIDATION + ',"variant":%s}',
        "hand_id_json", "players", "result", "rounds", "site_json", "table_json",
        "timestamp_json", "variant").alias("line"))["line"]


def envelope_texts(batch: CanonicalBatch) -> pl.DataFrame:
    """One row per hand: ``hand_id`` and ``text``, the capture envelope fpdb-3 writes
    as ``hand_<id>.json`` (on one line; fpdb-3 indents it).

    Its players carry no rows: the final boards are the last step's (a snapshot of
    every player's rows); the rounds are ``ofc_rounds``, the result ``ofc_result``.
    """
    parts = hand_parts(batch)
    seats = batch.seats.sort(*KEYS, "seat", maintain_order=True)
    board = pl.struct(
        _EMPTY_LIST.alias("active"),
        *(swc_cards(card_list(row)).alias(row) for row in ("bottom", "middle", "top")),
        pl.col("reported_points").fill_null(0).alias("points"))
    steps = _json_object(seats, "player", board.struct.json_encode(), "_placed")
    who = seats.group_by(KEYS, maintain_order=True).agg(json_text("[%s]", pl.struct(
        pl.col("player").alias("name"), pl.col("starting_stack").cast(pl.Float64),
        pl.col("seat").cast(pl.Int64).alias("seat_idx")).struct.json_encode().str.join(","))
        .alias("_players"), pl.len().alias("_seats"))
    parts = (parts.join(steps, on=KEYS, how="left", maintain_order="left")
             .join(who, on=KEYS, how="left", maintain_order="left"))
    known = pl.col("collections_known").fill_null(False)  # else no collections are written
    game = pl.col("_variant").replace_strict(GAME_NAMES, return_dtype=pl.String)
    category = pl.col("_variant").replace_strict(FPDB_VARIANTS, return_dtype=pl.String)
    last_step = json_text('[{"step_num":%s,"placed":%s,"board":[],"street":"UNKNOWN"}]',
                          (pl.col("round_count") + 1).cast(pl.String), "_placed")
    return parts.select("hand_id", json_text(
        '{"site":%s,"hand_id":%s,"game_type":%s,"game":{"label":%s,"base":"ofc",'
        '"category":"%s","fpdb_supported":false},"gametype":{"type":"ring","base":"ofc",'
        '"category":"%s","maxSeats":%s},"table_id":%s,"timestamp":%s,"dealer_idx":null,'
        '"sb_idx":-1,"bb_idx":-1,"players":%s,"steps":%s,"actions":[],"showdown":%s,'
        '"raw_refs":[],"metadata":{"state_model":"ofc_snapshot"},"ofc_variant":%s,'
        '"ofc_rounds":%s,"ofc_result":%s,"ofc_validation":' + _VALIDATION + '%s}',
        "site_json", "hand_id_json", json_string(game), json_string(game), category, category,
        pl.col("_seats").cast(pl.String), "table_json", "timestamp_json",
        without_nulls(pl.col("_players")), last_step, "showdown", "variant", "rounds",
        pl.when(known).then(pl.col("result")).otherwise(json_text(
            '{"points_breakdown":%s,"points_settled":%s,"rows":%s}', "points_breakdown",
            "points_settled", "rows")),
        pl.when(known).then(json_text(',"collections":%s', "collections"))
        .otherwise(pl.lit(""))).alias("text"))
