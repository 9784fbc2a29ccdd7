"""Where hand histories come from: paths, folders, globs and archives, opened as streams.

:func:`find_files` turns what the user typed into a sorted list of files (walking
folders, expanding globs); :func:`list_sources` turns one file into the sources it
holds (itself, or each member of a zip archive), with its compression told from its
first bytes, not its name. :func:`open_source` opens a source as one decompressed
binary stream (gzip, bzip2 and xz decompress while streaming; a zip member is read
in place), counting the bytes read from disk for progress.

:class:`PrefixHashingStream` wraps that stream so ingest knows a SHA-256 of exactly
the bytes it has imported (up to the last complete hand), and can tell next time
whether a grown file still starts with them.
"""

from __future__ import annotations

import bz2
import contextlib
import datetime as dt
import errno
import glob
import gzip
import hashlib
import io
import lzma
import os
import re
import stat
import zipfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path, PurePath
from typing import BinaryIO, cast

from ofc_stats.errors import ExitCode, OfcStatsError
from ofc_stats.formats.fpdb import SQLITE_MAGIC  # a database is read by path, not streamed

# Suffixes a folder walk picks up (``.db3``: fpdb-3's database); a file named on the
# command line is always read.
HISTORY_SUFFIXES = frozenset({".jsonl", ".ndjson", ".json", ".txt", ".csv", ".log", ".db3"})
COMPRESSED_SUFFIXES = frozenset({".gz", ".bz2", ".xz", ".zip"})
GLOB_CHARACTERS = frozenset("*?[")
WAREHOUSE_MARKER = "_log"  # a folder holding this is a warehouse, never read as input
# Bytes read past the hashed mark a PrefixHashingStream keeps: a reader's look-ahead
# (two batches being parsed and one being split, 16 MiB each, a chunk and a hand) fits;
# past it, the hash is given up (the file is read again whole if it grows).
MAX_PENDING_BYTES = 96 * 1024 * 1024


class SourceError(OfcStatsError):
    """A path on the command line that names no readable input."""

    exit_code = ExitCode.USAGE


class Compression(StrEnum):
    """How a file's bytes are packed, as stored in the ``imports`` table."""

    NONE = "none"
    GZIP = "gzip"
    BZIP2 = "bzip2"
    XZ = "xz"
    ZIP = "zip"


MAGIC = (
    (b"\x1f\x8b", Compression.GZIP),
    (b"BZh", Compression.BZIP2),
    (b"\xfd7zXZ\x00", Compression.XZ),
    (b"PK\x03\x04", Compression.ZIP),
    (b"PK\x05\x06", Compression.ZIP),  # an empty zip archive
)


def path_text(path: Path | str) -> str:
    r"""A file's path as text that keeps every byte of it (file names are bytes).

    A name that is valid UTF-8 is itself, but for its backslashes, doubled; a byte
    that is not valid UTF-8 is written ``\xNN``. So every name has one text and
    :func:`path_bytes` gives the name back, exactly.

    >>> path_text(os.fsdecode(b"/h/caf\xe9.txt")), path_text("/h/a\\b.txt")
    ('/h/caf\\xe9.txt', '/h/a\\\\b.txt')
    """
    raw = os.fsencode(path).replace(b"\\", b"\\\\")
    return raw.decode("utf-8", errors="backslashreplace")


_ESCAPE = re.compile(r"\\(\\|x[0-9a-f]{2})")


def path_bytes(text: str) -> bytes:
    """The file name :func:`path_text` wrote as ``text``."""
    return _ESCAPE.sub(lambda found: "\\" if found.group(1) == "\\"
                       else chr(0xDC00 + int(found.group(1)[1:], 16)), text).encode(
        "utf-8", errors="surrogateescape")


