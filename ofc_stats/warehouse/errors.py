"""The errors of the warehouse."""

from __future__ import annotations

from ofc_stats.errors import ExitCode, OfcStatsError

CHECK_HINT = "run 'ofc-stats check' for the whole picture, and 'ofc-stats repair' to mend it"


class WarehouseError(OfcStatsError):
    """The warehouse is missing, locked by another writer, or inconsistent."""

    exit_code = ExitCode.NO_WAREHOUSE


class WarehouseLockedError(WarehouseError):
    """Another process holds the warehouse's write lock."""

    exit_code = ExitCode.LOCKED


class WarehouseLockLostError(WarehouseError):
    """The write lock was taken away (``.lock`` deleted or replaced) while writing."""

    exit_code = ExitCode.LOCKED


class WarehouseConflictError(WarehouseError):
    """Another process committed while this one was writing: its commit was refused."""

    exit_code = ExitCode.LOCKED


class WarehouseDamagedError(WarehouseError):
    """A file of the warehouse is missing, unreadable or inconsistent with the log."""

    exit_code = ExitCode.NO_WAREHOUSE

    def __init__(self, problem: str, file: str | None = None) -> None:
        self.problem = problem
        self.file = file
        super().__init__(f"the warehouse is damaged: {problem}; {CHECK_HINT}")
