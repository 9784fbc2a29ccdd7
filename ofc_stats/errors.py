"""The library's exceptions and the exit codes they end a command with.

The CLI turns each :class:`OfcStatsError` into a one-line message on stderr and its
:attr:`~OfcStatsError.exit_code`; :class:`ExitCode` is the one table of those codes
(``docs/cli.md`` documents it, and a test holds the two together).
"""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    """How an ``ofc-stats`` command ends: one code per situation a script may test."""

    OK = 0
    MISMATCHES = 1  # audit --fail-on-mismatch found errors
    USAGE = 2  # a bad option, value or name (query, player, ruleset, SQL)
    LOCKED = 3  # another process is writing the warehouse
    SET_ASIDE = 4  # ingest --strict: hands or files were rejected or conflicted
    NO_WAREHOUSE = 5  # no warehouse there, not a warehouse, or a damaged one
    NOT_SCORED = 6  # nothing scored yet (or not under the scoring asked for)
    SYSTEM = 7  # a file could not be read or written (permissions, disk full, ...)
    INTERNAL = 70  # a bug: please report it
    INTERRUPTED = 130  # Ctrl-C


class OfcStatsError(Exception):
    """Base class of every error the library raises on purpose."""

    exit_code: int = ExitCode.USAGE


class NotScoredError(OfcStatsError):
    """The warehouse holds no scores to answer from: ``ofc-stats score`` has not run
    (or not under the scoring asked for)."""

    exit_code = ExitCode.NOT_SCORED


class InvalidCardError(OfcStatsError, ValueError):
    """A string that is not a card in any accepted notation."""

    exit_code = ExitCode.USAGE

    def __init__(self, text: str, where: str = "") -> None:
        self.text = text
        self.where = where
        suffix = f" ({where})" if where else ""
        super().__init__(f"invalid card {text!r}{suffix}")


class RulesetError(OfcStatsError, ValueError):
    """An unknown preset name or an invalid ruleset file."""

    exit_code = ExitCode.USAGE


class BoardsError(OfcStatsError, ValueError):
    """A boards table missing a required column or of the wrong shape."""

    exit_code = ExitCode.USAGE


class FantasylandHandError(OfcStatsError, ValueError):
    """Cards that are not a Fantasyland hand the solver can set."""

    exit_code = ExitCode.USAGE


class SparkUnavailableError(OfcStatsError, ImportError):
    """``ofc_stats.spark`` was imported without PySpark (the ``spark`` extra)."""

    exit_code = ExitCode.USAGE
