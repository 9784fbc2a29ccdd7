-- Head-to-head matrix: one row per player, one column per opponent, the net points the row's player won from the column's player over every scored hand (empty where they never met; head_to_head has the same pairs as rows, with filters).
SELECT *
FROM (PIVOT (SELECT player, opponent, points FROM matchups)
      ON opponent USING sum(points) GROUP BY player)
ORDER BY player;
