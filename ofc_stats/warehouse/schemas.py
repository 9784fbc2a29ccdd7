"""The schema of every table of the warehouse, in one place (docs/schema.md).

Readers and the simulator write rows in these shapes (through
:func:`ofc_stats.formats.canonical.normalise`), ingest stores them, the scorer adds
``player_hands`` and ``matchups``, the Fantasyland pass ``fl_transitions``, and the
SQL views give a table the warehouse does not hold yet its empty shape. Pure: it
imports nothing above the engine.
"""

from __future__ import annotations

import polars as pl

from ofc_stats.engine.boards import CARD_COLUMNS, CATEGORY
from ofc_stats.engine.boards import MONEY as MONEY  # every table's money: exact decimals

# -- what ingest stores --------------------------------------------------------------

HANDS_SCHEMA = pl.Schema({
    "site": pl.String(),
    "hand_id": pl.String(),
    "table": pl.String(),
    "started_at": pl.Datetime("us", "UTC"),
    "utc_offset_minutes": pl.Int16(),  # the offset the source wrote; null if it had none
    "variant": pl.String(),  # a Variant value
    "ruleset": pl.String(),  # a ruleset the source names, else null
    "button_seat": pl.Int8(),
    "point_value": MONEY,
    "currency": pl.String(),
    "players": pl.Int8(),
    "has_streets": pl.Boolean(),
    "content_hash": pl.String(),  # md5 of the hand's identity, see content_hash()
    "source_file": pl.String(),
    "source_line": pl.Int64(),
})

SEATS_SCHEMA = pl.Schema({
    "site": pl.String(),
    "hand_id": pl.String(),
    # Copied from the hand so that scoring streams seats files without a join.
    "variant": pl.String(),
    "table": pl.String(),
    "started_at": pl.Datetime("us", "UTC"),
    "point_value": MONEY,  # the hand's: with the stacks, what table stakes read
    "seat": pl.Int8(),
    "player": pl.String(),
    "in_fantasyland": pl.Boolean(),
    "fl_cards": pl.Int8(),  # cards dealt in a Fantasyland hand, if known
    # Card codes (rank * 4 + suit) of the final board; -1 marks an empty slot.
    **{name: pl.Int8() for name in CARD_COLUMNS},
    "top": pl.String(),  # the same cards as text, "Ah Kd Qs"
    "middle": pl.String(),
    "bottom": pl.String(),
    "discards": pl.String(),
    "reported_points": pl.Int32(),
    "reported_royalties": pl.Int32(),
    "starting_stack": MONEY,
    "collected": MONEY,
    "reported_money": MONEY,  # net money won (+) or lost (-) in the hand, as reported
})

STREETS_SCHEMA = pl.Schema({
    "site": pl.String(),
    "hand_id": pl.String(),
    "seat": pl.Int8(),
    "street": pl.Int8(),
    "action_order": pl.Int16(),  # order of the action within the hand
    "action": pl.String(),  # "place" or "discard"
    "row": pl.String(),  # a Row value for a placement, null for a discard
    "card": pl.Int8(),
})

PROBLEMS_SCHEMA = pl.Schema({
    "file": pl.String(),
    "line": pl.Int64(),
    "site": pl.String(),
    "hand_id": pl.String(),
    "kind": pl.String(),  # one of PROBLEM_KINDS
    "reason": pl.String(),
    "raw": pl.String(),
})

PROBLEM_KINDS = (
    "syntax", "missing field", "version", "variant", "timestamp", "money", "players",
    "seat", "card", "row size", "duplicate card", "encoding", "truncated", "too large",
    "conflict",
    "streets",  # streets placing a card twice: the hand is stored, without them
    "file", "format",  # ingest: an unreadable or corrupt file; a format it cannot tell
)

HAND_KEYS_SCHEMA = pl.Schema({
    "key": pl.UInt64(),  # hash_strings(site + "\x1f" + hand_id)
    "content": pl.UInt64(),  # the first 64 bits of content_hash
    # Fingerprints of what content_hash leaves out (see hand_keys): null when the hand
    # does not record that detail, never 0.
    "points": pl.UInt64(),  # the seats' reported_points
    "royalties": pl.UInt64(),  # the seats' reported_royalties
    "stakes": pl.UInt64(),  # point_value with currency
    "button": pl.UInt64(),  # button_seat
})

IMPORTS_SCHEMA = pl.Schema({
    "import_id": pl.String(),
    "commit_id": pl.Int64(),
    "imported_at": pl.Datetime("us", "UTC"),
    "file": pl.String(),
    "path": pl.String(),
    "member": pl.String(),
    "compression": pl.String(),
    "format": pl.String(),
    "size": pl.Int64(),
    "mtime": pl.Datetime("ns", "UTC"),
    "start_offset": pl.Int64(),
    "end_offset": pl.Int64(),
    "content_hash": pl.String(),
    "status": pl.String(),
    "hands_read": pl.Int64(),
    "hands_stored": pl.Int64(),
    "duplicates": pl.Int64(),
    "conflicts": pl.Int64(),
    "rejected": pl.Int64(),
    "message": pl.String(),
})

# -- what score stores ---------------------------------------------------------------

# The partition of player_hands and matchups scored by variant (each hand under the
# preset its variant implies); a forced ruleset's scoring is named after the ruleset.
DEFAULT_SCORING = "default"

