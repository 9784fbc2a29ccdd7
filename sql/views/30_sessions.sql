-- player_sessions: player_hands numbered into sessions. A session is a player's run of
-- hands at one table with no gap longer than session_gap_minutes (default 30; change
-- it with SET VARIABLE session_gap_minutes = 45).
CREATE OR REPLACE VIEW player_sessions AS
WITH gaps AS (
    SELECT *,
           CASE WHEN lag(started_at) OVER seat_order IS NULL
                  OR started_at - lag(started_at) OVER seat_order
                     > to_minutes(coalesce(getvariable('session_gap_minutes'), 30)::BIGINT)
                THEN 1 ELSE 0 END AS starts_session
    FROM player_hands
    WINDOW seat_order AS (PARTITION BY site, "table", player ORDER BY started_at, hand_id)
)
SELECT * EXCLUDE (starts_session),
       sum(starts_session) OVER (PARTITION BY site, "table", player
                                 ORDER BY started_at, hand_id) AS session_number
FROM gaps;

-- sessions: one row per player session, with its results in points and money (capped at
-- the stacks where table stakes hold: player_hands.money_capped).
CREATE OR REPLACE VIEW sessions AS
SELECT ps.player, ps.site, ps."table", ps.session_number,
       min(ps.started_at) AS started_at, max(ps.started_at) AS ended_at,
       count(*) AS hands,
       sum(ps.points) AS points,
       round(avg(ps.points), 3) AS points_per_hand,
       sum(ps.royalties) AS royalties,
       sum(ps.fouled::INTEGER) AS fouls,
       sum(ps.in_fantasyland::INTEGER) AS fantasyland_hands,
       sum(coalesce(ps.money_capped, ps.points * h.point_value)) AS money,
       any_value(h.currency) AS currency
FROM player_sessions ps
LEFT JOIN hands h USING (site, hand_id)
GROUP BY ps.player, ps.site, ps."table", ps.session_number;
