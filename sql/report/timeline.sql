-- timeline: each shown player's hands ($shown: a list of names) in time order, sampled
-- at no more than $points points per player: the cumulative points, split into royalties
-- (net: the royalty points exchanged with the opponents) and everything else (rows,
-- scoops, foul penalties); the rolling foul rate over the last window_hands hands; and the
-- Fantasyland hands since the previous sample.
WITH scoped AS (
    SELECT site, hand_id, player, started_at, points, fouled, in_fantasyland, royalties,
           opponents
    FROM player_hands
    WHERE ($table IS NULL OR "table" = $table)
      AND ($variant IS NULL OR variant = $variant)
      AND ($since IS NULL OR started_at >= $since)
      AND list_contains($shown, player)
),
hand_royalties AS (
    -- A board's royalty exchange is the sum of its matchups' royalty_diff: its royalties
    -- from each opponent minus each opponent's, that is (opponents + 1) * royalties minus
    -- the royalties of every board in the hand (0 on a fouled board). Summing per hand
    -- here is much cheaper than joining the matchups.
    SELECT site, hand_id, sum(royalties) AS hand_royalties
    FROM player_hands
    WHERE ($table IS NULL OR "table" = $table)
      AND ($variant IS NULL OR variant = $variant)
      AND ($since IS NULL OR started_at >= $since)
    GROUP BY site, hand_id
),
per_player AS (
    -- the rolling window: a twentieth of the player's hands, between 20 and 500
    SELECT player, count(*) AS hands,
           least(count(*), greatest(20, least(500, count(*) // 20))) AS window_hands
    FROM scoped
    GROUP BY player
),
numbered AS (
    SELECT s.player, s.started_at, s.points, s.in_fantasyland, p.hands, p.window_hands,
           row_number() OVER hand_order AS hand_number,
           sum(s.points) OVER (hand_order ROWS UNBOUNDED PRECEDING) AS cumulative_points,
           sum((s.opponents + 1) * s.royalties - h.hand_royalties)
               OVER (hand_order ROWS UNBOUNDED PRECEDING) AS cumulative_royalties,
           sum(s.fouled::INTEGER) OVER (hand_order ROWS BETWEEN p.window_hands - 1 PRECEDING
                                                      AND CURRENT ROW) AS recent_fouls
    FROM scoped s
    JOIN per_player p USING (player)
    JOIN hand_royalties h USING (site, hand_id)
    WINDOW hand_order AS (PARTITION BY s.player ORDER BY s.started_at, s.site, s.hand_id)
)
SELECT player,
       (hand_number - 1) * $points // hands AS sample,
       max(hand_number) AS hand_number,
       max(started_at) AS started_at,
       arg_max(cumulative_points, hand_number) AS cumulative_points,
       arg_max(cumulative_royalties, hand_number) AS cumulative_royalties,
       arg_max(cumulative_points - cumulative_royalties, hand_number) AS cumulative_rows,
       arg_max(100.0 * recent_fouls / least(hand_number, window_hands), hand_number)
           AS foul_pct,
       any_value(window_hands) AS window_hands,
       count(*) AS sample_hands,
       count(*) FILTER (WHERE in_fantasyland) AS fl_hands,
       coalesce(sum(points) FILTER (WHERE in_fantasyland), 0) AS fl_points
FROM numbered
GROUP BY player, sample
ORDER BY list_position($shown, player), hand_number;
