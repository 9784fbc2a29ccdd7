"""A simulation written as hand-history files, with file faults and their ground truth.

One file per table (``<table>.<ext>``), formats taken in turn when several are
asked for, so a folder holds every hand once. File faults are made in the bytes a
writer produced: a mangled card, a JSON line cut short, a file whose last hand is
half-written, a hand written twice in a file, a table exported as two files that
overlap by a hand. With ``broken_file`` they all go to one separate file instead
(the hands concerned leave their table files), which is how ``sample_data/`` shows
them. Every fault, record faults included, is listed in ``faults.tsv``.
"""

from __future__ import annotations

import csv
import gzip
import io
import itertools
import json
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import polars as pl

from ofc_stats.engine.rules import Variant
from ofc_stats.formats import Format, FormatWriter, get_writer
from ofc_stats.formats.canonical import CanonicalBatch
from ofc_stats.formats.fpdb_writer import FPDB_VARIANTS
from ofc_stats.simulate import Simulation
from ofc_stats.simulate.config import Fault, FaultKind, SimulationConfig, SimulationError
from ofc_stats.simulate.tables import TablePlan

FAULTS_FILE = "faults.tsv"
# What a folder holds: the simulation's settings and files, so that the next one
# written there can say so and replace it whole.
MANIFEST_FILE = ".simulation.json"  # hidden: ingest of the folder skips it
FAULT_COLUMNS = ("kind", "site", "hand_id", "table", "player", "file", "audit_kind", "details")
EXTENSIONS = {Format.JSONL: ".jsonl", Format.TEXT: ".txt", Format.CSV: ".csv",
              Format.FPDB: ".json"}
FILE_FAULTS = (FaultKind.CORRUPT_CARD, FaultKind.BROKEN_LINE, FaultKind.TRUNCATED,
               FaultKind.DUPLICATE_IN_FILE, FaultKind.DUPLICATE_ACROSS_FILES)
# A card as any format writes it, not inside a longer word.
CARD_TOKEN = re.compile(rb"(?<![0-9A-Za-z])(?:10|[2-9TJQKA])[cdhs](?![0-9A-Za-z])")


@dataclass(frozen=True)
class WrittenSimulation:
    """The files written (relative to the output folder) and every injected fault.

    ``replaced``: what the folder held before, if a simulation (its ``simulation.json``
    or ``faults.tsv``): a few words naming it, its files being removed.
    """

    folder: Path
    files: tuple[str, ...]
    faults: tuple[Fault, ...]
    hands: int
    site: str = ""
    replaced: str | None = None

    @property
    def faults_file(self) -> Path:
        """The ground-truth file."""
        return self.folder / FAULTS_FILE


def writer_for(fmt: Format | str) -> FormatWriter:
    """The writer of a format, or a clear error if that writer does not exist yet."""
    try:
        return get_writer(fmt)
    except ModuleNotFoundError:
        raise SimulationError(f"no writer for format {fmt!s} yet") from None


def _slice_batch(batch: CanonicalBatch, first: int, end: int) -> CanonicalBatch:
    """Hands ``first:end`` of a batch (its frames are in hand order)."""
    return replace(batch.with_hands(batch.hands.slice(first, end - first)),
                   problems=batch.problems.clear())


def _hand_start(data: bytes, hand_id: str) -> int:
    """Where a hand starts in ``data``: the line where its id first appears."""
    found = re.compile(re.escape(hand_id.encode()) + rb"(?!\d)").search(data)
    if found is None:
        raise SimulationError(f"hand {hand_id} not found in the written bytes")
    return data.rfind(b"\n", 0, found.start()) + 1


def _hand_extent(data: bytes, hand_ids: Sequence[str], index: int) -> tuple[int, int]:
    """The bytes of hand ``index`` of ``hand_ids`` (written in that order): from its
    start to the next hand's."""
    end = _hand_start(data, hand_ids[index + 1]) if index + 1 < len(hand_ids) else len(data)
    return _hand_start(data, hand_ids[index]), end


