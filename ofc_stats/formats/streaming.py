"""Streaming a history file in bounded chunks of whole lines.

Readers never load a file whole. :class:`ByteSource` reads a few MB at a time and
hands the reader the complete lines it holds as a :class:`TextChunk`; whatever the
reader does not consume (the start of a hand that continues past the chunk) stays
in the buffer and is read again with the next chunk. Along the way it

- detects the encoding: UTF-8 with or without a byte-order mark, UTF-16 LE/BE
  (with a BOM, or ASCII-looking text with every other byte zero), and transcodes
  UTF-16 to UTF-8 so every reader only ever sees UTF-8;
- replaces bytes that are not valid in the encoding (one ``?`` per invalid UTF-8
  byte, so positions stay exact) and tells the reader where they were;
- maps every position of a chunk back to its byte offset in the source and to its
  1-based line number, also when reading starts at an offset.
"""

from __future__ import annotations

import codecs
import lzma
import zipfile
import zlib
from dataclasses import dataclass
from enum import StrEnum
from functools import cached_property
from typing import BinaryIO

import numpy as np
import numpy.typing as npt
import polars as pl
import pyarrow as pa  # type: ignore[import-untyped]

CHUNK_BYTES = 4 << 20
# Reads from the stream are at most this big: a damaged archive's decompressor fails
# on the read that reaches the damage, and whatever that read had unpacked may be lost.
READ_PIECE_BYTES = 256 * 1024
# What a decompressor raises on damaged bytes (a cut or corrupt archive).
ARCHIVE_ERRORS: tuple[type[Exception], ...] = (
    EOFError, zlib.error, lzma.LZMAError, zipfile.BadZipFile)
# What a stream raises when its bytes are damaged or the disk fails: the bytes before
# it are read, then it is raised (see ByteSource).
STREAM_ERRORS: tuple[type[Exception], ...] = (*ARCHIVE_ERRORS, OSError)
HEAD_BYTES = 64 * 1024
# The most a line, or a hand, may take: a hand is a few kilobytes. A longer line is
# set aside unread as ``too large`` (streamed past, memory bounded); a hand longer
# than this that is not one line stops the file's reading there (HandTooLargeError).
MAX_HAND_BYTES = 16 << 20
TOO_LARGE_HEAD = 1024  # of a line set aside, the bytes kept (in ``rejects.raw``)
NEWLINE = 10
REPLACEMENT = "?"  # stands for one undecodable byte: one byte in UTF-8 too

Positions = npt.NDArray[np.int64]


def _replace_bytes(error: UnicodeError) -> tuple[str, int]:
    assert isinstance(error, UnicodeDecodeError)
    return REPLACEMENT * (error.end - error.start), error.end


_REPLACE_BYTES = "ofc-stats-replace-bytes"
codecs.register_error(_REPLACE_BYTES, _replace_bytes)


class Encoding(StrEnum):
    """Text encodings a history file may use."""

    UTF8 = "utf-8"
    UTF16_LE = "utf-16-le"
    UTF16_BE = "utf-16-be"


_BOMS = ((codecs.BOM_UTF8, Encoding.UTF8), (codecs.BOM_UTF16_LE, Encoding.UTF16_LE),
         (codecs.BOM_UTF16_BE, Encoding.UTF16_BE))


def detect_encoding(head: bytes) -> tuple[Encoding, int]:
    """The encoding of a file from its first bytes, and the length of its BOM.

    >>> detect_encoding(b"\\xef\\xbb\\xbf{}"), detect_encoding("Hi".encode("utf-16-le"))
    ((<Encoding.UTF8: 'utf-8'>, 3), (<Encoding.UTF16_LE: 'utf-16-le'>, 0))
    """
    for bom, encoding in _BOMS:
        if head.startswith(bom):
            return encoding, len(bom)
    if len(head) >= 4 and head[0] and not head[1] and head[2] and not head[3]:
        return Encoding.UTF16_LE, 0
    if len(head) >= 4 and not head[0] and head[1] and not head[2] and head[3]:
        return Encoding.UTF16_BE, 0
    return Encoding.UTF8, 0


def decode_head(head: bytes) -> str:
    """A file's first bytes as text, whatever its encoding (for sniffing)."""
    encoding, bom = detect_encoding(head)
    if encoding is not Encoding.UTF8:
        head = head[:len(head) - (len(head) - bom) % 2]
    return head[bom:].decode(encoding, errors="replace")


class HandTooLargeError(ValueError):
    """A hand longer than ``MAX_HAND_BYTES`` that is not one line: where it starts."""

    def __init__(self, line: int, offset: int) -> None:
        self.line = line
        self.offset = offset
        super().__init__(
            f"a hand at line {line:,} (byte {offset:,}) runs on for more than "
            f"{MAX_HAND_BYTES >> 20} MiB, more than any hand takes: the file is not read "
            "past it")


