"""What every writer shares: canonical columns turned back into the text formats use."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, BinaryIO

import polars as pl

from ofc_stats.engine.cards import card_names_expr
from ofc_stats.formats import FormatWriteError

if TYPE_CHECKING:
    from ofc_stats.formats.canonical import CanonicalBatch
from ofc_stats.engine.rules import Row


def local_time_text(separator: str = "T") -> pl.Expr:
    """``started_at`` as written: local time and its offset (none if the source had none).

    Seconds always, microseconds only when there are some; ``+01:00`` style offsets
    (after a space when ``separator`` is a space, as rooms write them).
    """
    offset = pl.col("utc_offset_minutes").cast(pl.Int32)
    local = pl.col("started_at") + pl.duration(minutes=offset.fill_null(0))
    clock = (pl.when(local.dt.microsecond() == 0)
             .then(local.dt.strftime(f"%Y-%m-%d{separator}%H:%M:%S"))
             .otherwise(local.dt.strftime(f"%Y-%m-%d{separator}%H:%M:%S%.6f")))
    size = offset.abs()
    zone = pl.format("{}{}:{}", pl.when(offset < 0).then(pl.lit("-")).otherwise(pl.lit("+")),
                     (size // 60).cast(pl.String).str.zfill(2),
                     (size % 60).cast(pl.String).str.zfill(2))
    gap = " " if separator == " " else ""
    return pl.concat_str([clock, pl.when(offset.is_not_null()).then(pl.lit(gap) + zone)
                          .otherwise(pl.lit(""))])


def decimal_text(column: str) -> pl.Expr:
    """A decimal column as short text: ``0.250000`` becomes ``0.25``, ``10.000000`` ``10``."""
    return (pl.col(column).cast(pl.String).str.replace(r"(\.\d*?)0+$", "$1")
            .str.replace(r"\.$", ""))


def card_list(column: str) -> pl.Expr:
    """A row's text (``"Ah Kd"``) as a list of card strings."""
    return pl.col(column).fill_null("").str.extract_all(r"\S+")


def street_entries(streets: pl.DataFrame) -> pl.DataFrame:
    """One row per hand, street and seat (in action order): the cards placed per row,
    discarded and dealt, as lists of card strings."""
    named = streets.sort("site", "hand_id", "action_order", maintain_order=True).with_columns(
        card_names_expr(pl.col("card")).alias("name"))
    return named.group_by("site", "hand_id", "street", "seat", maintain_order=True).agg(
        pl.col("name").alias("dealt"),
        *(pl.col("name").filter(pl.col("row") == row.value).alias(row.value) for row in Row),
        pl.col("name").filter(pl.col("action") == "discard").alias("discarded"),
    )


def check_writable(frame: pl.DataFrame, checks: dict[str, tuple[pl.Expr, str]],
                   fmt: str) -> None:
    """Raise if any value breaks a check: ``{column: (bad-value test, why)}``.

    Raises:
        FormatWriteError: naming the first bad value, the hand and why.
    """
    for column, (bad, why) in checks.items():
        found = frame.filter(bad.fill_null(False))
        if found.height:
            row = found.row(0, named=True)
            raise FormatWriteError(
                f"the {fmt} format cannot hold {column} {row[column]!r} of hand "
                f"{row['hand_id']!r} ({why}); {found.height} value(s) like it")


def write_json_lines(batches: Iterable[CanonicalBatch], stream: BinaryIO,
                     lines_of: Callable[[CanonicalBatch], pl.Series]) -> int:
    """Write one JSON object per hand (``lines_of`` a batch: its hands' lines) to
    ``stream``; return how many hands were written."""
    written = 0
    for batch in batches:
        if batch.hands.is_empty():
            continue
        lines = lines_of(batch)
        stream.write((lines.str.join("\n").item() + "\n").encode())
        written += lines.len()
    return written
