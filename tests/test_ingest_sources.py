"""Finding and opening sources, the prefix hash, hand keys and the dedupe index."""

from __future__ import annotations

import bz2
import gzip
import hashlib
import io
import lzma
import re
import zipfile
from pathlib import Path

import numpy as np
import numpy.typing as npt
import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ofc_stats.ingest import (
    DETAILS,
    HandIndex,
    IngestError,
    detail_matrix,
    differing_details,
    hand_keys,
    hash_strings,
)
from ofc_stats.ingest.sources import (
    ByteCounter,
    Compression,
    PrefixHashingStream,
    SourceError,
    find_files,
    list_sources,
    open_source,
    read_head,
)
from ofc_stats.warehouse.schemas import HAND_KEYS_SCHEMA, MONEY

CONTENT = b'{"hand": 1}\n{"hand": 2}\n' * 1000


def write(path: Path, data: bytes = CONTENT) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def test_folders_are_walked_for_history_files(tmp_path: Path) -> None:
    write(tmp_path / "in" / "b.jsonl")
    write(tmp_path / "in" / "a.txt")
    write(tmp_path / "in" / "deep" / "c.csv.gz", gzip.compress(CONTENT))
    write(tmp_path / "in" / "deep" / "d.zip", b"PK\x05\x06" + bytes(18))
    write(tmp_path / "in" / "notes.md")
    write(tmp_path / "in" / "picture.png")
    write(tmp_path / "in" / ".hidden.jsonl")
    write(tmp_path / "in" / ".cache" / "e.jsonl")
    write(tmp_path / "in" / "old-warehouse" / "hands" / "x.json")
    (tmp_path / "in" / "old-warehouse" / "_log").mkdir()
    files, ignored = find_files([tmp_path / "in"])
    assert [f.relative_to(tmp_path / "in").as_posix() for f in files] == [
        "a.txt", "b.jsonl", "deep/c.csv.gz", "deep/d.zip"]
    assert ignored == 2  # notes.md, picture.png
    assert all(f.is_absolute() for f in files)


def test_pipes_and_broken_links_in_a_folder_are_passed_over(tmp_path: Path) -> None:
    import os

    folder = tmp_path / "in"
    write(folder / "a.jsonl")
    os.mkfifo(folder / "live.jsonl")  # reading it would wait for a writer forever
    (folder / "loop.jsonl").symlink_to(folder / "loop.jsonl")
    (folder / "gone.jsonl").symlink_to(folder / "missing.jsonl")
    (folder / "linked.jsonl").symlink_to(folder / "a.jsonl")
    (folder / "up").symlink_to(folder, target_is_directory=True)
    files, ignored = find_files([folder])
    assert files == [(folder / "a.jsonl").resolve()]
    assert ignored == 3


def test_a_named_file_is_always_read_and_each_file_only_once(tmp_path: Path) -> None:
    notes = write(tmp_path / "notes.md")
    history = write(tmp_path / "h.jsonl")
    files, ignored = find_files([notes, history, tmp_path, str(history)])
    assert files == [notes.resolve(), history.resolve()]
    assert ignored == 0  # notes.md was found by the walk too, but named first


def test_globs_expand_and_recurse(tmp_path: Path) -> None:
    write(tmp_path / "2026" / "01" / "a.jsonl")
    write(tmp_path / "2026" / "02" / "b.jsonl")
    write(tmp_path / "2026" / "02" / "c.txt")
    files, _ = find_files([f"{tmp_path}/2026/**/*.jsonl"])
    assert [f.name for f in files] == ["a.jsonl", "b.jsonl"]


def test_the_warehouse_being_written_is_never_read(tmp_path: Path) -> None:
    write(tmp_path / "a.jsonl")
    write(tmp_path / "warehouse" / "imports" / "x.json")
    files, _ = find_files([tmp_path], exclude=tmp_path / "warehouse")
    assert [f.name for f in files] == ["a.jsonl"]


@pytest.mark.parametrize(("given", "message"), [
    ("missing.jsonl", "no such file or folder: missing.jsonl"),
    ("nothing-*.jsonl", "no files match nothing-*.jsonl"),
])
def test_paths_that_name_nothing_are_user_errors(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, given: str, message: str) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SourceError, match=re.escape(message)) as caught:
        find_files([given])
    assert caught.value.exit_code == 2


