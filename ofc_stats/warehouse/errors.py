"""The errors of the warehouse."""

from __future__ import annotations

from ofc_stats.errors import ExitCode, OfcStatsError


class WarehouseError(OfcStatsError):
    """The warehouse is missing, locked by another writer, or inconsistent."""

    exit_code = ExitCode.NO_WAREHOUSE


class WarehouseLockedError(WarehouseError):
    """Another process holds the warehouse's write lock."""

    exit_code = ExitCode.LOCKED
