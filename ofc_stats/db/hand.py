"""One hand in full (``ofc-stats hand ID``): its boards and what each row made, the
points between every pair of players, Fantasyland, what the room reported, the
placements street by street, and what the audit finds in it.

:func:`hand_detail` gathers it from the warehouse's views (under the default scoring
or a stored what-if); the CLI draws it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import polars as pl

from ofc_stats.analysis.audit import FINDINGS_SCHEMA, audit_warehouse
from ofc_stats.analysis.score import resolve_scoring
from ofc_stats.db.sql import QueryError, connect, run_sql
from ofc_stats.engine.cards import card_names_expr
from ofc_stats.engine.evaluate import describe
from ofc_stats.util.suggest import alternatives, hint
from ofc_stats.warehouse import Warehouse


class UnknownHandError(QueryError):
    """No stored hand has the id asked for (or it is at several sites)."""


@dataclass(frozen=True)
class HandDetail:
    """Everything stored about one hand.

    ``hand``: its ``hands`` row. ``seats``: one row per seat, the board as text, what
    the room reported (points, royalties, money) and, when scored, the scorer's columns
    (``joker_cards``: what each joker stood for; ``money_capped``: the money after table
    stakes) plus ``top_made``,
    ``middle_made`` and ``bottom_made`` (e.g. ``pair of Q, kickers 4``). ``matchups``:
    each pair seen from both sides (``points``: what the opponent pays the player).
    ``streets``: each placement and discard in order (``card`` as text). ``findings``:
    the audit's findings in this hand.
    """

    hand: dict[str, Any]
    scoring: str
    scored: bool
    seats: pl.DataFrame
    matchups: pl.DataFrame
    streets: pl.DataFrame
    findings: pl.DataFrame


_SEATS_SQL = """
SELECT s.seat, s.player, s.top, s.middle, s.bottom, s.discards, s.in_fantasyland,
       s.fl_cards, s.reported_points, s.reported_royalties, s.starting_stack,
       s.reported_money, p.joker_cards, p.money, p.money_capped, p.capped,
       p.ruleset, p.fouled, p.problem, p.points, p.royalties, p.royalties_top,
       p.royalties_middle, p.royalties_bottom, p.rows_won, p.rows_lost, p.scoops,
       p.scooped, p.fl_entry, p.fl_stay, p.fl_next, p.fl_cards_next, p.moon,
       p.top_category::VARCHAR AS top_category,
       p.middle_category::VARCHAR AS middle_category,
       p.bottom_category::VARCHAR AS bottom_category,
       p.top_strength, p.middle_strength, p.bottom_strength
FROM seats s
LEFT JOIN player_hands p USING (site, hand_id, seat)
WHERE s.site = $site AND s.hand_id = $hand_id
ORDER BY s.seat
"""
_MATCHUPS_SQL = """
SELECT player, opponent, seat, opponent_seat, points, rows_won, rows_lost, scoop,
       royalty_diff, top_result, middle_result, bottom_result
FROM matchups WHERE site = $site AND hand_id = $hand_id
ORDER BY seat, opponent_seat
"""
_STREETS_SQL = """
SELECT street, action_order, seat, action, "row", card
FROM streets WHERE site = $site AND hand_id = $hand_id
ORDER BY action_order, seat
"""


def _made(strength: str) -> pl.Expr:
    return pl.col(strength).map_elements(describe, return_dtype=pl.String,
                                         skip_nulls=True)


def hand_detail(warehouse: Warehouse, hand_id: str, *, site: str | None = None,
                scoring: str | None = None) -> HandDetail:
    """The hand ``hand_id`` (at ``site``, if several sites use the id).

    Raises:
        UnknownHandError: no such hand (naming the closest ids), or the id is at
            several sites and ``site`` does not say which.
    """
    chosen = resolve_scoring(warehouse, scoring)
    connection = connect(warehouse, scoring=chosen)
    try:
        key = {"hand_id": hand_id, "site": site}
        hands = run_sql(connection, "SELECT * FROM hands WHERE hand_id = $hand_id AND "
                                    "($site IS NULL OR site = $site) ORDER BY site", key)
        if hands.is_empty():
            close = run_sql(connection, (
                "SELECT hand_id FROM (SELECT DISTINCT hand_id FROM hands) WHERE "
                "jaro_winkler_similarity(lower(hand_id), lower($hand_id)) >= 0.85 ORDER BY "
                "jaro_winkler_similarity(lower(hand_id), lower($hand_id)) DESC, hand_id "
                "LIMIT 3"), {"hand_id": hand_id})["hand_id"].to_list()
            where = "" if site is None else f" at site {site!r}"
            raise UnknownHandError(f"no hand {hand_id!r}{where} in the warehouse{hint(close)}"
                                   " ('ofc-stats query hand_list -p player=NAME' lists "
                                   "a player's hands)")
        if hands.height > 1:
            sites = alternatives([repr(name) for name in hands["site"]])
            raise UnknownHandError(f"hand {hand_id!r} is at {hands.height} sites ({sites}): "
                                   "say which with --site")
        hand = hands.row(0, named=True)
        key["site"] = hand["site"]
        seats = run_sql(connection, _SEATS_SQL, key).with_columns(
            _made("top_strength").alias("top_made"),
            _made("middle_strength").alias("middle_made"),
            _made("bottom_strength").alias("bottom_made"))
        matchups = run_sql(connection, _MATCHUPS_SQL, key)
        streets = run_sql(connection, _STREETS_SQL, key).with_columns(
            card_names_expr(pl.col("card")).alias("card"))
    finally:
        connection.close()
    scored = bool(seats["points"].is_not_null().any())
    findings = (audit_warehouse(warehouse, chosen, hand=(hand["site"], hand_id)).findings
                if scored else FINDINGS_SCHEMA.to_frame())
    return HandDetail(hand=hand, scoring=chosen, scored=scored, seats=seats,
                      matchups=matchups, streets=streets, findings=findings)
