-- fl_review: the Fantasyland review of the default scoring, one row per board played in
-- Fantasyland: the board played and the best setting of its cards, both valued and
-- scored against the opponents' actual boards (docs/scoring.md). Every stored scoring
-- is in scored_fl_review (column scoring).
CREATE OR REPLACE VIEW fl_review AS
SELECT * EXCLUDE (scoring)
FROM scored_fl_review
WHERE scoring = 'default';
