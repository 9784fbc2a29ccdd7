-- categories: how often each hand category was made in each row, over the scope's boards
-- (or $player's); flagged boards (no category) are left out.
WITH scoped AS (
    SELECT top_category, middle_category, bottom_category
    FROM player_hands
    WHERE ($table IS NULL OR "table" = $table)
      AND ($variant IS NULL OR variant = $variant)
      AND ($since IS NULL OR started_at >= $since)
      AND ($player IS NULL OR player = $player)
      AND problem IS NULL
),
counted AS (
    SELECT 'top' AS "row", top_category::VARCHAR AS category, count(*) AS boards
    FROM scoped GROUP BY ALL
    UNION ALL
    SELECT 'middle', middle_category::VARCHAR, count(*) FROM scoped GROUP BY ALL
    UNION ALL
    SELECT 'bottom', bottom_category::VARCHAR, count(*) FROM scoped GROUP BY ALL
)
SELECT "row", category, boards,
       100.0 * boards / sum(boards) OVER (PARTITION BY "row") AS pct
FROM counted
WHERE category IS NOT NULL
ORDER BY "row", category;