def corrupt_card(data: bytes, start: int, end: int) -> tuple[bytes, str]:
    """Mangle the first card written in ``data[start:end]`` (``Kd`` becomes ``Kx``)."""
    found = CARD_TOKEN.search(data, start, end)
    if found is None:
        raise SimulationError("no card to corrupt in the hand's bytes")
    card = found.group().decode()
    mangled = card[:-1] + "x"
    return (data[:found.start()] + mangled.encode() + data[found.end():],
            f"card {card} written as {mangled}")


def break_line(data: bytes, start: int, end: int) -> tuple[bytes, str]:
    """Cut the hand's first line in half (JSON Lines: the hand no longer parses)."""
    line_end = data.find(b"\n", start, end)
    line_end = end if line_end < 0 else line_end
    cut = start + (line_end - start) // 2
    return data[:cut] + data[line_end:], f"line cut after {cut - start} of {line_end - start} bytes"


def truncate_last(data: bytes, start: int) -> tuple[bytes, str]:
    """End the file half-way through the hand starting at ``start``."""
    cut = start + (len(data) - start) // 2
    return data[:cut], f"file ends {cut - start} bytes into the hand's {len(data) - start}"


# Variants a format cannot tell apart from another (fpdb-3's hand object says
# Pineapple for Progressive and Ultimate) or has no name for (SwC deals no jokers and
# one deck): a table of one is written in another format.
UNCARRIED_VARIANTS = {Format.FPDB: frozenset({
    Variant.PROGRESSIVE, Variant.ULTIMATE, Variant.JOKER_PINEAPPLE, Variant.JOKER_PROGRESSIVE,
    Variant.JOKER_ULTIMATE, Variant.DOUBLE_DECK, Variant.DOUBLE_DECK_PINEAPPLE})}


# Variants a format's reader takes for another: fpdb-3's hand object writes Progressive
# and Ultimate as Pineapple's ``ofcp``, so they read back as Pineapple.
READ_AS: dict[Format, dict[Variant, Variant]] = {Format.FPDB: {
    variant: Variant.PINEAPPLE for variant in Variant if variant is not Variant.PINEAPPLE
    and FPDB_VARIANTS[variant.value] == FPDB_VARIANTS[Variant.PINEAPPLE.value]}}


def dealt_as_read(tables: Sequence[TablePlan], table_format: dict[str, Format]
                  ) -> list[TablePlan]:
    """The tables as they are dealt: one left in a format that reads its variant as
    another (no format at hand could take it) is dealt that other variant. Dealt as
    planned, a Progressive table written as fpdb-3's Pineapple would break Pineapple's
    rules (Fantasyland of 15 or 16 cards) where the ground truth says nothing is wrong.
    """
    return [replace(table, variant=READ_AS.get(table_format[table.name], {})
                    .get(table.variant, table.variant)) for table in tables]


def simulation_in(config: SimulationConfig, formats: Sequence[Format]
                  ) -> tuple[Simulation, dict[str, Format]]:
    """The simulation of ``config`` as ``formats`` are written (see :func:`dealt_as_read`)
    and each table's format, chosen by the variant planned for it."""
    table_format: dict[str, Format] = {}

    def dealt_as(tables: list[TablePlan]) -> list[TablePlan]:
        table_format.update(table_formats(tables, formats))
        return dealt_as_read(tables, table_format)

    return Simulation(config, dealt_as), table_format


