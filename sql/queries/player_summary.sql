-- Per-player summary: hands, points, points/hand with a 95% CI, foul, Fantasyland and scoop rates, royalties/hand.
-- param: player VARCHAR
-- param: variant VARCHAR
-- param: since TIMESTAMPTZ
-- param: min_hands INTEGER 1
SELECT player,
       count(*) AS hands,
       sum(points) AS points,
       round(avg(points), 3) AS points_per_hand,
       round(avg(points) - 1.96 * coalesce(stddev_samp(points), 0) / sqrt(count(*)), 3)
           AS ci95_low,
       round(avg(points) + 1.96 * coalesce(stddev_samp(points), 0) / sqrt(count(*)), 3)
           AS ci95_high,
       round(100.0 * avg(fouled::INTEGER), 2) AS foul_pct,
       count(*) FILTER (WHERE NOT in_fantasyland) AS non_fl_hands,
       round(100.0 * sum(fl_entry::INTEGER)
             / nullif(count(*) FILTER (WHERE NOT in_fantasyland), 0), 2) AS fl_entry_pct,
       count(*) FILTER (WHERE in_fantasyland) AS fl_hands,
       round(100.0 * sum(fl_stay::INTEGER)
             / nullif(count(*) FILTER (WHERE in_fantasyland), 0), 2) AS fl_stay_pct,
       sum(opponents) AS matchups,
       round(100.0 * sum(scoops) / nullif(sum(opponents), 0), 2) AS scoop_pct,
       round(100.0 * sum(scooped) / nullif(sum(opponents), 0), 2) AS scooped_pct,
       round(avg(royalties), 3) AS royalties_per_hand
FROM player_hands
WHERE ($player IS NULL OR player = $player)
  AND ($variant IS NULL OR variant = $variant)
  AND ($since IS NULL OR started_at >= $since)
GROUP BY player
HAVING count(*) >= coalesce($min_hands, 1)
ORDER BY points DESC, player;
