"""Ingest: hand-history files, folders and archives into the Parquet warehouse, once.

:func:`ingest` is the way in (what it guarantees: ``docs/ingest.md``). Each rule has
its module: where histories come from (:mod:`~ofc_stats.ingest.sources`), the
manifest of what was imported (:mod:`~ofc_stats.ingest.manifest`), reading one file
(:mod:`~ofc_stats.ingest.reading`) or a group of small ones
(:mod:`~ofc_stats.ingest.grouping`), the keys of stored hands
(:mod:`~ofc_stats.ingest.keys`), the dedupe rule (:mod:`~ofc_stats.ingest.dedupe`),
the conflict rule (:mod:`~ofc_stats.ingest.conflicts`), the commit protocol
(:mod:`~ofc_stats.ingest.commits`), progress (:mod:`~ofc_stats.ingest.progress`), and
the run that ties them together (:mod:`~ofc_stats.ingest.run`).
"""

from ofc_stats.ingest.commits import COMMIT_HANDS
from ofc_stats.ingest.conflicts import differing_details
from ofc_stats.ingest.errors import IngestError, RejectedHandsError, UnknownFormatOptionError
from ofc_stats.ingest.keys import DETAILS, HandIndex, detail_matrix, hand_keys, hash_strings
from ofc_stats.ingest.manifest import ImportStatus
from ofc_stats.ingest.progress import IngestProgress, ProgressCallback
from ofc_stats.ingest.run import LOCK_TIMEOUT, READ_BATCH_HANDS, ingest
from ofc_stats.ingest.sources import SourceError
from ofc_stats.ingest.summary import IngestSummary

__all__ = [
    "COMMIT_HANDS",
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
