-- Win rate per player: points per hand with a 95% confidence interval, and money won.
-- param: player VARCHAR
-- param: variant VARCHAR
-- param: since TIMESTAMPTZ
-- param: min_hands INTEGER 1
SELECT ph.player,
       count(*) AS hands,
       sum(ph.points) AS points,
       round(avg(ph.points), 3) AS points_per_hand,
       round(coalesce(stddev_samp(ph.points), 0), 3) AS points_stddev,
       round(avg(ph.points) - 1.96 * coalesce(stddev_samp(ph.points), 0) / sqrt(count(*)), 3)
           AS ci95_low,
       round(avg(ph.points) + 1.96 * coalesce(stddev_samp(ph.points), 0) / sqrt(count(*)), 3)
           AS ci95_high,
       sum(ph.points * h.point_value) AS money
FROM player_hands ph
LEFT JOIN hands h USING (site, hand_id)
WHERE ($player IS NULL OR ph.player = $player)
  AND ($variant IS NULL OR ph.variant = $variant)
  AND ($since IS NULL OR ph.started_at >= $since)
GROUP BY ph.player
HAVING count(*) >= coalesce($min_hands, 1)
ORDER BY points_per_hand DESC, ph.player;
