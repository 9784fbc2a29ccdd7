"""Fantasyland across hands: what the next hand at a table should be, per player.

Each table's hands are ordered by time. For every player in every hand, the same
player's board in the table's previous hand says whether this hand should be a
Fantasyland hand and with how many cards (entry from outside, stay from inside,
progressive and ultimate counts: the scorer's ``fl_qualifies_*`` and ``fl_*_cards``
columns). That is compared with what the history records. One row per player per
hand in ``fl_transitions``, with a ``status``:

- ``ok``: the record follows the rules;
- ``fl_missing``: the previous hand earned Fantasyland, the record does not show it;
- ``fl_unearned``: recorded in Fantasyland without earning it (also: joining a
  table in Fantasyland);
- ``fl_cards``: in Fantasyland as due, with a card count other than the rules give;
- ``after_error``: follows the *other* reading of a previous hand whose own record
  was wrong (a room that put a player in Fantasyland by mistake then scores the
  next hand from inside it): not a second error;
- ``first`` (the table's first hand in the history), ``gap`` (hands are missing
  before this one: the hand number jumps at a table whose hand ids end in a number
  that usually grows by one), ``break`` (the table sat idle longer than ``break_minutes``),
  ``joined`` (the player was not in the previous hand): nothing to check;
- ``left_in_fantasyland``: due Fantasyland, but not in the table's next hand.

The errors are ``fl_missing``, ``fl_unearned`` and ``fl_cards``. The query runs in
DuckDB with a memory limit (spilling to disk) and streams to Parquet, so memory
stays flat however many hands the warehouse holds.
"""

from __future__ import annotations

import os
import tempfile

import duckdb
import polars as pl

from ofc_stats.warehouse import Warehouse

FL_ERRORS = ("fl_missing", "fl_unearned", "fl_cards")
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
DEFAULT_BREAK_MINUTES = 60
DUCKDB_MEMORY_LIMIT = "600MB"

