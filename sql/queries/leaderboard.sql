-- Leaderboard: players ranked by total points, with hands played and points per hand.
-- param: variant VARCHAR
-- param: since TIMESTAMPTZ
-- param: min_hands INTEGER 1
-- param: limit INTEGER 20
SELECT rank() OVER (ORDER BY sum(points) DESC) AS rank,
       player,
       count(*) AS hands,
       sum(points) AS points,
       round(avg(points), 3) AS points_per_hand,
       round(100.0 * avg(fouled::INTEGER), 2) AS foul_pct,
       count(DISTINCT "table") AS tables
FROM player_hands
WHERE ($variant IS NULL OR variant = $variant)
  AND ($since IS NULL OR started_at >= $since)
GROUP BY player
HAVING count(*) >= coalesce($min_hands, 1)
ORDER BY rank, player
LIMIT coalesce($limit, 20);
