-- Results per session (a player's run of hands at one table, see the sessions view).
-- param: player VARCHAR
-- param: since TIMESTAMPTZ
-- param: min_hands INTEGER 1
SELECT player, site, "table", started_at, ended_at,
       round(date_diff('second', started_at, ended_at) / 60.0, 1) AS minutes,
       hands, points, points_per_hand, royalties, fouls, fantasyland_hands, money, currency
FROM sessions
WHERE ($player IS NULL OR player = $player)
  AND ($since IS NULL OR started_at >= $since)
  AND hands >= coalesce($min_hands, 1)
ORDER BY started_at, player, "table";
