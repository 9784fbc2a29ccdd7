"""The Parquet warehouse: its layout, atomic commits, the commit log and the lock.

:class:`Warehouse` is the way in (:mod:`ofc_stats.warehouse.store`); the schemas of
every table are in :mod:`ofc_stats.warehouse.schemas`, the upgrade of layouts written
by earlier versions in :mod:`ofc_stats.warehouse.upgrade`.
"""

from ofc_stats.warehouse.store import (
    DEFAULT_WAREHOUSE,
    ENV_WAREHOUSE,
    LOCK_FILE,
    LOG_DIR,
    PendingFile,
    StagedFile,
    TableFile,
    Warehouse,
    WarehouseError,
    WarehouseLockedError,
    WarehouseState,
    atomic_write_bytes,
    atomic_write_parquet,
    default_warehouse,
    partition_folder,
)

__all__ = [
    "DEFAULT_WAREHOUSE",
    "ENV_WAREHOUSE",
    "LOCK_FILE",
    "LOG_DIR",
    "PendingFile",
    "StagedFile",
    "TableFile",
    "Warehouse",
    "WarehouseError",
    "WarehouseLockedError",
    "WarehouseState",
    "atomic_write_bytes",
    "atomic_write_parquet",
    "default_warehouse",
    "partition_folder",
]
