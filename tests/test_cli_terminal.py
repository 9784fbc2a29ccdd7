"""The command line as a terminal shows it: tables that fit 80 and 120 columns without
cutting a name, an id or a number, values printed as text (never markup), one error
style for every error, suggestions, help that reads like a manual page, exit codes."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import typer.main
from typer.core import TyperGroup
from typer.testing import CliRunner

from ofc_stats.cli import app
from ofc_stats.db import query_warehouse
from ofc_stats.errors import ExitCode
from ofc_stats.warehouse import Warehouse
from tests.builders import NOTHING_1, NOTHING_2, Hand, Seat, store

runner = CliRunner()
ROOT = Path(__file__).resolve().parent.parent
WIDTHS = [80, 120]


def at(width: int | None, *arguments: str, warehouse: Warehouse | None = None
       ) -> tuple[str, str, int]:
    """Run the CLI as a terminal of ``width`` columns (None: a pipe)."""
    env = {"COLUMNS": str(width)} if width else {"COLUMNS": ""}
    extra = ["-w", str(warehouse.root)] if warehouse is not None else []
    result = runner.invoke(app, [*arguments, *extra], env=env)
    return result.stdout, result.stderr, result.exit_code


def table_lines(output: str) -> list[str]:
    return [line for line in output.splitlines() if line.strip()]


def fits(output: str, width: int) -> None:
    for line in output.splitlines():
        assert len(line) <= width, f"{len(line)} > {width}: {line!r}"
    assert "…" not in output
    assert "..." not in output.split("more column")[0]


@pytest.mark.parametrize("width", WIDTHS)
def test_stats_fits_the_terminal_with_names_and_numbers_whole(
        sample_warehouse: Warehouse, width: int) -> None:
    output, errors, code = at(width, "stats", warehouse=sample_warehouse)
    assert code == 0, errors
    fits(output, width)
    rows = json.loads(at(None, "stats", "--format", "json", warehouse=sample_warehouse)[0])
    lines = table_lines(output)
    for row in rows:
        [line] = [line for line in lines if line.split()[0] == row["player"]]
        cells = line.split()
        # The columns a player reads first, each value whole.
        for column in ("hands", "points", "points_per_hand", "foul_pct"):
            # A float may be padded to its column's decimals (9.2 as 9.20), never cut.
            assert any(cell == str(row[column]) or (
                isinstance(row[column], float) and float(cell) == row[column]
                and cell.startswith(str(row[column]))) for cell in cells
                if cell.lstrip("-").replace(".", "", 1).isdigit()), (column, line)
    assert "more columns" in output  # what was left out is named
    assert "--wide" in output


def test_a_float_column_has_the_same_decimals_on_every_row(
        sample_warehouse: Warehouse) -> None:
    output = at(120, "stats", "--columns", "player,foul_pct", warehouse=sample_warehouse)[0]
    decimals = {len(line.split()[-1].split(".")[1]) for line in table_lines(output)[2:]}
    assert len(decimals) == 1  # the points line up
    csv = at(None, "stats", "--columns", "player,foul_pct", "--format", "csv",
             warehouse=sample_warehouse)[0]
    assert len({len(line.split(",")[1].split(".")[1]) for line in csv.splitlines()[1:]}) > 1


@pytest.mark.parametrize("width", WIDTHS)
def test_numbers_are_right_aligned(sample_warehouse: Warehouse, width: int) -> None:
    output = at(width, "stats", "--columns", "player,hands,points",
                warehouse=sample_warehouse)[0]
    body = table_lines(output)[2:]
    ends = {len(line.rstrip()) for line in body}
    assert len(ends) == 1  # the last column (points) ends at the same place on every row
    starts_of_hands = {line.index(line.split()[1]) + len(line.split()[1]) for line in body}
    assert len(starts_of_hands) == 1  # and so does hands, whatever its number of digits


@pytest.mark.parametrize("width", WIDTHS)
def test_hand_list_shows_whole_ids_and_leads_to_the_hand_command(
        sample_warehouse: Warehouse, width: int) -> None:
    output, _, code = at(width, "query", "hand_list", "-p", "player=redwhale",
                         warehouse=sample_warehouse)
    assert code == 0
    fits(output, width)
    ids = query_warehouse(sample_warehouse, "hand_list", {"player": "redwhale"})["hand_id"]
    shown = {line.split()[0] for line in table_lines(output)}
    assert set(ids) <= shown
    assert "ofc-stats hand HAND_ID" in output


@pytest.mark.parametrize("width", [80, 100, 120])
def test_audit_fits_and_keeps_ids_whole(sample_warehouse: Warehouse, width: int) -> None:
    output, _, code = at(width, "audit", warehouse=sample_warehouse)
    assert code == 0
    fits(output, width)
    findings = json.loads(at(None, "audit", "--format", "json",
                             warehouse=sample_warehouse)[0])["findings"]
    for finding in findings:
        assert (finding["hand_id"] or finding["source"]).split("/")[-1] in output


def test_a_pipe_gets_every_column_and_csv_json_are_unchanged(
        sample_warehouse: Warehouse) -> None:
    frame = query_warehouse(sample_warehouse, "player_summary")
    piped = at(None, "stats", warehouse=sample_warehouse)[0]
    header = table_lines(piped)[0].split()
    assert header == frame.columns
    assert "more column" not in piped
    assert at(None, "stats", "--format", "csv", warehouse=sample_warehouse)[0] == (
        frame.write_csv())
    assert at(80, "stats", "--format", "csv", warehouse=sample_warehouse)[0] == (
        frame.write_csv())
    assert json.loads(at(80, "stats", "--format", "json", warehouse=sample_warehouse)[0]) == (
        json.loads(frame.write_json()))


def test_wide_and_columns_choose_the_columns(sample_warehouse: Warehouse) -> None:
    wide = at(80, "stats", "--wide", warehouse=sample_warehouse)[0]
    assert table_lines(wide)[0].split() == query_warehouse(
        sample_warehouse, "player_summary").columns
    picked = at(80, "stats", "--columns", "player,scooped_pct", warehouse=sample_warehouse)[0]
    assert table_lines(picked)[0].split() == ["player", "scooped_pct"]
    csv = at(None, "stats", "--columns", "scoop_pct,player", "--format", "csv",
             warehouse=sample_warehouse)[0]
    assert csv.splitlines()[0] == "scoop_pct,player"


def test_data_is_printed_as_text_never_as_markup(tmp_path: Path) -> None:
    sql = "SELECT '[bold red]hi[/]' AS s, ':x: [b]ob' AS t"
    warehouse = store(tmp_path / "wh", [
        Hand("h1", [Seat("[b]ob", NOTHING_1), Seat(":x:", NOTHING_2)])])
    from ofc_stats.analysis.score import score_warehouse

    score_warehouse(warehouse)
    for width in (None, 80):
        shown = at(width, "query", sql, warehouse=warehouse)[0]
        assert "[bold red]hi[/]" in shown
        assert ":x: [b]ob" in shown
        assert "❌" not in shown
        stats = at(width, "stats", warehouse=warehouse)[0]
        assert "[b]ob" in stats
        assert ":x:" in stats
        hand = at(width, "hand", "h1", warehouse=warehouse)[0]
        assert "[b]ob" in hand
        assert ":x:" in hand
    coloured = runner.invoke(app, ["query", sql, "-w", str(warehouse.root)],
                             env={"TTY_COMPATIBLE": "1", "COLUMNS": "80"}).stdout
    assert "[bold red]hi[/]" in coloured  # shown as typed, not as red "hi"


# --- one error style -------------------------------------------------------------------

ERRORS = [
    (["stats", "--min-hands", "abc"], "--min-hands 'abc' is not a whole number", 2),
    (["stats", "--min-hands", "0"], "--min-hands 0 is out of range: it must be at least 1", 2),
    (["stats", "--since", "yesterdy"], "--since 'yesterdy' is not a date or time; use a "
                                       "date (2026-03-01)", 2),
    (["report", "--since", "yesterdy"], "--since 'yesterdy' is not a date or time", 2),
    (["query", "leaderboard", "-p", "since=soon"], "--param since 'soon' is not a date or "
                                                    "time", 2),
    (["query", "leaderboard", "-p", "min_hands=abc"],
     "--param min_hands 'abc' is not a whole number (e.g. --param min_hands=1)", 2),
    (["query", "leaderbord"], "no query named 'leaderbord'; did you mean 'leaderboard'? "
                              "('ofc-stats query --list' shows them)", 2),
    (["query", "hands"], "no query named 'hands', but a view: ofc-stats query 'FROM hands' "
                         "reads it", 2),
    (["query", "SELECT 1; SELECT 2"], "2 statements given, and statement 1 is a SELECT "
                                      "whose result would be lost", 2),
    (["audit", "--format", "xml"], "--format 'xml' is not one of table, csv or json", 2),
    (["stats", "--frmat", "csv"], "no option '--frmat'; did you mean '--format'? (see "
                                  "'ofc-stats stats --help')", 2),
    (["query", "leaderboard", "-p", "plyer=x"], "query leaderboard has no parameter plyer "
                                                "(it takes: variant (text), since", 2),
    (["query", "hand_list", "-p", "playr=x"], "query hand_list has no parameter playr; did "
                                              "you mean 'player'?", 2),
    (["query", "hand_list"], "query hand_list needs --param player=... (it takes: player "
                             "(text, required)", 2),
    (["query", "hand_list", "-p", "player=redwhal"],
     "no player named 'redwhal' in the scored hands; did you mean 'redwhale'", 2),
    (["query", "win_rates", "-p", "variant=pinapple"],
     "--param variant: no scored hands of variant 'pinapple'", 2),
    (["stats", "--player", "coldwhale"], "no player named 'coldwhale' in the scored hands; "
                                         "did you mean 'ColdWhale'", 2),
    (["stats", "--columns", "plyer"], "--columns: no column 'plyer'; did you mean 'player'?", 2),
    (["stats", "--columns", ","], "--columns: give the columns to show, comma-separated", 2),
    (["stats", "--scoring", ""], "--scoring needs a name (stored: 'default')", 2),
    (["stats", "--scoring", "nosuch"], "--scoring 'nosuch': no such scoring (stored: "
                                       "'default'", 2),
    (["stats", "--scoring", "ultimate"], "--scoring 'ultimate': nothing is scored as "
                                         "'ultimate' yet; run 'ofc-stats score --ruleset "
                                         "ultimate' first", 6),
    (["query", "leaderboard", "--out", "x.txt"], "--out: cannot tell a format from 'x.txt'", 2),
    (["hand", "nosuch-000001"], "no hand 'nosuch-000001' in the warehouse", 2),
    (["score", "--ruleset", "pinapple"], "--ruleset: unknown ruleset 'pinapple': use one "
                                         "of classic, pineapple, progressive, ultimate, "
                                         "joker-pineapple, ", 2),
    (["score", "--ruleset", "deuce-to-sevn"], "--ruleset: unknown ruleset 'deuce-to-sevn': "
                                              "use one of classic, ", 2),
    (["report", "--variant", "jokr-ultimate"], "--variant: no scored hands of variant "
                                               "'jokr-ultimate' (variants: classic, ", 2),
    (["stats", "--variant", "jokr-ultimate"], "--variant: no scored hands of variant "
                                              "'jokr-ultimate' (variants: classic, ", 2),
    (["review", "--scoring", "pinapple"], "--scoring: unknown ruleset 'pinapple'", 2),
    (["review", "--since", "yesterdy"], "--since 'yesterdy' is not a date or time", 2),
    (["bench", "review", "--per-count", "abc"], "--per-count 'abc' is not a whole number", 2),
    (["spark", "score", "-i", "histories", "-o", "s3a://bucket/ofc"],
     "--warehouse: needs a local --output", 2),
    (["config", "set", "rulset", "pineapple"], "no setting 'rulset' (settings: ruleset, "
                                               "ruleset.site.<site> or ruleset.variant."
                                               "<variant>); did you mean 'ruleset'", 2),
]


@pytest.mark.parametrize(("arguments", "message", "code"), ERRORS,
                         ids=[" ".join(case[0]) for case in ERRORS])
def test_every_error_is_one_line_naming_what_is_wrong(
        sample_warehouse: Warehouse, arguments: list[str], message: str, code: int) -> None:
    result = runner.invoke(app, [*arguments, "-w", str(sample_warehouse.root)])
    assert result.exit_code == code, result.output
    assert result.stderr.startswith(f"ofc-stats: error: {message}"), result.stderr
    assert result.stderr.count("\n") == 1
    assert "╭" not in result.stderr
    assert "Traceback" not in result.stderr
    assert "Input should be" not in result.stderr


@pytest.mark.parametrize(("arguments", "message"), [
    (["nosuch"], "no command 'nosuch' (commands: rules, simulate, ingest"),
    (["hand"], "missing HAND_ID (the hand's id, as 'ofc-stats query hand_list' and the audit "
               "show it) (see 'ofc-stats hand --help')"),
    (["ingest"], "missing PATH... (history files, folders (walked recursively), globs, or "
                 ".gz .bz2 .xz .zip archives) (see 'ofc-stats ingest --help')"),
    (["stats", "-w", "/nowhere/at/all"], "no warehouse at /nowhere/at/all"),
    (["simulate", "--variant", "jokr-ultimate", "--out", "/nowhere/at/all"],
     "--variant: unknown variant 'jokr-ultimate' (one of classic, "),
])
def test_usage_errors_without_a_warehouse(arguments: list[str], message: str) -> None:
    result = runner.invoke(app, arguments)
    assert result.stderr.startswith(f"ofc-stats: error: {message}"), result.stderr
    assert result.stderr.count("\n") == 1
    expected = ExitCode.NO_WAREHOUSE if "-w" in arguments else ExitCode.USAGE
    assert result.exit_code == expected


def test_no_arguments_prints_the_help() -> None:
    result = runner.invoke(app, [])
    assert result.exit_code == 0
    assert result.stdout.startswith("Usage: ofc-stats [OPTIONS] COMMAND [ARGS]...")
    assert "Exit status: 0 success" in result.stdout


# --- help like a manual page -----------------------------------------------------------


def every_command() -> list[list[str]]:
    group = typer.main.get_command(app)
    assert isinstance(group, TyperGroup)
    found = []
    for name, command in group.commands.items():
        if isinstance(command, TyperGroup):
            found.extend([name, sub] for sub in command.commands)
        found.append([name])
    return found


@pytest.mark.parametrize("command", every_command(), ids=" ".join)
def test_help_reads_like_a_manual_page(command: list[str]) -> None:
    result = runner.invoke(app, [*command, "--help"], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    text = result.stdout
    assert text.startswith(f"Usage: ofc-stats {' '.join(command)} ")
    # Values are named for what they are (FILE, N, DIR), never by a Python type.
    assert not re.search(r"<(bool|str|int|float|path|list\[[a-z]+\])[^>]*>", text), text
    assert "{" not in text.splitlines()[0]  # no "{paths}..." in the usage line
    assert not re.search(r"\w \.(\s|$)", text), text  # no gap left by an eaten "[default]"
    assert "╭" not in text


def test_the_warehouse_option_names_its_default() -> None:
    text = runner.invoke(app, ["stats", "--help"], env={"COLUMNS": "200"}).stdout
    assert "The warehouse folder [default: ./warehouse]." in text
    assert "Usage: ofc-stats ingest [OPTIONS] PATH..." in runner.invoke(
        app, ["ingest", "--help"]).stdout


def test_the_exit_code_table_in_the_docs_is_the_code() -> None:
    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    table = dict(re.findall(r"^\| (\d+) \| `(\w+)` \|", text, flags=re.MULTILINE))
    assert {int(code): name for code, name in table.items()} == {
        int(code): code.name for code in ExitCode}


def test_exit_codes_tell_situations_apart(tmp_path: Path, sample_warehouse: Warehouse) -> None:
    empty = Warehouse.open(tmp_path / "empty", create=True)
    codes = {
        "missing warehouse": runner.invoke(app, ["audit", "-w", str(tmp_path / "no")]),
        "nothing scored": runner.invoke(app, ["stats", "-w", str(empty.root)]),
        "mismatches": runner.invoke(app, ["audit", "--fail-on-mismatch", "-w",
                                          str(sample_warehouse.root)]),
        "usage": runner.invoke(app, ["audit", "--format", "xml"]),
        "ok": runner.invoke(app, ["audit", "-w", str(sample_warehouse.root)]),
    }
    assert {name: result.exit_code for name, result in codes.items()} == {
        "missing warehouse": ExitCode.NO_WAREHOUSE, "nothing scored": ExitCode.NOT_SCORED,
        "mismatches": ExitCode.MISMATCHES, "usage": ExitCode.USAGE, "ok": ExitCode.OK}
    assert len({result.exit_code for result in codes.values()}) == len(codes)
    # A what-if never scored: the same code, naming the command that scores it.
    what_if = runner.invoke(app, ["report", "--scoring", "ultimate", "-w",
                                  str(sample_warehouse.root)])
    assert what_if.exit_code == ExitCode.NOT_SCORED, what_if.output
    # Hands stored but not scored: the readers score them first.
    unscored = store(tmp_path / "unscored", [Hand("h1", [Seat("a", NOTHING_1),
                                                         Seat("b", NOTHING_2)])])
    for name in ("stats", "audit"):
        result = runner.invoke(app, [name, "-w", str(unscored.root)])
        assert result.exit_code == ExitCode.OK, (name, result.output)


@pytest.mark.parametrize("width", WIDTHS)
def test_review_fits_the_terminal_with_names_and_numbers_whole(
        sample_warehouse: Warehouse, width: int) -> None:
    out, err, code = at(width, "review", warehouse=sample_warehouse)
    assert code == 0, err
    table = out[out.index("Fantasyland review per player"):]  # after the run's summary
    fits(table, width)
    players = query_warehouse(sample_warehouse, "SELECT DISTINCT player FROM fl_review")
    rows = {line.split()[0] for line in table_lines(out)}
    assert set(players["player"]) <= rows


def test_the_query_list_fits_80_columns() -> None:
    output = at(80, "query", "--list")[0]
    fits(output, 80)
    names = {line.split()[0] for line in table_lines(output) if not line.startswith(" ")}
    assert {"leaderboard", "hand_list", "player_summary"} <= names


def test_rules_prints_a_readable_table_and_json_on_request(tmp_path: Path) -> None:
    shown = at(80, "rules", "pineapple")[0]
    fits(shown, 80)
    assert shown.startswith("pineapple: pineapple deals, 1-6 scoring")
    assert "Royalties (points per row)" in shown
    assert "{" not in shown
    lines = {line.split()[0]: line.split() for line in table_lines(shown) if line[:1] != " "}
    assert lines["quads"][-2:] == ["20", "10"]
    as_json = json.loads(at(80, "rules", "pineapple", "--json")[0])
    assert as_json["royalties"]["bottom"]["quads"] == 10
    empty = tmp_path / "house.toml"
    empty.write_text("")
    told = " ".join(at(80, "rules", str(empty))[0].split())
    assert "note: house.toml sets no base: it is 'pineapple'" in told
    assert "sets nothing else: the rules are exactly pineapple's" in told
    scored = runner.invoke(app, ["rules", str(empty), "--json"])
    assert json.loads(scored.stdout)["name"] == "house"


def test_query_prints_an_empty_result_with_its_columns(sample_warehouse: Warehouse) -> None:
    output, _, code = at(80, "query", "SELECT player FROM player_hands WHERE false",
                         warehouse=sample_warehouse)
    assert code == 0
    assert table_lines(output)[0].split() == ["player"]


def test_wide_characters_count_as_two_columns(sample_warehouse: Warehouse) -> None:
    from rich.cells import cell_len

    sql = "SELECT '日本語の名前プレーヤー' AS player, 12345 AS hands, 'x' AS z"
    output = at(40, "query", sql, warehouse=sample_warehouse)[0]
    assert all(cell_len(line) <= 40 for line in output.splitlines())
    assert "日本語の名前プレーヤー" in output
    assert "12345" in output


def test_a_variant_is_taken_as_histories_write_it(sample_warehouse: Warehouse) -> None:
    named = at(None, "query", "win_rates", "-p", "variant=2-7", "--format", "csv",
               warehouse=sample_warehouse)
    assert named[2] == 0, named[1]
    assert named[0] == at(None, "query", "win_rates", "-p", "variant=deuce-to-seven",
                          "--format", "csv", warehouse=sample_warehouse)[0]
    assert len(named[0].splitlines()) > 1
