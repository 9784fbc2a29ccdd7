-- fl_review: the Fantasyland review of the scope's hands (of $player, or of every
-- player), one row: the Fantasyland hands played and those reviewed ('ofc-stats
-- review'), how many were set optimally, the value lost per hand (mean and standard
-- deviation), stays made, possible and missed, royalties left, points lost per hand,
-- and the hands whose dealt cards are not all known.
SELECT (SELECT count(*) FROM player_hands
        WHERE in_fantasyland
          AND ($table IS NULL OR "table" = $table)
          AND ($since IS NULL OR started_at >= $since)
          AND ($player IS NULL OR player = $player)) AS fl_played,
       count(*) AS fl_hands,
       count(*) FILTER (WHERE optimal) AS optimal,
       avg(value_lost) AS value_lost_per_hand,
       stddev_samp(value_lost) AS value_lost_sd,
       count(*) FILTER (WHERE played_stays) AS stays,
       count(*) FILTER (WHERE best_stays) AS stays_possible,
       count(*) FILTER (WHERE stay_missed) AS stays_missed,
       coalesce(sum(royalties_left), 0) AS royalties_left,
       avg(royalties_left) AS royalties_left_per_hand,
       avg(points_lost) AS points_lost_per_hand,
       count(*) FILTER (WHERE cards_known <> 'dealt') AS cards_unknown
FROM fl_review
WHERE ($table IS NULL OR "table" = $table)
  AND ($since IS NULL OR started_at >= $since)
  AND ($player IS NULL OR player = $player);
