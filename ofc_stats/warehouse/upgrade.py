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


def upgrade_warehouse(warehouse: Warehouse) -> int:
    """Rewrite files in an older layout; call with the write lock held.

    Returns:
        How many files were rewritten (0: the warehouse is current).
    """
    return _split_nested_boards(warehouse) + _add_money_columns(warehouse)


def _split_nested_boards(warehouse: Warehouse) -> int:
    """Seats files holding the board as one nested ``cards`` column: one column per slot."""
    old = [f for f in warehouse.state().table_files("seats")
           if NESTED_BOARD_COLUMN in pl.read_parquet_schema(warehouse.root / f.path)]
    if not old:
        return 0
    staged: list[StagedFile] = []
    for seats_file in old:  # one file at a time: memory bounded by the largest file
        seats = pl.read_parquet(warehouse.root / seats_file.path)
        boards = seats[NESTED_BOARD_COLUMN].to_numpy()
        current = pl.concat([seats.drop(NESTED_BOARD_COLUMN), card_frame(boards)],
                            how="horizontal")
        written = warehouse.stage(PendingFile("seats", current.select(list(SEATS_SCHEMA))
                                              .cast(SEATS_SCHEMA)))
        if written is not None:
            staged.append(written)
    warehouse.commit([], [f.path for f in old], staged=staged, action="upgrade",
                     meta={"step": "board columns", "files": len(old)})
    return len(old)


def _add_money_columns(warehouse: Warehouse) -> int:
    """Seats files from before table stakes: each seat gains its hand's point value
    (from ``hands``) and a ``reported_money`` column (null: not recorded then)."""
    wanted = {"point_value", "reported_money"}
    old = [f for f in warehouse.state().table_files("seats")
           if not wanted <= set(pl.read_parquet_schema(warehouse.root / f.path))]
    if not old:
        return 0
    keys = ["site", "hand_id"]
    hands = warehouse.scan("hands").select(*keys, "point_value")
    staged: list[StagedFile] = []
    for seats_file in old:  # one file at a time: memory bounded by the largest file
        seats = pl.read_parquet(warehouse.root / seats_file.path)
        values = hands.join(seats.lazy().select(keys).unique(), on=keys, how="semi").collect()
        current = seats.drop([name for name in wanted if name in seats.columns]).join(
            values.unique(keys), on=keys, how="left", maintain_order="left")
        current = current.with_columns(pl.lit(None, SEATS_SCHEMA["reported_money"])
                                       .alias("reported_money"))
        written = warehouse.stage(PendingFile("seats", current.select(list(SEATS_SCHEMA))
                                              .cast(SEATS_SCHEMA)))
        if written is not None:
            staged.append(written)
    warehouse.commit([], [f.path for f in old], staged=staged, action="upgrade",
                     meta={"step": "money columns", "files": len(old)})
    return len(old)