@dataclass(frozen=True)
class Oversized:
    """A line longer than ``MAX_HAND_BYTES``, skipped unread."""

    line: int  # its line number
    offset: int  # the source offset of its first byte
    size: int  # its bytes, the line break included
    head: str  # its first bytes, as text

    @property
    def reason(self) -> str:
        """Why it was set aside."""
        return (f"a line of {self.size:,} bytes: longer than the {MAX_HAND_BYTES >> 20} MiB "
                "a hand may take, set aside unread")


class TextChunk:
    """Complete lines of a source as valid UTF-8, and where they came from.

    ``data`` ends with a newline unless ``at_eof`` (the source's last line may lack
    one). Positions are indexes into ``data``; :meth:`offsets` and
    :meth:`line_numbers` map them back to the source.
    """

    def __init__(self, data: bytes, start: int, first_line: int, at_eof: bool,
                 bad: Positions, encoding: Encoding) -> None:
        self.data = data
        self.start = start  # source offset of data[0]
        self.first_line = first_line  # line number of data[0]
        self.at_eof = at_eof
        self.bad = bad  # positions of bytes that were not valid in the source
        self.encoding = encoding

    @cached_property
    def array(self) -> npt.NDArray[np.uint8]:
        """``data`` as a numpy byte array (no copy)."""
        return np.frombuffer(self.data, dtype=np.uint8)

    @cached_property
    def newlines(self) -> Positions:
        """Positions of the newline bytes."""
        return np.flatnonzero(self.array == NEWLINE).astype(np.int64)

    @cached_property
    def _utf16_units(self) -> Positions:
        # UTF-16 code units before each position: 1 per character, 2 for a
        # character outside the BMP (a 4-byte UTF-8 sequence); continuation bytes 0.
        lead = (self.array & 0xC0) != 0x80
        units = lead.astype(np.int64) + (self.array >= 0xF0)
        return np.concatenate(([0], np.cumsum(units)))

    def offsets(self, positions: Positions) -> Positions:
        """Byte offsets in the source of positions in ``data`` (``len(data)`` allowed)."""
        if self.encoding is Encoding.UTF8:
            return self.start + positions
        return self.start + 2 * self._utf16_units[positions]

    def source_length(self, size: int) -> int:
        """Bytes of the source that ``data[:size]`` came from."""
        return int(self.offsets(np.array([size], dtype=np.int64))[0]) - self.start

    def line_numbers(self, positions: Positions) -> Positions:
        """1-based line numbers of positions in ``data``."""
        return self.first_line + np.searchsorted(self.newlines, positions).astype(np.int64)

    def line_starts(self) -> Positions:
        """Start position of every line (a final line without newline included)."""
        starts = np.concatenate(([0], self.newlines + 1)).astype(np.int64)
        return starts if self.data and self.data[-1] != NEWLINE else starts[:-1]

    def lines(self) -> pl.DataFrame:
        """One row per line: ``pos`` and ``end`` (positions in ``data``, ``end`` after
        the newline), ``line`` (number) and ``text`` (without ``\\r\\n``)."""
        starts = self.line_starts()
        ends = np.append(starts[1:], len(self.data)).astype(np.int64)
        return pl.DataFrame({
            "pos": starts, "end": ends, "line": self.first_line + np.arange(len(starts)),
            "text": strings_between(self.data, starts, ends),
        }).with_columns(pl.col("text").str.strip_chars_end("\r\n"))

    def texts(self, starts: Positions, ends: Positions) -> pl.Series:
        """The text of ``data[start:end]`` for each pair (contiguous spans, no copy)."""
        return strings_between(self.data, starts, ends)


def valid_utf8(data: bytes) -> tuple[bytes, Positions]:
    """``data`` with each byte that is not valid UTF-8 replaced by ``?`` (so every
    position stays where it was), and the positions replaced."""
    # Arrow checks the bytes in place, where decoding builds a str of them (20 times
    # slower on a chunk of text beyond ASCII).
    text = pa.LargeStringArray.from_buffers(
        1, pa.py_buffer(np.array([0, len(data)], dtype=np.int64)), pa.py_buffer(data))
    try:
        text.validate(full=True)
        return data, np.zeros(0, dtype=np.int64)
    except pa.ArrowInvalid:
        pass
    # Rare path: one "?" per invalid byte keeps every position where it was.
    text = data.decode("utf-8", errors=_REPLACE_BYTES).encode()
    changed = np.frombuffer(text, dtype=np.uint8) != np.frombuffer(data, dtype=np.uint8)
    return text, np.flatnonzero(changed).astype(np.int64)


