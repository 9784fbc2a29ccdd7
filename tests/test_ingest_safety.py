"""Bad input that used to hurt: names that are not UTF-8, a line of a gigabyte, links
out of a folder, named pipes."""

from __future__ import annotations

import gzip
import os
import resource
import subprocess
import sys
import threading
from pathlib import Path

import polars as pl
import pytest

from ofc_stats.formats import Format, get_writer
from ofc_stats.formats.samples import sample_hands
from ofc_stats.formats.streaming import MAX_HAND_BYTES
from ofc_stats.ingest import SourceError, ingest
from ofc_stats.ingest.sources import path_bytes
from ofc_stats.warehouse import Warehouse

ROOT = Path(__file__).resolve().parent.parent


def history(fmt: Format, hands: int, seed: int) -> bytes:
    import io

    buffer = io.BytesIO()
    get_writer(fmt).write([sample_hands(hands, seed=seed)], buffer)
    return buffer.getvalue()


def rejects(warehouse: Path) -> pl.DataFrame:
    return Warehouse.open(warehouse).scan("rejects").collect()


def stored(warehouse: Path) -> int:
    return Warehouse.open(warehouse).scan("hands").select(pl.len()).collect().item()


def test_a_name_that_is_not_utf8_is_stored_losslessly_and_everything_imports(
        tmp_path: Path) -> None:
    folder = tmp_path / "histories"
    folder.mkdir()
    odd = os.fsencode(folder) + b"/caf\xe9 \\ night.jsonl"  # Latin-1, and a backslash
    with open(odd, "wb") as handle:
        handle.write(history(Format.JSONL, 5, seed=1))
    (folder / "plain.jsonl").write_bytes(history(Format.JSONL, 5, seed=2))
    summary = ingest([folder], tmp_path / "warehouse")
    assert summary.hands_stored == 10
    assert summary.files_read == 2
    names = set(Warehouse.open(tmp_path / "warehouse").scan("hands")
                .select("source_file").unique().collect()["source_file"])
    assert len(names) == 2
    odd_name = next(name for name in names if "caf" in name)
    assert odd_name.endswith("caf\\xe9 \\\\ night.jsonl")
    assert path_bytes(odd_name) == odd  # the exact bytes come back
    again = ingest([folder], tmp_path / "warehouse")
    assert again.files_unchanged == 2  # the manifest knows it by that name


def test_a_line_too_long_for_a_hand_is_set_aside_and_reading_goes_on(tmp_path: Path) -> None:
    before = history(Format.JSONL, 3, seed=3)
    after = history(Format.JSONL, 3, seed=4)
    huge = b'{"site": "x", "hand_id": "huge", "pad": "' + b"a" * (MAX_HAND_BYTES + 1) + b'"}\n'
    path = tmp_path / "night.jsonl"
    path.write_bytes(before + huge + after)
    summary = ingest([path], tmp_path / "warehouse")
    assert summary.hands_stored == 6
    problems = rejects(tmp_path / "warehouse")
    assert problems["kind"].to_list() == ["too large"]
    assert problems["line"].to_list() == [4]
    assert "set aside unread" in problems["reason"][0]
    assert len(problems["raw"][0]) == 1024
    lines = Warehouse.open(tmp_path / "warehouse").scan("hands").select(
        "source_line").collect()["source_line"].to_list()
    assert sorted(lines) == [1, 2, 3, 5, 6, 7]  # line numbers stay right past it


