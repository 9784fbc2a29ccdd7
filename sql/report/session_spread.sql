-- session_spread: the spread of session results of each shown player ($shown: a list of
-- names): sessions, hands, mean, and the 5th, 25th, 50th, 75th and 95th percentiles of
-- points per session (a box plot's whiskers, box and median), in the order of $shown.
-- Sessions as in the sessions view (player_sessions numbers them), over the hands in scope.
WITH per_session AS (
    SELECT player, site, "table", session_number, count(*) AS hands, sum(points) AS points
    FROM player_sessions
    WHERE ($table IS NULL OR "table" = $table)
      AND ($variant IS NULL OR variant = $variant)
      AND ($since IS NULL OR started_at >= $since)
      AND list_contains($shown, player)
    GROUP BY player, site, "table", session_number
)
SELECT player,
       count(*) AS sessions,
       sum(hands) AS hands,
       avg(points) AS mean,
       quantile_cont(points, 0.05) AS p05,
       quantile_cont(points, 0.25) AS p25,
       quantile_cont(points, 0.50) AS p50,
       quantile_cont(points, 0.75) AS p75,
       quantile_cont(points, 0.95) AS p95
FROM per_session
GROUP BY player
ORDER BY list_position($shown, player);
