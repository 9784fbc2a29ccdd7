"""Telling the formats apart from a file's first bytes."""

from __future__ import annotations

import pytest

from ofc_stats.formats import Format, UnknownFormatError, format_of_name, sniff
from ofc_stats.formats.samples import sample_hands
from tests.test_formats_common import write

HEADS = {fmt: write(fmt, [sample_hands(5, 3, seed=3)])[:4096] for fmt in Format}


@pytest.mark.parametrize("fmt", list(Format))
@pytest.mark.parametrize("name", ["", "upload.bin", "hands.jsonl", "hands.txt", "hands.csv",
                                  "hands.json"])
def test_each_format_is_recognised_from_its_head_whatever_its_name(fmt: Format,
                                                                    name: str) -> None:
    assert sniff(HEADS[fmt], name) is fmt


@pytest.mark.parametrize("fmt", list(Format))
@pytest.mark.parametrize("encoding", ["utf-8-sig", "utf-16"])
def test_a_bom_or_utf16_does_not_hide_the_format(fmt: Format, encoding: str) -> None:
    text = HEADS[fmt].decode(errors="ignore")
    assert sniff(text.encode(encoding)) is fmt


def test_the_suffix_breaks_a_tie() -> None:
    # A hand in JSON without the ofc-hh tag or fpdb's keys could be either.
    head = b'{"hand_id": "1", "site": "x", "players": []}\n'
    assert sniff(head, "a.jsonl") is Format.JSONL
    assert sniff(head, "a.json.gz") is Format.FPDB
    assert sniff(head) is Format.JSONL


@pytest.mark.parametrize("head", [b"\x89PNG\r\n\x1a\n\x00\x00", b"<html><body>hands</body>",
                                  b"name,score\nann,3\n", b"Just some notes\n"])
def test_garbage_raises_naming_the_file(head: bytes) -> None:
    with pytest.raises(UnknownFormatError, match=r"notes\.txt: not a hand history"):
        sniff(head, "notes.txt")


def test_an_empty_file_takes_its_suffix_or_is_unknown() -> None:
    assert sniff(b"", "session.jsonl") is Format.JSONL
    assert sniff(b"\n\n", "today.txt.gz") is Format.TEXT
    with pytest.raises(UnknownFormatError, match="it is empty"):
        sniff(b"", "mystery")


@pytest.mark.parametrize(("name", "fmt"), [("a.JSONL", Format.JSONL), ("b.ndjson.xz", Format.JSONL),
                                          ("c.txt.zip", Format.TEXT), ("d.csv.bz2", Format.CSV),
                                          ("e.json", Format.FPDB), ("f.log", None),
                                          ("g", None)])
def test_format_of_name(name: str, fmt: Format | None) -> None:
    assert format_of_name(name) is fmt
