"""The errors ingest raises on purpose (each an :class:`~ofc_stats.errors.OfcStatsError`).

A path that names no input raises :class:`~ofc_stats.ingest.sources.SourceError`; a
busy or invalid warehouse, :class:`~ofc_stats.warehouse.WarehouseError`.
"""

from __future__ import annotations

from ofc_stats.errors import OfcStatsError
from ofc_stats.ingest.summary import IngestSummary


class IngestError(OfcStatsError):
    """A request ingest cannot carry out."""


class UnknownFormatOptionError(IngestError, ValueError):
    """A forced ``--format`` that is not one of the formats."""

    exit_code = 2


class RejectedHandsError(IngestError):
    """Strict mode: the import finished, but something was rejected or conflicted."""

    exit_code = 4

    def __init__(self, summary: IngestSummary) -> None:
        self.summary = summary
        super().__init__(f"{summary.problem_text()} (strict mode)")
