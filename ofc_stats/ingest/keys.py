"""The keys of stored hands, which ingest's dedupe looks hands up by.

Dedupe stays cheap as the warehouse grows: every stored hand has a 64-bit key of
its ``(site, hand_id)``, a 64-bit prefix of its content hash and fingerprints of the
details the content hash leaves out (reported points and royalties, stakes, button)
in the small ``hand_keys`` table (:func:`hand_keys`), loaded once per run into sorted
numpy arrays (:class:`HandIndex`); a batch is checked with ``searchsorted``. What
counts as the same hand is :mod:`ofc_stats.ingest.dedupe`'s rule, and when two copies
conflict :mod:`ofc_stats.ingest.conflicts`'.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import polars as pl

from ofc_stats.formats.streaming import string_buffers
from ofc_stats.ingest.errors import IngestError
from ofc_stats.warehouse import PendingFile, Warehouse
from ofc_stats.warehouse.schemas import HAND_KEYS_SCHEMA, MONEY, SEATS_SCHEMA

# The detail columns of hand_keys, as a conflict's reason names them.
DETAILS = {"points": "reported points", "royalties": "reported royalties",
           "stakes": "stakes", "button": "button seat"}

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX_1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX_2 = np.uint64(0x94D049BB133111EB)
_ALL_BITS = np.uint64(0xFFFFFFFFFFFFFFFF)
_SEED = np.uint64(0x6F66632D73746174)  # "ofc-stat"


def _mix(values: npt.NDArray[np.uint64]) -> npt.NDArray[np.uint64]:
    """splitmix64's finaliser (wrapping uint64 arithmetic)."""
    values = values ^ (values >> np.uint64(30))
    values = values * _MIX_1
    values = values ^ (values >> np.uint64(27))
    values = values * _MIX_2
    return values ^ (values >> np.uint64(31))


def hash_strings(texts: pl.Series) -> npt.NDArray[np.uint64]:
    """A stable 64-bit hash of each string, vectorised over the Arrow buffers.

    The UTF-8 bytes are read 8 at a time (little-endian words) and mixed with
    splitmix64's finaliser, seeded with the length. Being our own definition, the
    values never change with a library version (they are stored in ``hand_keys``).

    >>> hex(int(hash_strings(pl.Series(["home\\x1fh1"]))[0]))
    '0x1b9491adbca5d389'
    """
    offsets, data = string_buffers(texts.cast(pl.String).fill_null(""))
    count = len(offsets) - 1
    starts = offsets[:-1]
    lengths = np.diff(offsets)
    hashes = _mix(lengths.astype(np.uint64) * _GOLDEN + _SEED)
    if count == 0:
        return hashes
    longest = int(lengths.max())
    padded = np.zeros(int(offsets[-1]) + 8, dtype=np.uint8)
    padded[:len(data[:offsets[-1]])] = data[:offsets[-1]]
    # Element i of this view is the little-endian word of bytes i..i+7.
    words = np.ndarray(buffer=padded, dtype="<u8", shape=(len(padded) - 7,), strides=(1,))
    for word in range(0, longest, 8):
        active = lengths > word
        remaining = np.minimum(lengths[active] - word, 8).astype(np.uint64)
        masks = np.where(remaining >= 8, _ALL_BITS,
                         (np.uint64(1) << (remaining * np.uint64(8))) - np.uint64(1))
        values = words[starts[active] + word] & masks
        hashes[active] = _mix(hashes[active] ^ values)
    return hashes


def _fingerprints(values: npt.NDArray[np.uint64], recorded: npt.NDArray[np.bool_]
                  ) -> pl.Series:
    """Mixed ``values`` as a UInt64 series: null where not ``recorded``, else never 0
    (0 stands for "not recorded" in :class:`HandIndex`)."""
    mixed = np.maximum(_mix(values ^ _SEED), np.uint64(1))
    return pl.Series(mixed, dtype=pl.UInt64).set(pl.Series(~recorded), None)


