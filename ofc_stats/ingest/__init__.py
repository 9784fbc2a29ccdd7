"""Ingest: hand-history files, folders and archives into the Parquet warehouse, once.

:func:`ingest` is the way in; what it guarantees is described in ``docs/ingest.md``.
"""

from ofc_stats.ingest.run import (
    COMMIT_HANDS,
    COMPACT_SMALL_FILES,
    DETAILS,
    LOCK_TIMEOUT,
    READ_BATCH_HANDS,
    HandIndex,
    ImportStatus,
    IngestError,
    IngestProgress,
    IngestSummary,
    ProgressCallback,
    RejectedHandsError,
    UnknownFormatOptionError,
    detail_matrix,
    differing_details,
    hand_keys,
    hash_strings,
    ingest,
)
from ofc_stats.ingest.sources import SourceError

__all__ = [
    "COMMIT_HANDS",
    "COMPACT_SMALL_FILES",
    "DETAILS",
    "LOCK_TIMEOUT",
    "READ_BATCH_HANDS",
    "HandIndex",
    "ImportStatus",
    "IngestError",
    "IngestProgress",
    "IngestSummary",
    "ProgressCallback",
    "RejectedHandsError",
    "SourceError",
    "UnknownFormatOptionError",
    "detail_matrix",
    "differing_details",
    "hand_keys",
    "hash_strings",
    "ingest",
]
