-- Foul rate per player with a 95% Wilson interval, split by whether the hand was played in Fantasyland.
-- param: player VARCHAR
-- param: variant VARCHAR
-- param: since TIMESTAMPTZ
-- param: min_hands INTEGER 1
WITH counts AS (
    SELECT player,
           count(*) AS hands,
           sum(fouled::INTEGER) AS fouls,
           count(*) FILTER (WHERE in_fantasyland) AS fl_hands,
           count(*) FILTER (WHERE in_fantasyland AND fouled) AS fl_fouls
    FROM player_hands
    WHERE ($player IS NULL OR player = $player)
      AND ($variant IS NULL OR variant = $variant)
      AND ($since IS NULL OR started_at >= $since)
    GROUP BY player
    HAVING count(*) >= coalesce($min_hands, 1)
)
SELECT player, hands, fouls,
       round(100.0 * fouls / hands, 2) AS foul_pct,
       -- Wilson score interval, z = 1.96
       round(100.0 * (fouls / hands + 1.9208 / hands
              - 1.96 * sqrt(fouls / hands * (1 - fouls / hands) / hands + 0.9604 / hands ^ 2))
             / (1 + 3.8416 / hands), 2) AS foul_pct_ci95_low,
       round(100.0 * (fouls / hands + 1.9208 / hands
              + 1.96 * sqrt(fouls / hands * (1 - fouls / hands) / hands + 0.9604 / hands ^ 2))
             / (1 + 3.8416 / hands), 2) AS foul_pct_ci95_high,
       fl_hands, fl_fouls,
       round(100.0 * fl_fouls / nullif(fl_hands, 0), 2) AS fl_foul_pct
FROM counts
ORDER BY foul_pct, player;
