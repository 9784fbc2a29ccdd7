"""``ingest --watch``: files imported while they are written, each hand once, the
warehouse readable (and scorable) meanwhile; as a library and as a real process."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import polars as pl
import pytest

from ofc_stats.analysis.score import score_warehouse
from ofc_stats.formats import Format, get_writer
from ofc_stats.formats.canonical import CanonicalBatch
from ofc_stats.formats.fpdb_database import write_database
from ofc_stats.formats.fpdb_writer import envelope_texts
from ofc_stats.ingest import ingest
from ofc_stats.ingest.commits import ConcurrentIngestError
from ofc_stats.ingest.run import LiveView, ingest_live
from ofc_stats.ingest.summary import IngestSummary
from ofc_stats.ingest.watch import Wakeup, WatchSummary, _Files, watch
from ofc_stats.simulate import SimulationConfig, simulate
from ofc_stats.warehouse import Warehouse
from ofc_stats.warehouse.schemas import DEFAULT_SCORING, HANDS_SCHEMA

WAIT = 60.0  # seconds a step may take on a busy machine before the test fails


def eventually(check: Callable[[], bool], what: str, timeout: float = WAIT) -> float:
    """Wait until ``check()`` holds; the seconds it took."""
    started = time.monotonic()
    while not check():
        if time.monotonic() - started > timeout:
            raise AssertionError(f"not within {timeout:.0f} s: {what}")
        time.sleep(0.05)
    return time.monotonic() - started


def session(seed: int, hands: int, site: str = "ofc-sim") -> CanonicalBatch:
    return CanonicalBatch.concat(list(simulate(SimulationConfig(
        seed=seed, hands=hands, tables=1, site=site, variants=("pineapple",)))))


def encoded(fmt: Format, batch: CanonicalBatch) -> bytes:
    from io import BytesIO

    stream = BytesIO()
    get_writer(fmt).write([batch], stream)
    return stream.getvalue()


def stored_keys(root: Path) -> pl.DataFrame:
    if not (root / "_log").is_dir():
        return pl.DataFrame(schema={"site": pl.String, "hand_id": pl.String})
    return Warehouse.open(root).scan("hands", schema=HANDS_SCHEMA).select(
        "site", "hand_id").collect()


def hands_are(root: Path, count: int) -> Callable[[], bool]:
    def check() -> bool:
        keys = stored_keys(root)
        return keys.height == count and keys.unique().height == count
    return check


class Watching:
    """A watch running in a thread of the test, with what it reported."""

    def __init__(self, paths: list[Path], root: Path, **options: object) -> None:
        self.stop = threading.Event()
        self.imports: list[IngestSummary] = []
        self.retries: list[str] = []
        self.summary: WatchSummary | None = None
        self.thread = threading.Thread(target=self._run, args=(paths, root, options))
        self.thread.start()

    def _run(self, paths: list[Path], root: Path, options: dict[str, object]) -> None:
        self.summary = watch(paths, root, interval=0.1, stop=self.stop,
                             on_import=self.imports.append, on_retry=self.retries.append,
                             **options)  # type: ignore[arg-type]

    def close(self) -> WatchSummary:
        self.stop.set()
        self.thread.join(WAIT)
        assert not self.thread.is_alive()
        assert self.summary is not None
        return self.summary


@pytest.fixture
def watching(tmp_path: Path) -> Iterator[Callable[..., Watching]]:
    started: list[Watching] = []

    def start(paths: list[Path], root: Path, **options: object) -> Watching:
        started.append(Watching(paths, root, **options))
        return started[-1]

    yield start
    for running in started:
        running.stop.set()
        running.thread.join(WAIT)


@pytest.mark.parametrize("use_inotify", [True, False], ids=["inotify", "polling"])
def test_files_are_imported_as_they_are_written(
        tmp_path: Path, watching: Callable[..., Watching], use_inotify: bool) -> None:
    folder, root = tmp_path / "histories", tmp_path / "wh"
    folder.mkdir()
    table = session(1, 40)
    first, rest = table.with_hands(table.hands.head(20)), table.with_hands(table.hands.tail(20))
    log = folder / "table.jsonl"
    log.write_bytes(encoded(Format.JSONL, first))
    running = watching([folder], root, use_inotify=use_inotify)
    eventually(hands_are(root, 20), "the file there at the start")
    # A hand being written: held back until its line is complete, never rejected.
    text = encoded(Format.JSONL, rest)
    cut = text.index(b"\n") // 2
    with log.open("ab") as stream:
        stream.write(text[:cut])
    def last_import() -> dict[str, object]:
        imports = Warehouse.open(root).scan("imports").sort("commit_id").collect()
        return imports.filter(pl.col("file") == str(log.resolve())).row(-1, named=True)

    eventually(lambda: last_import()["size"] == log.stat().st_size,
               "the half-written hand looked at")
    assert stored_keys(root).height == 20
    assert last_import()["status"] == "partial"  # read again once it is complete
    with log.open("ab") as stream:
        stream.write(text[cut:])
    eventually(hands_are(root, 40), "the rest of the file")
    # New files in fpdb-3's shapes: its hand objects, an envelope, its database.
    fpdb = session(2, 30, site="SealsWithClubs")
    (folder / "more.json").write_bytes(encoded(Format.FPDB, fpdb.with_hands(fpdb.hands.head(10))))
    envelope = envelope_texts(fpdb.with_hands(fpdb.hands.slice(10, 1)))
    (folder / f"hand_{envelope['hand_id'][0]}.json").write_text(envelope["text"][0])
    write_database([fpdb.with_hands(fpdb.hands.slice(11, 9))], folder / "fpdb.db3")
    eventually(hands_are(root, 60), "three new files")
    write_database([fpdb.with_hands(fpdb.hands.tail(10))], folder / "fpdb.db3")
    eventually(hands_are(root, 70), "the database grown")
    summary = running.close()
    assert Warehouse.open(root).scan("rejects").collect().is_empty()
    assert (summary.hands_stored, summary.duplicates, summary.rejected) == (70, 0, 0)
    assert summary.wakeup == ("inotify" if use_inotify and sys.platform == "linux"
                              else "polling")
    # Imported again by a plain ingest: nothing new, nothing twice.
    again = ingest([folder], root)
    assert (again.hands_stored, again.files_read) == (0, 0)


def test_a_hand_still_half_written_when_the_watch_stops_is_reported_later(
        tmp_path: Path, watching: Callable[..., Watching]) -> None:
    log, root = tmp_path / "table.jsonl", tmp_path / "wh"
    text = encoded(Format.JSONL, session(8, 6))
    cut = len(text) - 200
    log.write_bytes(text[:cut])
    running = watching([log], root)
    eventually(hands_are(root, 5), "the whole hands")
    running.close()
    assert Warehouse.open(root).scan("rejects").collect().is_empty()  # held, not rejected
    later = ingest([log], root)  # its import was partial: read again, the hand reported
    assert (later.files_read, later.problems_by_kind) == (1, {"truncated": 1})
    with log.open("ab") as stream:
        stream.write(text[cut:])
    assert ingest([log], root).hands_stored == 1


def test_an_ingest_in_between_makes_the_import_start_over(tmp_path: Path) -> None:
    # The watch sorts hands into new and stored against what it loaded; another ingest
    # committing since makes that stale, so the import is not committed but read again.
    folder, root = tmp_path / "histories", tmp_path / "wh"
    folder.mkdir()
    (folder / "a.jsonl").write_bytes(encoded(Format.JSONL, session(3, 40)))
    (folder / "b.jsonl").write_bytes(encoded(Format.JSONL, session(4, 25, site="other")))
    store = Warehouse.open(root, create=True)
    stale = LiveView.load(store, lock_timeout=5)
    ingest([folder / "b.jsonl"], root)  # another process
    with pytest.raises(ConcurrentIngestError, match="another ingest committed hands"):
        ingest_live(store, [folder / "a.jsonl"], stale)
    assert stored_keys(root).height == 25  # nothing of the stale import was committed
    retried = ingest_live(store, [folder / "a.jsonl", folder / "b.jsonl"],
                          LiveView.load(store, 5))
    assert (retried.files_read, retried.files_unchanged, retried.hands_stored) == (1, 1, 40)
    assert hands_are(root, 65)()


def test_the_lock_is_held_only_while_committing(
        tmp_path: Path, watching: Callable[..., Watching]) -> None:
    folder, root = tmp_path / "histories", tmp_path / "wh"
    folder.mkdir()
    batch = session(4, 60)
    log = folder / "table.jsonl"
    log.write_bytes(encoded(Format.JSONL, batch.with_hands(batch.hands.head(30))))
    running = watching([log], root, lock_timeout=120)
    eventually(hands_are(root, 30), "the first hands")
    store = Warehouse.open(root)
    assert score_warehouse(store).hands == 30  # score takes the lock between commits
    with store.writing(timeout=WAIT):  # another writer holds the lock a while
        with log.open("ab") as stream:
            stream.write(encoded(Format.JSONL, batch.with_hands(batch.hands.tail(30))))
        time.sleep(1.0)
        assert stored_keys(root).height == 30  # the watch read them, and waits to commit
    eventually(hands_are(root, 60), "the hands committed once the lock is free")
    assert not running.retries
    assert score_warehouse(store).hands == 30


def test_a_csv_sheet_is_read_once_it_kept_its_size_for_a_look(tmp_path: Path) -> None:
    sheet, log = tmp_path / "home.csv", tmp_path / "table.jsonl"
    sheet.write_text("hand_id,started_at,player,top,middle,bottom\n")
    log.write_text("{}\n")
    files = _Files()
    assert files.changed([sheet, log])[0] == [log]  # JSON Lines hold back a cut hand
    assert files.changed([sheet, log])[0] == [sheet, log]  # the sheet kept its size
    files.read.update(files.changed([sheet, log])[1])
    with sheet.open("a") as stream:
        stream.write("h1,2026-03-01 20:00,ivey,2c 3c 4c,5d 6d 7d 8d 9d,Ts Js Qs Ks As\n")
    assert files.changed([sheet, log])[0] == []  # growing: not yet
    assert files.changed([sheet, log])[0] == [sheet]


@pytest.mark.skipif(sys.platform != "linux", reason="inotify is Linux's")
def test_inotify_wakes_the_watch_before_its_interval(tmp_path: Path) -> None:
    wakeup = Wakeup()
    assert wakeup.kind == "inotify"
    wakeup.watch([tmp_path])
    writer = threading.Timer(0.2, lambda: (tmp_path / "new.jsonl").write_text("{}\n"))
    writer.start()
    try:
        assert wakeup.wait(WAIT)  # woken by the write, not by the timeout
        assert not wakeup.wait(0.1)  # the events were taken
    finally:
        writer.join()
        wakeup.close()
    polling = Wakeup(use_inotify=False)
    assert (polling.kind, polling.wait(0.01)) == ("polling", False)


def run_cli(*arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ofc_stats", *arguments], capture_output=True,
                          text=True, timeout=WAIT, check=False)


@pytest.mark.slow
def test_watch_as_a_real_process(tmp_path: Path) -> None:
    folder, root = tmp_path / "histories", tmp_path / "wh"
    folder.mkdir()
    table = session(5, 30)
    log = folder / "table.jsonl"
    log.write_bytes(encoded(Format.JSONL, table.with_hands(table.hands.head(10))))
    process = subprocess.Popen(
        [sys.executable, "-m", "ofc_stats", "ingest", "--watch", str(folder), "-w", str(root),
         "--interval", "0.2", "--score"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True)
    printed: list[str] = []  # the import lines, as they come
    assert process.stdout is not None
    reader = threading.Thread(target=lambda: printed.extend(iter(process.stdout.readline, "")))
    reader.start()

    def counted() -> tuple[int, int] | None:
        # `query` runs beside the watch: the warehouse stays readable.
        done = run_cli("query", "SELECT count(*) AS n, count(DISTINCT (site, hand_id)) AS d "
                       "FROM hands", "-w", str(root), "--format", "json")
        if done.returncode != 0:
            return None
        row = json.loads(done.stdout)[0]
        return int(row["n"]), int(row["d"])

    def landed(count: int) -> Callable[[], bool]:
        return lambda: counted() == (count, count)

    try:
        latencies = [eventually(landed(10), "the hands there at the start")]
        text = encoded(Format.JSONL, table.with_hands(table.hands.tail(20)))
        cut = text.index(b"\n") + 40  # one hand whole, the next half-written
        with log.open("ab") as stream:
            stream.write(text[:cut])
        latencies.append(eventually(landed(11), "an appended hand"))
        with log.open("ab") as stream:
            stream.write(text[cut:])
        latencies.append(eventually(landed(30), "the half-written hand and the rest"))
        more = session(6, 15, site="SealsWithClubs")
        (folder / "fpdb.json").write_bytes(encoded(Format.FPDB, more))
        latencies.append(eventually(landed(45), "a new file"))
        assert process.poll() is None  # still watching
        # Each import's line comes once its hands are scored (--score).
        eventually(lambda: sum(int(line.split()[2]) for line in list(printed)) == 45,
                   "every import's line")
    finally:
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=WAIT)
        reader.join(WAIT)
    out = "".join(printed)
    assert process.returncode == 0, err
    assert "Traceback" not in err
    assert "Traceback" not in out
    assert re.search(r"stopped watching after \d+ s: \d+ imports, 45 hands stored\n$", err), err
    assert err.count("\n") == 2, err  # the start line and the stop line
    imported = [line for line in out.splitlines() if line]
    assert all(re.match(r"\d\d:\d\d:\d\d imported \d+ new hands? from \d+ files? \(", line)
               for line in imported), out
    assert sum(int(line.split()[2]) for line in imported) == 45
    # --score: each import's hands scored as they landed.
    assert sum(int(re.findall(r"; scored (\d+) hands?$", line)[0]) for line in imported) == 45
    scored = Warehouse.open(root).scan("player_hands", DEFAULT_SCORING).collect()
    assert scored.select("site", "hand_id").unique().height == 45
    print(f"seconds until each hand was in the warehouse: {latencies}")


@pytest.mark.slow
def test_watch_prints_a_json_object_per_import(tmp_path: Path) -> None:
    log = tmp_path / "table.jsonl"
    log.write_bytes(encoded(Format.JSONL, session(7, 12)))
    process = subprocess.Popen(
        [sys.executable, "-m", "ofc_stats", "ingest", "--watch", str(log), "-w",
         str(tmp_path / "wh"), "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True)
    try:
        assert process.stdout is not None
        first = json.loads(process.stdout.readline())
    finally:
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=WAIT)
    assert (first["hands_stored"], first["files_read"], first["scored"]) == (12, 1, None)
    assert (process.returncode, out) == (0, "")
    assert "stopped watching" in err


def test_watch_refuses_strict_and_missing_paths(tmp_path: Path) -> None:
    strict = run_cli("ingest", "--watch", "--strict", str(tmp_path), "-w", str(tmp_path / "w"))
    assert strict.returncode == 2
    assert "ofc-stats: error: --strict: does not go with --watch" in strict.stderr
    missing = run_cli("ingest", "--watch", str(tmp_path / "nowhere"), "-w", str(tmp_path / "w"))
    assert (missing.returncode, missing.stderr.strip()) == (
        2, f"ofc-stats: error: no such file or folder: {tmp_path / 'nowhere'}")
    assert "Traceback" not in missing.stderr + strict.stderr