COMPRESSORS = {
    Compression.NONE: lambda data: data,
    Compression.GZIP: gzip.compress,
    Compression.BZIP2: bz2.compress,
    Compression.XZ: lzma.compress,
}


@pytest.mark.parametrize("compression", list(COMPRESSORS))
def test_compressed_files_are_told_by_their_bytes_and_read_in_place(
        tmp_path: Path, compression: Compression) -> None:
    # The name says nothing: the magic bytes decide.
    path = write(tmp_path / "history.dat", COMPRESSORS[compression](CONTENT))
    [source] = list_sources(path)
    assert source.compression is compression
    assert (source.size, source.member) == (path.stat().st_size, None)
    counter = ByteCounter()
    with open_source(source, counter) as stream:
        assert stream.read() == CONTENT
    assert counter.count == path.stat().st_size
    assert read_head(source, 11) == CONTENT[:11]


def test_every_member_of_a_zip_is_a_source(tmp_path: Path) -> None:
    path = tmp_path / "histories.zip"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("b/second.jsonl", CONTENT[:24])
        archive.writestr("a.txt", CONTENT)
        archive.writestr("b/", "")  # a folder entry
        archive.writestr("__MACOSX/._a.txt", "resource fork")
        archive.writestr("b/.DS_Store", "finder")
    sources = list_sources(path)
    assert [s.member for s in sources] == ["a.txt", "b/second.jsonl"]
    assert sources[1].name == f"{path}!b/second.jsonl"
    assert {s.compression for s in sources} == {Compression.ZIP}
    with open_source(sources[1], ByteCounter()) as stream:
        assert stream.read() == CONTENT[:24]


def test_a_corrupt_zip_directory_raises_for_ingest_to_report(tmp_path: Path) -> None:
    path = write(tmp_path / "broken.zip", b"PK\x03\x04" + b"\x00" * 40)
    with pytest.raises(zipfile.BadZipFile):
        list_sources(path)


def test_inner_name_drops_the_compression_suffix(tmp_path: Path) -> None:
    path = write(tmp_path / "day.jsonl.gz", gzip.compress(CONTENT))
    [source] = list_sources(path)
    assert source.inner_name == str(path)[:-3]


# -- the prefix hash -------------------------------------------------------------------


@given(data=st.binary(max_size=3000), reads=st.lists(st.integers(1, 700), max_size=20),
       marks=st.lists(st.integers(0, 3000), max_size=8))
def test_the_digest_covers_exactly_the_bytes_before_the_mark(
        data: bytes, reads: list[int], marks: list[int]) -> None:
    stream = PrefixHashingStream(io.BytesIO(data))
    position = 0
    waiting = sorted(marks)
    for size in reads:
        position += len(stream.read(size))
        # A reader reports batch ends behind what it has read: move the mark there.
        while waiting and waiting[0] <= position:
            stream.advance(waiting.pop(0))
            assert stream.digest() == hashlib.sha256(data[:stream.mark]).hexdigest()
    assert stream.tell() == position
    assert stream.digest() == hashlib.sha256(data[:stream.mark]).hexdigest()


@pytest.mark.parametrize(("appended", "rewritten", "matches"), [
    (b"more hands\n", False, True),
    (b"", False, True),
    (b"more hands\n", True, False),
])
def test_a_grown_file_is_checked_against_the_bytes_read_before(
        appended: bytes, rewritten: bool, matches: bool) -> None:
    before = CONTENT[:500]
    now = (b"X" + before[1:] if rewritten else before) + appended
    stream = PrefixHashingStream(io.BytesIO(now), check_offset=len(before))
    while stream.read(64):
        pass
    assert (stream.check_digest == hashlib.sha256(before).hexdigest()) is matches
    stream.advance(len(now))
    assert stream.digest() == hashlib.sha256(now).hexdigest()


def test_a_shorter_file_cannot_match() -> None:
    stream = PrefixHashingStream(io.BytesIO(b"short"), check_offset=100)
    assert stream.read() == b"short"
    assert stream.check_digest is None