def test_a_hand_too_long_that_is_not_one_line_stops_the_file_there(tmp_path: Path) -> None:
    good = history(Format.TEXT, 3, seed=5)
    header = good.split(b"\n", 1)[0].replace(b"Hand #", b"Hand #huge")
    endless = header + b"\n" + b"Seat 9: padding\n" * (MAX_HAND_BYTES // 16 + 1)
    path = tmp_path / "night.txt"
    path.write_bytes(good + b"\n" + endless)
    summary = ingest([path], tmp_path / "warehouse")
    assert summary.hands_stored == 3
    problems = rejects(tmp_path / "warehouse")
    assert problems["kind"].to_list() == ["too large"]
    assert "runs on for more than 16 MiB" in problems["reason"][0]


@pytest.mark.slow
def test_one_gigabyte_line_in_a_small_gzip_keeps_memory_bounded(tmp_path: Path) -> None:
    """1 MiB of .jsonl.gz holding a 1 GiB line: it used to take the line whole and abort."""
    good = history(Format.JSONL, 10, seed=6).splitlines(keepends=True)
    huge = tmp_path / "huge" / "night.jsonl.gz"
    huge.parent.mkdir()
    with gzip.open(huge, "wb", compresslevel=1) as out:
        out.writelines(good[:5])
        out.write(b'{"site": "x", "hand_id": "huge", "pad": "')
        block = b"a" * (1 << 20)
        for _ in range(1024):
            out.write(block)
        out.write(b'"}\n')
        out.writelines(good[5:])
    assert huge.stat().st_size < 8 << 20
    small = tmp_path / "small" / "night.jsonl"
    small.parent.mkdir()
    small.write_bytes(b"".join(good))

    def peak_of_ingest(folder: Path, warehouse: Path) -> int:
        """Peak resident memory (KiB) of ``ofc-stats ingest`` run as its own process."""
        result = {}

        def run() -> None:  # in a thread: RUSAGE_CHILDREN then counts this child only
            process = subprocess.run([sys.executable, "-m", "ofc_stats", "ingest", str(folder),
                                      "-w", str(warehouse)], cwd=ROOT, capture_output=True,
                                     text=True, check=False)
            result["code"] = process.returncode
            result["errors"] = process.stderr

        before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        worker = threading.Thread(target=run)
        worker.start()
        worker.join()
        assert result["code"] == 0, result["errors"]
        return max(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, before)

    baseline = peak_of_ingest(small.parent, tmp_path / "w-small")
    peak = peak_of_ingest(huge.parent, tmp_path / "w-huge")
    assert stored(tmp_path / "w-huge") == 10
    assert rejects(tmp_path / "w-huge")["kind"].to_list() == ["too large"]
    # The line is streamed past: memory grows by what a batch holds, not by the line.
    assert peak - baseline < 256 * 1024, (peak, baseline)


def test_links_out_of_a_folder_are_not_followed_unless_asked(tmp_path: Path) -> None:
    folder = tmp_path / "histories"
    folder.mkdir()
    (folder / "inside.jsonl").write_bytes(history(Format.JSONL, 4, seed=7))
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "other.jsonl").write_bytes(history(Format.JSONL, 4, seed=8))
    (folder / "passwd.txt").symlink_to("/etc/passwd")
    (folder / "other.jsonl").symlink_to(outside / "other.jsonl")
    (folder / "again.jsonl").symlink_to(folder / "inside.jsonl")  # inside: read once
    (folder / "far").symlink_to(outside, target_is_directory=True)
    summary = ingest([folder], tmp_path / "warehouse")
    assert summary.hands_stored == 4
    assert summary.links_skipped == 3
    assert "3 links out of the folder not followed" in summary.report()
    assert rejects(tmp_path / "warehouse").is_empty()  # nothing of /etc/passwd anywhere
    followed = ingest([folder], tmp_path / "followed", follow_links=True)
    assert followed.hands_stored == 8
    assert followed.links_skipped == 0


def test_a_named_pipe_is_refused_not_waited_for(tmp_path: Path) -> None:
    pipe = tmp_path / "pipe.jsonl"
    os.mkfifo(pipe)
    with pytest.raises(SourceError, match="is a named pipe"):
        ingest([pipe], tmp_path / "warehouse")
    folder = tmp_path / "folder"
    folder.mkdir()
    os.mkfifo(folder / "pipe.jsonl")
    (folder / "real.jsonl").write_bytes(history(Format.JSONL, 2, seed=9))
    summary = ingest([folder], tmp_path / "warehouse")  # in a folder: ignored
    assert summary.hands_stored == 2
    assert summary.files_ignored == 1
