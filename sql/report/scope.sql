-- scope: one row saying what the report covers: whether any hand is scored, whether the
-- player, table and variant exist, and the hands, players, tables, sites and dates in scope.
SELECT (SELECT count(*) FROM player_hands) AS scored_player_hands,
       $player IS NULL OR EXISTS (SELECT 1 FROM player_hands WHERE player = $player)
           AS player_known,
       $table IS NULL OR EXISTS (SELECT 1 FROM player_hands WHERE "table" = $table)
           AS table_known,
       $variant IS NULL OR EXISTS (SELECT 1 FROM player_hands WHERE variant = $variant)
           AS variant_known,
       count(DISTINCT (site, hand_id)) AS hands,
       count(*) AS player_hands,
       count(DISTINCT player) AS players,
       count(DISTINCT "table") AS tables,
       count(DISTINCT site) AS sites,
       min(started_at) AS first_hand,
       max(started_at) AS last_hand,
       string_agg(DISTINCT variant, ', ' ORDER BY variant) AS variants
FROM player_hands
WHERE ($table IS NULL OR "table" = $table)
  AND ($variant IS NULL OR variant = $variant)
  AND ($since IS NULL OR started_at >= $since)
  AND ($player IS NULL OR player = $player);
