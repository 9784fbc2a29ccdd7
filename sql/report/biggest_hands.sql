-- biggest_hands: the $count biggest wins and $count biggest losses in scope (of $player,
-- or of any player), with every seat's board and result in those hands, one row per seat.
-- Each hand is listed once: by its biggest winner among the wins, and among the losses
-- (by its biggest loser) only if it is not already a win, so the losses are other deals.
WITH scoped AS (
    SELECT site, hand_id, player, points, started_at
    FROM player_hands
    WHERE ($table IS NULL OR "table" = $table)
      AND ($since IS NULL OR started_at >= $since)
      AND ($player IS NULL OR player = $player)
),
per_hand AS (
    SELECT site, hand_id, any_value(started_at) AS started_at,
           first(player ORDER BY points DESC, player) AS winner, max(points) AS won,
           first(player ORDER BY points ASC, player) AS loser, min(points) AS lost
    FROM scoped
    GROUP BY site, hand_id
),
wins AS (
    SELECT 'win' AS kind, site, hand_id, winner AS player, won AS points, started_at
    FROM per_hand WHERE won > 0
    ORDER BY won DESC, started_at DESC, hand_id LIMIT $count
),
losses AS (
    SELECT 'loss' AS kind, site, hand_id, loser AS player, lost AS points, started_at
    FROM per_hand ANTI JOIN wins USING (site, hand_id)
    WHERE lost < 0
    ORDER BY lost ASC, started_at DESC, hand_id LIMIT $count
),
picked AS (
    SELECT kind, site, hand_id, player AS subject, points AS subject_points,
           row_number() OVER (PARTITION BY kind ORDER BY abs(points) DESC, started_at DESC,
                              hand_id, player) AS place
    FROM (SELECT * FROM wins UNION ALL SELECT * FROM losses)
)
SELECT p.kind, p.place, p.subject, p.subject_points, ph.site, ph.hand_id, ph."table",
       ph.started_at, ph.variant, ph.seat, ph.player, s.top, s.middle, s.bottom,
       ph.points, ph.royalties, ph.fouled, ph.in_fantasyland, ph.fl_next,
       ph.top_category, ph.middle_category, ph.bottom_category, ph.problem
FROM picked p
JOIN player_hands ph USING (site, hand_id)
JOIN seats s USING (site, hand_id, seat)
ORDER BY p.kind DESC, p.place, ph.seat;
