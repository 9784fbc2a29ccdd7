-- head_to_head: pairs of players who met in scope, seen from player against opponent:
-- hands together, points won from the opponent, and net rows (won minus lost) per row.
-- Without $player, every pair among the shown players ($shown: a list of names); with
-- $player, $player against the $players_shown opponents met most.
WITH pairs AS (
    SELECT player, opponent,
           count(*) AS hands,
           sum(points) AS points,
           avg(points) AS points_per_hand,
           sum(top_result) AS top_net,
           sum(middle_result) AS middle_net,
           sum(bottom_result) AS bottom_net
    FROM matchups
    WHERE ($table IS NULL OR "table" = $table)
      AND ($variant IS NULL OR variant = $variant)
      AND ($since IS NULL OR started_at >= $since)
      AND CASE WHEN $player IS NULL
               THEN list_contains($shown, player) AND list_contains($shown, opponent)
               ELSE player = $player END
    GROUP BY player, opponent
)
SELECT *
FROM pairs
QUALIFY $player IS NULL OR row_number() OVER (ORDER BY hands DESC, opponent) <= $players_shown
ORDER BY list_position($shown, player), hands DESC, opponent;