TRANSITIONS_SQL = """
WITH hands AS (
    SELECT site, "table", hand_id, min(started_at) AS started_at,
           try_cast(regexp_extract(hand_id, '(\\d+)$', 1) AS BIGINT) AS number
    FROM read_parquet({files}) GROUP BY site, "table", hand_id
),
sequence AS (
    SELECT *,
           {table_key} AS table_key,
           row_number() OVER table_order AS seq,
           lag(hand_id) OVER table_order AS prev_hand_id,
           lag(started_at) OVER table_order AS prev_started_at,
           lag(number) OVER table_order AS prev_number
    FROM hands
    WINDOW table_order AS (PARTITION BY site, "table" ORDER BY started_at, hand_id)
),
numbering AS (
    SELECT table_key, median(number - prev_number) = 1 AS one_by_one
    FROM sequence WHERE prev_number IS NOT NULL GROUP BY table_key
),
links AS (
    SELECT s.site, s."table", s.hand_id, s.started_at, s.table_key, s.seq, s.prev_hand_id,
           CASE
               WHEN s.prev_hand_id IS NULL THEN 'first'
               WHEN coalesce(n.one_by_one, FALSE) AND s.number - s.prev_number > 1
                   THEN 'gap'
               WHEN s.started_at - s.prev_started_at > INTERVAL {break_minutes} MINUTE
                   THEN 'break'
               ELSE 'next'
           END AS link
    FROM sequence s LEFT JOIN numbering n USING (table_key)
),
rows AS (
    -- every player-hand, placed in its table's sequence; (seat_key, seq) finds the
    -- same player's board in the table's previous and next hands by hash join
    SELECT l.site, l."table", l.hand_id, l.started_at, l.seq, l.prev_hand_id, l.link,
           {seat_key} AS seat_key, p.player, p.in_fantasyland, p.fl_cards,
           p.fl_qualifies_entry, p.fl_entry_cards, p.fl_qualifies_stay, p.fl_stay_cards,
           CASE WHEN p.in_fantasyland THEN p.fl_qualifies_stay
                ELSE p.fl_qualifies_entry END AS due_next,
           CASE WHEN p.in_fantasyland THEN p.fl_stay_cards
                ELSE p.fl_entry_cards END AS due_cards
    FROM read_parquet({files}) p JOIN links l USING (site, hand_id)
),
checked AS (
    SELECT cur.*, prev.seat_key IS NOT NULL AS was_there, prev.in_fantasyland AS prev_fl,
           prev.due_next AS expected_fl, prev.due_cards AS expected_cards,
           -- the other reading of the previous hand, had its own record been wrong
           CASE WHEN prev.in_fantasyland THEN prev.fl_qualifies_entry
                ELSE prev.fl_qualifies_stay END AS other_fl,
           CASE WHEN prev.in_fantasyland THEN prev.fl_entry_cards
                ELSE prev.fl_stay_cards END AS other_cards,
           CASE
               WHEN cur.link <> 'next' THEN cur.link
               WHEN prev.seat_key IS NULL AND cur.in_fantasyland THEN 'fl_unearned'
               WHEN prev.seat_key IS NULL THEN 'joined'
               WHEN prev.due_next AND NOT cur.in_fantasyland THEN 'fl_missing'
               WHEN NOT prev.due_next AND cur.in_fantasyland THEN 'fl_unearned'
               WHEN cur.in_fantasyland AND prev.due_cards IS NOT NULL
                    AND cur.fl_cards IS NOT NULL AND prev.due_cards <> cur.fl_cards
                   THEN 'fl_cards'
               ELSE 'ok'
           END AS first_status
    FROM rows cur
    LEFT JOIN rows prev ON prev.seat_key = cur.seat_key AND prev.seq = cur.seq - 1
),
errors AS (
    SELECT seat_key, seq, first_status, in_fantasyland, fl_cards, other_fl, other_cards
    FROM checked WHERE first_status IN ('fl_missing', 'fl_unearned', 'fl_cards')
),
resolved AS (
    -- an error that follows an error, and fits the other reading of the previous hand
    SELECT c.*,
           CASE WHEN prev.seat_key IS NOT NULL AND c.was_there
                     AND c.other_fl = c.in_fantasyland
                     AND (NOT c.in_fantasyland OR c.other_cards IS NULL
                          OR c.fl_cards IS NULL OR c.other_cards = c.fl_cards)
                THEN 'after_error' ELSE c.first_status END AS status
    FROM checked c
    LEFT JOIN errors prev ON prev.seat_key = c.seat_key AND prev.seq = c.seq - 1
                         AND c.first_status IN ('fl_missing', 'fl_unearned', 'fl_cards')
)
SELECT site, "table", hand_id, started_at, prev_hand_id, player, status,
       CASE WHEN link = 'next' AND was_there THEN expected_fl END AS expected_fl,
       CASE WHEN link = 'next' AND was_there AND expected_fl
            THEN expected_cards END::TINYINT AS expected_cards,
       in_fantasyland AS recorded_fl, fl_cards::TINYINT AS recorded_cards,
       CASE status
           WHEN 'fl_missing' THEN format(
               '{{}} earned Fantasyland in {{}} ({{}} cards due) but played {{}} outside it',
               player, prev_hand_id, coalesce(expected_cards::VARCHAR, '?'), hand_id)
           WHEN 'fl_unearned' THEN CASE WHEN was_there THEN format(
               '{{}} played {{}} in Fantasyland, but {{}} did not {{}}', player, hand_id,
               prev_hand_id, CASE WHEN prev_fl THEN 'stay in Fantasyland'
                                  ELSE 'enter Fantasyland' END)
               ELSE format('{{}} joined the table in Fantasyland in {{}}', player, hand_id) END
           WHEN 'fl_cards' THEN format(
               '{{}} was dealt {{}} cards in Fantasyland in {{}}, {{}} due after {{}}',
               player, fl_cards, hand_id, expected_cards, prev_hand_id)
       END AS reason
FROM resolved
UNION ALL
-- due Fantasyland, but absent from the table's next hand
SELECT nxt.site, nxt."table", nxt.hand_id, nxt.started_at, cur.hand_id, cur.player,
       'left_in_fantasyland', TRUE, cur.due_cards::TINYINT, NULL, NULL,
       format('{{}} earned Fantasyland in {{}} but is not in {{}}', cur.player, cur.hand_id,
              nxt.hand_id)
FROM rows cur
JOIN links nxt ON nxt.table_key = {next_table_key} AND nxt.seq = cur.seq + 1
               AND nxt.link = 'next'
WHERE cur.due_next
  AND NOT EXISTS (SELECT 1 FROM rows later WHERE later.seat_key = cur.seat_key
                                             AND later.seq = cur.seq + 1)
"""

