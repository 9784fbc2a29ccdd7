-- Fantasyland per player: entry frequency, stay rate, FL hands per 100, points in Fantasyland and out.
-- param: player VARCHAR
-- param: variant VARCHAR
-- param: since TIMESTAMPTZ
-- param: min_hands INTEGER 1
SELECT player,
       count(*) AS hands,
       count(*) FILTER (WHERE NOT in_fantasyland) AS non_fl_hands,
       sum(fl_entry::INTEGER) AS entries,
       round(100.0 * sum(fl_entry::INTEGER)
             / nullif(count(*) FILTER (WHERE NOT in_fantasyland), 0), 2) AS entry_pct,
       count(*) FILTER (WHERE in_fantasyland) AS fl_hands,
       sum(fl_stay::INTEGER) AS stays,
       round(100.0 * sum(fl_stay::INTEGER)
             / nullif(count(*) FILTER (WHERE in_fantasyland), 0), 2) AS stay_pct,
       round(100.0 * count(*) FILTER (WHERE in_fantasyland) / count(*), 2) AS fl_hands_per_100,
       round(avg(points) FILTER (WHERE in_fantasyland), 3) AS points_per_fl_hand,
       round(avg(points) FILTER (WHERE NOT in_fantasyland), 3) AS points_per_other_hand
FROM player_hands
WHERE ($player IS NULL OR player = $player)
  AND ($variant IS NULL OR variant = $variant)
  AND ($since IS NULL OR started_at >= $since)
GROUP BY player
HAVING count(*) >= coalesce($min_hands, 1)
ORDER BY entry_pct DESC NULLS LAST, player;
