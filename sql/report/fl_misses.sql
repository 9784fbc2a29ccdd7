-- fl_misses: the $count Fantasyland hands in scope (of $player, or of any player) where
-- the most value was lost, each with the board played and the best setting.
SELECT hand_id, "table", started_at, variant, player, cards_known, known_cards,
       played_top, played_middle, played_bottom, played_discards, played_fouled,
       played_royalties, played_stays, played_value, played_points,
       best_top, best_middle, best_bottom, best_discards, best_royalties, best_stays,
       best_value, best_points, value_lost, stay_missed
FROM fl_review
WHERE value_lost > 0
  AND ($table IS NULL OR "table" = $table)
  AND ($since IS NULL OR started_at >= $since)
  AND ($player IS NULL OR player = $player)
ORDER BY value_lost DESC, started_at DESC, hand_id, player
LIMIT $count;
