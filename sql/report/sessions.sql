-- sessions: $player's latest $sessions_shown sessions (a session is a run of hands at one
-- table, as in the sessions view; player_sessions numbers them), over the hands in scope,
-- oldest first, numbered among all the player's sessions in scope; total_sessions counts
-- them all.
WITH per_session AS (
    SELECT site, "table", session_number,
           min(started_at) AS started_at, max(started_at) AS ended_at,
           count(*) AS hands,
           sum(points) AS points,
           sum(royalties) AS royalties,
           sum(fouled::INTEGER) AS fouls,
           sum(in_fantasyland::INTEGER) AS fantasyland_hands
    FROM player_sessions
    WHERE player = $player
      AND ($table IS NULL OR "table" = $table)
      AND ($variant IS NULL OR variant = $variant)
      AND ($since IS NULL OR started_at >= $since)
    GROUP BY site, "table", session_number
),
numbered AS (
    SELECT *, row_number() OVER (ORDER BY started_at, site, "table", session_number)
                  AS session,
              count(*) OVER () AS total_sessions
    FROM per_session
)
SELECT session, site, "table", started_at, ended_at, hands, points, royalties, fouls,
       fantasyland_hands, total_sessions
FROM numbered
WHERE session > total_sessions - $sessions_shown
ORDER BY session;
