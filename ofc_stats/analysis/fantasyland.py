"""Fantasyland across hands: what the next hand at a table should be, per player.

Each table's hands are ordered by time. A player's board in one hand says whether
the table's next hand should be a Fantasyland hand for that player and with how many
cards (entry from outside, stay from inside, progressive and ultimate counts: the
scorer's ``fl_qualifies_*`` and ``fl_*_cards`` columns). That is compared with what
the history records.

Only a transition with Fantasyland on one side can break a rule: the earlier hand
earned Fantasyland, or the later one is recorded in it. Those are checked, one row
each in ``fl_transitions``, with a ``status``:

- ``ok``: the record follows the rules;
- ``fl_missing``: the earlier hand earned Fantasyland, the record does not show it;
- ``fl_unearned``: recorded in Fantasyland without earning it (also: joining a
  table in Fantasyland);
- ``fl_cards``: in Fantasyland as due, with a card count other than the rules give;
- ``after_error``: follows the *other* reading of a previous hand whose own record
  was wrong (a room that put a player in Fantasyland by mistake then scores the
  next hand from inside it): not a second error;
- ``left_in_fantasyland``: due Fantasyland, but not in the table's next hand;
- ``first``, ``gap``, ``break``: recorded in Fantasyland (or due it) where the
  history cannot say why: at the table's first hand in the history, right after
  missing hands, or after the table sat idle longer than ``break_minutes``.

Besides, one row per gap in a table's history (``status`` ``gap``, ``player`` null):
the hand id ends in a number that usually grows by one at that table and jumps. A
table with ten steps or more tells alone: it counts one by one if its median step is
one, or if its steps are under two on average, each counted as at most ten (it holds
most of the numbers it spans, as a table that lost many hands one at a time does; a
counter that k tables share steps k on average). A shorter one follows its room
(site): the room counts each table's hands by itself if its tables reuse each other's
numbers (a counter tables share never gives a number twice) or the warehouse holds
one table of it. So a gap in a table of three hands is found.
The blind spots: a table of a room whose tables share a counter, exported alone,
that is short or steps by one about half the time (two tables dealing in random
order): its jumps are taken for gaps; and a room of several short tables whose own
counters never meet (their gaps are not found).
The errors are ``fl_missing``, ``fl_unearned`` and ``fl_cards``.

The query runs in DuckDB with a memory limit (spilling to disk beyond it) and
streams to Parquet; the heavy part is ordering each table's hands, after which only
the hands next to a board in or earning Fantasyland, and the gaps, are followed.
"""

from __future__ import annotations

import os
import tempfile

import polars as pl

from ofc_stats.util.cores import available_cores
from ofc_stats.util.duckdb_connection import open_duckdb
from ofc_stats.warehouse import Warehouse
from ofc_stats.warehouse.schemas import DEFAULT_SCORING

FL_ERRORS = ("fl_missing", "fl_unearned", "fl_cards")
DEFAULT_BREAK_MINUTES = 60
DUCKDB_MEMORY_LIMIT = "400MB"
# A table with at least this many steps between hand numbers tells alone whether its
# hands are numbered one by one; a shorter one follows its room (site).
OWN_NUMBERING_STEPS = 10
# Its steps counted as at most this in their average: one long jump (a table resumed
# under new numbers) cannot outweigh ten steps of one.
NUMBERING_STEP_CAP = 10