PLAYER_HANDS_SCHEMA = pl.Schema({
    # The seat's, so that queries per player, table or time need no join.
    **{name: SEATS_SCHEMA[name] for name in (
        "site", "hand_id", "variant", "table", "started_at", "seat", "player",
        "in_fantasyland", "fl_cards", "reported_points", "reported_royalties",
        "reported_money")},
    # The scorer's columns (ofc_stats.engine.boards.PLAYER_SCORE_COLUMNS).
    "fouled": pl.Boolean(),
    "royalties_top": pl.Int16(),
    "royalties_middle": pl.Int16(),
    "royalties_bottom": pl.Int16(),
    "royalties": pl.Int16(),
    "points": pl.Int32(),
    "rows_won": pl.Int8(),
    "rows_lost": pl.Int8(),
    "rows_tied": pl.Int8(),
    "scoops": pl.Int8(),
    "scooped": pl.Int8(),
    "fl_entry": pl.Boolean(),
    "fl_stay": pl.Boolean(),
    "fl_next": pl.Boolean(),
    "fl_cards_next": pl.Int8(),
    "fl_qualifies_entry": pl.Boolean(),
    "fl_entry_cards": pl.Int8(),
    "fl_qualifies_stay": pl.Boolean(),
    "fl_stay_cards": pl.Int8(),
    "moon": pl.Boolean(),
    "top_category": CATEGORY,
    "middle_category": CATEGORY,
    "bottom_category": CATEGORY,
    "top_strength": pl.Int32(),
    "middle_strength": pl.Int32(),
    "bottom_strength": pl.Int32(),
    "joker_cards": pl.String(),  # what each joker stood for, in board order
    "money": MONEY,  # points times the point value
    "money_capped": pl.Decimal(18, 2),  # capped at the stacks, where table stakes hold
    "capped": pl.Boolean(),  # the cap changed the money
    "opponents": pl.Int8(),
    "problem": pl.String(),
    # Written as polars categories (dictionary-encoded text):
    "scoring": pl.String(),  # the partition: DEFAULT_SCORING or a ruleset's name
    "ruleset": pl.String(),  # the ruleset the row was scored under
})

MATCHUPS_SCHEMA = pl.Schema({
    "site": pl.String(),
    "hand_id": pl.String(),
    "variant": pl.String(),
    "table": pl.String(),
    "started_at": pl.Datetime("us", "UTC"),
    "player": pl.String(),
    "seat": pl.Int8(),
    "opponent": pl.String(),
    "opponent_seat": pl.Int8(),
    "rows_won": pl.Int8(),
    "rows_lost": pl.Int8(),
    "rows_tied": pl.Int8(),
    "scoop": pl.Boolean(),
    "scooped": pl.Boolean(),
    "royalty_diff": pl.Int16(),
    "points": pl.Int32(),
    "top_result": pl.Int8(),
    "middle_result": pl.Int8(),
    "bottom_result": pl.Int8(),
    "scoring": pl.String(),
    "ruleset": pl.String(),
})

FL_TRANSITIONS_SCHEMA = pl.Schema({
    "site": pl.String(),
    "table": pl.String(),
    "hand_id": pl.String(),  # the hand whose Fantasyland status is checked
    "started_at": pl.Datetime("us", "UTC"),
    "prev_hand_id": pl.String(),  # the table's previous hand
    "player": pl.String(),
    "status": pl.String(),
    "expected_fl": pl.Boolean(),
    "expected_cards": pl.Int8(),
    "recorded_fl": pl.Boolean(),
    "recorded_cards": pl.Int8(),
    "reason": pl.String(),
})

# The Fantasyland review (ofc-stats review): each board played in Fantasyland against
# the best setting of its cards (docs/scoring.md).
FL_REVIEW_BOARD_COLUMNS = ("site", "hand_id", "variant", "table", "started_at", "seat",
                           "player")
FL_REVIEW_SCHEMA = pl.Schema({
    **{name: SEATS_SCHEMA[name] for name in FL_REVIEW_BOARD_COLUMNS},  # as in seats
    "scoring": pl.String(),
    "ruleset": pl.String(),
    "fl_cards": pl.Int8(),  # cards dealt, as the history records it
    "known_cards": pl.Int8(),  # of which known: the 13 placed and the recorded discards
    "cards_known": pl.String(),  # dealt, placed (only the 13 placed) or partial
    "dealt": pl.String(),  # the known cards as text, placed then discarded
    "played_top": pl.String(),
    "played_middle": pl.String(),
    "played_bottom": pl.String(),
    "played_discards": pl.String(),
    "played_fouled": pl.Boolean(),
    "played_royalties": pl.Int16(),
    "played_stays": pl.Boolean(),
    "played_value": pl.Float64(),
    "played_points": pl.Int32(),
    "best_top": pl.String(),
    "best_middle": pl.String(),
    "best_bottom": pl.String(),
    "best_discards": pl.String(),
    "best_royalties": pl.Int16(),
    "best_stays": pl.Boolean(),
    "best_value": pl.Float64(),
    "best_points": pl.Int32(),
    "value_lost": pl.Float64(),
    "optimal": pl.Boolean(),
    "stay_missed": pl.Boolean(),
    "royalties_left": pl.Int16(),
    "points_lost": pl.Int32(),
    "stay_value": pl.Float64(),
    "opponents": pl.Int8(),
})

# Every table by name, as ``Warehouse.scan`` and the SQL views name them.
TABLE_SCHEMAS = {
    "hands": HANDS_SCHEMA,
    "seats": SEATS_SCHEMA,
    "streets": STREETS_SCHEMA,
    "rejects": PROBLEMS_SCHEMA,
    "hand_keys": HAND_KEYS_SCHEMA,
    "imports": IMPORTS_SCHEMA,
    "player_hands": PLAYER_HANDS_SCHEMA,
    "matchups": MATCHUPS_SCHEMA,
    "fl_transitions": FL_TRANSITIONS_SCHEMA,
    "fl_review": FL_REVIEW_SCHEMA,
}
