"""Card lists: text columns turned into lists of card strings, and the cards of list
columns taken out in row then column order (decoded JSON card lists)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import polars as pl

# A card token inside a list's JSON text ('["Ah","Kd"]') or a space-separated string.
CARD_TOKEN = r"[^\s,\[\]\"]+"


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


def card_lists(column: str) -> pl.Expr:
    """Card strings out of a list's JSON text or a space- or comma-separated string."""
    return pl.col(column).str.extract_all(CARD_TOKEN)


def with_card_lists(frame: pl.DataFrame, columns: Sequence[str]) -> pl.DataFrame:
    """``frame`` with each card-list text column (a list's JSON text as DuckDB writes
    it, ``["Ah","Kd"]``, or a string such as ``"Ah Kd"``) turned into a list.

    DuckDB's text of a list of strings is split on ``","`` (literal, fast); the
    other texts, usually none, go through :func:`card_lists`. Every column in one
    pass, after one that counts the other texts (a step per column and test was 70 of
    the 170 polars steps parsing a batch of fpdb-3 hands took).
    """
    # Columns already lists (JSON decoded with types) stay as they are.
    texts = [name for name in columns if not isinstance(frame.schema[name], pl.List)]
    if not texts:
        return frame

    def duckdb_list(name: str) -> pl.Expr:
        text = pl.col(name)
        return (text.str.starts_with('["') & text.str.ends_with('"]')) | (text == "[]")

    others = frame.select((~duckdb_list(name) & pl.col(name).is_not_null()).sum().alias(name)
                          for name in texts).row(0)
    lists = []
    for name, other in zip(texts, others, strict=True):
        text = pl.col(name)
        split = (pl.when(text == "[]").then(pl.lit([], pl.List(pl.String)))
                 .otherwise(text.str.strip_prefix('["').str.strip_suffix('"]').str.split('","')))
        if other:
            split = pl.when(duckdb_list(name) | text.is_null()).then(split).otherwise(
                card_lists(name))
        lists.append(split.alias(name))
    return frame.with_columns(lists)