def _seat_hand_rows(hands: pl.DataFrame, seats: pl.DataFrame) -> npt.NDArray[np.int64]:
    """For each row of ``seats``, the row of its hand in ``hands`` (-1: none).

    Copies of a hand in one batch share (site, hand_id): only the seats' position tells
    them apart, so seats listed hand by hand in the hands' order (as a reader's batch
    lists them) are matched by position; otherwise by (site, hand_id), which needs
    every hand to be there once.
    """
    players = hands["players"].cast(pl.Int64).fill_null(0).to_numpy()
    if int(players.sum()) == seats.height:
        rows = np.repeat(np.arange(hands.height, dtype=np.int64), players)
        if (seats["hand_id"] == hands["hand_id"].gather(rows)).all() and (
                seats["site"] == hands["site"].gather(rows)).all():
            return rows
    ids = ["site", "hand_id"]
    if hands.select(pl.struct(ids).is_duplicated().any()).item():
        raise IngestError("internal: the seats of a hand repeated in a batch are not "
                          "listed hand by hand")
    return (seats.select(ids)
            .join(hands.select(ids).with_row_index("_row"), on=ids, how="left",
                  maintain_order="left")
            ["_row"].cast(pl.Int64).fill_null(-1).to_numpy())


def _seat_fingerprints(seats: pl.DataFrame, column: str, hand_rows: npt.NDArray[np.int64],
                       hands: int) -> pl.Series:
    """Per hand, a fingerprint of one integer column of its seats (null if no seat has
    a value). Each seat's number and value are mixed, then summed over the hand's seats:
    the seats' order does not matter, which seat has which value does."""
    mine = hand_rows >= 0
    rows = hand_rows[mine]
    values = seats[column].filter(pl.Series(mine))
    known = values.is_not_null().to_numpy()
    numbers = seats["seat"].filter(pl.Series(mine)).cast(pl.Int64).to_numpy().view(np.uint64)
    amounts = values.cast(pl.Int64).fill_null(0).to_numpy().view(np.uint64)
    mixed = _mix(_mix(numbers * _GOLDEN + known.astype(np.uint64)) ^ amounts)
    sums = np.zeros(hands, dtype=np.uint64)
    np.add.at(sums, rows, mixed)
    recorded = np.bincount(rows, weights=known, minlength=hands) > 0
    return _fingerprints(sums, recorded)


def hand_keys(hands: pl.DataFrame, seats: pl.DataFrame) -> pl.DataFrame:
    """The ``hand_keys`` rows (``HAND_KEYS_SCHEMA``) of ``hands``, given their ``seats``.

    ``seats`` holds the hands' seats listed hand by hand in the order of ``hands`` (as
    in a reader's batch), or in any order if no hand is in ``hands`` twice. The
    fingerprints are fixed definitions (our own mixing of the values: they are stored
    in every warehouse), null where the hand does not record the detail: points and
    royalties when no seat has them, stakes without a point value or currency, the
    button when unknown. A point value counts exactly, in millionths (its scale).
    """
    identity = hands.select(pl.concat_str(["site", "hand_id"], separator="\x1f")).to_series()
    hand_rows = _seat_hand_rows(hands, seats)
    point_value = hands["point_value"].cast(MONEY)
    millionths = (point_value * 1_000_000).cast(pl.Int64).fill_null(0).to_numpy().view(np.uint64)
    currency = hands["currency"]
    stakes = _mix(millionths ^ (point_value.is_not_null().to_numpy().astype(np.uint64)
                                * _GOLDEN)) ^ hash_strings(currency)
    button = hands["button_seat"].cast(pl.Int64).fill_null(0).to_numpy().view(np.uint64)
    return pl.DataFrame([
        pl.Series("key", hash_strings(identity), dtype=pl.UInt64),
        hands["content_hash"].str.slice(0, 16).str.to_integer(
            base=16, dtype=pl.UInt64, strict=False).fill_null(0).alias("content"),
        _seat_fingerprints(seats, "reported_points", hand_rows, hands.height).alias("points"),
        _seat_fingerprints(seats, "reported_royalties", hand_rows, hands.height
                           ).alias("royalties"),
        _fingerprints(stakes, (point_value.is_not_null() | currency.is_not_null()).to_numpy()
                      ).alias("stakes"),
        _fingerprints(button, hands["button_seat"].is_not_null().to_numpy()).alias("button"),
    ])


