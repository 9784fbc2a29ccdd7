"""Canonical hand records: the one shape every reader produces and ingest stores.

Readers parse their syntax into three *raw* polars frames (card strings, text
timestamps, variant names as written) keyed by ``record``, the hand's index in its
batch, and hand them to :func:`normalise`. It checks every hand in bulk and returns
a :class:`CanonicalBatch`: the good hands as typed frames (card codes, UTC
timestamps, decimals) and one problem row per rejected hand, with its file, line,
reason and raw text. A bad hand never stops the hands around it.

Raw frames (what a reader gives :func:`normalise`; columns marked ? may be absent):

``raw_hands``: ``record`` (int), ``line`` (int, 1-based line or byte offset where the
hand starts), ``raw`` (str?, the hand's source text), ``error`` (str?, a syntax
problem the reader found: the hand is rejected with it), ``error_kind`` (str?,
``card`` where the error is a card that does not exist; else syntax), ``site``, ``hand_id``,
``table`` (str), ``started_at`` (str in ISO 8601, or datetime), ``variant`` (str),
``ruleset``?, ``button_seat``? (int), ``point_value``? (str or number),
``currency``? (str).

``raw_seats``: ``record``, ``seat`` (int), ``player`` (str), ``top``, ``middle``,
``bottom`` (list of card strings), ``in_fantasyland``? (bool), ``fl_cards``? (int),
``discards``? (list of card strings), ``reported_points``? (int),
``reported_royalties``? (int), ``starting_stack``?, ``collected``?, ``reported_money``?
(str or number).

``raw_streets`` (may be None): ``record``, ``seat`` (int), ``street`` (int, 1 = the
first deal), ``action`` (``place`` or ``discard``), ``row`` (str?, for a placement),
``card`` (str).

The canonical frames have the schemas of the warehouse's tables
(:mod:`ofc_stats.warehouse.schemas`, docs/schema.md).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import polars as pl
import pyarrow as pa  # type: ignore[import-untyped]

from ofc_stats.engine.boards import CARD_COLUMNS, ROW_SLOTS, card_frame, row_text_exprs
from ofc_stats.engine.cards import (
    CARD_NAMES,
    INVALID_CARD,
    JOKER,
    NO_CARD,
    card_code_array,
    card_codes,
)
from ofc_stats.engine.rules import Row, Variant, ruleset_for_variant
from ofc_stats.formats.card_reasons import DeckLimits, duplicate_reasons, twice_reasons
from ofc_stats.formats.content_hash import content_hash
from ofc_stats.warehouse.schemas import (
    HANDS_SCHEMA,
    MONEY,
    PROBLEMS_SCHEMA,
    SEATS_SCHEMA,
    STREETS_SCHEMA,
)

# Players a variant's deck deals (RULES §4: classic 2-4, Pineapple 2-3; two decks more).
PLAYER_RANGE = {variant: (2, ruleset_for_variant(variant).max_players) for variant in Variant}

VARIANT_NAMES = {
    "classic": Variant.CLASSIC, "ofc": Variant.CLASSIC, "regular": Variant.CLASSIC,
    "open face chinese": Variant.CLASSIC, "classic ofc": Variant.CLASSIC,
    "pineapple": Variant.PINEAPPLE, "pineapple ofc": Variant.PINEAPPLE,
    "ofc pineapple": Variant.PINEAPPLE, "regular pineapple": Variant.PINEAPPLE,
    "ofcp": Variant.PINEAPPLE, "ofc/p": Variant.PINEAPPLE,
    "progressive": Variant.PROGRESSIVE, "progressive pineapple": Variant.PROGRESSIVE,
    "progressive ofc": Variant.PROGRESSIVE, "ofc/p progressive": Variant.PROGRESSIVE,
    "ultimate": Variant.ULTIMATE, "ultimate pineapple": Variant.ULTIMATE,
    "ultimate ofc": Variant.ULTIMATE,
    "joker pineapple": Variant.JOKER_PINEAPPLE, "joker pineapple ofc": Variant.JOKER_PINEAPPLE,
    "joker ofc": Variant.JOKER_PINEAPPLE, "pineapple with jokers": Variant.JOKER_PINEAPPLE,
    "joker progressive": Variant.JOKER_PROGRESSIVE,
    "joker progressive pineapple": Variant.JOKER_PROGRESSIVE,
    "joker progressive pineapple ofc": Variant.JOKER_PROGRESSIVE,
    "joker ultimate": Variant.JOKER_ULTIMATE, "joker ultimate pineapple": Variant.JOKER_ULTIMATE,
    "joker ultimate pineapple ofc": Variant.JOKER_ULTIMATE,
    "double deck": Variant.DOUBLE_DECK, "double deck ofc": Variant.DOUBLE_DECK,
    "double-deck ofc": Variant.DOUBLE_DECK,
    "double deck pineapple": Variant.DOUBLE_DECK_PINEAPPLE,
    "double deck pineapple ofc": Variant.DOUBLE_DECK_PINEAPPLE,
    "deuce to seven": Variant.DEUCE_TO_SEVEN, "deuce-to-seven pineapple": Variant.DEUCE_TO_SEVEN,
    "deuce to seven pineapple": Variant.DEUCE_TO_SEVEN, "2-7": Variant.DEUCE_TO_SEVEN,
    "2-7 pineapple": Variant.DEUCE_TO_SEVEN, "2-7 pineapple ofc": Variant.DEUCE_TO_SEVEN,
    "deuce pineapple": Variant.DEUCE_TO_SEVEN, "ofcp_27": Variant.DEUCE_TO_SEVEN,
    "ofc/p 2-7": Variant.DEUCE_TO_SEVEN, "2-7 ofc": Variant.DEUCE_TO_SEVEN,
    **{variant.value: variant for variant in Variant},
    **{variant.value.replace("-", " "): variant for variant in Variant},
}

def variant_named(text: str) -> str:
    """The variant a name stands for, as the readers take it (``"Joker Ultimate"``,
    ``"2-7"``, ``"ofcp_27"``); the text itself when it names none.

    >>> variant_named("2-7 Pineapple OFC"), variant_named("badugi")
    ('deuce-to-seven', 'badugi')
    """
    found = VARIANT_NAMES.get(text.strip().lower())
    return text if found is None else found.value


MAX_RAW_CHARS = 65_536
SEAT_RANGE = (-128, 127)  # what the int8 seat columns hold
_TIMESTAMP = (r"^\s*(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})(:\d{2}(?:\.\d+)?)?\s*"
              r"(Z|[+-]\d{2}:?\d{2})?\s*$")


@dataclass(frozen=True)
class CanonicalBatch:
    """Validated hands of one batch, and the problems of the hands set aside.

    :func:`normalise` lists ``seats`` hand by hand in the order of ``hands`` (readers
    number their hands in file order), each hand's by seat number.
    """

    hands: pl.DataFrame
    seats: pl.DataFrame
    streets: pl.DataFrame
    problems: pl.DataFrame

    @classmethod
    def empty(cls) -> CanonicalBatch:
        """A batch with no hands and no problems."""
        return cls(HANDS_SCHEMA.to_frame(), SEATS_SCHEMA.to_frame(),
                   STREETS_SCHEMA.to_frame(), PROBLEMS_SCHEMA.to_frame())

    def with_hands(self, hands: pl.DataFrame) -> CanonicalBatch:
        """This batch cut to ``hands`` (some of its hands, in its order), with their
        seats and streets; the problems stay."""
        keys = hands.select("site", "hand_id")
        return CanonicalBatch(
            hands=hands,
            seats=self.seats.join(keys, on=["site", "hand_id"], how="semi",
                                  maintain_order="left"),
            streets=self.streets.join(keys, on=["site", "hand_id"], how="semi",
                                      maintain_order="left"),
            problems=self.problems)

    @classmethod
    def concat(cls, batches: list[CanonicalBatch]) -> CanonicalBatch:
        """One batch holding all of ``batches``."""
        if not batches:
            return cls.empty()
        return cls(*(pl.concat([getattr(b, name) for b in batches])
                     for name in ("hands", "seats", "streets", "problems")))


def problems_frame(file: str, rows: list[dict[str, object]]) -> pl.DataFrame:
    """Problems a reader found outside any hand (encoding, truncation, bad JSON)."""
    frame = pl.DataFrame(rows, schema_overrides=dict(PROBLEMS_SCHEMA), strict=False)
    return frame.with_columns(pl.lit(file).alias("file")).select(
        [pl.col(name).cast(dtype) if name in frame.columns or name == "file"
         else pl.lit(None, dtype).alias(name) for name, dtype in PROBLEMS_SCHEMA.items()])


def _with_defaults(frame: pl.DataFrame, defaults: dict[str, pl.DataType]) -> pl.DataFrame:
    missing = [pl.lit(None, dtype).alias(name) for name, dtype in defaults.items()
               if name not in frame.columns]
    return frame.with_columns(missing) if missing else frame


def _first_reason(frame: pl.DataFrame, checks: list[tuple[str, pl.Expr, pl.Expr]]
                  ) -> pl.DataFrame:
    """``record``, ``kind``, ``reason`` of the first failing check per row.

    A check is (kind, failed, reason). Reasons are formatted only for the rows that
    fail a check, usually few: formatting text for every row costs more than the
    checks themselves.
    """
    failed = [condition.fill_null(False) for _, condition, _ in checks]
    bad = frame.filter(pl.any_horizontal(failed))
    if bad.is_empty():  # the usual case: each step below costs a batch a fixed ~0.2 ms
        return _no_reasons(frame.schema["record"])
    # On the failing rows only: the first check that failed with a reason.
    reasons = [pl.when(condition).then(reason_)
               for (_, _, reason_), condition in zip(checks, failed, strict=True)]
    kind = pl.coalesce([pl.when(reason_.is_not_null()).then(pl.lit(kind_))
                        for (kind_, _, _), reason_ in zip(checks, reasons, strict=True)])
    return (bad.select("record", kind.cast(pl.String).alias("kind"),
                       pl.coalesce(reasons).cast(pl.String).alias("reason"))
            .filter(pl.col("reason").is_not_null()))


def _no_reasons(record: pl.DataType | type[pl.DataType] = pl.Int64) -> pl.DataFrame:
    """No failed checks: ``record``, ``kind``, ``reason`` with no rows."""
    return pl.DataFrame(schema={"record": record, "kind": pl.String, "reason": pl.String})


# The layouts writers use most, parsed without the (slower) regular expression.
_FAST_TIMESTAMPS = ("%Y-%m-%dT%H:%M:%S%.f%:z", "%Y-%m-%d %H:%M:%S%.f %:z")


def _fast_timestamps(column: pl.Expr) -> tuple[pl.Expr, pl.Expr]:
    """(UTC datetime, offset minutes) of ``2026-03-01T20:15:00+01:00`` style text
    (also with a space before the offset); for any other layout, either or both null
    (:func:`_understood_timestamps` keeps a time only where both are set)."""
    text = column.cast(pl.String)
    parsed = pl.coalesce([text.str.to_datetime(layout, time_zone="UTC", strict=False)
                          for layout in _FAST_TIMESTAMPS])
    # The offset as +HHMM, written +HH:MM or +HHMM.
    last6 = text.str.slice(-6)
    zone = (pl.when(last6.str.slice(3, 1) == ":").then(last6.str.replace(":", "", literal=True))
            .otherwise(text.str.slice(-5)))
    sign = (pl.when(zone.str.slice(0, 1) == "-").then(-1)
            .when(zone.str.slice(0, 1) == "+").then(1))
    minutes = (zone.str.slice(1, 2).cast(pl.Int16(), strict=False) * 60
               + zone.str.slice(3, 2).cast(pl.Int16(), strict=False)) * sign
    return parsed, minutes.cast(pl.Int16)


def _understood_timestamps(hands: pl.DataFrame) -> pl.DataFrame:
    """``_started_at`` and ``_offset`` where :func:`_fast_timestamps` understood both,
    else null: those times go the slow way. (On the columns, not in the expressions:
    each would parse every time again.)"""
    understood = pl.col("_started_at").is_not_null() & pl.col("_offset").is_not_null()
    return hands.with_columns(pl.when(understood).then(pl.col(name)).alias(name)
                              for name in ("_started_at", "_offset"))


def _parse_timestamps(column: pl.Expr) -> tuple[pl.Expr, pl.Expr]:
    """ISO 8601 text to (UTC datetime, offset minutes); naive times are taken as UTC."""
    parts = column.cast(pl.String).str.extract_groups(_TIMESTAMP)
    date, hour_minute = parts.struct.field("1"), parts.struct.field("2")
    seconds = parts.struct.field("3").fill_null(":00")
    offset = parts.struct.field("4")
    offset_text = (pl.when(offset.is_null() | (offset == "Z")).then(pl.lit("+0000"))
                   .otherwise(offset.str.replace(":", "")))
    text = pl.concat_str([date, pl.lit("T"), hour_minute, seconds, offset_text])
    parsed = text.str.to_datetime("%Y-%m-%dT%H:%M:%S%.f%z", time_zone="UTC", strict=False)
    sign = pl.when(offset_text.str.slice(0, 1) == "-").then(-1).otherwise(1)
    minutes = (offset_text.str.slice(1, 2).cast(pl.Int16(), strict=False) * 60
               + offset_text.str.slice(3, 2).cast(pl.Int16(), strict=False)) * sign
    return parsed, pl.when(offset.is_null()).then(None).otherwise(minutes).cast(pl.Int16)


def normalise(raw_hands: pl.DataFrame, raw_seats: pl.DataFrame,
              raw_streets: pl.DataFrame | None, file: str) -> CanonicalBatch:
    """Validate raw hands in bulk and convert them to canonical records.

    Args:
        raw_hands, raw_seats, raw_streets: a reader's frames (see the module doc).
        file: the source file's name, for provenance and problems.

    Returns:
        The good hands as canonical frames; every bad hand as one problem row.
    """
    hands = _with_defaults(raw_hands, {
        "raw": pl.String(), "error": pl.String(), "error_kind": pl.String(),
        "ruleset": pl.String(), "button_seat": pl.Int64(),
        "point_value": pl.String(), "currency": pl.String(), "line": pl.Int64(),
    })
    seats = _with_defaults(raw_seats, {
        "in_fantasyland": pl.Boolean(), "fl_cards": pl.Int64(), "discards": pl.List(pl.String),
        "reported_points": pl.Int64(), "reported_royalties": pl.Int64(),
        "starting_stack": pl.String(), "collected": pl.String(),
        "reported_money": pl.String(),
    })
    streets = raw_streets if raw_streets is not None else pl.DataFrame(schema={
        "record": pl.Int64(), "seat": pl.Int64(), "street": pl.Int64(), "action": pl.String(),
        "row": pl.String(), "card": pl.String()})

    text_times = hands.schema["started_at"] == pl.String()
    started_at, offset = _fast_timestamps(pl.col("started_at"))
    hands = hands.with_columns(
        pl.col("variant").cast(pl.String).str.strip_chars().str.to_lowercase()
        .replace_strict(VARIANT_NAMES, default=None, return_dtype=pl.String)
        .alias("_variant"),
        (started_at if text_times
         else pl.col("started_at").cast(pl.Datetime("us", "UTC"))).alias("_started_at"),
        (offset if text_times else pl.lit(None, pl.Int16)).alias("_offset"),
        pl.col("point_value").cast(pl.String).cast(MONEY, strict=False).alias("_point_value"),
    )
    if text_times:
        hands = _slow_timestamps(_understood_timestamps(hands))
    missing = [(pl.col(name).is_null() | (pl.col(name).cast(pl.String) == ""),
                pl.lit(f"missing {name}"))
               for name in ("hand_id", "site", "table", "started_at", "variant")]
    hand_reasons = _first_reason(hands, [
        # A reader's error is syntax, unless it says otherwise (a mangled dealt card).
        ("card", pl.col("error").is_not_null() & (pl.col("error_kind") == "card"),
         pl.col("error")),
        ("syntax", pl.col("error").is_not_null(), pl.col("error")),
        *(("missing field", failed, reason) for failed, reason in missing),
        ("variant", pl.col("_variant").is_null(),
         pl.format("unknown variant '{}'", pl.col("variant"))),
        ("timestamp", pl.col("_started_at").is_null(),
         pl.format("bad timestamp '{}'", pl.col("started_at").cast(pl.String))),
        ("money", pl.col("point_value").is_not_null() & pl.col("_point_value").is_null(),
         pl.format("bad point value '{}'", pl.col("point_value").cast(pl.String))),
    ])

    limits = DeckLimits.of(hands.select("record", "_variant"))
    seats, seat_reasons, cards = _check_seats(seats, hands, limits)
    streets, street_reasons = _check_streets(streets)
    reasons = pl.concat([hand_reasons, seat_reasons, street_reasons])
    if reasons.is_empty():  # no hand refused, the usual case
        problems = PROBLEMS_SCHEMA.to_frame()
        good_hands, good_seats, good_cards, good_streets = hands, seats, cards, streets
    else:
        # One reason per rejected hand: hand-level first, then seats, then streets.
        first = reasons.group_by("record", maintain_order=True).first()
        bad = first["record"]
        problems = (
            first.join(hands.select("record", "line", "site", "hand_id", "raw"), on="record")
            .select(
                pl.lit(file).alias("file"), pl.col("line").cast(pl.Int64),
                pl.col("site").cast(pl.String), pl.col("hand_id").cast(pl.String), "kind",
                "reason", pl.col("raw").str.slice(0, MAX_RAW_CHARS),
            )
            .sort("line", nulls_last=True)
        )
        good_hands = hands.filter(~pl.col("record").is_in(bad.implode()))
        seat_keep = ~seats["record"].is_in(bad.implode())
        good_seats = seats.filter(seat_keep)
        good_cards = cards[seat_keep.to_numpy()]
        good_streets = streets.filter(~pl.col("record").is_in(bad.implode()))
    # Streets that place a card twice are set aside; the hand (its boards) is kept.
    twice = _cards_twice(good_streets, limits)
    if not twice.is_empty():
        good_streets = good_streets.filter(~pl.col("record").is_in(twice["record"].implode()))
        problems = pl.concat([problems, twice.join(
            hands.select("record", "line", "site", "hand_id", "raw"), on="record").select(
            pl.lit(file).alias("file"), pl.col("line").cast(pl.Int64),
            pl.col("site").cast(pl.String), pl.col("hand_id").cast(pl.String),
            pl.lit("streets").alias("kind"), "reason",
            pl.col("raw").str.slice(0, MAX_RAW_CHARS))]).sort("line", nulls_last=True)
    return _canonical_frames(good_hands, good_seats, good_cards, good_streets, file, problems)


def _cards_twice(streets: pl.DataFrame, limits: DeckLimits) -> pl.DataFrame:
    """(``record``, ``reason``) of hands whose streets place or discard a card more often
    than their variant's decks hold it (once in one deck; a joker: as many times as
    the deck has jokers).

    fpdb-3's rounds, for one, can list a card again when a snapshot showed it in
    another row.
    """
    valid = streets.filter(pl.col("code").is_not_null())
    if valid.is_empty():
        return pl.DataFrame(schema={"record": pl.Int64, "reason": pl.String})
    # Count (record, card) keys with numpy, as the boards' check does.
    records = valid["record"].to_numpy().astype(np.int64)
    codes = np.minimum(valid["code"].to_numpy(), JOKER)  # every joker is one kind
    keys = (records - int(records.min())) * 64 + codes
    jokers, copies = limits.at(records)
    allowed = np.where(codes >= JOKER, np.maximum(jokers, 1), copies)
    repeated = np.bincount(keys)[keys] > allowed
    if not repeated.any():
        return pl.DataFrame(schema={"record": pl.Int64, "reason": pl.String})
    return twice_reasons(valid.filter(pl.Series(repeated)))


def _slow_timestamps(hands: pl.DataFrame) -> pl.DataFrame:
    """Fill ``_started_at`` and ``_offset`` for the times the fast layouts missed."""
    missed = hands.filter(pl.col("_started_at").is_null() & pl.col("started_at").is_not_null())
    if missed.is_empty():
        return hands
    started_at, offset = _parse_timestamps(pl.col("started_at"))
    parsed = missed.select("record", started_at.alias("_slow_at"), offset.alias("_slow_offset"))
    return (hands.join(parsed, on="record", how="left", maintain_order="left")
            .with_columns(pl.coalesce("_started_at", "_slow_at").alias("_started_at"),
                          pl.when(pl.col("_slow_at").is_not_null()).then(pl.col("_slow_offset"))
                          .otherwise(pl.col("_offset")).alias("_offset"))
            .drop("_slow_at", "_slow_offset"))


@dataclass(frozen=True)
class _FlatCards:
    """The cards of one list column of seats, flat in frame order (as the lists hold
    them, null strings included)."""

    lengths: npt.NDArray[np.int64]  # cards per seat (nulls included)
    codes: npt.NDArray[np.int8]  # NO_CARD: a null string; INVALID_CARD: not a card
    strings: pa.Array  # the strings as written
    text: pl.Series | None  # each list as canonical text (``Ah Kd``; null if none)

    def seat_rows(self, elements: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
        """The seat row of each of some cards (by their index in ``codes``)."""
        starts = np.cumsum(self.lengths) - self.lengths
        return np.searchsorted(starts, elements, side="right").astype(np.int64) - 1

    def positions(self) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """The seat row and place in its list of every card."""
        seat_row = np.repeat(np.arange(len(self.lengths), dtype=np.int64), self.lengths)
        starts = np.cumsum(self.lengths) - self.lengths
        return seat_row, np.arange(len(seat_row), dtype=np.int64) - starts[seat_row]


def _flat_cards(column: pl.Series, *, names: bool = False) -> _FlatCards:
    """Every list of ``column`` flattened through its Arrow offsets, its cards parsed in
    one bulk pass (:func:`card_code_array`) instead of exploding the frame."""
    column = column.cast(pl.List(pl.String))
    lists = column.to_arrow()
    if isinstance(lists, pa.ChunkedArray):
        lists = lists.combine_chunks()
    # The offsets straight from their buffer (pyarrow's to_numpy would import pandas).
    width = np.int64 if pa.types.is_large_list(lists.type) else np.int32
    offsets = np.frombuffer(lists.buffers()[1], dtype=width)[
        lists.offset:lists.offset + len(lists) + 1].astype(np.int64)
    lengths = np.diff(offsets)
    strings = lists.values.slice(int(offsets[0]), int(offsets[-1] - offsets[0]))
    codes = card_code_array(strings)
    if lists.null_count:  # a null list holds no cards, whatever its offsets span
        codes[np.repeat(column.is_null().to_numpy(), lengths)] = NO_CARD
    text = None
    if names:
        # Each string's canonical spelling, null where it is no card, back in its lists.
        known = codes >= 0
        indices = pa.array(np.where(known, codes, 0).astype(np.int8), mask=~known)
        spellings = pa.DictionaryArray.from_arrays(indices, pa.array(CARD_NAMES)
                                                   ).cast(pa.string())
        rebuilt = type(lists).from_arrays(pa.array(offsets - offsets[0], type=pa.int64())
                                          .cast(lists.offsets.type), spellings,
                                          mask=column.is_null().to_arrow())
        text = pl.Series(rebuilt).list.join(" ").replace("", None)
    return _FlatCards(lengths, codes, strings, text)


def _check_seats(seats: pl.DataFrame, hands: pl.DataFrame, limits: DeckLimits
                 ) -> tuple[pl.DataFrame, pl.DataFrame, np.ndarray]:
    """Seat-level checks; returns seats in (record, seat) order (with ``_discards``, the
    discards as canonical text), reasons, (n, 13) codes."""
    seats = (seats.sort("record", "seat", maintain_order=True)
             .with_row_index("_seat_row"))
    n = seats.height
    cards = np.full((n, 13), NO_CARD, dtype=np.int8)
    flats = {str(row): _flat_cards(seats[str(row)], names=row == "discards")
             for row in (*Row, "discards")}
    discards_text = flats["discards"].text
    assert discards_text is not None
    seats = seats.with_columns(discards_text.alias("_discards"))

    variant_of = hands.select("record", "_variant")
    hand_checks = _seat_count_checks(seats, variant_of)

    seat_records = seats["record"].to_numpy().astype(np.int64)

    def cards_at(flat: _FlatCards, elements: npt.NDArray[np.int64], row: str) -> pl.DataFrame:
        rows = flat.seat_rows(elements)
        records = seat_records[rows]
        codes = flat.codes[elements]
        return pl.DataFrame({
            "record": seats["record"].gather(rows), "seat": seats["seat"].gather(rows),
            "card": pl.Series(flat.strings.take(pa.array(elements)), dtype=pl.String),
            "code": pl.Series(codes, dtype=pl.Int8),
            "_jokers": limits.at(records)[0],
        }).with_columns(pl.lit(row).alias("row"),
                        pl.when(pl.col("code") >= 0).then(pl.col("code")).alias("code"))

    # The cards a check may fail on (not a card; a joker), in the order of the rows,
    # then the seats, then the cards: few, checked as a frame.
    suspects = [cards_at(flat, elements, row) for row, flat in flats.items()
                if len(elements := np.flatnonzero((flat.codes == INVALID_CARD)
                                                  | (flat.codes >= JOKER)))]
    where = pl.format("seat {} {}", pl.col("seat"), pl.col("row"))
    card_checks = _first_reason(pl.concat(suspects), [
        ("card", pl.col("code").is_null(), pl.format("bad card '{}' ({})", pl.col("card"), where)),
        ("card", (pl.col("code") >= JOKER) & (pl.col("_jokers") == 0),
         pl.format("joker '{}' ({}) in a variant without jokers", pl.col("card"), where)),
    ]) if suspects else _no_reasons(seats.schema["record"])
    size_checks = _row_size_checks(seats)
    money_checks = _money_checks(seats)
    # A card more often in one hand than its decks hold it (a joker: than the deck's
    # jokers): count (record, card) keys with numpy; only keys seen twice, and jokers,
    # may be more than allowed.
    first_record = int(seat_records.min()) if n else 0
    keys = np.concatenate([np.where(
        flat.codes >= 0,
        np.repeat(seat_records - first_record, flat.lengths) * 64 + np.minimum(flat.codes, JOKER),
        -1) for flat in flats.values()])
    valid = np.flatnonzero(keys >= 0)
    valid_keys = keys[valid]
    times = np.bincount(valid_keys)[valid_keys] if len(valid_keys) else valid_keys
    maybe = np.flatnonzero((times > 1) | (valid_keys % 64 >= JOKER))
    maybe_jokers, maybe_copies = limits.at(valid_keys[maybe] // 64 + first_record)
    allowed = np.where(valid_keys[maybe] % 64 >= JOKER, maybe_jokers, maybe_copies)
    repeated = valid[maybe[times[maybe] > allowed]]
    bounds = np.cumsum([0, *(len(flat.codes) for flat in flats.values())])
    repeats = [cards_at(flat, elements, row).select("record", "seat", "code", "row")
               for (row, flat), low, high in zip(flats.items(), bounds[:-1], bounds[1:],
                                                 strict=True)
               if len(elements := repeated[(repeated >= low) & (repeated < high)] - low)]
    duplicate_checks = (duplicate_reasons(pl.concat(repeats)) if repeats
                        else _no_reasons(seats.schema["record"]))
    reasons = pl.concat([hand_checks, card_checks, size_checks, money_checks,
                         duplicate_checks])

    for row, (start, row_size) in ROW_SLOTS.items():
        flat = flats[str(row)]
        if (flat.lengths == row_size).all():  # full rows, the usual case: one block
            cards[:, start:start + row_size] = np.maximum(flat.codes, NO_CARD).reshape(
                n, row_size)
            continue
        seat_row, position = flat.positions()
        placed = (flat.codes >= 0) & (position < row_size)
        cards[seat_row[placed], start + position[placed]] = flat.codes[placed]
    return seats, reasons, cards


def _seat_count_checks(seats: pl.DataFrame, variant_of: pl.DataFrame) -> pl.DataFrame:
    """Hand-level checks of the seats: players the variant allows, seat numbers and
    names, each once."""
    counts = seats.group_by("record").agg(
        pl.len().alias("_players"),
        pl.col("seat").n_unique().alias("_seats"),
        pl.col("player").n_unique().alias("_names"),
        pl.col("seat").is_null().any().alias("_null_seat"),
        pl.col("player").is_null().any().alias("_null_player"),
        # Seats are stored as int8: a number past it is no seat (and would not cast).
        pl.col("seat").filter((pl.col("seat") < SEAT_RANGE[0]) | (pl.col("seat") > SEAT_RANGE[1]))
        .first().alias("_bad_seat"),
    ).join(variant_of, on="record", how="right")
    lows = pl.col("_variant").replace_strict(
        {v.value: lo for v, (lo, _) in PLAYER_RANGE.items()}, default=2, return_dtype=pl.Int64)
    highs = pl.col("_variant").replace_strict(
        {v.value: hi for v, (_, hi) in PLAYER_RANGE.items()}, default=4, return_dtype=pl.Int64)
    players = pl.col("_players").fill_null(0)
    return _first_reason(counts, [
        ("players", (players < lows) | (players > highs),
         pl.format("{} players in a {} hand (allowed {}-{})", players,
                   pl.col("_variant").fill_null("?"), lows, highs)),
        ("seat", pl.col("_null_seat") | pl.col("_null_player"),
         pl.lit("a seat without a number or player name")),
        ("seat", pl.col("_bad_seat").is_not_null(),
         pl.format(f"seat {{}} is not a seat number ({SEAT_RANGE[0]} to {SEAT_RANGE[1]})",
                   pl.col("_bad_seat"))),
        ("seat", pl.col("_seats") < pl.col("_players"), pl.lit("two players in the same seat")),
        ("seat", pl.col("_names") < pl.col("_players"), pl.lit("the same player in two seats")),
    ])


def _row_size_checks(seats: pl.DataFrame) -> pl.DataFrame:
    """Rows holding more cards than they hold."""
    sizes = seats.select(
        "record", "seat",
        *(pl.col(row.value).list.len().fill_null(0).alias(row.value) for row in Row))
    return _first_reason(sizes, [
        ("row size", pl.col(row.value) > row.size, pl.format(
            f"wrong row size: seat {{}} {row.value} has {{}} cards (holds {row.size})",
            pl.col("seat"), pl.col(row.value)))
        for row in Row
    ])


def _money_check_list(names: tuple[str, ...]) -> list[tuple[str, pl.Expr, pl.Expr]]:
    """Checks of the seats' money columns ``names`` (stripped text): each is money, and
    a stack is not negative."""
    return [
        *(("money", pl.col(name).is_not_null()
           & pl.col(name).cast(MONEY, strict=False).is_null(),
           pl.format(f"bad money '{{}}' (seat {{}} {name})", pl.col(name), pl.col("seat")))
          for name in names),
        ("money", pl.col("starting_stack").cast(MONEY, strict=False) < 0,
         pl.format("negative stack '{}' (seat {})", pl.col("starting_stack"), pl.col("seat"))),
    ]


def _money_checks(seats: pl.DataFrame) -> pl.DataFrame:
    """Money a seat records must be money: a stack, what was collected, what was paid.

    Checked on the seats that record any (often none).
    """
    names = ("starting_stack", "collected", "reported_money")
    recorded = seats.filter(pl.any_horizontal(pl.col(name).is_not_null() for name in names))
    money = [(name, pl.col(name).cast(pl.String).str.strip_chars()) for name in names]
    return _first_reason(recorded.select("record", "seat", *(text.alias(name)
                                                             for name, text in money)),
                         _money_check_list(names))


def _check_streets(streets: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    streets = streets.with_columns(card_codes(streets["card"]).alias("code"))
    reasons = _first_reason(streets, [
        ("card", pl.col("code").is_null(),
         pl.format("bad card '{}' (seat {} street {})", pl.col("card"), pl.col("seat"),
                   pl.col("street"))),
        ("syntax", ~pl.col("action").is_in(["place", "discard"]),
         pl.format("unknown action '{}' (seat {} street {})", pl.col("action"),
                   pl.col("seat"), pl.col("street"))),
        ("syntax", (pl.col("action") == "place") & ~pl.col("row").is_in([row.value for row in Row]),
         pl.format("unknown row '{}' (seat {} street {})", pl.col("row"), pl.col("seat"),
                   pl.col("street"))),
    ])
    return streets, reasons


def _canonical_frames(hands: pl.DataFrame, seats: pl.DataFrame, cards: np.ndarray,
                      streets: pl.DataFrame, file: str, problems: pl.DataFrame
                      ) -> CanonicalBatch:
    keys = hands.select("record", pl.col("site").cast(pl.String),
                        pl.col("hand_id").cast(pl.String), pl.col("_variant").alias("variant"),
                        pl.col("table").cast(pl.String), pl.col("_started_at").alias("started_at"),
                        pl.col("_point_value").alias("point_value"))
    codes = card_frame(cards)
    seats_out = (
        pl.concat([seats, codes.select(row_text_exprs()).select(pl.all().name.prefix("_")),
                   codes], how="horizontal")
        .drop("site", "hand_id", "variant", "table", "started_at", "point_value", strict=False)
        # Seats stay listed hand by hand, in the hands' order: ingest tells copies of
        # a hand in one batch apart by that position (they share site and hand_id).
        .join(keys, on="record", how="inner", maintain_order="left")
        .select(
            "site", "hand_id", "variant", "table", "started_at", "point_value",
            pl.col("seat").cast(pl.Int8), pl.col("player").cast(pl.String),
            pl.col("in_fantasyland").fill_null(False).cast(pl.Boolean),
            pl.col("fl_cards").cast(pl.Int8), *CARD_COLUMNS,
            pl.col("_top").alias("top"), pl.col("_middle").alias("middle"),
            pl.col("_bottom").alias("bottom"),
            pl.col("_discards").alias("discards"),
            pl.col("reported_points").cast(pl.Int32),
            pl.col("reported_royalties").cast(pl.Int32),
            pl.col("starting_stack").cast(pl.String).cast(MONEY, strict=False),
            pl.col("collected").cast(pl.String).cast(MONEY, strict=False),
            pl.col("reported_money").cast(pl.String).cast(MONEY, strict=False),
            "record",
        )
    )
    joined = streets.join(keys.select("record", "site", "hand_id"), on="record", how="inner",
                          maintain_order="left")
    streets_out = (
        joined.with_columns(_action_order(joined["record"]))
        .select("site", "hand_id", pl.col("seat").cast(pl.Int8),
                pl.col("street").cast(pl.Int8), "action_order", pl.col("action"),
                pl.when(pl.col("action") == "place").then(pl.col("row")).alias("row"),
                pl.col("code").alias("card"), "record")
    )
    per_hand = seats_out.group_by("record").agg(pl.len().cast(pl.Int8).alias("players"))
    with_streets = streets_out["record"].unique()
    hands_out = (
        hands.join(per_hand, on="record", how="left", maintain_order="left")
        .select(
            pl.col("site").cast(pl.String), pl.col("hand_id").cast(pl.String),
            pl.col("table").cast(pl.String), pl.col("_started_at").alias("started_at"),
            pl.col("_offset").alias("utc_offset_minutes"),
            pl.col("_variant").alias("variant"), pl.col("ruleset").cast(pl.String),
            pl.col("button_seat").cast(pl.Int8), pl.col("_point_value").alias("point_value"),
            pl.col("currency").cast(pl.String), pl.col("players").fill_null(0),
            pl.lit(file).alias("source_file"), pl.col("line").cast(pl.Int64)
            .alias("source_line"), "record",
        )
        .with_columns(pl.col("record").is_in(with_streets.implode()).alias("has_streets"))
    )
    hands_out = hands_out.with_columns(content_hash(hands_out, seats_out).alias("content_hash"))
    return CanonicalBatch(
        hands=hands_out.select(list(HANDS_SCHEMA)).cast(HANDS_SCHEMA),
        seats=seats_out.select(list(SEATS_SCHEMA)).cast(SEATS_SCHEMA),
        streets=streets_out.select(list(STREETS_SCHEMA)).cast(STREETS_SCHEMA),
        problems=problems.cast(PROBLEMS_SCHEMA),
    )


def _action_order(records: pl.Series) -> pl.Expr:
    """0, 1, 2, ... within each record, in frame order (numpy when records are grouped)."""
    values = records.to_numpy()
    if len(values) and np.all(values[1:] >= values[:-1]):
        starts = np.flatnonzero(np.concatenate(([True], values[1:] != values[:-1])))
        sizes = np.diff(np.append(starts, len(values)))
        order = np.arange(len(values)) - np.repeat(starts, sizes)
        return pl.lit(pl.Series("action_order", order, dtype=pl.Int16))
    return pl.int_range(pl.len(), dtype=pl.Int16).over("record").alias("action_order")
