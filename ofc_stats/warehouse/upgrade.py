"""Bring a warehouse written by an earlier ofc-stats up to the current layout.

Each step finds the files an older version wrote and rewrites just those, swapped in
with one commit: a kill part-way leaves the old layout whole, and the next writer
upgrades again. Writers (``ingest``, ``score``) call :func:`upgrade_warehouse` first;
readers need nothing, their views read old and new files alike.
"""

from __future__ import annotations

import polars as pl

from ofc_stats.engine.boards import card_frame
from ofc_stats.warehouse.schemas import SEATS_SCHEMA
from ofc_stats.warehouse.store import PendingFile, StagedFile, Warehouse

# Before the board was stored one int8 column per slot, it was one Int8[13] column.
NESTED_BOARD_COLUMN = "cards"


MONEY_COLUMNS = ("point_value", "reported_money")  # seats columns since table stakes
HAND_KEY = ["site", "hand_id"]


def upgrade_warehouse(warehouse: Warehouse) -> int:
    """Rewrite files in an older layout; call with the write lock held.

    Returns:
        How many files were rewritten (0: the warehouse is current).
    """
    old = [f for f in warehouse.state().table_files("seats")
           if _outdated(set(pl.read_parquet_schema(warehouse.root / f.path)))]
    if not old:
        return 0
    hands = warehouse.scan("hands").select(*HAND_KEY, "point_value")
    staged: list[StagedFile] = []
    for seats_file in old:  # one file at a time: memory bounded by the largest file
        current = _current_seats(pl.read_parquet(warehouse.root / seats_file.path), hands)
        written = warehouse.stage(PendingFile("seats", current.select(list(SEATS_SCHEMA))
                                              .cast(SEATS_SCHEMA)))
        if written is not None:
            staged.append(written)
    warehouse.commit([], [f.path for f in old], staged=staged, action="upgrade",
                     meta={"step": "seats layout", "files": len(old)})
    return len(old)


def _outdated(columns: set[str]) -> bool:
    return NESTED_BOARD_COLUMN in columns or not set(MONEY_COLUMNS) <= columns


def _current_seats(seats: pl.DataFrame, hands: pl.LazyFrame) -> pl.DataFrame:
    """Seat rows an earlier version wrote, in today's layout: the board as one column
    per slot (it was one nested ``cards`` column), and since table stakes each seat's
    hand's point value (from ``hands``) and ``reported_money`` (null: not recorded)."""
    if NESTED_BOARD_COLUMN in seats.columns:
        boards = seats[NESTED_BOARD_COLUMN].to_numpy()
        seats = pl.concat([seats.drop(NESTED_BOARD_COLUMN), card_frame(boards)],
                          how="horizontal")
    if "point_value" not in seats.columns:
        values = (hands.join(seats.lazy().select(HAND_KEY).unique(), on=HAND_KEY, how="semi")
                  .collect().unique(HAND_KEY))
        seats = seats.join(values, on=HAND_KEY, how="left", maintain_order="left")
    if "reported_money" not in seats.columns:
        seats = seats.with_columns(pl.lit(None, SEATS_SCHEMA["reported_money"])
                                   .alias("reported_money"))
    return seats