TRANSITIONS_SQL = """
WITH marked AS MATERIALIZED (
    -- the hands with a board in Fantasyland or earning it (a first pass over few columns)
    SELECT site, hand_id, bool_or(in_fantasyland) AS in_fl,
           bool_or(CASE WHEN in_fantasyland THEN fl_qualifies_stay
                        ELSE fl_qualifies_entry END) AS earning
    FROM {player_hands}
    WHERE in_fantasyland OR fl_qualifies_entry OR fl_qualifies_stay
    GROUP BY site, hand_id
),
fl_hands AS (SELECT site, hand_id FROM marked WHERE in_fl),
earning_hands AS (SELECT site, hand_id FROM marked WHERE earning),
hands AS MATERIALIZED (  -- one row per hand: {hands_source}
    SELECT site, "table", hand_id, started_at,
           try_cast(regexp_extract(hand_id, '(\\d+)$', 1) AS BIGINT) AS number
    FROM {hands}
),
sequence AS (
    SELECT *,
           lag(hand_id) OVER table_order AS prev_hand_id,
           lag(started_at) OVER table_order AS prev_started_at,
           lag(number) OVER table_order AS prev_number,
           number - lag(number) OVER table_order AS step
    FROM hands
    WINDOW table_order AS (PARTITION BY site, "table" ORDER BY started_at, hand_id)
),
room_numbers AS MATERIALIZED (
    SELECT site, "table", try_cast(regexp_extract(hand_id, '(\\d+)$', 1) AS BIGINT) AS number
    FROM {all_hands}
),
site_numbering AS (
    -- a table too short to tell alone follows its room: the room counts each table's
    -- hands by itself if its tables reuse each other's numbers (a counter the tables
    -- share never gives one number twice) or it has one table (its own counter)
    SELECT site, count(DISTINCT "table") = 1 OR count(number) > count(DISTINCT number)
                 AS one_by_one
    FROM room_numbers GROUP BY site
),
numbering AS (
    -- a table long enough tells by itself: its typical step is one, or its steps are
    -- under two on average (it holds most of the numbers it spans: a table that lost
    -- many hands one at a time, where a counter k tables share steps k on average),
    -- each step counted as at most {step_cap} (a rare long jump says little)
    SELECT q.site, q."table",
           CASE WHEN count(*) >= {own_numbering_steps}
                THEN median(q.step) = 1
                     OR avg(least(q.step, {step_cap})) < 2
                ELSE bool_or(coalesce(n.one_by_one, FALSE)) END AS one_by_one
    FROM sequence q LEFT JOIN site_numbering n USING (site)
    WHERE q.prev_number IS NOT NULL GROUP BY q.site, q."table"
),
links AS MATERIALIZED (
    -- how each hand follows the table's previous one: only where it matters (a hand
    -- with a board in Fantasyland, the hand after one earning it, a gap), so that the
    -- work per hand of the whole history stays the ordering above
    SELECT s.site, s."table", s.hand_id, s.started_at, s.prev_hand_id,
           CASE
               WHEN s.prev_hand_id IS NULL THEN 'first'
               WHEN coalesce(n.one_by_one, FALSE) AND s.step > 1
                   THEN 'gap'
               WHEN s.started_at - s.prev_started_at > INTERVAL {break_minutes} MINUTE
                   THEN 'break'
               ELSE 'next'
           END AS link
    FROM sequence s LEFT JOIN numbering n USING (site, "table")
    WHERE (s.prev_hand_id IS NOT NULL AND coalesce(n.one_by_one, FALSE)
           AND s.step > 1)
       OR EXISTS (SELECT 1 FROM fl_hands f WHERE f.site = s.site AND f.hand_id = s.hand_id)
       OR EXISTS (SELECT 1 FROM earning_hands e
                  WHERE e.site = s.site AND e.hand_id = s.prev_hand_id)
),
ph AS MATERIALIZED (
    -- every board of the hands on either side of a link: all the checks below read
    -- (a second pass, keeping few rows)
    SELECT p.site, p.hand_id, p."table", p.started_at, p.player, p.in_fantasyland,
           p.fl_cards, p.fl_qualifies_entry, p.fl_entry_cards, p.fl_qualifies_stay,
           p.fl_stay_cards,
           -- what this board earns for the table's next hand
           CASE WHEN p.in_fantasyland THEN p.fl_qualifies_stay ELSE p.fl_qualifies_entry END
               AS due_next,
           CASE WHEN p.in_fantasyland THEN p.fl_stay_cards ELSE p.fl_entry_cards END
               AS due_cards
    FROM {player_hands} p
    SEMI JOIN (SELECT site, hand_id FROM links
               UNION SELECT site, prev_hand_id FROM links WHERE prev_hand_id IS NOT NULL) n
        ON p.site = n.site AND p.hand_id = n.hand_id
),
earning AS (  -- boards earning Fantasyland for the next hand, with that hand
    SELECT p.*, l.hand_id AS later_hand_id, l.started_at AS later_started_at, l.link
    FROM (SELECT * FROM ph WHERE due_next) p
    JOIN links l ON l.site = p.site AND l.prev_hand_id = p.hand_id
),
pairs AS (
    -- (earlier board, later board) of one player at consecutive hands of a table,
    -- wherever Fantasyland is on either side
    SELECT l.site, l."table", l.hand_id, l.started_at, l.prev_hand_id, l.link, cur.player,
           cur.in_fantasyland AS recorded_fl, cur.fl_cards AS recorded_cards,
           prev.player IS NOT NULL AS was_there, prev.in_fantasyland AS prev_fl,
           prev.due_next AS expected_fl, prev.due_cards AS expected_cards,
           -- the other reading of the earlier hand, had its own record been wrong
           CASE WHEN prev.in_fantasyland THEN prev.fl_qualifies_entry
                ELSE prev.fl_qualifies_stay END AS other_fl,
           CASE WHEN prev.in_fantasyland THEN prev.fl_entry_cards
                ELSE prev.fl_stay_cards END AS other_cards
    FROM (SELECT * FROM ph WHERE in_fantasyland) cur
    JOIN links l ON l.site = cur.site AND l.hand_id = cur.hand_id
    LEFT JOIN ph prev ON prev.site = l.site AND prev.hand_id = l.prev_hand_id
                     AND prev.player = cur.player
    UNION ALL
    SELECT e.site, e."table", e.later_hand_id, e.later_started_at, e.hand_id, e.link,
           e.player, cur.in_fantasyland, cur.fl_cards, TRUE, e.in_fantasyland,
           e.due_next, e.due_cards,
           CASE WHEN e.in_fantasyland THEN e.fl_qualifies_entry
                ELSE e.fl_qualifies_stay END,
           CASE WHEN e.in_fantasyland THEN e.fl_entry_cards ELSE e.fl_stay_cards END
    FROM earning e
    LEFT JOIN ph cur ON cur.site = e.site AND cur.hand_id = e.later_hand_id
                    AND cur.player = e.player
    WHERE NOT coalesce(cur.in_fantasyland, FALSE)  -- those are in the first half
),
judged AS (
    SELECT *,
           CASE
               WHEN link <> 'next' THEN link
               WHEN recorded_fl IS NULL THEN 'left_in_fantasyland'
               WHEN NOT was_there THEN 'fl_unearned'
               WHEN expected_fl AND NOT recorded_fl THEN 'fl_missing'
               WHEN NOT expected_fl AND recorded_fl THEN 'fl_unearned'
               WHEN recorded_fl AND expected_cards IS NOT NULL AND recorded_cards IS NOT NULL
                    AND expected_cards <> recorded_cards THEN 'fl_cards'
               ELSE 'ok'
           END AS first_status
    FROM pairs
),
resolved AS (
    -- an error right after an error that fits the other reading of the hand between
    SELECT j.*,
           CASE WHEN j.first_status IN ('fl_missing', 'fl_unearned', 'fl_cards')
                     AND earlier.first_status IN ('fl_missing', 'fl_unearned', 'fl_cards')
                     AND j.other_fl = j.recorded_fl
                     AND (NOT j.recorded_fl OR j.other_cards IS NULL
                          OR j.recorded_cards IS NULL OR j.other_cards = j.recorded_cards)
                THEN 'after_error' ELSE j.first_status END AS status
    FROM judged j
    LEFT JOIN judged earlier ON earlier.site = j.site AND earlier.hand_id = j.prev_hand_id
                            AND earlier.player = j.player
)
SELECT site, "table", hand_id, started_at, prev_hand_id, player, status,
       CASE WHEN link = 'next' AND was_there THEN expected_fl END AS expected_fl,
       CASE WHEN link = 'next' AND was_there AND expected_fl
            THEN expected_cards END::TINYINT AS expected_cards,
       recorded_fl, recorded_cards::TINYINT AS recorded_cards,
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
               player, recorded_cards, hand_id, expected_cards, prev_hand_id)
           WHEN 'left_in_fantasyland' THEN format(
               '{{}} earned Fantasyland in {{}} but is not in {{}}', player, prev_hand_id,
               hand_id)
       END AS reason
FROM resolved
UNION ALL
SELECT site, "table", hand_id, started_at, prev_hand_id, NULL, 'gap', NULL, NULL, NULL,
       NULL, format('hands missing between {{}} and {{}}', prev_hand_id, hand_id)
FROM links WHERE link = 'gap'
"""


