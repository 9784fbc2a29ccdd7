"""The Parquet warehouse: its layout, atomic commits, the commit log and the lock.

:class:`Warehouse` is the way in (:mod:`~ofc_stats.warehouse.store`), over atomic
files (:mod:`~ofc_stats.warehouse.files`), the commit log
(:mod:`~ofc_stats.warehouse.log`) and the write lock (:mod:`~ofc_stats.warehouse.lock`).
The schema of every table is in :mod:`~ofc_stats.warehouse.schemas`, the DuckDB views
over the tables in :mod:`~ofc_stats.warehouse.catalog`, the upgrade of layouts written
by earlier versions in :mod:`~ofc_stats.warehouse.upgrade`.

The package's ``__init__`` imports the store's modules only: the schemas sit below
the formats, which import them, and must not pull in anything that imports a format.
"""

from ofc_stats.warehouse.errors import (
    WarehouseConflictError,
    WarehouseDamagedError,
    WarehouseError,
    WarehouseLockedError,
    WarehouseLockLostError,
)
from ofc_stats.warehouse.files import atomic_write_bytes, atomic_write_parquet
from ofc_stats.warehouse.lock import LOCK_FILE
from ofc_stats.warehouse.log import LOG_DIR, TableFile, WarehouseState
from ofc_stats.warehouse.store import (
    DEFAULT_WAREHOUSE,
    ENV_WAREHOUSE,
    QUARANTINE_DIR,
    PendingFile,
    StagedFile,
    Warehouse,
    default_warehouse,
    partition_folder,
)

__all__ = [
    "DEFAULT_WAREHOUSE",
    "ENV_WAREHOUSE",
    "LOCK_FILE",
    "LOG_DIR",
    "QUARANTINE_DIR",
    "PendingFile",
    "StagedFile",
    "TableFile",
    "Warehouse",
    "WarehouseConflictError",
    "WarehouseDamagedError",
    "WarehouseError",
    "WarehouseLockLostError",
    "WarehouseLockedError",
    "WarehouseState",
    "atomic_write_bytes",
    "atomic_write_parquet",
    "default_warehouse",
    "partition_folder",
]
