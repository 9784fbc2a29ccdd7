"""The errors ingest raises on purpose (each an :class:`~ofc_stats.errors.OfcStatsError`).

A path that names no input raises :class:`~ofc_stats.ingest.sources.SourceError`; a
busy or invalid warehouse, :class:`~ofc_stats.warehouse.WarehouseError`.
"""

from __future__ import annotations

from ofc_stats.errors import ExitCode, OfcStatsError
from ofc_stats.ingest.summary import IngestSummary


class IngestError(OfcStatsError):
    """A request ingest cannot carry out (raised as such only for a bug)."""

    exit_code = ExitCode.INTERNAL


class UnknownFormatOptionError(IngestError, ValueError):
    """A forced ``--format`` that is not one of the formats."""

    exit_code = ExitCode.USAGE


class RejectedHandsError(IngestError):
    """Strict mode: the import finished, but something was rejected or conflicted."""

    exit_code = ExitCode.SET_ASIDE

    def __init__(self, summary: IngestSummary) -> None:
        self.summary = summary
        super().__init__(f"{summary.problem_text()} (strict mode)")
