"""The pipeline on Spark against the local one, row for row, on every simulated variant.

One local Spark session serves every test (the ``spark`` fixture). The inputs are
small simulations of every variant the simulator offers, in every format, with its
file faults, copies across files, archives, a damaged archive and conflicting copies;
partitions and batch sizes are chosen to cut the data in awkward places (a batch of
five boards never holds two hands of three).
"""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
import zipfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from polars.testing import assert_frame_equal
from typer.testing import CliRunner

from ofc_stats import score_boards as local_score_boards
from ofc_stats import score_matchups as local_score_matchups
from ofc_stats.analysis.landing import LandingError, land_datasets
from ofc_stats.analysis.score import score_warehouse
from ofc_stats.cli import app
from ofc_stats.db import player_stats as local_player_stats
from ofc_stats.db import query_warehouse
from ofc_stats.engine.rules import ruleset_for_variant
from ofc_stats.formats import Format, get_reader, get_writer
from ofc_stats.formats.canonical import CanonicalBatch
from ofc_stats.ingest import ingest
from ofc_stats.simulate import SimulationConfig, parse_faults
from ofc_stats.simulate.config import ALL_VARIANTS
from ofc_stats.simulate.files import write_simulation
from ofc_stats.warehouse import Warehouse
from ofc_stats.warehouse.schemas import DEFAULT_SCORING

pytestmark = pytest.mark.spark

HAND = ["site", "hand_id"]
ORDER = {"hands": HAND, "seats": [*HAND, "seat"], "streets": [*HAND, "action_order"],
         "rejects": ["file", "line", "kind", "reason"]}
runner = CliRunner()


def polars_of(frame: Any) -> pl.DataFrame:
    from ofc_stats.spark.frames import to_polars

    return to_polars(frame)


def as_text(frame: pl.DataFrame) -> pl.DataFrame:
    """Categories as text, as Spark holds them."""
    return frame.with_columns(pl.col(name).cast(pl.String) for name, dtype in frame.schema.items()
                              if isinstance(dtype, (pl.Enum, pl.Categorical)))


def assert_same_rows(got: Any, want: pl.DataFrame, keys: Sequence[str]) -> None:
    """A Spark DataFrame equals a local frame row for row, once both are sorted."""
    spark_rows = polars_of(got) if not isinstance(got, pl.DataFrame) else got
    assert_frame_equal(spark_rows.sort(keys, nulls_last=True),
                       as_text(want).sort(keys, nulls_last=True))


@pytest.fixture
def arrow_batches_of_seven(spark: Any) -> Iterator[None]:
    """Spark hands Python batches of seven rows: hands straddle batches."""
    key = "spark.sql.execution.arrow.maxRecordsPerBatch"
    before = spark.conf.get(key)
    spark.conf.set(key, "7")
    yield
    spark.conf.set(key, before)


def _changed_copies(source: Path, target: Path) -> None:
    """A later file holding copies of ``source``'s first hands: most the same (duplicates),
    one with other reported points, one with other content (conflicts)."""
    reader, writer = get_reader(Format.JSONL), get_writer(Format.JSONL)
    with open(source, "rb") as handle:
        batch = CanonicalBatch.concat([read.batch for read in reader.read(handle, str(source))])
    first = batch.hands.head(12)
    kept = batch.with_hands(first)
    points_changed, content_changed = first["hand_id"][3], first["hand_id"][7]
    seats = kept.seats.with_columns(
        pl.when((pl.col("hand_id") == points_changed) & (pl.col("seat") <= 2))
        .then(pl.col("reported_points") + pl.when(pl.col("seat") == 1).then(1).otherwise(-1))
        .otherwise(pl.col("reported_points")).alias("reported_points"),
        # The same seats, the players' names swapped: other content.
        pl.when(pl.col("hand_id") == content_changed)
        .then(pl.col("player").reverse().over("hand_id"))
        .otherwise(pl.col("player")).alias("player"))
    with open(target, "wb") as handle:
        writer.write([CanonicalBatch(kept.hands, seats, kept.streets, kept.problems)], handle)


