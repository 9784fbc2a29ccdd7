"""Readers of results never leave stored hands out silently.

``audit``, ``stats`` and ``report`` score what is not scored yet before they answer
(:func:`score_first`: incremental, it reads only the seats files not scored whole);
if they cannot (another process writing for longer than they wait, a read-only
warehouse), they answer from the hands scored and say how many stored hands their
numbers leave out. ``query`` never writes: it only says so (:func:`unscored_hands`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import polars as pl

from ofc_stats.analysis.score import rules_digest, score_warehouse, scoring_records
from ofc_stats.util.system_errors import describe_system_error, system_error
from ofc_stats.warehouse import Warehouse, WarehouseLockedError
from ofc_stats.warehouse.config import read_config
from ofc_stats.warehouse.schemas import DEFAULT_SCORING

HAND_KEY = ["site", "hand_id"]
# How long a reader waits for a writer before answering from what is scored.
SCORE_FIRST_WAIT = 10.0


@dataclass(frozen=True)
class Coverage:
    """How many stored hands a reader's numbers cover."""

    stored: int  # hands in the warehouse
    unscored: int  # of which not in the default scoring: not in the numbers
    scored_now: int = 0  # scored first by this reader
    stale_fantasyland: bool = False  # Fantasyland across hands not followed since
    reason: str | None = None  # why the unscored hands could not be scored first

    @property
    def complete(self) -> bool:
        """Whether every stored hand is in the numbers."""
        return not self.unscored and not self.stale_fantasyland

    def warning(self, what: str) -> str | None:
        """A line saying what ``what`` (``these numbers``) leaves out, or None."""
        if self.complete:
            return None
        why = f" ({self.reason})" if self.reason else ""
        if self.unscored:
            return (f"{self.unscored:,} of {self.stored:,} stored hands are not scored and "
                    f"not in {what}{why}; run 'ofc-stats score'")
        return (f"Fantasyland across hands was not followed since the last hands were "
                f"scored: {what} may miss Fantasyland findings{why}; run 'ofc-stats score'")

    def as_dict(self) -> dict[str, object]:
        """Plain values, for JSON output."""
        return asdict(self)


def unscored_hands(warehouse: Warehouse, scoring: str = DEFAULT_SCORING) -> Coverage:
    """How many stored hands the default scoring does not hold (scored under other
    rules counts as not scored). Reads nothing when every seats file is recorded as
    scored whole; else the keys of the hands of the other seats files."""
    state = warehouse.state()
    stored = sum(f.rows for f in state.table_files("hands"))
    scored = state.table_files("player_hands", scoring)
    record = scoring_records(warehouse).get(scoring)
    if not scored:
        return Coverage(stored, stored)
    config = read_config(warehouse.root) if scoring == DEFAULT_SCORING else None
    if config is not None and record is not None and record.rules != rules_digest(None, config):
        return Coverage(stored, stored)  # every hand would be scored again
    seats = [f for f in state.table_files("seats")
             if record is None or f.path not in record.seats_files]
    stale = record is not None and record.transitions_stale
    if not seats:
        return Coverage(stored, 0, stale_fantasyland=stale)
    pending = pl.scan_parquet([warehouse.root / f.path for f in seats]).select(
        HAND_KEY).unique()
    missing = (pending.join(pl.scan_parquet([warehouse.root / f.path for f in scored])
                            .select(HAND_KEY), on=HAND_KEY, how="anti")
               .select(pl.len()).collect(engine="streaming").item())
    return Coverage(stored, int(missing), stale_fantasyland=stale)


def score_first(warehouse: Warehouse, *, wait: float | None = None) -> Coverage:
    """Score the stored hands not scored yet (and follow Fantasyland if it is behind),
    so a reader's numbers cover every stored hand; if that cannot be done, say how
    many they leave out and why.

    Args:
        warehouse: the warehouse.
        wait: seconds to wait for another process writing it (default
            ``SCORE_FIRST_WAIT``).
    """
    wait = SCORE_FIRST_WAIT if wait is None else wait
    before = unscored_hands(warehouse)
    if before.complete:
        return before
    try:
        summary = score_warehouse(warehouse, lock_timeout=wait)
    except WarehouseLockedError:
        reason = f"another process is writing the warehouse, for more than {wait:g} s"
    except OSError as error:  # read-only, permissions, disk full
        refused = system_error(error)
        reason = describe_system_error(refused) if refused is not None else str(error)
    else:
        after = unscored_hands(warehouse)
        return Coverage(after.stored, after.unscored, summary.hands, after.stale_fantasyland)
    return Coverage(before.stored, before.unscored, 0, before.stale_fantasyland, reason)