def test_readinto_and_a_buffered_wrapper_hash_the_same() -> None:
    stream = PrefixHashingStream(io.BytesIO(CONTENT))
    assert io.BufferedReader(stream, buffer_size=100).read() == CONTENT
    stream.advance(len(CONTENT))
    assert stream.digest() == hashlib.sha256(CONTENT).hexdigest()


def test_the_hash_is_given_up_rather_than_memory() -> None:
    stream = PrefixHashingStream(io.BytesIO(CONTENT), max_pending=1000)
    stream.read(999)
    assert stream.digest() is not None
    stream.read(2)
    assert stream.digest() is None
    stream.advance(1001)  # harmless once given up
    assert stream.digest() is None


# -- keys ------------------------------------------------------------------------------


def test_string_hashes_are_fixed_values() -> None:
    # Stored in every warehouse's hand_keys: these values must never change.
    values = hash_strings(pl.Series(["", "a", "home\x1fh1", "12345678", "123456789",
                                     "ÄÖÜ ♠ 7h", None]))
    assert [hex(int(v)) for v in values] == [
        "0x88e36d9b92b3b8df", "0x37adde8ca8116cf2", "0x1b9491adbca5d389",
        "0xb06ebfffbd8bde02", "0x56562aa9f1c56c84", "0xc1fa7275dfadfab",
        "0x88e36d9b92b3b8df"]  # a null hashes as the empty string


@given(st.lists(st.text(max_size=40), min_size=1, max_size=50), st.integers(0, 49))
def test_string_hashes_do_not_depend_on_the_batch(texts: list[str], start: int) -> None:
    start = min(start, len(texts) - 1)
    whole = hash_strings(pl.Series(texts, dtype=pl.String))
    sliced = hash_strings(pl.Series(texts, dtype=pl.String).slice(start))
    chunked = hash_strings(pl.concat([pl.Series(texts[:start], dtype=pl.String),
                                      pl.Series(texts[start:], dtype=pl.String)],
                                     rechunk=False))
    single = np.array([hash_strings(pl.Series([t]))[0] for t in texts], dtype=np.uint64)
    assert (whole[start:] == sliced).all()
    assert (whole == chunked).all()
    assert (whole == single).all()


def test_string_hashes_tell_a_million_ids_apart() -> None:
    ids = pl.Series([f"site\x1f{n}" for n in range(1_000_000)])
    assert len(np.unique(hash_strings(ids))) == 1_000_000