def _write_histories(folder: Path) -> Path:
    """Every variant the simulator offers, in every format, with the file faults."""
    formats = list(Format)
    variants = ALL_VARIANTS
    write_simulation(SimulationConfig(seed=5, hands=700, tables=len(variants),
                                      variants=variants, faults=parse_faults("all")),
                     folder / "a", formats)
    # Another room, the formats in another order (so each variant in another format
    # too), gzipped.
    write_simulation(SimulationConfig(seed=6, hands=500, tables=len(variants),
                                      variants=variants, site="ofc-sim-b",
                                      faults=parse_faults("duplicate-in-file=2")),
                     folder / "b", formats[1:] + formats[:1], compress=True)
    jsonl = sorted((folder / "a").glob("*.jsonl"))[0]
    # Copies across files: in a zip archive (one member twice the same file), and in a
    # later folder with changes (conflicts).
    with zipfile.ZipFile(folder / "b" / "export.zip", "w") as archive:
        archive.write(jsonl, "copy/one.jsonl")
        archive.writestr(".hidden.jsonl", "not read")
    (folder / "c").mkdir()
    _changed_copies(jsonl, folder / "c" / "changed.jsonl")
    # A gzip archive damaged half-way, a file in no format, and a file no walk reads.
    packed = gzip.compress(jsonl.read_bytes())
    (folder / "c" / "damaged.jsonl.gz").write_bytes(packed[: len(packed) // 2])
    (folder / "c" / "notes.txt").write_text("nothing but notes\nabout the sessions\n")
    (folder / "c" / "README.md").write_text("not a history")
    return folder


@pytest.fixture(scope="module")
def histories(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _write_histories(tmp_path_factory.mktemp("spark") / "histories")


@pytest.fixture(scope="module")
def local_warehouse(histories: Path, tmp_path_factory: pytest.TempPathFactory) -> Warehouse:
    root = tmp_path_factory.mktemp("local") / "warehouse"
    summary = ingest([histories], root)
    assert (summary.conflicts, summary.files_failed) == (2, 2)
    assert summary.duplicates > 10
    warehouse = Warehouse.open(root)
    score_warehouse(warehouse)
    return warehouse


@pytest.fixture(scope="module")
def spark_histories(spark: Any, histories: Path) -> Iterator[Any]:
    from ofc_stats.spark import read_histories

    read = read_histories(spark, [str(histories)], partitions=3)
    yield read
    read.unpersist()


def test_the_simulation_holds_every_variant(local_warehouse: Warehouse) -> None:
    variants = set(local_warehouse.scan("hands").select("variant").unique().collect()
                   ["variant"])
    assert variants == {variant.value for variant in ALL_VARIANTS}


@pytest.mark.parametrize("table", list(ORDER))
def test_read_histories_equals_ingest(spark_histories: Any, local_warehouse: Warehouse,
                                      table: str) -> None:
    assert_same_rows(getattr(spark_histories, table),
                     local_warehouse.scan(table).collect(), ORDER[table])


def test_read_histories_counts_as_ingest_does(spark_histories: Any, histories: Path,
                                              tmp_path: Path) -> None:
    summary = ingest([histories], tmp_path / "again")
    counts = spark_histories.counts()
    assert counts.pop("files") == summary.files  # the zip holds one history
    assert counts == {"ignored": summary.files_ignored, "hands": summary.hands_stored,
                      "duplicates": summary.duplicates, "conflicts": summary.conflicts,
                      "rejected": summary.rejected}
    rejects = polars_of(spark_histories.rejects)
    kinds = set(rejects["kind"])
    assert {"conflict", "file", "format", "truncated"} <= kinds


def test_small_reader_batches_settle_copies_as_ingest_does(
        spark: Any, histories: Path, tmp_path: Path) -> None:
    """Batches of 45 hands: copies in one batch and across batches, as ingest reads
    them (a conflict says "already read" of a copy in its own batch)."""
    from ofc_stats.spark import read_histories

    ingest([histories], tmp_path / "warehouse", batch_hands=45)
    warehouse = Warehouse.open(tmp_path / "warehouse")
    read = read_histories(spark, [str(histories)], batch_hands=45, partitions=2)
    try:
        for table in ("hands", "rejects"):
            assert_same_rows(getattr(read, table), warehouse.scan(table).collect(),
                             ORDER[table])
    finally:
        read.unpersist()


def test_score_seats_equals_score(spark: Any, spark_histories: Any, local_warehouse: Warehouse,
                                  arrow_batches_of_seven: None) -> None:
    from ofc_stats.spark import score_seats

    scored = score_seats(spark_histories.seats, partitions=3, batch_boards=5)
    assert_same_rows(scored.players,
                     local_warehouse.scan("player_hands", DEFAULT_SCORING).collect(),
                     [*HAND, "seat"])
    assert_same_rows(scored.matchups,
                     local_warehouse.scan("matchups", DEFAULT_SCORING).collect(),
                     [*HAND, "seat", "opponent_seat"])


@pytest.fixture(scope="module")
def spark_players(spark: Any, spark_histories: Any) -> Iterator[Any]:
    from ofc_stats.spark import score_seats

    scored = score_seats(spark_histories.seats, partitions=2)
    yield scored.players.persist()
    scored.players.unpersist()


@pytest.mark.parametrize("partitions", [1, 3])
def test_fantasyland_transitions_equal_the_local_chain(
        spark_players: Any, local_warehouse: Warehouse, partitions: int) -> None:
    from ofc_stats.spark import fantasyland_transitions

    want = local_warehouse.scan("fl_transitions").collect()
    assert want.filter(pl.col("status").is_in(["fl_missing", "fl_unearned", "fl_cards"])
                       ).height >= 3
    assert_same_rows(fantasyland_transitions(spark_players, partitions=partitions), want,
                     ["site", "table", "hand_id", "player", "status"])


@pytest.mark.parametrize("filters", [
    {}, {"variant": "classic"}, {"since": "2024-03-05T12:00:00+01:00", "min_hands": 20},
    {"player": "no such player"},
])
def test_player_stats_equal_stats(spark: Any, spark_players: Any,
                                  local_warehouse: Warehouse, filters: dict[str, Any]) -> None:
    from ofc_stats.spark import player_stats

    got = polars_of(player_stats(spark, spark_players, **filters))
    if filters.get("player"):
        assert got.is_empty()
        return
    assert got.height > 1
    assert_frame_equal(got, local_player_stats(local_warehouse, **filters))


def _boards(warehouse: Warehouse, variant: str) -> pl.DataFrame:
    """One variant's boards as the boards API takes them (lists of card strings)."""
    return (warehouse.scan("seats").filter(pl.col("variant") == variant).collect()
            .select("hand_id", "player",
                    *(pl.col(row).str.split(" ").alias(row) for row in ("top", "middle",
                                                                        "bottom")),
                    "in_fantasyland", "fl_cards"))


@pytest.mark.parametrize("variant", [variant.value for variant in ALL_VARIANTS])
def test_score_boards_and_matchups_equal_the_local_api(
        spark: Any, local_warehouse: Warehouse, variant: str,
        arrow_batches_of_seven: None) -> None:
    from ofc_stats.spark import score_boards, score_matchups

    boards = _boards(local_warehouse, variant)
    ruleset = ruleset_for_variant(variant)
    frame = spark.createDataFrame(boards.to_arrow())
    got = polars_of(score_boards(frame, ruleset, batch_boards=5, partitions=3))
    want = local_score_boards(boards, ruleset)
    assert got.columns == want.columns
    assert_same_rows(got, want, ["hand_id", "player"])
    assert_same_rows(score_matchups(frame, ruleset.name, batch_boards=4, partitions=2),
                     local_score_matchups(boards, ruleset), ["hand_id", "player", "opponent"])


def test_score_boards_takes_cards_as_text_and_names_a_bad_card(spark: Any) -> None:
    from ofc_stats.errors import BoardsError
    from ofc_stats.spark import score_boards

    boards = pl.DataFrame({
        "hand_id": ["h1", "h1"], "player": ["Ivey", "Hellmuth"],
        "top": ["6s 6c 4h", "Ah Kd Qd"], "middle": ["Td Ts 9c Qs 8c", "9h 9d 5h 5d 4c"],
        "bottom": ["3h 3d 3s 2h 2d", "Ks Js 9s 8s 7s"]})
    scored = polars_of(score_boards(spark.createDataFrame(boards.to_arrow())))
    assert scored.sort("player")["points"].to_list() == [-4, 4]
    with pytest.raises(BoardsError, match="lacks column"):
        score_boards(spark.createDataFrame(boards.drop("top").to_arrow()))
    bad = spark.createDataFrame(boards.with_columns(pl.lit("Xx 6c 4h").alias("top")).to_arrow())
    with pytest.raises(Exception, match="invalid card 'Xx'"):
        score_boards(bad).collect()


def test_spark_score_writes_datasets_that_land_as_a_warehouse(
        spark: Any, histories: Path, local_warehouse: Warehouse, tmp_path: Path) -> None:
    """The CLI end to end: the landed warehouse answers query, stats and report as the
    local one does; landing twice, or what Spark did not finish, is refused."""
    output, landed = tmp_path / "datasets", tmp_path / "warehouse"
    result = runner.invoke(app, ["spark", "score", "--input", str(histories), "--output",
                                 str(output), "--warehouse", str(landed), "--partitions", "2",
                                 "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    hands = local_warehouse.scan("hands").select(pl.len()).collect().item()
    assert (summary["hands"], summary["warehouse"]) == (hands, str(landed))
    warehouse = Warehouse.open(landed)
    for name in ("leaderboard", "fantasyland", "head_to_head"):
        assert_frame_equal(query_warehouse(warehouse, name, {"min_hands": "1"} if
                                           name == "leaderboard" else None),
                           query_warehouse(local_warehouse, name, {"min_hands": "1"} if
                                           name == "leaderboard" else None))
    assert_frame_equal(local_player_stats(warehouse), local_player_stats(local_warehouse))
    # The scoring is recorded: a local score finds nothing new to do.
    assert score_warehouse(warehouse).player_hands == 0
    report = runner.invoke(app, ["report", "--warehouse", str(landed), "--out",
                                 str(tmp_path / "report.html")])
    assert report.exit_code == 0, report.output

    again = runner.invoke(app, ["spark", "land", str(output), "--warehouse", str(landed)])
    assert again.exit_code == 2
    assert "already holds data" in again.stderr
    (output / "seats" / "_SUCCESS").unlink()
    with pytest.raises(LandingError, match="did not finish"):
        land_datasets(output, tmp_path / "other")
    existing = runner.invoke(app, ["spark", "score", "--input", str(histories), "--output",
                                   str(output)])
    assert existing.exit_code == 2
    assert "exists already" in existing.stderr


def test_landing_refuses_files_of_another_shape(tmp_path: Path) -> None:
    folder = tmp_path / "datasets" / "hands"
    folder.mkdir(parents=True)
    pl.DataFrame({"site": ["s"], "hand_id": [1]}).write_parquet(folder / "part-0.parquet")
    (folder / "_SUCCESS").touch()
    with pytest.raises(LandingError, match="not a hands file of ofc-stats: lacks table"):
        land_datasets(tmp_path / "datasets", tmp_path / "warehouse")
    with pytest.raises(LandingError, match="no ofc-stats datasets"):
        land_datasets(tmp_path, tmp_path / "warehouse")
    with pytest.raises(LandingError, match="no such folder"):
        land_datasets(tmp_path / "nowhere", tmp_path / "warehouse")


def test_read_histories_says_what_is_missing(spark: Any, tmp_path: Path) -> None:
    from ofc_stats.ingest.sources import SourceError
    from ofc_stats.spark import read_histories

    with pytest.raises(SourceError, match="no such file or folder"):
        read_histories(spark, str(tmp_path / "nowhere"))
    with pytest.raises(SourceError, match="no files match"):
        read_histories(spark, str(tmp_path / "*.jsonl"))


def test_without_pyspark_the_spark_commands_say_what_to_install(tmp_path: Path) -> None:
    """The base install: the command names the extra, on one line, without a traceback."""
    code = ("import sys; sys.modules['pyspark'] = None; "
            "from ofc_stats.cli import app; app(prog_name='ofc-stats')")
    completed = subprocess.run(
        [sys.executable, "-c", code, "spark", "score", "--input", str(tmp_path),
         "--output", str(tmp_path / "out")], capture_output=True, text=True, check=False)
    assert completed.returncode == 2
    assert completed.stderr.strip() == (
        "ofc-stats: error: ofc-stats' Spark functions need PySpark: pip install "
        "'ofc-stats[spark]' (and Java 17)")


@pytest.mark.slow
def test_spark_score_runs_under_spark_submit(histories: Path, tmp_path: Path) -> None:
    """The job file, submitted with spark-submit (its own master and process)."""
    import pyspark

    from ofc_stats.cli import spark_job as job

    submit = Path(pyspark.__file__).parent / "bin" / "spark-submit"
    environment = {**os.environ, "PYSPARK_PYTHON": sys.executable,
                   "PYSPARK_DRIVER_PYTHON": sys.executable}
    history = max((histories / "a").glob("*.jsonl"), key=lambda path: path.stat().st_size)
    completed = subprocess.run(
        [str(submit), "--master", "local[1]", "--conf", "spark.ui.enabled=false",
         job.__file__, "score", "--input", str(history),
         "--output",
         str(tmp_path / "out"), "--json"],
        capture_output=True, text=True, check=False, env=environment, timeout=600)
    assert completed.returncode == 0, completed.stderr[-3000:]
    summary = json.loads(completed.stdout)
    # Every hand of the file (the largest table's: about 60 of 700 hands at 10 tables).
    assert summary["hands"] == ingest([history], tmp_path / "local").hands_stored > 40
    assert summary["player_hands"] > summary["hands"]


def test_bench_spark_figures_are_ratios_of_its_runs() -> None:
    """The arithmetic of ``bench spark`` (its runs are each a Spark process of their own,
    too slow for the suite; ``ofc-stats bench spark --hands 10000`` runs them)."""
    from ofc_stats.spark.benchmark import SparkBenchmark, SparkRun, tree_cpu_seconds

    runs = [SparkRun("local[1]", 1, 20.0, 50.0, 40.0, 10.0, 3000, 9),
            SparkRun("local[2]", 2, 20.0, 60.0, 20.0, 5.0, 3000, 9)]
    result = SparkBenchmark(1000, 3000, 1.0, 5.0, 1.0, 4.0, runs)
    figures = result.as_dict()
    assert [run["speedup"] for run in figures["runs"]] == [1.0, 2.0]  # type: ignore[index]
    assert [run["ratio_to_local"] for run in figures["runs"]] == [0.1, 0.2]  # type: ignore[index]
    assert figures["local_player_hands_per_second"] == 600.0
    assert tree_cpu_seconds() > 0  # this process has run for a while


def test_a_missing_input_is_one_line_from_the_command(spark: Any, tmp_path: Path) -> None:
    result = runner.invoke(app, ["spark", "score", "--input", str(tmp_path / "nowhere"),
                                 "--output", str(tmp_path / "out")])
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        f"ofc-stats: error: no such file or folder: {tmp_path / 'nowhere'}")
