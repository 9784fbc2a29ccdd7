import re
from pathlib import Path

import pytest

from ofc_stats.engine.rules import (
    DEFAULT_FL_STAY_VALUE,
    PRESETS,
    ScoringMethod,
    StayCards,
    get_ruleset,
    load_ruleset,
    ruleset_as_dict,
    ruleset_from_mapping,
    top_hand_strength,
)
from ofc_stats.errors import RulesetError

HOUSE_TOML = """
name = "thursday home game"
base = "classic"
scoring = "2-4"
shoot_the_moon = true
fl_stay_value = 9.5

[royalties.bottom]
straight = 2
flush = 4
"full house" = 6
quads = 8
"straight flush" = 10
"royal flush" = 20

[royalties]
top_trips = {}

[fantasyland]
entry = { AA = 14, "222" = 15 }
stay_middle = false
stay_cards = "repeat"
"""


def test_presets_follow_the_rules() -> None:
    assert get_ruleset("classic").fantasyland.entry == (("QQ", 13),)
    assert get_ruleset("pineapple").fantasyland.stay_middle is None
    assert get_ruleset("progressive").fantasyland.cards_for_entry("AA") == 16
    assert get_ruleset("progressive").fantasyland.cards_for_entry("333") == 16
    assert get_ruleset("ultimate").fantasyland.stay_cards is StayCards.REPEAT
    assert get_ruleset("pineapple").royalties.top_royalty("AAA") == 22
    assert get_ruleset("pineapple").royalties.middle["royal flush"] == 50


def test_toml_ruleset_overrides_its_base(tmp_path: Path) -> None:
    path = tmp_path / "house.toml"
    path.write_text(HOUSE_TOML)
    ruleset = get_ruleset(str(path))
    assert ruleset.name == "thursday home game"
    assert ruleset.scoring is ScoringMethod.TWO_FOUR
    assert ruleset.shoot_the_moon
    assert ruleset.royalties.bottom["quads"] == 8
    assert ruleset.royalties.middle["quads"] == 20  # untouched, from the base
    assert dict(ruleset.royalties.top_trips) == {}
    assert ruleset.fantasyland.entry == (("AA", 14), ("222", 15))
    assert ruleset.fantasyland.stay_middle is None
    assert ruleset.fantasyland.stay_bottom == "quads"
    assert ruleset.fantasyland.stay_cards is StayCards.REPEAT
    assert ruleset.fl_stay_value == 9.5
    assert get_ruleset("classic").fl_stay_value == DEFAULT_FL_STAY_VALUE  # the base's


@pytest.mark.parametrize("name", list(PRESETS))
def test_rulesets_round_trip_through_plain_data(name: str) -> None:
    assert ruleset_from_mapping(ruleset_as_dict(PRESETS[name])) == PRESETS[name]


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        ("colour = 'red'", r"unknown keys \['colour'\]"),
        ("base = 'omaha'", "base 'omaha' is not a preset"),
        ("scoring = '3-9'", "'3-9' is not a valid ScoringMethod"),
        ("[royalties.middle]\npair = 1", "unknown hands"),
        ("[royalties]\ntop_pairs = { Z = 1 }", "unknown ranks"),
        ("[fantasyland]\nentry = { QQ = 25 }", "deals 25 cards"),
        ("[fantasyland]\nentry = { QK = 14 }", "not a top hand"),
        ("[fantasyland]\nstay_bottom = 'monster'", "unknown hand category"),
        ("[fantasyland]\nstay_cards = 'lots'", "neither a number nor 'repeat'"),
        ("name = ", "invalid TOML"),
        ("fl_stay_value = 'a lot'", "fl_stay_value: 'a lot' is not a number"),
        ("fl_stay_value = true", "fl_stay_value: True is not a number"),
        ("fl_stay_value = -3", "fl_stay_value: -3.0 is not a number >= 0"),
        ("fl_stay_value = nan", "is not a number >= 0"),
    ],
)
def test_bad_ruleset_files_are_clear_errors(tmp_path: Path, toml: str, message: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(toml)
    with pytest.raises(RulesetError, match=message):
        load_ruleset(path)


def test_unknown_preset_and_missing_file() -> None:
    with pytest.raises(RulesetError, match="unknown ruleset 'omaha'"):
        get_ruleset("omaha")
    with pytest.raises(RulesetError, match="cannot read ruleset"):
        get_ruleset("missing.toml")


def test_top_hand_specs_order() -> None:
    assert top_hand_strength("QQ") < top_hand_strength("KK") < top_hand_strength("AA")
    assert top_hand_strength("AA") < top_hand_strength("222") == top_hand_strength("trips")


@pytest.mark.parametrize(("toml", "message"), [
    ('base = "joker-ultimate"\njokers = 3', "jokers: 3 (a deck holds 0, 1 or 2)"),
    ('base = "double-deck"\njokers = 2', "jokers with two decks are not supported"),
    ('base = "pineapple"\nmiddle = "lowball"', "middle: 'lowball' is not one of high"),
    ('base = "joker-pineapple"\ndecks = "two"', "decks: 'two' is not a whole number"),
    ('base = "deuce-to-seven"\n[lowball]\nqualifier = "Z"', "not a deuce-to-seven low: 'Z'"),
    ('base = "deuce-to-seven"\n[fantasyland]\nentry_lowball = { "76543" = 14 }',
     "not a deuce-to-seven low: '76543'"),
    ('base = "deuce-to-seven"\n[fantasyland]\nstay_middle = "full house"',
     "use fantasyland.stay_lowball"),
    ('base = "pineapple"\n[fantasyland]\nentry_lowball = { "75432" = 14 }',
     "need middle = 'deuce-to-seven'"),
    ('base = "pineapple"\ntable_stakes = "yes"', "table_stakes: 'yes' is not true or false"),
    ('base = "deuce-to-seven"\n[lowball]\ncolour = 1', "lowball: unknown keys ['colour']"),
])
def test_the_other_games_keys_are_checked(tmp_path: Path, toml: str, message: str) -> None:
    path = tmp_path / "house.toml"
    path.write_text(toml, encoding="utf-8")
    with pytest.raises(RulesetError, match=re.escape(message)):
        load_ruleset(path)


def test_every_preset_round_trips_through_its_mapping() -> None:
    for name, preset in PRESETS.items():
        again = ruleset_from_mapping({**ruleset_as_dict(preset), "base": name})
        assert again == preset, name
    assert get_ruleset("joker-ultimate").fantasyland.cards_for_entry("222") == 17
    assert get_ruleset("double-deck").max_players == 8
    assert get_ruleset("double-deck-pineapple").max_players == 6
    assert get_ruleset("joker-pineapple").max_players == 3
