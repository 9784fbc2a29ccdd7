-- headline: one row per player in scope (the $players_listed players with the most hands,
-- or just $player), with the counts and moments the headline figures and their confidence
-- intervals are computed from; total_players counts every player in scope.
WITH scoped AS (
    SELECT * FROM player_hands
    WHERE ($table IS NULL OR "table" = $table)
      AND ($variant IS NULL OR variant = $variant)
      AND ($since IS NULL OR started_at >= $since)
      AND ($player IS NULL OR player = $player)
),
per_player AS (
    SELECT player,
           count(*) AS hands,
           sum(points) AS points,
           avg(points) AS points_per_hand,
           coalesce(stddev_samp(points), 0) AS points_sd,
           sum(fouled::INTEGER) AS fouls,
           count(*) FILTER (WHERE NOT in_fantasyland) AS non_fl_hands,
           sum(fl_entry::INTEGER) AS fl_entries,
           count(*) FILTER (WHERE in_fantasyland) AS fl_hands,
           sum(fl_stay::INTEGER) AS fl_stays,
           sum(opponents) AS matchups,
           sum(scoops) AS scoops,
           sum(scooped) AS scooped,
           avg(royalties) AS royalties_per_hand,
           coalesce(stddev_samp(royalties), 0) AS royalties_sd,
           count(DISTINCT "table") AS tables,
           min(started_at) AS first_hand,
           max(started_at) AS last_hand
    FROM scoped
    GROUP BY player
)
SELECT *, count(*) OVER () AS total_players
FROM per_player
QUALIFY row_number() OVER (ORDER BY hands DESC, player) <= $players_listed
ORDER BY points DESC, player;