def strings_between(data: bytes, starts: Positions, ends: Positions) -> pl.Series:
    """A String Series of ``data[start:end]`` for each pair of positions, without copying.

    The spans must be in order and must not overlap; ``data`` must be valid UTF-8
    and every position on a character boundary.
    """
    if len(starts) == 0:
        return pl.Series("text", [], dtype=pl.String)
    buffer = pa.py_buffer(data)
    if len(starts) == 1 or np.array_equal(starts[1:], ends[:-1]):
        offsets = np.append(starts, ends[-1]).astype(np.int64)
        array = pa.LargeStringArray.from_buffers(len(starts), pa.py_buffer(offsets), buffer)
        return pl.Series("text", array)
    # Spans with gaps between them: every other string of this array is a span.
    offsets = np.empty(2 * len(starts), dtype=np.int64)
    offsets[0::2], offsets[1::2] = starts, ends
    interleaved = pa.LargeStringArray.from_buffers(
        2 * len(starts) - 1, pa.py_buffer(offsets), buffer)
    return pl.Series("text", interleaved).gather_every(2)


def string_buffers(strings: pl.Series) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.uint8]]:
    """The Arrow offsets (one more than there are strings) and UTF-8 bytes of a String
    Series, without copying them: string ``i`` is ``data[offsets[i]:offsets[i + 1]]``
    (a null reads as empty). The inverse of :func:`strings_between`."""
    array = strings.rechunk().to_arrow(compat_level=pl.CompatLevel.oldest())  # large_string
    _, offset_buffer, data_buffer = array.buffers()
    offsets = np.frombuffer(offset_buffer, dtype=np.int64)[
        array.offset:array.offset + len(array) + 1]
    data = (np.frombuffer(data_buffer, dtype=np.uint8) if data_buffer is not None
            else np.zeros(0, dtype=np.uint8))
    return offsets, data


