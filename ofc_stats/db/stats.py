"""``ofc-stats stats``: the per-player summary, and an explanation when it is empty.

:func:`player_stats` runs the named query ``player_summary``; when nothing is scored,
or the player or variant asked for is not among the scored hands, it says so
(:mod:`ofc_stats.db.scope`) and names the closest players.
"""

from __future__ import annotations

import datetime as dt

import polars as pl

from ofc_stats.db.queries import query_warehouse
from ofc_stats.db.scope import explain_empty
from ofc_stats.db.sql import connect
from ofc_stats.util.moments import parse_moment
from ofc_stats.warehouse import Warehouse


def player_stats(warehouse: Warehouse, *, player: str | None = None,
                 variant: str | None = None, since: str | dt.datetime | None = None,
                 min_hands: int | None = None, scoring: str | None = None) -> pl.DataFrame:
    """The per-player summary (``sql/queries/player_summary.sql``), under the default
    scoring or the stored scoring ``scoring`` names.

    ``since`` is a moment as :func:`~ofc_stats.util.moments.parse_moment` reads it
    (``2026-03-01``, ``yesterday``, ``7d``). An empty result is explained rather than
    returned when nothing is scored or the player or variant is not in the scored
    hands (naming the closest players); other filters (``since``, ``min_hands``) may
    leave it empty.
    """
    values: dict[str, object] = {
        key: value for key, value in
        {"player": player, "variant": variant,
         "since": None if since is None else parse_moment(since, "--since"),
         "min_hands": None if min_hands is None else str(min_hands)}.items()
        if value is not None}
    frame = query_warehouse(warehouse, "player_summary", values, scoring=scoring,
                            given_as="--")
    if frame.is_empty():  # without a name to check, say whether anything is scored
        connection = connect(warehouse, scoring=scoring)
        try:
            explain_empty(connection, values)
        finally:
            connection.close()
    return frame