def table_formats(tables: Sequence[TablePlan], formats: Sequence[Format]) -> dict[str, Format]:
    """The format of each table's files: the formats in turn, shifted every round so
    variants and formats mix; a table whose variant its format cannot carry trades
    formats with the next table that can take it."""
    chosen = [formats[(index + index // len(formats)) % len(formats)]
              for index in range(len(tables))]

    def carries(fmt: Format, table: TablePlan) -> bool:
        return table.variant not in UNCARRIED_VARIANTS.get(fmt, frozenset())

    for index, table in enumerate(tables):
        if carries(chosen[index], table):
            continue
        for step in range(1, len(tables)):
            other = (index + step) % len(tables)
            if carries(chosen[other], table) and carries(chosen[index], tables[other]):
                chosen[index], chosen[other] = chosen[other], chosen[index]
                break
    return {table.name: fmt for table, fmt in zip(tables, chosen, strict=True)}


@dataclass
class _Item:
    """A piece of a table's history for the writer, with the faults due in it.

    ``split`` (no hands): end the file here and go on in the table's next file.
    ``copies``: hand indices written again after the piece (duplicates in a file).
    """

    part: CanonicalBatch | None
    due: list[tuple[FaultKind, int]] = field(default_factory=list)
    last: bool = False
    split: bool = False


class _Capture(io.RawIOBase):
    """The stream a writer writes into: bytes wait here until their faults are made."""

    def __init__(self) -> None:
        super().__init__()
        self.data = bytearray()

    def writable(self) -> bool:
        return True

    def write(self, data: bytes | bytearray | memoryview) -> int:  # type: ignore[override]
        self.data += data
        return len(data)


class _Writer:
    """Streams a simulation's batches into per-table files and makes file faults.

    Each file is one call of its format's writer (so a header is written once), fed
    by a generator; between two pieces the generator makes the faults due in the
    bytes the writer has just written and moves them to the file.
    """

    def __init__(self, simulation: Simulation, folder: Path, formats: Sequence[Format],
                 table_format: dict[str, Format], broken_file: str | None,
                 compress: bool) -> None:
        self.simulation = simulation
        self.compress = compress
        self.folder = folder
        self.formats = formats
        self.writers = {fmt: writer_for(fmt) for fmt in formats}
        self.broken_file = broken_file
        config = simulation.config
        rng = np.random.default_rng(np.random.SeedSequence([config.seed, 7]))
        self.rng = rng
        tables = simulation.tables
        self.table_format = table_format
        self.table_code = {table.name: table.code for table in tables}
        # Which tables receive each file fault, drawn in proportion to their hands.
        weights = np.array([table.hands for table in tables], dtype=np.float64)
        self.targets: dict[str, list[FaultKind]] = {}
        for kind in FILE_FAULTS:
            for index in rng.choice(len(tables), size=config.faults.get(kind, 0),
                                    p=weights / weights.sum()).tolist():
                self.targets.setdefault(tables[index].name, []).append(kind)
        self.carried: list[FaultKind] = []  # faults a smaller table had no room for
        self.files: list[str] = []
        self.faults: list[Fault] = []
        self.hand_files: dict[str, str] = {}
        # Broken-file mode: (hand, fault, the table file it came from).
        self.broken_batches: list[tuple[CanonicalBatch, FaultKind, str]] = []
        self.hands = 0

    def run(self, batches: Iterable[CanonicalBatch]) -> None:
        for table, pieces in itertools.groupby(self._table_parts(batches),
                                               key=lambda item: item[0]):
            self._write_table(table, (part for _, part in pieces))
        if self.broken_file is not None and self.broken_batches:
            self._write_broken()

    @staticmethod
    def _table_parts(batches: Iterable[CanonicalBatch]) -> Iterator[tuple[str, CanonicalBatch]]:
        """(table, its hands in this batch), in order."""
        for batch in batches:
            runs = batch.hands["table"].rle()
            first = 0
            for length, table in zip(runs.struct.field("len").to_list(),
                                     runs.struct.field("value").to_list(), strict=True):
                yield str(table), _slice_batch(batch, first, first + length)
                first += length

    def _write_table(self, table: str, parts: Iterator[CanonicalBatch]) -> None:
        fmt = self.table_format[table]
        name = self.table_code[table] + EXTENSIONS[fmt] + (".gz" if self.compress else "")
        kinds = self.targets.pop(table, []) + self.carried
        self.carried = []
        items = self._items(table, name, self._planned(parts, kinds))
        number = 1
        while True:
            self._new_file(name)
            capture = _Capture()
            ended = {"split": False}
            self.writers[fmt].write(self._feed(items, name, fmt, capture, ended),
                                    capture)  # type: ignore[arg-type]
            self._append(name, bytes(capture.data))
            if not ended["split"]:
                break
            number += 1
            stem, dot, suffixes = name.partition(".")
            following = f"{stem.rsplit('-', 1)[0] if number > 2 else stem}-{number}{dot}{suffixes}"
            # The hand the two files share: its fault is in the second file.
            shared = max(i for i, fault in enumerate(self.faults)
                         if fault.kind is FaultKind.DUPLICATE_ACROSS_FILES and not fault.file)
            self.faults[shared] = replace(
                self.faults[shared], file=following,
                details=f"the table's export is split in two files that share this hand: "
                        f"the last of {name} is the first of {following}")
            name = following
        self.carried.extend(kinds)

    def _planned(self, parts: Iterator[CanonicalBatch], kinds: list[FaultKind]
                 ) -> Iterator[_Item]:
        """The table's parts with the file faults due in each (``kinds`` shrinks)."""
        pending: CanonicalBatch | None = None
        for part in itertools.chain(parts, [None]):
            if pending is not None:
                yield _Item(pending, self._due(pending, kinds, last=part is None),
                            last=part is None)
            pending = part

    def _due(self, part: CanonicalBatch, kinds: list[FaultKind], last: bool
             ) -> list[tuple[FaultKind, int]]:
        """Pick hands of ``part`` for the faults still due at its table."""
        due: list[tuple[FaultKind, int]] = []
        if not kinds:
            return due
        # Hands a file fault may take: not protected, not a part's first or last.
        hands = part.hands.height
        free = ~part.hands["hand_id"].is_in(list(self.simulation.protected))
        indices = free.arg_true()
        usable = indices.filter((indices > 0) & (indices < hands - 1)).to_list()
        last_free = hands > 1 and bool(free[-1])
        for kind in list(kinds):
            if kind is FaultKind.TRUNCATED:
                # A file ends once: a second truncation waits for another table's file.
                if last and last_free and (kind, hands - 1) not in due:
                    due.append((kind, hands - 1))
                    kinds.remove(kind)
                continue
            if not usable or (self.rng.random() > 0.5 and not last):
                continue  # wait for a later part of the table, now and then
            index = usable.pop(int(self.rng.integers(len(usable))))
            due.append((kind, index))
            kinds.remove(kind)
        return due

    def _items(self, table: str, name: str, planned: Iterator[_Item]) -> Iterator[_Item]:
        """Set faulty hands aside (broken-file mode), or cut a part where the table's
        export is split in two files that share a hand."""
        fmt = self.formats[0] if self.broken_file is not None else self.table_format[table]
        for item in planned:
            assert item.part is not None
            if fmt is Format.CSV:
                # A CSV hand is a run of rows: the same hand twice in one file cannot
                # be told from a hand whose rows are scattered. Share it with another
                # file instead.
                item.due = [(FaultKind.DUPLICATE_ACROSS_FILES if kind
                             is FaultKind.DUPLICATE_IN_FILE else kind, index)
                            for kind, index in item.due]
            if self.broken_file is not None:
                yield _Item(self._set_aside(item.part, item.due, name), [], item.last)
                continue
            splits = sorted(index for kind, index in item.due
                            if kind is FaultKind.DUPLICATE_ACROSS_FILES)
            others = [(kind, index) for kind, index in item.due
                      if kind is not FaultKind.DUPLICATE_ACROSS_FILES]
            first = 0
            for split in splits:
                self._fault(FaultKind.DUPLICATE_ACROSS_FILES, item.part, split, "", "")
                yield _Item(_slice_batch(item.part, first, split + 1),
                            [(kind, i - first) for kind, i in others if first <= i <= split])
                yield _Item(None, split=True)
                self.hands -= 1  # written in both files
                first = split
            yield _Item(_slice_batch(item.part, first, item.part.hands.height),
                        [(kind, i - first) for kind, i in others if not splits or i > first],
                        item.last)

    def _feed(self, items: Iterator[_Item], name: str, fmt: Format, capture: _Capture,
              ended: dict[str, bool]) -> Iterator[CanonicalBatch]:
        """Hand pieces to the writer; after each, make its faults in what it wrote."""
        for item in items:
            if item.split:
                ended["split"] = True
                return
            assert item.part is not None
            self._record_files(item.part, name)
            yield item.part
            copies = [index for kind, index in item.due if kind is FaultKind.DUPLICATE_IN_FILE]
            self._make_faults(item, name, fmt, capture)
            for index in copies:
                self._fault(FaultKind.DUPLICATE_IN_FILE, item.part, index, name,
                            "the hand is written twice, the copy after the batch it belongs to")
                yield _slice_batch(item.part, index, index + 1)
            self._append(name, bytes(capture.data))
            capture.data.clear()

    def _record_files(self, part: CanonicalBatch, name: str) -> None:
        """Count the hands, and note the files of the hands record faults name."""
        ids = part.hands["hand_id"]
        wanted = ids.is_in([fault.hand_id for fault in self.simulation.faults])
        for hand_id in ids.filter(wanted).to_list():
            self.hand_files.setdefault(hand_id, name)
        self.hands += part.hands.height

    def _make_faults(self, item: _Item, name: str, fmt: Format, capture: _Capture) -> None:
        byte_faults = [(kind, index) for kind, index in item.due if kind in (
            FaultKind.CORRUPT_CARD, FaultKind.BROKEN_LINE, FaultKind.TRUNCATED)]
        if not byte_faults:
            return
        assert item.part is not None
        data = bytes(capture.data)
        hand_ids = item.part.hands["hand_id"].to_list()
        extents = {index: _hand_extent(data, hand_ids, index) for _, index in byte_faults}
        # From the end of the bytes backwards, so earlier extents stay valid.
        for kind, index in sorted(byte_faults, key=lambda entry: -entry[1]):
            start, end = extents[index]
            if kind is FaultKind.TRUNCATED:
                data, details = truncate_last(data, start)
            elif kind is FaultKind.BROKEN_LINE and fmt is Format.JSONL:
                data, details = break_line(data, start, end)
            else:
                kind = FaultKind.CORRUPT_CARD
                data, details = corrupt_card(data, start, end)
            self._fault(kind, item.part, index, name, details)
            self.hands -= 1
        capture.data[:] = data

    def _fault(self, kind: FaultKind, part: CanonicalBatch, index: int, file: str,
               details: str) -> None:
        hand = part.hands.row(index, named=True)
        self.faults.append(Fault(hand["site"], hand["hand_id"], kind, details,
                                 table=hand["table"], file=file))

    def _render(self, fmt: Format, parts: list[CanonicalBatch]) -> bytes:
        buffer = io.BytesIO()
        self.writers[fmt].write(parts, buffer)
        return buffer.getvalue()

    def _new_file(self, name: str) -> None:
        (self.folder / name).unlink(missing_ok=True)
        self.files.append(name)

    def _append(self, name: str, data: bytes) -> None:
        """Add bytes to a file (gzip members when compressing: the file stays valid)."""
        path = self.folder / name
        if not name.endswith(".gz"):
            with path.open("ab") as stream:
                stream.write(data)
        elif data or not path.exists():
            # mtime 0: the same simulation gives the same bytes.
            with gzip.GzipFile(path, mode="ab", mtime=0) as stream:
                stream.write(data)

    def _set_aside(self, part: CanonicalBatch, due: list[tuple[FaultKind, int]], file: str
                   ) -> CanonicalBatch:
        """Broken-file mode: move the faulty hands out of the table's part."""
        moved = set()
        for kind, index in due:
            self.broken_batches.append((_slice_batch(part, index, index + 1), kind, file))
            if kind is not FaultKind.DUPLICATE_ACROSS_FILES:
                moved.add(index)
        return _drop_hands(part, moved) if moved else part

    def _write_broken(self) -> None:
        """All file faults in one file: duplicates, corrupt hands, a truncated end."""
        assert self.broken_file is not None
        fmt = self.formats[0]
        name = self.broken_file + EXTENSIONS[fmt]
        order = {FaultKind.DUPLICATE_ACROSS_FILES: 0, FaultKind.DUPLICATE_IN_FILE: 1,
                 FaultKind.CORRUPT_CARD: 2, FaultKind.BROKEN_LINE: 3, FaultKind.TRUNCATED: 4}
        entries = sorted(self.broken_batches, key=lambda entry: order[entry[1]])
        parts = []
        for hand, kind, _ in entries:
            parts.append(hand)
            if kind is FaultKind.DUPLICATE_IN_FILE:
                parts.append(hand)
                self.hands += 1  # intact here, and in no table file
        data = self._render(fmt, parts)
        hand_ids = [part.hands["hand_id"].item() for part in parts]
        index = len(hand_ids)
        for hand, kind, table_file in reversed(entries):
            index -= 2 if kind is FaultKind.DUPLICATE_IN_FILE else 1
            start, end = _hand_extent(data, hand_ids, index)
            details = {FaultKind.DUPLICATE_ACROSS_FILES: f"also in {table_file}",
                       FaultKind.DUPLICATE_IN_FILE: "the hand is written twice in a row"}.get(
                           kind, "")
            if kind is FaultKind.TRUNCATED:
                data, details = truncate_last(data, start)
            elif kind is FaultKind.BROKEN_LINE and fmt is Format.JSONL:
                data, details = break_line(data, start, end)
            elif kind in (FaultKind.CORRUPT_CARD, FaultKind.BROKEN_LINE):
                kind = FaultKind.CORRUPT_CARD
                data, details = corrupt_card(data, start, end)
            row = hand.hands.row(0, named=True)
            self.faults.append(Fault(row["site"], row["hand_id"], kind, details,
                                     table=row["table"], file=name))
        (self.folder / name).write_bytes(data)
        self.files.append(name)


def _drop_hands(part: CanonicalBatch, indices: set[int]) -> CanonicalBatch:
    dropped = pl.int_range(part.hands.height, eager=True).is_in(sorted(indices))
    return part.with_hands(part.hands.filter(~dropped))


def write_faults(path: Path, faults: Iterable[Fault]) -> None:
    """The ground truth as tab-separated text, one fault per line, with a header."""
    with path.open("w", encoding="utf-8", newline="") as stream:
        writer = csv.DictWriter(stream, fieldnames=FAULT_COLUMNS, delimiter="\t",
                                lineterminator="\n")
        writer.writeheader()
        for fault in faults:
            writer.writerow({**fault.as_row(), "audit_kind": fault.kind.audit_kind})


def read_faults(path: Path) -> list[Fault]:
    """The faults of a ground-truth file written by :func:`write_faults`."""
    with path.open(encoding="utf-8", newline="") as stream:
        return [Fault(row["site"], row["hand_id"], FaultKind(row["kind"]), row["details"],
                      table=row["table"], player=row["player"], file=row["file"])
                for row in csv.DictReader(stream, delimiter="\t")]


def write_simulation(config: SimulationConfig, folder: Path | str,
                     formats: Sequence[Format | str] | Format | str = Format.JSONL,
                     broken_file: str | None = None, compress: bool = False,
                     manifest: bool = True, faults_file: str | None = FAULTS_FILE
                     ) -> WrittenSimulation:
    """Simulate ``config`` and write it as hand-history files in ``folder``.

    Args:
        config: the simulation, faults included.
        folder: where to write (created if missing); files already there with the
            same names are replaced.
        formats: one format, several (tables take them in turn), or ``"all"``.
        broken_file: put every file fault in this one file (name without suffix,
            written in the first format, never compressed) rather than in the
            table files.
        compress: gzip the table files (``.jsonl.gz``...).
        manifest: write ``.simulation.json`` (the settings and files), by which the
            next simulation written to ``folder`` replaces this one whole.
        faults_file: the ground-truth file written beside them (None: none).

    Returns:
        The files, the faults (also written to ``faults.tsv``) and the hands written
        intact.
    """
    folder = Path(folder)
    if isinstance(formats, str | Format):
        formats = [formats]
    names = [str(fmt).strip().lower() for fmt in formats]
    if "all" in names:
        names = list(dict.fromkeys([*Format, *(name for name in names if name != "all")]))
    chosen = list(dict.fromkeys(
        Format(name) if name in set(Format) else _unknown_format(name) for name in names))
    config = _spread_over_formats(config, len(chosen))
    replaced = _remove_previous(folder)
    folder.mkdir(parents=True, exist_ok=True)
    simulation, table_format = simulation_in(config, chosen)
    writer = _Writer(simulation, folder, chosen, table_format, broken_file, compress)
    writer.run(simulation)
    record_faults = [replace(fault, file=writer.hand_files.get(fault.hand_id, ""))
                     for fault in simulation.faults]
    faults = tuple(record_faults + writer.faults)
    if faults_file is not None:
        write_faults(folder / faults_file, faults)
    if manifest:
        _write_manifest(folder, config, chosen, writer)
    return WrittenSimulation(folder, tuple(writer.files), faults, writer.hands,
                             config.site_name, replaced)


def _write_manifest(folder: Path, config: SimulationConfig, formats: list[Format],
                    writer: _Writer) -> None:
    (folder / MANIFEST_FILE).write_text(json.dumps({
        "site": config.site_name, "run": config.run_tag, "seed": config.seed,
        "hands": writer.hands, "tables": config.table_count,
        "formats": [fmt.value for fmt in formats], "files": writer.files}, indent=1) + "\n",
        encoding="utf-8")


def _spread_over_formats(config: SimulationConfig, formats: int) -> SimulationConfig:
    """Enough tables for every format to get hands (tables take the formats in turn).

    Raises:
        SimulationError: ``tables`` was set to fewer than the formats.
    """
    if config.table_count >= formats:
        return config
    if config.tables is not None or config.hands < formats:
        why = (f"--tables is {config.tables}" if config.tables is not None
               else f"{config.hands} hands make at most {config.hands} tables")
        raise SimulationError(f"{formats} formats need at least {formats} tables (tables "
                              f"take the formats in turn); {why}")
    return replace(config, tables=formats)


def _remove_previous(folder: Path) -> str | None:
    """Remove the simulation ``folder`` holds (the files its manifest lists, and its
    ground truth), so that the folder holds one simulation; say what it was.

    A folder from a version that wrote no manifest keeps its other files."""
    manifest = folder / MANIFEST_FILE
    faults = folder / FAULTS_FILE
    if not manifest.is_file():
        if not faults.is_file():
            return None
        faults.unlink()
        return (f"an earlier simulation ({FAULTS_FILE}, no {MANIFEST_FILE}): its ground "
                "truth replaced, files not written now kept")
    try:
        previous = json.loads(manifest.read_text(encoding="utf-8"))
        files = [str(name) for name in previous.get("files", [])]
    except (OSError, ValueError, AttributeError):
        previous, files = {}, []
    for name in files:  # only files it wrote, in the folder itself
        path = folder / name
        if Path(name).name == name and name not in (".", "..") and path.is_file():
            path.unlink()
    faults.unlink(missing_ok=True)
    manifest.unlink()
    return (f"the simulation of seed {previous.get('seed', '?')} "
            f"({previous.get('hands', '?'):,} hands, site {previous.get('site', '?')}, "
            f"{len(files)} files)")


def _unknown_format(name: str) -> Format:
    known = ", ".join([*Format, "all"])
    raise SimulationError(f"unknown format {name!r} (one of {known})")


# sample_data/: every variant and format, twelve players, every fault kind once or
# more; the file faults in broken_hands.jsonl, the table files gzipped (size). Two
# simulations: the four classic and Pineapple games first (as they always were), then
# the rooms' other games at six more tables, played for table stakes.
SAMPLE_DATA_CONFIG = SimulationConfig(
    seed=2024, hands=3000, tables=8, players=12,
    variants=(Variant.CLASSIC, Variant.PINEAPPLE, Variant.PROGRESSIVE, Variant.ULTIMATE),
    faults={FaultKind.MIS_SCORED: 3, FaultKind.FL_UNEARNED: 2, FaultKind.FL_MISSING: 2,
            FaultKind.FL_CARDS: 2, FaultKind.GAP: 3, FaultKind.CORRUPT_CARD: 2,
            FaultKind.BROKEN_LINE: 1, FaultKind.TRUNCATED: 1,
            FaultKind.DUPLICATE_IN_FILE: 1, FaultKind.DUPLICATE_ACROSS_FILES: 2})
SAMPLE_GAMES_CONFIG = SimulationConfig(
    seed=2024, hands=1200, tables=6, players=12, first_table=8,
    variants=(Variant.JOKER_PINEAPPLE, Variant.JOKER_ULTIMATE, Variant.DOUBLE_DECK,
              Variant.DOUBLE_DECK_PINEAPPLE, Variant.DEUCE_TO_SEVEN,
              Variant.JOKER_PROGRESSIVE),
    faults={FaultKind.MIS_PAID: 2, FaultKind.MIS_SCORED: 1, FaultKind.FL_CARDS: 1},
    site=SAMPLE_DATA_CONFIG.site_name)  # the same room: one site in the sample data
SAMPLE_BROKEN_FILE = "broken_hands"


def write_sample_data(folder: Path | str, formats: Sequence[Format | str] | None = None
                      ) -> WrittenSimulation:
    """Regenerate ``sample_data/``: the files this function wrote before are replaced.

    Args:
        folder: the sample data folder.
        formats: the formats to write (default: all four; the broken hands are in
            the first).
    """
    folder = Path(folder)
    names = {table.code for config in (SAMPLE_DATA_CONFIG, SAMPLE_GAMES_CONFIG)
             for table in Simulation(config).tables}
    if folder.is_dir():
        for path in folder.iterdir():
            stem = path.name.split(".")[0].rsplit("-", 1)[0]
            if path.is_file() and (stem in names or path.name == FAULTS_FILE
                                   or path.name.startswith(SAMPLE_BROKEN_FILE + ".")):
                path.unlink()
    first = write_simulation(SAMPLE_DATA_CONFIG, folder, formats or list(Format),
                             broken_file=SAMPLE_BROKEN_FILE, compress=True, manifest=False,
                             faults_file=None)
    # fpdb-3 records no point value, so none of the money these tables play for.
    game_formats = [fmt for fmt in (formats or list(Format)) if fmt != Format.FPDB]
    games = write_simulation(SAMPLE_GAMES_CONFIG, folder, game_formats or list(Format),
                             compress=True, manifest=False, faults_file=None)
    faults = first.faults + games.faults
    write_faults(folder / FAULTS_FILE, faults)
    return WrittenSimulation(folder, first.files + games.files, faults,
                             first.hands + games.hands, first.site)