def transitions_query(files: list[str], break_minutes: int = DEFAULT_BREAK_MINUTES,
                      hand_files: list[str] | None = None, tables: str | None = None) -> str:
    """The SQL that derives ``fl_transitions`` rows from ``player_hands`` files.

    ``hand_files`` (the warehouse's ``hands``) list every hand once; without them the
    hands are gathered from ``player_hands``. ``tables``: a relation of ``site`` and
    ``table``; only those tables' hands are followed (each table's chain is its own;
    how a room numbers its hands is told from all of them).
    """
    only = "" if tables is None else f' SEMI JOIN {tables} USING (site, "table")'
    every_player_hand = f"(SELECT * FROM read_parquet({_file_list(files)}))"
    player_hands = f"(SELECT * FROM read_parquet({_file_list(files)}){only})"
    if hand_files:
        all_hands = f"(SELECT * FROM read_parquet({_file_list(hand_files)}))"
        hands: str | None = f"(SELECT * FROM read_parquet({_file_list(hand_files)}){only})"
    else:
        all_hands = f"(SELECT DISTINCT site, \"table\", hand_id FROM {every_player_hand})"
        hands = None
    return transitions_sql(player_hands, hands, break_minutes, all_hands)


def transitions_sql(player_hands: str, hands: str | None = None,
                    break_minutes: int = DEFAULT_BREAK_MINUTES,
                    all_hands: str | None = None) -> str:
    """The SQL that derives ``fl_transitions`` rows from a ``player_hands`` relation
    (a table name or a parenthesised query), and the hands from ``hands`` (one row per
    hand) or, without it, gathered from ``player_hands``. ``all_hands`` (``site``,
    ``table``, ``hand_id``; by default the hands followed) tells how each room numbers
    its hands, for tables too short to tell by themselves."""
    if hands is not None:
        source = "the warehouse's hands"
    else:
        hands = ("(SELECT site, \"table\", hand_id, min(started_at) AS started_at "
                 f"FROM {player_hands} GROUP BY ALL)")
        source = "gathered from player_hands"
    return TRANSITIONS_SQL.format(player_hands=player_hands, break_minutes=int(break_minutes),
                                  hands=hands, hands_source=source,
                                  all_hands=hands if all_hands is None else all_hands,
                                  own_numbering_steps=OWN_NUMBERING_STEPS,
                                  step_cap=NUMBERING_STEP_CAP)


