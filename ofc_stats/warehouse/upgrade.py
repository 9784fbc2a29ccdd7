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
    return _split_nested_boards(warehouse)


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
