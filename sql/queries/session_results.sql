-- Results per session (a player's run of hands at one table, see the sessions view).
-- param: player VARCHAR
-- param: since TIMESTAMPTZ
-- param: min_hands INTEGER 1
SELECT player, site, "table", started_at, ended_at,
       -- to the tenth, half up, in integers: seconds / 60.0 lands on halves, which
       -- floating-point rounding takes either way (DuckDB versions differ)
       ((date_diff('second', started_at, ended_at) * 10 + 30) // 60) / 10 AS minutes,
       hands, points, points_per_hand, royalties, fouls, fantasyland_hands, money, currency
FROM sessions
WHERE ($player IS NULL OR player = $player)
  AND ($since IS NULL OR started_at >= $since)
  AND hands >= coalesce($min_hands, 1)
ORDER BY started_at, player, "table";
