"""The errors of the warehouse."""

from __future__ import annotations

from ofc_stats.errors import OfcStatsError


class WarehouseError(OfcStatsError):
    """The warehouse is missing, locked by another writer, or inconsistent."""


class WarehouseLockedError(WarehouseError):
    """Another process holds the warehouse's write lock."""

    exit_code = 3
