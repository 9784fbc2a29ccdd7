-- royalties: royalties by row of each shown player ($shown: a list of names): royalties
-- per hand and the share of hands that earned any, per row, in the order of $shown.
SELECT player,
       count(*) AS hands,
       avg(royalties_top) AS top_per_hand,
       avg(royalties_middle) AS middle_per_hand,
       avg(royalties_bottom) AS bottom_per_hand,
       avg(royalties) AS total_per_hand,
       100.0 * avg((royalties_top > 0)::INTEGER) AS top_pct,
       100.0 * avg((royalties_middle > 0)::INTEGER) AS middle_pct,
       100.0 * avg((royalties_bottom > 0)::INTEGER) AS bottom_pct
FROM player_hands
WHERE ($table IS NULL OR "table" = $table)
  AND ($variant IS NULL OR variant = $variant)
  AND ($since IS NULL OR started_at >= $since)
  AND list_contains($shown, player)
GROUP BY player
ORDER BY list_position($shown, player);
