-- player_hands: one row per player per hand under one scoring (docs/schema.md): the
-- default (each hand under its variant's preset, or the warehouse's house rules), or
-- the scoring named by SET VARIABLE scoring = 'thursday home game' (what ofc-stats
-- --scoring NAME does). Every stored scoring is in scored_player_hands (column scoring).
CREATE OR REPLACE VIEW player_hands AS
SELECT * EXCLUDE (scoring)
FROM scored_player_hands
WHERE scoring = coalesce(getvariable('scoring'), 'default');