def hands_with_seats(points: list[int | None], *, point_values: tuple[str | None, ...] = (
        "5", None), currencies: tuple[str | None, ...] = ("EUR", None),
        buttons: tuple[int | None, ...] = (2, None), royalties: list[int | None] | None = None
        ) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Two copies of hand h1 (two seats each), their seats listed hand by hand."""
    hands = pl.DataFrame({
        "site": ["home", "home"], "hand_id": ["h1", "h1"],
        "content_hash": ["ffffffffffffffff" + "0" * 16, "0" * 31 + "1"], "players": [2, 2],
        "point_value": list(point_values), "currency": list(currencies),
        "button_seat": list(buttons)},
        schema_overrides={"players": pl.Int8, "point_value": pl.String,
                          "currency": pl.String, "button_seat": pl.Int8},
    ).with_columns(pl.col("point_value").cast(MONEY))
    seats = pl.DataFrame({
        "site": ["home"] * 4, "hand_id": ["h1"] * 4, "seat": [1, 2, 1, 2],
        "reported_points": points, "reported_royalties": royalties or [None] * 4},
        schema_overrides={"seat": pl.Int8, "reported_points": pl.Int32,
                          "reported_royalties": pl.Int32})
    return hands, seats


def test_hand_keys_pair_the_identity_with_the_content_and_details() -> None:
    keys = hand_keys(*hands_with_seats([5, -5, None, None]))
    assert keys.schema == HAND_KEYS_SCHEMA
    assert keys["key"][0] == keys["key"][1] == hash_strings(pl.Series(["home\x1fh1"]))[0]
    assert keys["content"].to_list() == [2**64 - 1, 0]
    # The first copy records points, stakes and button; the second none of them.
    assert keys.select(list(DETAILS)).null_count().row(0) == (1, 2, 1, 1)
    assert (detail_matrix(keys)[1] == 0).all()
    assert (detail_matrix(keys)[0] != 0).tolist() == [True, False, True, True]


def test_detail_fingerprints_are_fixed_values() -> None:
    # Stored in every warehouse's hand_keys: these values must never change.
    keys = hand_keys(*hands_with_seats([5, -5, None, None], royalties=[0, 12, None, None]))
    assert [hex(v) for v in keys.select(list(DETAILS)).row(0)] == [
        "0xd9f6a8e1b5d3e589", "0xfb98b28ca6af5174", "0x5e1509360a692c03", "0x4a62f0768bc7805b"]


def details_of(points: list[int | None], **changes: tuple[object, ...]
               ) -> npt.NDArray[np.uint64]:
    return detail_matrix(hand_keys(*hands_with_seats(points, **changes)))[0]  # type: ignore[arg-type]


def test_detail_fingerprints_tell_what_changed() -> None:
    base = details_of([5, -5, 0, 0])
    assert (details_of([5, -5, 1, 1]) == base).all()  # the second copy does not count
    assert differing_details(details_of([6, -6, 0, 0])[None], base[None]).tolist() == [1]
    assert differing_details(details_of([-5, 5, 0, 0])[None], base[None]).tolist() == [1]
    assert differing_details(details_of([5, None, 0, 0])[None], base[None]).tolist() == [1]
    assert differing_details(details_of([5, -5, 0, 0], point_values=("50", None))[None],
                             base[None]).tolist() == [4]
    assert differing_details(details_of([5, -5, 0, 0], currencies=("USD", None))[None],
                             base[None]).tolist() == [4]
    assert (details_of([5, -5, 0, 0], point_values=("5.000000", None)) == base).all()
    assert differing_details(details_of([6, -6, 0, 0], buttons=(1, None))[None],
                             base[None]).tolist() == [1 + 8]
    # Not recorded on one side: not compared.
    unknown = details_of([None, None, 0, 0], point_values=(None, None),
                         currencies=(None, None), buttons=(None, None))
    assert (unknown == 0).all()
    assert differing_details(unknown[None], base[None]).tolist() == [0]


def test_seats_are_matched_by_position_or_by_hand() -> None:
    hands, seats = hands_with_seats([5, -5, 6, -6])
    by_position = hand_keys(hands, seats)
    assert by_position["points"][0] != by_position["points"][1]
    # Distinct hands: the seats' order does not matter.
    distinct = hands.with_columns(pl.Series("hand_id", ["h1", "h2"]))
    seats = seats.with_columns(pl.Series("hand_id", ["h1", "h1", "h2", "h2"]))
    in_order = hand_keys(distinct, seats)
    assert hand_keys(distinct, seats.reverse())["points"].equals(in_order["points"])
    assert in_order["points"].equals(by_position["points"])
    # Copies of one hand whose seats are not listed hand by hand cannot be told apart.
    with pytest.raises(IngestError, match="internal"):
        hand_keys(hands, hands_with_seats([5, -5, 6, -6])[1].slice(1))


def test_the_index_finds_keys_across_its_parts() -> None:
    def frame(keys: list[int], contents: list[int]) -> pl.DataFrame:
        return pl.DataFrame({"key": keys, "content": contents,
                             **{name: [c * 10 + column or None for c in contents]
                                for column, name in enumerate(DETAILS)}},
                            schema=HAND_KEYS_SCHEMA)

    index = HandIndex(frame([30, 10, 20], [3, 1, 2]))
    for n in range(HandIndex.MAX_PARTS + 2):  # forces a merge of the parts
        index.add(frame([100 + n], [n]))
    index.add(frame([], []))
    found, contents, details = index.lookup(
        np.array([10, 15, 30, 105, 100, 2**64 - 1, 0], dtype=np.uint64))
    assert found.tolist() == [True, False, True, True, True, False, False]
    assert contents[found].tolist() == [1, 3, 5, 0]
    assert details[found].tolist() == [[10, 11, 12, 13], [30, 31, 32, 33], [50, 51, 52, 53],
                                       [0, 1, 2, 3]]  # null is 0
    assert (details[~found] == 0).all()
    assert len(index) == 3 + HandIndex.MAX_PARTS + 2
    empty = HandIndex(frame([], []))
    assert empty.lookup(np.array([1], dtype=np.uint64))[0].tolist() == [False]
