-- row_results: row by row against each opponent, for each shown player ($shown: a list of
-- names): matchups, and rows won, tied and lost per row, in the order of $shown.
SELECT player,
       count(*) AS matchups,
       count(*) FILTER (WHERE top_result = 1) AS top_won,
       count(*) FILTER (WHERE top_result = 0) AS top_tied,
       count(*) FILTER (WHERE top_result = -1) AS top_lost,
       count(*) FILTER (WHERE middle_result = 1) AS middle_won,
       count(*) FILTER (WHERE middle_result = 0) AS middle_tied,
       count(*) FILTER (WHERE middle_result = -1) AS middle_lost,
       count(*) FILTER (WHERE bottom_result = 1) AS bottom_won,
       count(*) FILTER (WHERE bottom_result = 0) AS bottom_tied,
       count(*) FILTER (WHERE bottom_result = -1) AS bottom_lost
FROM matchups
WHERE ($table IS NULL OR "table" = $table)
  AND ($variant IS NULL OR variant = $variant)
  AND ($since IS NULL OR started_at >= $since)
  AND list_contains($shown, player)
GROUP BY player
ORDER BY list_position($shown, player);
