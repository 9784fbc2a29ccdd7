-- Royalties per player and row: royalties per hand and the share of hands that earned any, per row.
-- param: player VARCHAR
-- param: variant VARCHAR
-- param: since TIMESTAMPTZ
-- param: min_hands INTEGER 1
SELECT player,
       count(*) AS hands,
       round(avg(royalties_top), 3) AS top_per_hand,
       round(avg(royalties_middle), 3) AS middle_per_hand,
       round(avg(royalties_bottom), 3) AS bottom_per_hand,
       round(avg(royalties), 3) AS total_per_hand,
       round(100.0 * avg((royalties_top > 0)::INTEGER), 2) AS top_pct,
       round(100.0 * avg((royalties_middle > 0)::INTEGER), 2) AS middle_pct,
       round(100.0 * avg((royalties_bottom > 0)::INTEGER), 2) AS bottom_pct
FROM player_hands
WHERE ($player IS NULL OR player = $player)
  AND ($variant IS NULL OR variant = $variant)
  AND ($since IS NULL OR started_at >= $since)
GROUP BY player
HAVING count(*) >= coalesce($min_hands, 1)
ORDER BY total_per_hand DESC, player;
