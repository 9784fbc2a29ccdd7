-- Win rate per player: points per hand with a 95% confidence interval, and money won (over the hands with a point value, in one currency; empty when a player's hands mix currencies).
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
       count(h.point_value) AS money_hands,
       CASE WHEN count(DISTINCT h.currency) <= 1
            THEN sum(ph.points * h.point_value) END AS money,
       CASE WHEN count(DISTINCT h.currency) <= 1 THEN min(h.currency)
            ELSE 'mixed: ' || string_agg(DISTINCT h.currency, ', ' ORDER BY h.currency)
       END AS currency
FROM player_hands ph
LEFT JOIN hands h USING (site, hand_id)
WHERE ($player IS NULL OR ph.player = $player)
  AND ($variant IS NULL OR ph.variant = $variant)
  AND ($since IS NULL OR ph.started_at >= $since)
GROUP BY ph.player
HAVING count(*) >= coalesce($min_hands, 1)
ORDER BY points_per_hand DESC, ph.player;
