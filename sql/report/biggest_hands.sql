-- biggest_hands: the $count biggest wins and $count biggest losses in scope (of $player,
-- or of any player), with every seat's board and result in those hands, one row per seat.
-- Each hand is listed once: by its biggest winner among the wins, and among the losses
-- (by its biggest loser) only if it is not already a win, so the losses are other deals.
WITH scoped AS (
    SELECT site, hand_id, player, points, started_at
    FROM player_hands
    WHERE ($table IS NULL OR "table" = $table)
      AND ($variant IS NULL OR variant = $variant)
      AND ($since IS NULL OR started_at >= $since)
      AND ($player IS NULL OR player = $player)
),
win_rows AS (
    -- a hand has 2 to 4 boards, so its biggest winner, if among the $count biggest
    -- wins of distinct hands, is among the 4 * $count biggest rows (a top-k, not a sort)
    SELECT * FROM scoped WHERE points > 0
    ORDER BY points DESC, started_at DESC, hand_id, player LIMIT 4 * $count
),
wins AS (
    SELECT 'win' AS kind, site, hand_id, player, points, started_at
    FROM win_rows
    QUALIFY row_number() OVER (PARTITION BY site, hand_id ORDER BY points DESC, player) = 1
    ORDER BY points DESC, started_at DESC, hand_id LIMIT $count
),
loss_rows AS (
    -- the same for the biggest losers, past the rows of the hands already among the wins
    SELECT * FROM scoped WHERE points < 0
    ORDER BY points ASC, started_at DESC, hand_id, player LIMIT 8 * $count
),
losses AS (
    SELECT 'loss' AS kind, site, hand_id, player, points, started_at
    FROM loss_rows ANTI JOIN wins USING (site, hand_id)
    QUALIFY row_number() OVER (PARTITION BY site, hand_id ORDER BY points ASC, player) = 1
    ORDER BY points ASC, started_at DESC, hand_id LIMIT $count
),
picked AS (
    SELECT kind, site, hand_id, player AS subject, points AS subject_points,
           row_number() OVER (PARTITION BY kind ORDER BY abs(points) DESC, started_at DESC,
                              hand_id, player) AS place
    FROM (SELECT * FROM wins UNION ALL SELECT * FROM losses)
)
SELECT p.kind, p.place, p.subject, p.subject_points, ph.site, ph.hand_id, ph."table",
       ph.started_at, ph.variant, ph.seat, ph.player, s.top, s.middle, s.bottom,
       ph.points, ph.royalties, ph.fouled, ph.in_fantasyland, ph.fl_next, ph.joker_cards,
       ph.money, ph.money_capped, ph.capped,
       ph.top_category, ph.middle_category, ph.bottom_category, ph.problem
FROM picked p
JOIN player_hands ph USING (site, hand_id)
JOIN seats s USING (site, hand_id, seat)
ORDER BY p.kind DESC, p.place, ph.seat;
