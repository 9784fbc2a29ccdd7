"""``ofc-stats stats``: the per-player summary, and an explanation when it is empty.

:func:`player_stats` runs the named query ``player_summary``; when nothing is scored,
or the player or variant asked for is not among the scored hands, it says so
(:mod:`ofc_stats.db.scope`) and names the closest players. :func:`fantasyland_review_stats`
runs ``fantasyland_review``, the per-player summary of ``ofc-stats review``.
"""

from __future__ import annotations

import datetime as dt

import polars as pl

from ofc_stats.analysis.coverage import score_first
from ofc_stats.db.queries import query_warehouse, run_named
from ofc_stats.db.scope import explain_empty
from ofc_stats.db.sql import connect
from ofc_stats.formats.canonical import variant_named
from ofc_stats.util.moments import parse_moment
from ofc_stats.warehouse import Warehouse
from ofc_stats.warehouse.schemas import DEFAULT_SCORING


def player_stats(warehouse: Warehouse, *, player: str | None = None,
                 variant: str | None = None, since: str | dt.datetime | None = None,
                 min_hands: int | None = None, scoring: str | None = None,
                 score: bool = True) -> pl.DataFrame:
    """The per-player summary (``sql/queries/player_summary.sql``), under the default
    scoring or the stored scoring ``scoring`` names.

    With ``score``, the hands not scored yet are scored first in the default scoring
    (:func:`ofc_stats.analysis.coverage.score_first`; call it yourself to know how
    many were, or are still left out). ``since`` is a moment as
    :func:`~ofc_stats.util.moments.parse_moment` reads it (``2026-03-01``,
    ``yesterday``, ``7d``). An empty result is explained rather than returned when
    nothing is stored or scored or the player or variant is not in the scored hands
    (naming the closest players); other filters (``since``, ``min_hands``) may leave it
    empty.
    """
    if score and scoring in (None, DEFAULT_SCORING):
        score_first(warehouse)
    if variant is not None:
        variant = variant_named(variant)  # "Joker Ultimate", "2-7": as histories write them
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


def fantasyland_review_stats(warehouse: Warehouse, *, player: str | None = None,
                             variant: str | None = None, since: str | None = None,
                             scoring: str | None = None,
                             min_hands: int | None = None) -> pl.DataFrame:
    """The Fantasyland review per player (``sql/queries/fantasyland_review.sql``) of the
    reviews stored by ``ofc-stats review``; empty when none is in scope (a review needs
    no scores, so an empty answer is not explained from the scored hands)."""
    values = {key: str(value) for key, value in
              {"player": player, "variant": variant, "since": since, "scoring": scoring,
               "min_hands": min_hands}.items() if value is not None}
    connection = connect(warehouse)
    try:
        return run_named(connection, "fantasyland_review", values)
    finally:
        connection.close()


def fantasyland_points(warehouse: Warehouse) -> float | None:
    """The average points a Fantasyland hand earns in the default scoring (None: no
    Fantasyland hand scored): what RULES.md section 12 suggests a stay is worth."""
    frame = query_warehouse(warehouse, "SELECT avg(points) AS points FROM player_hands "
                                       "WHERE in_fantasyland")
    value = frame["points"][0]
    return None if value is None else float(value)
