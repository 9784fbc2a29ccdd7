-- Head to head: for every pair of players who met, hands together and the points one won from the other.
-- param: player VARCHAR
-- param: since TIMESTAMPTZ
-- param: min_hands INTEGER 1
SELECT player, opponent,
       count(*) AS hands,
       sum(points) AS points,
       round(avg(points), 3) AS points_per_hand,
       sum(rows_won) AS rows_won,
       sum(rows_lost) AS rows_lost,
       sum(scoop::INTEGER) AS scoops,
       sum(scooped::INTEGER) AS scooped
FROM matchups
WHERE ($player IS NULL OR player = $player)
  AND ($since IS NULL OR started_at >= $since)
GROUP BY player, opponent
HAVING count(*) >= coalesce($min_hands, 1)
ORDER BY player, opponent;