# Integer keys make the joins cheap; exact string keys are the fallback should two
# tables (or two players at a table) ever share a 64-bit hash.
HASHED_KEYS = {"table_key": 'hash(site, "table")',
               "seat_key": "hash(l.table_key, p.player)",
               "next_table_key": 'hash(cur.site, cur."table")'}
STRING_KEYS = {"table_key": "site || chr(31) || \"table\"",
               "seat_key": "l.table_key || chr(31) || p.player",
               "next_table_key": "cur.site || chr(31) || cur.\"table\""}
KEYS_UNIQUE_SQL = """
SELECT count(DISTINCT (site, "table")) = count(DISTINCT hash(site, "table"))
   AND count(DISTINCT (site, "table", player)) = count(DISTINCT hash(site, "table", player))
FROM read_parquet({files})
"""


def transitions_query(files: list[str], break_minutes: int = DEFAULT_BREAK_MINUTES,
                      hashed_keys: bool = True) -> str:
    """The SQL that derives ``fl_transitions`` rows from ``player_hands`` files."""
    return TRANSITIONS_SQL.format(files=_file_list(files), break_minutes=int(break_minutes),
                                  **(HASHED_KEYS if hashed_keys else STRING_KEYS))


def _file_list(files: list[str]) -> str:
    return "[" + ", ".join("'" + f.replace("'", "''") + "'" for f in files) + "]"


def refresh_transitions(warehouse: Warehouse, break_minutes: int = DEFAULT_BREAK_MINUTES
                        ) -> tuple[int, int]:
    """Recompute ``fl_transitions`` from the default scoring and swap it in.

    Call with the warehouse's write lock held. Returns (rows, errors).
    """
    from ofc_stats.warehouse_scoring import DEFAULT_SCORING

    files = [str(path) for path in warehouse.files("player_hands", DEFAULT_SCORING)]
    previous = [f.path for f in warehouse.state().table_files("fl_transitions")]
    if not files:
        warehouse.commit([], removes=previous, action="fl_transitions")
        return 0, 0
    target = warehouse.new_path("fl_transitions")
    temporary = target.with_name(f".tmp-{target.name}")
    with tempfile.TemporaryDirectory(prefix=".duckdb-", dir=warehouse.root) as spill:
        connection = duckdb.connect(config={
            "memory_limit": DUCKDB_MEMORY_LIMIT, "temp_directory": spill,
            "threads": os.cpu_count() or 2, "preserve_insertion_order": False})
        try:
            row = connection.execute(KEYS_UNIQUE_SQL.format(files=_file_list(files))
                                     ).fetchone()
            hashed = bool(row and row[0])
            connection.execute(
                f"COPY ({transitions_query(files, break_minutes, hashed)}) TO "
                f"'{temporary.as_posix()}' (FORMAT parquet, COMPRESSION zstd)")
            rows, errors = connection.execute(
                f"SELECT count(*), count(*) FILTER (WHERE status IN {FL_ERRORS}) "
                f"FROM read_parquet('{temporary.as_posix()}')").fetchone() or (0, 0)
        finally:
            connection.close()
    with open(temporary, "rb+") as handle:
        os.fsync(handle.fileno())
    os.replace(temporary, target)
    staged = warehouse.adopt("fl_transitions", target, int(rows))
    warehouse.commit([], removes=previous, staged=[staged], action="fl_transitions",
                     meta={"errors": int(errors)})
    return int(rows), int(errors)