@dataclass(frozen=True)
class Source:
    """One stream of hand histories: a file, or one member of a zip archive.

    ``size`` and ``mtime_ns`` are those of the file on disk (the archive, for a
    member): when both are unchanged since a complete import, nothing is re-read.
    """

    path: Path  # absolute
    member: str | None
    compression: Compression
    size: int
    mtime_ns: int
    member_size: int | None = None  # a member's own size, unpacked
    database: bool = False  # an SQLite database (fpdb-3's), told by its first bytes

    @property
    def content_size(self) -> int | None:
        """The bytes of the stream when the archive says (a member); the file's size
        for an uncompressed file; None for a compressed one (unknown until read)."""
        if self.member is not None:
            return self.member_size
        return self.size if self.compression is Compression.NONE else None

    @property
    def name(self) -> str:
        """How hands and rejects name this source: the path, ``archive.zip!member``."""
        where = path_text(self.path)
        return where if self.member is None else f"{where}!{self.member}"

    @property
    def inner_name(self) -> str:
        """:attr:`name` without a compression suffix (``a.jsonl.gz`` -> ``a.jsonl``)."""
        return inner_name(self.name, self.compression)

    @property
    def mtime(self) -> dt.datetime:
        """The file's modification time in UTC."""
        return dt.datetime(1970, 1, 1, tzinfo=dt.UTC) + dt.timedelta(
            microseconds=self.mtime_ns // 1000)


def inner_name(name: str, compression: Compression) -> str:
    """A source's name without its compression suffix (``a.jsonl.gz`` -> ``a.jsonl``):
    the suffix that tells the format."""
    if compression in (Compression.GZIP, Compression.BZIP2, Compression.XZ):
        stem, dot, suffix = name.rpartition(".")
        if dot and f".{suffix.lower()}" in COMPRESSED_SUFFIXES:
            return stem
    return name


def _has_glob(text: str) -> bool:
    return any(character in GLOB_CHARACTERS for character in text)


def _is_warehouse(folder: Path) -> bool:
    return (folder / WAREHOUSE_MARKER).is_dir()


def looks_like_history(path: PurePath) -> bool:
    """Whether a folder walk reads a file of this name (a history suffix, perhaps
    compressed)."""
    suffixes = [suffix.lower() for suffix in path.suffixes]
    return bool(suffixes) and (suffixes[-1] in HISTORY_SUFFIXES
                               or suffixes[-1] in COMPRESSED_SUFFIXES)


@dataclass(frozen=True)
class FoundFiles:
    """What :func:`find_sources` found: the files, and what folder walks left out."""

    files: list[Path]
    ignored: int  # files in folders skipped for a suffix that is not a history's
    links_skipped: int  # links in folders that lead out of the folder named


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def _walk(folder: Path, exclude: Path | None, follow_links: bool
          ) -> tuple[list[Path], list[Path], int]:
    """Files under ``folder`` with history suffixes (sorted), the files ignored, and
    how many links leading out of ``folder`` were not followed.

    A link to a file or folder inside ``folder`` is read where it leads (once: files
    are told apart by their resolved path); one leading out of it only with
    ``follow_links`` (a folder of histories should not read ``/etc/passwd`` because a
    link in it says so). A folder is walked once, whatever links lead to it.
    """
    found: list[Path] = []
    ignored: list[Path] = []
    skipped = 0
    top = _resolved(folder)
    seen = {top}
    for root, folders, names in os.walk(folder, followlinks=follow_links):
        here = Path(root)
        kept = []
        for name in sorted(folders):
            path = here / name
            if name.startswith(".") or _is_warehouse(path):
                continue
            target = _resolved(path)
            if (exclude is not None and target == exclude) or target in seen:
                continue
            if path.is_symlink() and not follow_links:
                skipped += not _inside(target, top)  # inside: walked where it is
                continue
            seen.add(target)
            kept.append(name)
        folders[:] = kept
        for name in sorted(names):
            if name.startswith("."):
                continue
            path = here / name
            if path.is_symlink() and not follow_links and not _inside(_resolved(path), top):
                skipped += 1
            elif not path.is_file():
                # A named pipe would block the walk (holding the warehouse lock), a
                # symlink loop or a dangling link has nothing to read: not histories.
                ignored.append(path)
            elif looks_like_history(path):
                found.append(path)
            else:
                ignored.append(path)
    return found, ignored, skipped


def _resolved(path: Path) -> Path:
    """``path`` resolved, or only made absolute if it cannot be (a symlink loop)."""
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return path.absolute()


def _not_regular(path: Path) -> str | None:
    """What a path named on the command line is, if not a regular file or a folder."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return None  # reading it says why
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return None
    return ("a named pipe" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode)
            else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "not a file")


def find_sources(paths: Iterable[str | Path], exclude: Path | None = None, *,
                 follow_links: bool = False) -> FoundFiles:
    """The files that ``paths`` name, resolved, in order, each once.

    A file is taken as it is; a folder is walked recursively for files with history
    suffixes (``.jsonl .ndjson .json .txt .csv .log``, optionally compressed, and
    ``.gz .bz2 .xz .zip``), skipping hidden entries, any warehouse folder and links
    leading out of it (unless ``follow_links``); a path that does not exist but holds
    ``*``, ``?`` or ``[`` is a glob (``**`` recurses).

    Args:
        paths: what the user typed.
        exclude: a folder never to read (the warehouse being written).
        follow_links: follow links in folders that lead out of them.

    Raises:
        SourceError: a path that does not exist, a glob that matches nothing, or a
            path that is no regular file or folder (a named pipe would block).
    """
    files: list[Path] = []
    ignored: list[Path] = []
    skipped = 0
    excluded = exclude.resolve() if exclude is not None else None
    for given in paths:
        text = os.path.expanduser(str(given))
        path = Path(text)
        if path.exists():
            matches = [path]
        elif _has_glob(text):
            matches = [Path(match) for match in sorted(glob.glob(text, recursive=True))]
            if not matches:
                raise SourceError(f"no files match {given}")
        else:
            raise SourceError(f"no such file or folder: {given}")
        for match in matches:
            kind = _not_regular(match)
            if kind is not None:
                raise SourceError(f"not a regular file: {given} is {kind} (ofc-stats reads "
                                  "files, folders and archives)")
            if match.is_dir():
                walked, left, links = _walk(match, excluded, follow_links)
                files.extend(walked)
                ignored.extend(left)
                skipped += links
            else:
                files.append(match)
    unique = dict.fromkeys(_resolved(file) for file in files)
    return FoundFiles(list(unique), len({_resolved(path) for path in ignored} - set(unique)),
                      skipped)


def find_files(paths: Iterable[str | Path], exclude: Path | None = None
               ) -> tuple[list[Path], int]:
    """The files that ``paths`` name and how many files folder walks ignored for their
    suffix (:func:`find_sources`, links out of folders not followed)."""
    found = find_sources(paths, exclude)
    return found.files, found.ignored


def detect_compression(head: bytes) -> Compression:
    """The compression a file's first bytes announce (``NONE`` when none does)."""
    for magic, compression in MAGIC:
        if head.startswith(magic):
            return compression
    return Compression.NONE


def list_sources(path: Path) -> list[Source]:
    """The sources in one file: itself, or each member of a zip archive.

    Raises:
        OSError: the file cannot be read.
        zipfile.BadZipFile: a zip archive whose directory is corrupt.
    """
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a pipe must not block
    with os.fdopen(descriptor, "rb") as handle:
        status = os.fstat(descriptor)
        if not stat.S_ISREG(status.st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        head = handle.read(max(len(SQLITE_MAGIC), 8))
    compression = detect_compression(head)
    if compression is not Compression.ZIP:
        return [Source(path, None, compression, status.st_size, status.st_mtime_ns,
                       database=head == SQLITE_MAGIC)]
    with zipfile.ZipFile(path) as archive:
        members = zip_members(archive)
    return [Source(path, member, compression, status.st_size, status.st_mtime_ns, size)
            for member, size in members.items()]


def zip_members(archive: zipfile.ZipFile) -> dict[str, int]:
    """The members of a zip archive that hold histories, sorted by name, with their
    unpacked sizes (folders, macOS resource forks and hidden files left out)."""
    members = {info.filename: info.file_size for info in archive.infolist()
               if not info.is_dir() and not info.filename.startswith("__MACOSX/")
               and not Path(info.filename).name.startswith(".")}
    return {member: members[member] for member in sorted(members)}


class ByteCounter:
    """Bytes read from disk so far (shared by every stream of a run, for progress)."""

    def __init__(self) -> None:
        self.count = 0


class _CountingReader(io.RawIOBase):
    """A file on disk that counts the bytes read from it (seekable, for zip)."""

    def __init__(self, inner: BinaryIO, counter: ByteCounter) -> None:
        super().__init__()
        self._inner = inner
        self._counter = counter

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        count = self._inner.readinto(buffer)  # type: ignore[attr-defined]
        self._counter.count += count or 0
        return int(count or 0)

    def read(self, size: int | None = -1) -> bytes:
        data = self._inner.read(-1 if size is None else size)
        self._counter.count += len(data)
        return data

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        return self._inner.seek(offset, whence)

    def tell(self) -> int:
        return self._inner.tell()


class OpenArchive:
    """The zip archive whose members are being read, kept open from one member to the
    next: opening an archive reads its whole directory, and a run reads the members
    of an archive one after another (1,000 members took 12 s, reopened for each)."""

    def __init__(self, counter: ByteCounter | None = None) -> None:
        self._counter = counter
        self._key: tuple[Path, int, int] | None = None
        self._stack = contextlib.ExitStack()
        self._archive: zipfile.ZipFile | None = None

    def archive(self, source: Source) -> zipfile.ZipFile:
        """The open archive holding ``source`` (a member).

        Raises:
            OSError, zipfile.BadZipFile: as for :func:`open_source`.
        """
        key = (source.path, source.size, source.mtime_ns)
        if self._archive is None or key != self._key:
            self.close()
            handle: BinaryIO = self._stack.enter_context(
                open(source.path, "rb"))  # noqa: SIM115 - closed by close()
            if self._counter is not None:
                handle = self._stack.enter_context(io.BufferedReader(
                    _CountingReader(handle, self._counter)))  # seeks drop the buffer: small
            self._archive = self._stack.enter_context(zipfile.ZipFile(handle))
            self._key = key
        return self._archive

    def close(self) -> None:
        """Close the archive kept open, if any."""
        self._archive = self._key = None
        self._stack.close()


@contextlib.contextmanager
def open_source(source: Source, counter: ByteCounter | None = None,
                archives: OpenArchive | None = None) -> Iterator[BinaryIO]:
    """``source`` as one decompressed binary stream (not seekable for archives).

    ``archives`` keeps a zip archive open for its next member (its own counter then
    counts the bytes read, not ``counter``).

    Raises:
        OSError: the file cannot be read (also gzip's ``BadGzipFile``).
        zipfile.BadZipFile, KeyError: a corrupt zip, or a member that vanished.
    """
    if archives is not None and source.compression is Compression.ZIP:
        with archives.archive(source).open(source.member or "") as member:
            yield cast(BinaryIO, member)
        return
    with contextlib.ExitStack() as stack:
        handle: BinaryIO = stack.enter_context(open(source.path, "rb"))
        if counter is not None:
            handle = stack.enter_context(io.BufferedReader(_CountingReader(handle, counter),
                                                           buffer_size=1 << 20))
        yield decompressed(stack, handle, source.compression, source.member)


def decompressed(stack: contextlib.ExitStack, handle: BinaryIO, compression: Compression,
                 member: str | None = None) -> BinaryIO:
    """The content of a file's bytes (``handle``) as one stream, decompressed while
    read; a zip archive's ``member``. What it opens is closed with ``stack``.

    Raises:
        OSError, zipfile.BadZipFile, KeyError: as for :func:`open_source`.
    """
    if compression is Compression.GZIP:
        return cast(BinaryIO, stack.enter_context(gzip.GzipFile(fileobj=handle, mode="rb")))
    if compression is Compression.BZIP2:
        return cast(BinaryIO, stack.enter_context(bz2.BZ2File(handle, mode="rb")))
    if compression is Compression.XZ:
        return cast(BinaryIO, stack.enter_context(lzma.LZMAFile(handle, mode="rb")))
    if compression is Compression.ZIP:
        archive = stack.enter_context(zipfile.ZipFile(handle))
        return cast(BinaryIO, stack.enter_context(archive.open(member or "")))
    return handle


def read_head(source: Source, size: int, archives: OpenArchive | None = None) -> bytes:
    """The first ``size`` decompressed bytes of ``source`` (fewer if it is shorter, or
    if it is damaged after its first bytes: reading it says so, the head is enough to
    tell its format)."""
    with open_source(source, archives=archives) as stream:
        return stream_head(stream, size)


def stream_head(stream: BinaryIO, size: int) -> bytes:
    """The first ``size`` bytes of a (decompressing) stream, as :func:`read_head` reads
    them."""
    read_once = getattr(stream, "read1", stream.read)
    chunks: list[bytes] = []
    wanted = size
    while wanted > 0:
        try:
            chunk = read_once(wanted)
        except Exception:
            if chunks:
                break
            raise
        if not chunk:
            break
        chunks.append(chunk)
        wanted -= len(chunk)
    return b"".join(chunks)


class PrefixHashingStream(io.RawIOBase):
    """A read-only stream that keeps a SHA-256 of its bytes up to a moving mark.

    Ingest moves the mark with :meth:`advance` to each batch's ``end_offset``, so
    :meth:`digest` is the hash of exactly the bytes imported so far. Bytes read past
    the mark wait in memory until the mark passes them (a reader's look-ahead: one
    chunk or batch); past ``max_pending`` bytes the hash is given up (:meth:`digest`
    is None) rather than memory.

    With ``check_offset`` > 0 (a grown file read from where the last import stopped)
    the bytes before it are hashed as the reader skips them, and :attr:`check_digest`
    holds their hash (None if the stream is shorter), to compare with the last import.
    The stream is not seekable: readers skip to their start offset by reading.
    """

    def __init__(self, inner: BinaryIO, check_offset: int = 0,
                 max_pending: int = MAX_PENDING_BYTES) -> None:
        super().__init__()
        self._inner = inner
        self._position = 0
        self._hashed = 0
        self._hash = hashlib.sha256()
        self._pending: list[bytes] = []  # bytes [_hashed, _position), in order
        self._pending_size = 0
        self._max_pending = max_pending
        self._tracking = True
        self.check_offset = check_offset
        self.check_digest: str | None = self._hash.hexdigest() if check_offset == 0 else None

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return False

    def tell(self) -> int:
        return self._position

    def read(self, size: int | None = -1) -> bytes:
        data = self._inner.read(-1 if size is None else size)
        self._take(data)
        return data

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        data = self._inner.read(len(buffer))
        buffer[:len(data)] = data
        self._take(data)
        return len(data)

    def read1(self, size: int = -1) -> bytes:
        """At most ``size`` bytes from one read of the stream below (its ``read1``):
        a decompressor hands over what it unpacked before damage this way."""
        read_once = getattr(self._inner, "read1", self._inner.read)
        data: bytes = read_once(size)
        self._take(data)
        return data

    def readall(self) -> bytes:
        return self.read(-1)

    def _take(self, data: bytes) -> None:
        start = self._position
        self._position += len(data)
        if not self._tracking or not data:
            return
        if self.check_digest is None and start < self.check_offset:
            # Skipping the part imported before: hash it at once, keep nothing.
            head = min(len(data), self.check_offset - start)
            self._hash.update(memoryview(data)[:head])
            self._hashed = start + head
            if self._hashed == self.check_offset:
                self.check_digest = self._hash.hexdigest()
            data = data[head:]
            if not data:
                return
        self._pending.append(data)
        self._pending_size += len(data)
        if self._pending_size > self._max_pending:
            self._tracking = False
            self._pending.clear()

    def advance(self, offset: int) -> None:
        """Move the mark to ``offset``: hash the bytes up to it, drop them from memory."""
        if not self._tracking or offset <= self._hashed:
            return
        if offset > self._position:
            raise ValueError(f"cannot hash up to byte {offset}: only {self._position} read")
        remaining = offset - self._hashed
        while remaining > 0:
            chunk = self._pending[0]
            if len(chunk) <= remaining:
                self._hash.update(chunk)
                self._pending.pop(0)
                remaining -= len(chunk)
                self._pending_size -= len(chunk)
            else:
                self._hash.update(memoryview(chunk)[:remaining])
                self._pending[0] = chunk[remaining:]
                self._pending_size -= remaining
                remaining = 0
        self._hashed = offset

    @property
    def mark(self) -> int:
        """The offset the digest covers up to."""
        return self._hashed

    def digest(self) -> str | None:
        """SHA-256 (hex) of the bytes before the mark, or None if it was given up."""
        return self._hash.copy().hexdigest() if self._tracking else None