def detail_matrix(keys: pl.DataFrame) -> npt.NDArray[np.uint64]:
    """The detail fingerprints of a ``hand_keys`` frame, one column per ``DETAILS``
    entry, 0 where not recorded."""
    return keys.select(pl.col(name).fill_null(0) for name in DETAILS).to_numpy(
        order="c").astype(np.uint64, copy=False).reshape(keys.height, len(DETAILS))


class HandIndex:
    """The keys of every stored hand, as sorted numpy arrays, growing during a run."""

    MAX_PARTS = 8

    def __init__(self, keys: pl.DataFrame) -> None:
        # Per part, sorted by key: the keys, content keys and detail_matrix rows.
        self._parts: list[tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint64],
                                npt.NDArray[np.uint64]]] = []
        self.add(keys)

    def __len__(self) -> int:
        return sum(len(part) for part, _, _ in self._parts)

    def add(self, keys: pl.DataFrame) -> None:
        """Add hands (a ``hand_keys`` frame)."""
        if keys.is_empty():
            return
        self._parts.append(self._sorted(keys))
        if len(self._parts) > self.MAX_PARTS:
            details = np.concatenate([d for _, _, d in self._parts])
            self._parts = [self._sorted(pl.DataFrame({
                "key": np.concatenate([k for k, _, _ in self._parts]),
                "content": np.concatenate([c for _, c, _ in self._parts]),
                **{name: details[:, column] for column, name in enumerate(DETAILS)}}))]

    @staticmethod
    def _sorted(keys: pl.DataFrame) -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint64],
                                             npt.NDArray[np.uint64]]:
        ordered = keys.sort("key")  # polars sorts on every core
        return ordered["key"].to_numpy(), ordered["content"].to_numpy(), detail_matrix(ordered)

    def lookup(self, keys: npt.NDArray[np.uint64]) -> tuple[
            npt.NDArray[np.bool_], npt.NDArray[np.uint64], npt.NDArray[np.uint64]]:
        """For each key: whether a stored hand has it, and that hand's content key and
        detail fingerprints (a detail_matrix row)."""
        found = np.zeros(len(keys), dtype=bool)
        contents = np.zeros(len(keys), dtype=np.uint64)
        details = np.zeros((len(keys), len(DETAILS)), dtype=np.uint64)
        for part_keys, part_contents, part_details in self._parts:
            where = np.minimum(np.searchsorted(part_keys, keys), len(part_keys) - 1)
            hit = (part_keys[where] == keys) & ~found
            contents[hit] = part_contents[where[hit]]
            details[hit] = part_details[where[hit]]
            found |= hit
        return found, contents, details


def rebuild_hand_keys(warehouse: Warehouse) -> None:
    """Rebuild ``hand_keys`` if it does not match ``hands`` (written by an older tool:
    missing rows, or without the detail fingerprints), from ``hands`` and ``seats``."""
    state = warehouse.state()
    key_files = state.table_files("hand_keys")
    stored = sum(f.rows for f in state.table_files("hands"))
    if stored == sum(f.rows for f in key_files) and all(
            set(HAND_KEYS_SCHEMA) <= set(pl.read_parquet_schema(warehouse.root / f.path))
            for f in key_files):
        return
    seats = warehouse.scan("seats", schema=SEATS_SCHEMA).select(
        "site", "hand_id", "seat", "reported_points", "reported_royalties")
    staged = []
    for hands_file in state.table_files("hands"):  # one file at a time: bounded memory
        hands = pl.read_parquet(warehouse.root / hands_file.path, columns=[
            "site", "hand_id", "content_hash", "players", "point_value", "currency",
            "button_seat"])
        own_seats = seats.join(hands.lazy().select("site", "hand_id"),
                               on=["site", "hand_id"], how="semi").collect()
        staged.append(warehouse.stage(PendingFile("hand_keys", hand_keys(hands, own_seats))))
    warehouse.commit([], [f.path for f in key_files], action="rebuild hand_keys",
                     staged=[f for f in staged if f is not None])
