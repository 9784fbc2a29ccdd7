"""Build small warehouses for tests: raw hands -> canonical.normalise -> Warehouse.commit.

The same path ingest takes after a reader has parsed a file, so tests of scoring,
auditing and SQL can state their hands literally.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from ofc_stats.engine.boards import CARD_COLUMNS
from ofc_stats.formats.canonical import CanonicalBatch, normalise
from ofc_stats.warehouse import PendingFile, Warehouse

START = dt.datetime(2026, 3, 1, 20, 0, tzinfo=dt.UTC)


@dataclass
class Seat:
    player: str
    board: tuple[str, str, str]
    in_fantasyland: bool = False
    fl_cards: int | None = None
    reported_points: int | None = None
    reported_royalties: int | None = None
    starting_stack: str | None = None
    reported_money: str | None = None
    discards: str | None = None


@dataclass
class Hand:
    hand_id: str
    seats: Sequence[Seat]
    table: str = "t1"
    site: str = "home"
    minute: float = 0.0
    variant: str = "pineapple"
    extra: dict[str, object] = field(default_factory=dict)


def canonical(hands: Sequence[Hand], file: str = "built.jsonl") -> CanonicalBatch:
    raw_hands, raw_seats = [], []
    for record, hand in enumerate(hands):
        started = START + dt.timedelta(minutes=hand.minute)
        raw_hands.append({"record": record, "line": record + 1, "raw": hand.hand_id,
                          "site": hand.site, "hand_id": hand.hand_id, "table": hand.table,
                          "started_at": started.isoformat(), "variant": hand.variant,
                          **hand.extra})
        for number, seat in enumerate(hand.seats, start=1):
            top, middle, bottom = (row.split() for row in seat.board)
            raw_seats.append({
                "record": record, "seat": number, "player": seat.player, "top": top,
                "middle": middle, "bottom": bottom, "in_fantasyland": seat.in_fantasyland,
                "fl_cards": seat.fl_cards, "reported_points": seat.reported_points,
                "reported_royalties": seat.reported_royalties,
                "starting_stack": seat.starting_stack, "reported_money": seat.reported_money,
                "discards": seat.discards.split() if seat.discards else None})
    seats = pl.DataFrame(raw_seats, infer_schema_length=None,
                         schema_overrides={"discards": pl.List(pl.String)})
    batch = normalise(pl.DataFrame(raw_hands), seats, None, file)
    assert batch.problems.is_empty(), batch.problems.to_dicts()
    return batch


def store(root: Path, *batches_of_hands: Sequence[Hand]) -> Warehouse:
    """A warehouse at ``root`` with each group of hands committed as one batch."""
    warehouse = Warehouse.open(root, create=True)
    with warehouse.writing():
        for hands in batches_of_hands:
            batch = canonical(hands)
            warehouse.commit([PendingFile("hands", batch.hands),
                              PendingFile("seats", batch.seats),
                              PendingFile("streets", batch.streets)], action="ingest")
    return warehouse


def to_layout_before_money(warehouse: Warehouse) -> None:
    """Rewrite the seats files as ofc-stats wrote them before table stakes: no
    ``point_value`` or ``reported_money`` columns (commit action "old layout")."""
    with warehouse.writing():
        files = warehouse.state().table_files("seats")
        warehouse.commit([PendingFile("seats", pl.read_parquet(warehouse.root / f.path)
                                      .drop("point_value", "reported_money"))
                          for f in files], [f.path for f in files], action="old layout")


def to_nested_board_layout(warehouse: Warehouse) -> None:
    """Rewrite the seats files as an earlier ofc-stats wrote them: the board's 13 codes
    as one Int8[13] column ``cards`` (commit action "old layout")."""
    with warehouse.writing():
        files = warehouse.state().table_files("seats")
        warehouse.commit([PendingFile("seats", pl.read_parquet(warehouse.root / f.path)
                                      .with_columns(pl.concat_list(CARD_COLUMNS)
                                                    .list.to_array(13).alias("cards"))
                                      .drop(CARD_COLUMNS)) for f in files],
                         [f.path for f in files], action="old layout")


# Boards for two seats that never share a card: seat 1 draws from spades, hearts and
# the low diamonds; seat 2 from clubs and the high diamonds.
ENTRY_QQ = ("Qs Qh 2s", "Ks Kh 4s 4h 3s", "9s 8h 7s 6h 5s")  # QQ top: enters, no stay
ENTRY_KK = ("Ks Kh 2s", "As Ah 3s 3h 4s", "5h 6s 7d 8h 9s")  # KK top: 15 in progressive
TRIPS_TOP = ("2s 2h 2d", "4s 4h 4d 3s 3h", "Ks Qs Js Ts 9s")  # enters and stays
NOTHING_1 = ("5s 6h 7d", "8s 8h 9h Th Jh", "As Ah Ks Kh 2d")
FOULED_1 = ("As Ah 3s", "4s 5h 6d 8s 9h", "Ts Jh 2h 7h Qs")
NOTHING_2 = ("2c 3c 4c", "8c 8d 6c 7c 9c", "Tc Td Jc Jd Qc")
ENTRY_QQ_2 = ("Qc Qd 2c", "Kc Kd 3c 4c 5c", "Ac Ad 8c 8d 9c")
