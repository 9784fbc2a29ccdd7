"""Cards out of list columns, in row then column order (decoded JSON card lists)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import polars as pl


def list_card_tokens(lists: pl.DataFrame, columns: Sequence[str]
                     ) -> tuple[pl.Series, npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Every card of several list columns of ``lists``: the cards, and for each the row
    it came from and the column (index into ``columns``), in row then column order
    (what :func:`ofc_stats.formats.reading.card_tokens` gives).

    Each column's cards are taken out of its lists at once, and put in row then
    column order with one gather: concatenating each row's lists cost a step per row.
    """
    rows, width = lists.height, len(columns)
    counts = np.stack([lists[name].list.len().fill_null(0).cast(pl.Int64).to_numpy()
                       for name in columns], axis=1).reshape(rows, width)
    slot_start = (np.cumsum(counts.ravel()) - counts.ravel()).reshape(rows, width)
    order = np.empty(int(counts.sum()), dtype=np.int64)
    values, base = [], 0
    for index, name in enumerate(columns):
        cards = lists[name].drop_nulls().explode(empty_as_null=False)
        own = counts[:, index]
        row = np.repeat(np.arange(rows, dtype=np.int64), own)
        within = np.arange(len(row), dtype=np.int64) - (np.cumsum(own) - own)[row]
        order[slot_start[row, index] + within] = base + np.arange(len(row), dtype=np.int64)
        values.append(cards.cast(pl.String).alias("card"))
        base += len(row)
    tokens = pl.concat(values).gather(order) if values else pl.Series("card", [], pl.String)
    row = np.repeat(np.arange(rows, dtype=np.int64), counts.sum(axis=1))
    column = np.repeat(np.tile(np.arange(width, dtype=np.int64), rows), counts.ravel())
    return tokens, row, column
