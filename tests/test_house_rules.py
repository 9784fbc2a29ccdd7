"""House rules as the default (``ofc-stats config``, ``<warehouse>/ofc-stats.toml``) and
what-ifs read back with ``--scoring`` by every command that answers from scores."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from ofc_stats.analysis.score import resolve_scoring, score_warehouse, stored_scorings
from ofc_stats.cli import app
from ofc_stats.db import named_queries, query_warehouse
from ofc_stats.errors import NotScoredError
from ofc_stats.warehouse import PendingFile, Warehouse
from ofc_stats.warehouse.config import CONFIG_FILE, ConfigError, read_config, set_setting
from tests.conftest import SAMPLE_DATA

runner = CliRunner()
THURSDAY = 'name = "thursday home game"\nbase = "classic"\nscoring = "2-4"\n'


@pytest.fixture(scope="module")
def what_if(tmp_path_factory: pytest.TempPathFactory) -> tuple[Warehouse, Path]:
    """The sample warehouse, scored (and its Fantasyland hands reviewed) by default and
    as a 2-4 home game."""
    from ofc_stats.analysis.fantasyland_review import review_warehouse
    from ofc_stats.ingest import ingest

    folder = tmp_path_factory.mktemp("house")
    rules = folder / "thursday.toml"
    rules.write_text(THURSDAY)
    ingest([SAMPLE_DATA], folder / "warehouse")
    warehouse = Warehouse.open(folder / "warehouse")
    score_warehouse(warehouse)
    score_warehouse(warehouse, rules)
    review_warehouse(warehouse, rules)
    return warehouse, rules


def cli(*arguments: str) -> tuple[str, str, int]:
    result = runner.invoke(app, list(arguments))
    return result.stdout, result.stderr, result.exit_code


def test_a_what_if_is_stored_under_the_rulesets_name(what_if: tuple[Warehouse, Path]) -> None:
    warehouse, _ = what_if
    assert stored_scorings(warehouse) == ["default", "thursday home game"]
    names = query_warehouse(warehouse, "SELECT DISTINCT scoring FROM scored_player_hands "
                                       "ORDER BY 1")["scoring"].to_list()
    assert names == ["default", "thursday home game"]  # not its folder's thursday_home_game
    # Every way of naming it finds it: its name, its folder's, the file it came from.
    for name in ("thursday home game", "thursday_home_game",
                 str(what_if[1])):
        assert resolve_scoring(warehouse, name) == "thursday home game"
    with pytest.raises(NotScoredError, match="score --ruleset ultimate"):
        resolve_scoring(warehouse, "ultimate")


def test_a_warehouse_holding_the_old_name_reads_the_logs(tmp_path: Path,
                                                         what_if: tuple[Warehouse, Path]
                                                         ) -> None:
    """Rows that carry their scoring's folder name (as earlier views showed it) are read
    under the name the commit log gives the partition."""
    warehouse = Warehouse.open(shutil.copytree(what_if[0].root, tmp_path / "old"))
    with warehouse.writing():
        state = warehouse.state()
        old = [f for f in state.table_files("player_hands", "thursday home game")]
        renamed = [PendingFile("player_hands", pl.read_parquet(
            warehouse.root / f.path, hive_partitioning=False).with_columns(
                pl.lit("thursday_home_game").alias("scoring")), "thursday home game")
            for f in old]
        warehouse.commit(renamed, [f.path for f in old], action="old names")
    rows = query_warehouse(warehouse, "SELECT scoring, count(*) AS n FROM scored_player_hands "
                                      "GROUP BY ALL ORDER BY 1")
    assert rows["scoring"].to_list() == ["default", "thursday home game"]
    assert rows["n"].to_list()[0] == rows["n"].to_list()[1]


def test_every_command_takes_scoring(what_if: tuple[Warehouse, Path], tmp_path: Path) -> None:
    warehouse, rules = what_if
    root = str(warehouse.root)

    def points(*arguments: str) -> dict[str, int]:
        out, err, code = cli(*arguments, "--format", "json", "-w", root)
        assert code == 0, err
        return {row["player"]: row["points"] for row in json.loads(out)}

    default = points("stats")
    house = points("stats", "--scoring", "thursday home game")
    assert default != house  # 2-4 scoring pays other points
    assert house == points("stats", "--scoring", str(rules))
    assert house == points("stats", "--scoring", "thursday_home_game")
    for name, query in named_queries().items():
        values = ["-p", "player=redwhale"] if any(p.required for p in query.params) else []
        out, err, code = cli("query", name, *values, "--scoring", "thursday home game",
                             "--format", "json", "-w", root)
        assert code == 0, (name, err)
        assert json.loads(out), name
    sql = "SELECT sum(points) AS p FROM player_hands WHERE player = 'redwhale'"
    out = cli("query", sql, "--scoring", "thursday home game", "--format", "csv", "-w", root)[0]
    assert int(out.splitlines()[1]) == house["redwhale"]
    audit = json.loads(cli("audit", "--scoring", "thursday home game", "--format", "json",
                           "-w", root)[0])
    kinds = {row["kind"] for row in audit["summary"]}
    assert "points" in kinds  # the rooms paid 1-6, not 2-4: every hand disagrees
    default_audit = json.loads(cli("audit", "--format", "json", "-w", root)[0])
    assert len(audit["findings"]) > len(default_audit["findings"])
    target = tmp_path / "what-if.html"
    out, err, code = cli("report", "--scoring", "thursday home game", "-o", str(target),
                         "-w", root)
    assert code == 0, err
    assert "what-if: scored under &#x27;thursday home game&#x27;" in target.read_text()
    hand_id = query_warehouse(warehouse, "SELECT hand_id FROM hands ORDER BY 1 LIMIT 1")[
        "hand_id"][0]
    shown = cli("hand", hand_id, "--scoring", "thursday home game", "-w", root)[0]
    assert "scored as 'thursday home game'" in shown
    # review takes the rules themselves (it solves under them): the file, not the name.
    out, err, code = cli("review", "--scoring", str(rules), "--json", "-w", root)
    assert code == 0, err
    assert json.loads(out)["summary"]["scoring"] == "thursday home game"
    _out, err, code = cli("review", "--scoring", "thursday home game", "-w", root)
    assert code == 2
    assert "'thursday home game' is a stored scoring: give the preset or TOML file" in err


def test_house_rules_become_the_default_scoring(tmp_path: Path) -> None:
    from ofc_stats.ingest import ingest

    rules = tmp_path / "thursday.toml"
    rules.write_text(THURSDAY)
    # Two tables of two variants (the tables take the variants in turn), in any format.
    ingest([next(SAMPLE_DATA.glob("aldebaran.*")), next(SAMPLE_DATA.glob("betelgeuse.*"))],
           tmp_path / "wh")
    root = str(tmp_path / "wh")
    assert cli("score", "-w", root)[2] == 0
    before = query_warehouse(Warehouse.open(root), "SELECT DISTINCT ruleset, variant "
                                                   "FROM player_hands ORDER BY 2")
    out, err, code = cli("config", "set", "ruleset.variant." + before["variant"][0],
                         str(rules), "-w", root)
    assert code == 0, err
    assert f"ruleset.variant.{before['variant'][0]} = {rules.resolve()}" in out
    scored, _, code = cli("score", "-w", root)
    assert code == 0
    assert "rules of 'default' changed since its scores were stored: every hand rescored" in (
        scored)
    assert "house rules: thursday home game for" in scored
    after = query_warehouse(Warehouse.open(root), "SELECT DISTINCT ruleset, variant "
                                                  "FROM player_hands ORDER BY 2")
    assert after["ruleset"].to_list() == ["thursday home game", before["ruleset"][1]]
    # The site outranks the variant; unset falls back.
    site = query_warehouse(Warehouse.open(root), "SELECT any_value(site) AS s FROM hands")[
        "s"][0]
    cli("config", "set", f"ruleset.site.{site}", "ultimate", "-w", root)
    cli("score", "-w", root)
    assert query_warehouse(Warehouse.open(root), "SELECT DISTINCT ruleset FROM player_hands"
                           )["ruleset"].to_list() == ["ultimate"]
    listing = cli("config", "-w", root)[0]
    assert f"ruleset.site.{site}" in listing
    assert "ruleset.variant." in listing
    assert cli("config", "get", f"ruleset.site.{site}", "-w", root)[0] == "ultimate\n"
    cli("config", "unset", f"ruleset.site.{site}", "-w", root)
    cli("config", "unset", f"ruleset.variant.{before['variant'][0]}", "-w", root)
    assert cli("config", "-w", root)[0].startswith("no settings")
    cli("score", "-w", root)
    assert query_warehouse(Warehouse.open(root), "SELECT DISTINCT ruleset, variant FROM "
                                                 "player_hands ORDER BY 2").equals(before)


def test_the_settings_file(tmp_path: Path) -> None:
    root = Warehouse.open(tmp_path / "wh", create=True).root
    inside = root / "rules" / "house.toml"
    inside.parent.mkdir()
    inside.write_text(THURSDAY)
    config = set_setting(root, "ruleset", str(inside))
    assert config.default == "rules/house.toml"  # relative inside: the warehouse can move
    moved = Path(shutil.move(str(root), tmp_path / "moved"))
    assert read_config(moved).ruleset_for("any", "pineapple").name == "thursday home game"
    (moved / CONFIG_FILE).write_text("[rulesets]\ndefault = 'x'\n")
    with pytest.raises(ConfigError, match="unknown setting 'rulesets'"):
        read_config(moved)
    (moved / CONFIG_FILE).write_text("[ruleset.variant]\nholdem = 'classic'\n")
    with pytest.raises(ConfigError, match="no variant 'holdem'"):
        read_config(moved)
    _out, err, code = cli("config", "set", "ruleset", "nosuch.toml", "-w", str(moved))
    assert code == 2
    assert "cannot read ruleset nosuch.toml" in err


def test_an_empty_ruleset_says_what_it_defaulted_to(tmp_path: Path) -> None:
    empty = tmp_path / "empty.toml"
    empty.write_text("")
    warehouse = Warehouse.open(tmp_path / "wh", create=True)
    _out, err, code = cli("config", "set", "ruleset", str(empty), "-w", str(warehouse.root))
    assert code == 0
    assert "ofc-stats: note: empty.toml sets no base: it is 'pineapple'" in err
    _out, err, code = cli("score", "--ruleset", str(empty), "-w", str(warehouse.root))
    assert "ofc-stats: note: empty.toml sets nothing else: the rules are exactly " \
           "pineapple's" in err


def test_the_review_holds_each_hand_to_the_house_rules(tmp_path: Path) -> None:
    """The default scoring's Fantasyland review solves under the rules the default
    scoring applies: a house ruleset's stay value, and again when the rules change."""
    from ofc_stats.ingest import ingest

    rules = tmp_path / "home.toml"
    rules.write_text('name = "home"\nbase = "progressive"\nfl_stay_value = 5\n')
    ingest([next(SAMPLE_DATA.glob("hadar.*"))], tmp_path / "wh")
    root = str(tmp_path / "wh")
    assert cli("config", "set", "ruleset", str(rules), "-w", root)[2] == 0
    out, err, code = cli("review", "-w", root)
    assert code == 0, err
    assert "as 'default' (house rules: home for every hand)" in out
    reviewed = query_warehouse(Warehouse.open(root), "SELECT DISTINCT ruleset, stay_value "
                                                     "FROM fl_review")
    assert reviewed.rows() == [("home", 5.0)]
    rules.write_text('name = "home"\nbase = "progressive"\nfl_stay_value = 7\n')
    out = cli("review", "-w", root)[0]
    assert "the rules of 'default' changed since its reviews were stored" in out
    assert query_warehouse(Warehouse.open(root), "SELECT DISTINCT stay_value FROM fl_review"
                           )["stay_value"].to_list() == [7.0]
