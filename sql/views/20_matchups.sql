-- matchups: one row per player per opponent per hand, seen from each side (the stored
-- table holds each pair once; this view mirrors it), under the scoring player_hands
-- shows (the default, or SET VARIABLE scoring = '...').
CREATE OR REPLACE VIEW matchups AS
WITH chosen AS (
    SELECT * FROM scored_matchups WHERE scoring = coalesce(getvariable('scoring'), 'default')
)
SELECT site, hand_id, variant, "table", started_at, player, opponent, seat, opponent_seat,
       rows_won, rows_lost, rows_tied, scoop, scooped, royalty_diff, points,
       top_result, middle_result, bottom_result
FROM chosen
UNION ALL
SELECT site, hand_id, variant, "table", started_at, opponent, player, opponent_seat, seat,
       rows_lost, rows_won, rows_tied, scooped, scoop, -royalty_diff, -points,
       -top_result, -middle_result, -bottom_result
FROM chosen;
