-- Fantasyland review per player: hands reviewed, share set optimally, value lost per Fantasyland hand with a 95% CI, stays missed, royalties left (run 'ofc-stats review' first).
-- param: player VARCHAR
-- param: variant VARCHAR
-- param: since TIMESTAMPTZ
-- param: scoring VARCHAR
-- param: min_hands INTEGER 1
SELECT player,
       count(*) AS fl_hands,
       count(*) FILTER (WHERE optimal) AS optimal,
       round(100.0 * avg(optimal::INTEGER), 2) AS optimal_pct,
       round(avg(value_lost), 3) AS value_lost_per_hand,
       round(avg(value_lost) - 1.96 * coalesce(stddev_samp(value_lost), 0) / sqrt(count(*)), 3)
           AS ci95_low,
       round(avg(value_lost) + 1.96 * coalesce(stddev_samp(value_lost), 0) / sqrt(count(*)), 3)
           AS ci95_high,
       round(sum(value_lost), 2) AS value_lost,
       count(*) FILTER (WHERE played_stays) AS stays,
       count(*) FILTER (WHERE best_stays) AS stays_possible,
       count(*) FILTER (WHERE stay_missed) AS stays_missed,
       sum(royalties_left) AS royalties_left,
       round(avg(royalties_left), 3) AS royalties_left_per_hand,
       round(avg(points_lost), 3) AS points_lost_per_hand,
       count(*) FILTER (WHERE played_fouled) AS fouls,
       count(*) FILTER (WHERE cards_known <> 'dealt') AS cards_unknown
FROM scored_fl_review
WHERE scoring = coalesce($scoring, getvariable('scoring'), 'default')
  AND ($player IS NULL OR player = $player)
  AND ($variant IS NULL OR variant = $variant)
  AND ($since IS NULL OR started_at >= $since)
GROUP BY player
HAVING count(*) >= coalesce($min_hands, 1)
ORDER BY value_lost_per_hand DESC, player;
