-- fantasyland: Fantasyland over time. The scope's hands (or $player's) are cut into equal
-- stretches of time, as many as give about 20 Fantasyland hands each (4 to $buckets); per
-- stretch: the hands played outside Fantasyland and the entries among them, and the
-- Fantasyland hands and the stays among them.
WITH scoped AS (
    SELECT started_at, in_fantasyland, fl_entry, fl_stay
    FROM player_hands
    WHERE ($table IS NULL OR "table" = $table)
      AND ($variant IS NULL OR variant = $variant)
      AND ($since IS NULL OR started_at >= $since)
      AND ($player IS NULL OR player = $player)
),
span AS (
    SELECT min(started_at) AS first_hand,
           greatest(epoch_us(max(started_at)) - epoch_us(min(started_at)), 1) AS micros,
           least($buckets, greatest(4, count(*) FILTER (WHERE in_fantasyland) // 20))
               AS buckets
    FROM scoped
)
SELECT least((epoch_us(s.started_at) - epoch_us(span.first_hand)) * span.buckets
             // span.micros, span.buckets - 1) AS bucket,
       min(s.started_at) AS first_hand,
       max(s.started_at) AS last_hand,
       count(*) AS hands,
       count(*) FILTER (WHERE NOT s.in_fantasyland) AS non_fl_hands,
       sum(s.fl_entry::INTEGER) AS fl_entries,
       count(*) FILTER (WHERE s.in_fantasyland) AS fl_hands,
       sum(s.fl_stay::INTEGER) AS fl_stays
FROM scoped s, span
GROUP BY bucket
ORDER BY bucket;
