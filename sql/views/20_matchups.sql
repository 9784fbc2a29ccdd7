-- matchups: the default scoring, one row per player per opponent per hand, seen from
-- each side (the stored table holds each pair once; this view mirrors it).
CREATE OR REPLACE VIEW matchups AS
SELECT site, hand_id, variant, "table", started_at, player, opponent, seat, opponent_seat,
       rows_won, rows_lost, rows_tied, scoop, scooped, royalty_diff, points,
       top_result, middle_result, bottom_result
FROM scored_matchups WHERE scoring = 'default'
UNION ALL
SELECT site, hand_id, variant, "table", started_at, opponent, player, opponent_seat, seat,
       rows_lost, rows_won, rows_tied, scooped, scoop, -royalty_diff, -points,
       -top_result, -middle_result, -bottom_result
FROM scored_matchups WHERE scoring = 'default';
