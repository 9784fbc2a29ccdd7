-- known_names: the stored players and tables closest to an unknown $player or $table
-- (Jaro-Winkler similarity, case-insensitive), best first, three of each.
WITH players AS (
    SELECT DISTINCT 'player' AS kind, player AS name FROM player_hands WHERE $player IS NOT NULL
),
tables AS (
    SELECT DISTINCT 'table' AS kind, "table" AS name FROM player_hands WHERE $table IS NOT NULL
),
scored AS (
    SELECT kind, name, jaro_winkler_similarity(lower(name), lower($player)) AS similarity
    FROM players
    UNION ALL
    SELECT kind, name, jaro_winkler_similarity(lower(name), lower($table)) FROM tables
)
SELECT kind, name, similarity
FROM scored
WHERE similarity >= 0.7
QUALIFY row_number() OVER (PARTITION BY kind ORDER BY similarity DESC, name) <= 3
ORDER BY kind, similarity DESC, name;
