-- fl_review: the Fantasyland review of one scoring, one row per board played in
-- Fantasyland: the board played and the best setting of its cards, both valued and
-- scored against the opponents' actual boards (docs/scoring.md). The scoring is the
-- default, or the one SET VARIABLE scoring names (what ofc-stats --scoring NAME does);
-- every stored scoring is in scored_fl_review (column scoring).
CREATE OR REPLACE VIEW fl_review AS
SELECT * EXCLUDE (scoring)
FROM scored_fl_review
WHERE scoring = coalesce(getvariable('scoring'), 'default');