def _file_list(files: list[str]) -> str:
    return "[" + ", ".join("'" + f.replace("'", "''") + "'" for f in files) + "]"


def transitions_of(warehouse: Warehouse, scoring: str = DEFAULT_SCORING,
                   break_minutes: int = DEFAULT_BREAK_MINUTES) -> pl.LazyFrame:
    """The ``fl_transitions`` rows of a scoring: the stored table for the default, and
    for a what-if (whose Fantasyland follows its own rules) derived now, not stored."""
    if scoring == DEFAULT_SCORING:
        return warehouse.scan("fl_transitions")
    files = [str(path) for path in warehouse.files("player_hands", scoring)]
    if not files:
        return pl.LazyFrame()
    hand_files = [str(path) for path in warehouse.files("hands")]
    with tempfile.TemporaryDirectory(prefix=".duckdb-") as spill:
        connection = open_duckdb(memory_limit=DUCKDB_MEMORY_LIMIT, temp_directory=spill,
                                 threads=available_cores())
        try:
            frame: pl.DataFrame = connection.sql(
                transitions_query(files, break_minutes, hand_files)).pl()
        finally:
            connection.close()
    # One chunk: polars 2.1 panics formatting strings across the chunks DuckDB hands over.
    return frame.rechunk().lazy()


def refresh_transitions(warehouse: Warehouse, break_minutes: int = DEFAULT_BREAK_MINUTES,
                        tables: pl.DataFrame | None = None) -> tuple[int, int]:
    """Recompute ``fl_transitions`` from the default scoring and swap it in.

    With ``tables`` (``site``, ``table``: where new hands were scored), only those
    tables are followed again; the other tables' rows are kept as they were.

    Call with the warehouse's write lock held. Returns (rows, errors).
    """
    files = [str(path) for path in warehouse.files("player_hands", DEFAULT_SCORING)]
    hand_files = [str(path) for path in warehouse.files("hands")]
    previous = [f.path for f in warehouse.state().table_files("fl_transitions")]
    if not files:
        warehouse.commit([], removes=previous, action="fl_transitions")
        return 0, 0
    target = warehouse.new_path("fl_transitions")
    temporary = target.with_name(f".tmp-{target.name}")
    with tempfile.TemporaryDirectory(prefix=".duckdb-", dir=warehouse.root) as spill:
        connection = open_duckdb(memory_limit=DUCKDB_MEMORY_LIMIT, temp_directory=spill,
                                 threads=available_cores(),
                                 preserve_insertion_order=False)
        try:
            if tables is None or not previous:
                query = transitions_query(files, break_minutes, hand_files)
            else:
                connection.register("touched", tables.select("site", "table").unique())
                kept = [str(warehouse.root / path) for path in previous]
                query = (f"({transitions_query(files, break_minutes, hand_files, 'touched')})"
                         f" UNION ALL BY NAME (SELECT * FROM read_parquet({_file_list(kept)})"
                         ' ANTI JOIN touched USING (site, "table"))')
            connection.execute(
                f"COPY ({query}) TO "
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
