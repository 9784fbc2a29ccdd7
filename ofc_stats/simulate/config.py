"""What a simulation is asked to produce, and the faults it can inject."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from types import MappingProxyType

from ofc_stats.engine.rules import Variant
from ofc_stats.errors import ExitCode, OfcStatsError
from ofc_stats.util.suggest import alternatives, did_you_mean


class SimulationError(OfcStatsError, ValueError):
    """A simulation that cannot be run as configured."""

    exit_code = ExitCode.USAGE


class FaultKind(StrEnum):
    """Faults the simulator injects, valued as written in the ground-truth file."""

    # In the records: found by auditing the hands (issue 5).
    MIS_SCORED = "mis-scored"  # reported points differ from the scorer's
    MIS_PAID = "mis-paid"  # at table stakes, the money paid is not the capped money
    FL_UNEARNED = "fl-unearned"  # in Fantasyland without qualifying the hand before
    FL_MISSING = "fl-missing"  # qualified, but not in Fantasyland the next hand
    FL_CARDS = "fl-cards"  # in Fantasyland as due, with the wrong card count
    GAP = "gap"  # a hand missing from a table's sequence (not an error)
    # In the files: found by reading them (issue 3 readers, issue 4 ingest).
    CORRUPT_CARD = "corrupt-card"  # a card mangled into something that is not a card
    BROKEN_LINE = "broken-line"  # a hand's text cut short (JSON no longer parses)
    TRUNCATED = "truncated"  # the file ends half-way through its last hand
    DUPLICATE_IN_FILE = "duplicate-in-file"  # the same hand twice in one file
    DUPLICATE_ACROSS_FILES = "duplicate-across-files"  # the same hand in two files

    @property
    def audit_kind(self) -> str:
        """The kind ``ofc-stats audit`` reports for this fault."""
        return AUDIT_KINDS[self]

    @property
    def in_records(self) -> bool:
        """Whether the fault is made in the simulated records (not in the bytes)."""
        return self in RECORD_FAULTS


RECORD_FAULTS = frozenset({FaultKind.MIS_SCORED, FaultKind.MIS_PAID, FaultKind.FL_UNEARNED,
                           FaultKind.FL_MISSING, FaultKind.FL_CARDS, FaultKind.GAP})
FL_FAULTS = (FaultKind.FL_UNEARNED, FaultKind.FL_MISSING, FaultKind.FL_CARDS)
# What ``ofc-stats audit`` reports for each fault ("": nothing; ingest sets the hand
# aside or skips the copy). A hand lost to a file fault also shows as a gap when
# its table's history goes on after it.
AUDIT_KINDS: Mapping[FaultKind, str] = MappingProxyType({
    FaultKind.MIS_SCORED: "points", FaultKind.MIS_PAID: "money",
    FaultKind.FL_UNEARNED: "fl_unearned",
    FaultKind.FL_MISSING: "fl_missing", FaultKind.FL_CARDS: "fl_cards",
    FaultKind.GAP: "gap", FaultKind.CORRUPT_CARD: "impossible",
    FaultKind.BROKEN_LINE: "", FaultKind.TRUNCATED: "",
    FaultKind.DUPLICATE_IN_FILE: "", FaultKind.DUPLICATE_ACROSS_FILES: "",
})

# `--faults all`: how many of each kind.
DEFAULT_FAULT_COUNTS: Mapping[FaultKind, int] = MappingProxyType({
    FaultKind.MIS_SCORED: 3, FaultKind.FL_UNEARNED: 2, FaultKind.FL_MISSING: 2,
    FaultKind.FL_CARDS: 2, FaultKind.GAP: 3, FaultKind.CORRUPT_CARD: 2,
    FaultKind.BROKEN_LINE: 1, FaultKind.TRUNCATED: 1, FaultKind.DUPLICATE_IN_FILE: 2,
    FaultKind.DUPLICATE_ACROSS_FILES: 2, FaultKind.MIS_PAID: 2,
})


def parse_faults(spec: str | None) -> dict[FaultKind, int]:
    """Fault counts from text: ``all``, ``none``, or ``kind[=count],...``.

    >>> parse_faults("gap=4,mis-scored")
    {<FaultKind.GAP: 'gap'>: 4, <FaultKind.MIS_SCORED: 'mis-scored'>: 3}
    """
    if spec is None or spec.strip().lower() in ("", "none"):
        return {}
    if spec.strip().lower() == "all":
        return dict(DEFAULT_FAULT_COUNTS)
    counts: dict[FaultKind, int] = {}
    for item in spec.split(","):
        name, _, count = item.strip().partition("=")
        try:
            kind = FaultKind(name.strip().lower())
        except ValueError:
            known = ", ".join(kind.value for kind in FaultKind)
            raise SimulationError(f"unknown fault {name!r} (one of: all, {known})") from None
        try:
            counts[kind] = int(count) if count else DEFAULT_FAULT_COUNTS[kind]
        except ValueError:
            raise SimulationError(f"fault count {count!r} is not a number") from None
        if counts[kind] < 0:
            raise SimulationError(f"fault count {counts[kind]} is negative")
    return counts


@dataclass(frozen=True)
class Fault:
    """One injected fault: the ground truth an auditor or reader is tested against.

    ``player`` and ``seat`` name the board concerned (Fantasyland and scoring faults);
    ``file`` is filled in when the simulation is written.
    """

    site: str
    hand_id: str
    kind: FaultKind
    details: str
    table: str = ""
    player: str = ""
    file: str = ""

    def as_row(self) -> dict[str, str]:
        """Plain strings, for the ground-truth file."""
        return {"site": self.site, "hand_id": self.hand_id, "kind": self.kind.value,
                "table": self.table, "player": self.player, "file": self.file,
                "details": self.details}


ALL_VARIANTS = tuple(Variant)
MAX_PLAYERS = 100_000


def parse_variants(names: Iterable[str]) -> tuple[Variant, ...]:
    """Variants from their names (``classic``, ``pineapple``, ...).

    Raises:
        SimulationError: a name that is no variant.
    """
    variants = []
    for name in names:
        try:
            variants.append(Variant(str(name).strip().lower()))
        except ValueError:
            known = [variant.value for variant in Variant]
            raise SimulationError(f"--variant: unknown variant {name!r} (one of "
                                  f"{alternatives(known)}){did_you_mean(str(name), known)}"
                                  ) from None
    return tuple(variants)


@dataclass(frozen=True)
class SimulationConfig:
    """A simulation, reproducible from these values alone.

    Attributes:
        seed: the random seed; the same config gives the same hands, byte for byte.
        hands: hands to simulate in all (gaps, if injected, are removed afterwards).
        tables: tables to spread them over (default: one per 2,000 hands, at least 2).
        variants: the variants dealt; tables take them in turn.
        players: size of the player pool, at least 4 (default: three per table, but
            at least 12 and at most 2,000).
        site: the room name written in every hand (default: ``ofc-sim-<run tag>``,
            see :attr:`run_tag`, so two different simulations never share hand ids
            or tables in one warehouse).
        currency: currency of the point values.
        start: when the first sessions begin (UTC).
        utc_offset_minutes: the room's local time offset, written with each time.
        session_hands: average hands in a table session (about an hour of play).
        faults: how many faults of each kind to inject.
        batch_hands: hands per yielded batch.
        first_table: the tables take their names from this one on (a second
            simulation beside a first one names its tables apart).
    """

    seed: int = 0
    hands: int = 10_000
    tables: int | None = None
    variants: tuple[Variant, ...] = ALL_VARIANTS
    players: int | None = None
    site: str | None = None
    currency: str = "USD"
    start: datetime = datetime(2024, 3, 4, 17, 0, tzinfo=UTC)
    utc_offset_minutes: int = 60
    session_hands: int = 60
    faults: Mapping[FaultKind, int] = field(default_factory=dict)
    batch_hands: int = 20_000
    first_table: int = 0

    def __post_init__(self) -> None:
        if self.hands < 1:
            raise SimulationError(f"hands must be at least 1, not {self.hands}")
        if not self.variants:
            raise SimulationError("at least one variant is needed")
        object.__setattr__(self, "variants", parse_variants(self.variants))
        object.__setattr__(self, "faults", MappingProxyType(
            {FaultKind(kind): int(count) for kind, count in self.faults.items() if count}))
        if self.tables is not None and not 1 <= self.tables <= self.hands:
            raise SimulationError(f"tables must be between 1 and hands ({self.hands})")
        if self.players is not None and not 4 <= self.players <= MAX_PLAYERS:
            raise SimulationError(f"the player pool needs 4 to {MAX_PLAYERS:,} players, "
                                  f"not {self.players:,}")
        if self.session_hands < 5:
            raise SimulationError("session_hands must be at least 5")
        if self.start.tzinfo is None:
            object.__setattr__(self, "start", self.start.replace(tzinfo=UTC))

    @property
    def run_tag(self) -> str:
        """Six hex digits naming this simulation: the same for the same settings (the
        same hands), different for different ones."""
        settings = (self.seed, self.hands, self.table_count, [v.value for v in self.variants],
                    self.pool_size, self.currency, self.start.isoformat(),
                    self.utc_offset_minutes, self.session_hands,
                    sorted((kind.value, count) for kind, count in self.faults.items()))
        return hashlib.sha256(repr(settings).encode()).hexdigest()[:6]

    @property
    def site_name(self) -> str:
        """The room written in every hand: ``site``, or ``ofc-sim-<run tag>``."""
        return self.site if self.site is not None else f"ofc-sim-{self.run_tag}"

    @property
    def table_count(self) -> int:
        """Tables actually used."""
        if self.tables is not None:
            return self.tables
        return max(min(2, self.hands), round(self.hands / 2000))

    @property
    def pool_size(self) -> int:
        """Players in the pool."""
        if self.players is not None:
            return self.players
        return max(12, min(2000, 3 * self.table_count))