class ByteSource:
    """Reads a binary stream in chunks of whole lines, from ``start_offset`` on.

    Use :meth:`next_chunk` and :meth:`consume` in turn: the reader consumes the
    bytes of the hands it parsed; the rest is offered again with more data. A reader
    that consumes nothing gets a bigger chunk next time (a hand longer than a chunk).
    At the end of the stream the reader must consume everything.

    If the stream fails part-way (a damaged archive), the bytes before the failure
    are offered as the end of the stream, then :meth:`next_chunk` raises the error:
    the hands before the damage are read, and the failure is still reported.
    """

    def __init__(self, stream: BinaryIO, start_offset: int = 0,
                 chunk_bytes: int = CHUNK_BYTES, *, whole_lines: bool = True) -> None:
        self._stream = stream
        self._read_piece = getattr(stream, "read1", stream.read)
        # False: chunks may end inside a line (for formats whose hands span lines, or
        # share one, as a JSON list on a single line does). A reader may change it
        # once it has seen the file's first bytes (``file_head``).
        self.whole_lines = whole_lines
        self._chunk_bytes = max(64, chunk_bytes - chunk_bytes % 2)  # even: UTF-16 units
        self._buffer = bytearray()  # source bytes (UTF-8) or transcoded UTF-8 (UTF-16)
        self._eof = False
        self._failure: Exception | None = None
        self._wanted = self._chunk_bytes
        self.oversized: list[Oversized] = []  # lines skipped, not yet taken
        raw = self._read(HEAD_BYTES)
        self.encoding, bom = detect_encoding(raw)
        # The file's first bytes as UTF-8, whatever start_offset is (CSV headers).
        self.file_head = decode_head(raw).encode()
        self._decoder = (codecs.getincrementaldecoder(self.encoding)(errors="replace")
                         if self.encoding is not Encoding.UTF8 else None)
        # Skip the BOM and everything before start_offset, counting its lines so
        # that line numbers stay those of the whole file.
        skip_to = max(start_offset, bom)
        position, newlines = 0, 0  # source offset of raw[0]
        while position + len(raw) < skip_to and not self._eof:
            newlines += self._count_newlines(raw[max(0, bom - position):])
            position += len(raw)
            raw = self._read(self._chunk_bytes)
        cut = min(skip_to - position, len(raw))
        newlines += self._count_newlines(raw[max(0, bom - position):cut])
        self._start = position + cut  # source offset of _buffer[0]
        self._line = 1 + newlines  # line number of _buffer[0]
        self._append(raw[cut:])

    def _read(self, size: int) -> bytes:
        """``size`` bytes, fewer only at the end (streams may return short reads)."""
        parts = []
        while size > 0 and not self._eof:
            try:
                # read1 where there is one: a decompressor's read(n) throws away what it
                # had unpacked when it then hits damage; read1 hands over each piece.
                data = self._read_piece(min(size, READ_PIECE_BYTES))
            except STREAM_ERRORS as error:
                self._eof, self._failure = True, error
                break
            if not data:
                self._eof = True
                break
            parts.append(data)
            size -= len(data)
        return b"".join(parts)

    def _count_newlines(self, data: bytes) -> int:
        if self.encoding is Encoding.UTF8:
            return data.count(b"\n")
        units = np.frombuffer(data[:len(data) // 2 * 2],
                              dtype="<u2" if self.encoding is Encoding.UTF16_LE else ">u2")
        return int(np.count_nonzero(units == NEWLINE))

    def _append(self, raw: bytes) -> None:
        if self._decoder is None:
            self._buffer += raw
        else:
            self._buffer += self._decoder.decode(raw, final=self._eof).encode()

    def _fill(self) -> None:
        while not self._eof and len(self._buffer) < self._wanted:
            self._append(self._read(self._wanted - len(self._buffer)))
        if self._eof and self._decoder is not None:
            self._append(b"")  # flush the decoder

    def next_chunk(self) -> TextChunk | None:
        """The complete lines buffered (reading more first if needed), or None at the end.

        A line longer than ``MAX_HAND_BYTES`` is skipped unread (see :attr:`oversized`).

        Raises:
            HandTooLargeError: the reader consumed nothing of ``MAX_HAND_BYTES`` (a hand
                that long which is not one line).
        """
        self._fill()
        cut = self._cut()
        while not cut and not self._eof:  # a line longer than the buffer
            if len(self._buffer) >= MAX_HAND_BYTES:
                if not self.whole_lines or self._decoder is not None:
                    raise HandTooLargeError(self._line, self._start)
                self._skip_line()
            else:
                self._wanted = min(self._wanted * 2, MAX_HAND_BYTES + self._chunk_bytes)
            self._fill()
            cut = self._cut()
        if self._eof:
            cut = len(self._buffer)
        if not cut:
            if self._failure is not None:
                raise self._failure
            return None
        data, bad = self._valid_utf8(bytes(self._buffer[:cut]))
        return TextChunk(data, self._start, self._line, self._eof and cut == len(self._buffer),
                         bad, self.encoding)

    def _skip_line(self) -> None:
        """Stream past the line the buffer starts with (longer than ``MAX_HAND_BYTES``),
        through its line break, keeping its first bytes; note it in :attr:`oversized`."""
        line, offset = self._line, self._start
        head = bytes(self._buffer[:TOO_LARGE_HEAD]).decode("utf-8", errors="replace")
        size = len(self._buffer)
        self._buffer.clear()
        found = False
        while not found and not self._eof:
            piece = self._read(READ_PIECE_BYTES)
            at = piece.find(b"\n")
            found = at >= 0
            size += at + 1 if found else len(piece)
            if found:
                self._buffer += piece[at + 1:]
        self._start += size
        self._line += 1 if found else 0
        self._wanted = self._chunk_bytes
        self.oversized.append(Oversized(line, offset, size, head))

    def take_oversized(self) -> list[Oversized]:
        """The lines skipped since last asked."""
        taken, self.oversized = self.oversized, []
        return taken

    @property
    def position(self) -> tuple[int, int]:
        """(source offset, line number) of the first byte not yet handed out."""
        return self._start, self._line

    def _cut(self) -> int:
        """Where the chunk may end: after the last newline, or (lines not kept whole)
        after the last ASCII byte, which never splits a character."""
        if self.whole_lines:
            return self._buffer.rfind(b"\n") + 1
        tail = np.frombuffer(self._buffer[-4096:], dtype=np.uint8)
        ascii_ = np.flatnonzero(tail < 0x80)
        return len(self._buffer) - len(tail) + int(ascii_[-1]) + 1 if len(ascii_) else 0

    def _valid_utf8(self, data: bytes) -> tuple[bytes, Positions]:
        if self.encoding is not Encoding.UTF8:
            marks = np.frombuffer(data, dtype=np.uint8)
            # U+FFFD, what the UTF-16 decoder put for an undecodable code unit.
            hits = np.flatnonzero((marks[:-2] == 0xEF) & (marks[1:-1] == 0xBF)
                                  & (marks[2:] == 0xBD))
            return data, hits.astype(np.int64)
        return valid_utf8(data)

    def consume(self, chunk: TextChunk, size: int) -> None:
        """Drop the first ``size`` bytes of ``chunk.data`` from the buffer."""
        if size <= 0:
            if chunk.at_eof:
                raise AssertionError("a reader must consume everything at the end")
            if len(self._buffer) >= MAX_HAND_BYTES:
                raise HandTooLargeError(chunk.first_line, chunk.start)
            self._wanted = min(max(self._wanted, len(self._buffer)) * 2,
                               MAX_HAND_BYTES + self._chunk_bytes)
            return
        self._start += chunk.source_length(size)
        self._line += chunk.data.count(b"\n", 0, size)
        del self._buffer[:size]
        self._wanted = self._chunk_bytes
