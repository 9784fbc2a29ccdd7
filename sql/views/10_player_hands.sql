-- player_hands: the default scoring, one row per player per hand (docs/schema.md).
-- Every stored scoring, what-ifs included, is in scored_player_hands (column scoring).
CREATE OR REPLACE VIEW player_hands AS
SELECT * EXCLUDE (scoring)
FROM scored_player_hands
WHERE scoring = 'default';
