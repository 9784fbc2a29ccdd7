-- A player's hands, newest first: the board, what it scored and Fantasyland.
-- param: player VARCHAR required
-- param: since TIMESTAMPTZ
-- param: limit INTEGER 100
SELECT ph.started_at, ph.site, ph.hand_id, ph."table", ph.variant, ph.seat,
       s.top, s.middle, s.bottom,
       ph.fouled, ph.royalties, ph.points, ph.rows_won, ph.scoops,
       ph.in_fantasyland, ph.fl_next, ph.fl_cards_next, ph.problem
FROM player_hands ph
JOIN seats s USING (site, hand_id, seat)
WHERE ph.player = $player
  AND ($since IS NULL OR ph.started_at >= $since)
ORDER BY ph.started_at DESC, ph.hand_id DESC
LIMIT coalesce($limit, 100);
