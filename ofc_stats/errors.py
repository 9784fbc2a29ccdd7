"""The library's exceptions. The CLI turns each into a one-line message and an exit code."""

from __future__ import annotations


class OfcStatsError(Exception):
    """Base class of every error the library raises on purpose."""

    exit_code = 1


class InvalidCardError(OfcStatsError, ValueError):
    """A string that is not a card in any accepted notation."""

    exit_code = 2

    def __init__(self, text: str, where: str = "") -> None:
        self.text = text
        self.where = where
        suffix = f" ({where})" if where else ""
        super().__init__(f"invalid card {text!r}{suffix}")


class RulesetError(OfcStatsError, ValueError):
    """An unknown preset name or an invalid ruleset file."""

    exit_code = 2


class BoardsError(OfcStatsError, ValueError):
    """A boards table missing a required column or of the wrong shape."""

    exit_code = 2


class FantasylandHandError(OfcStatsError, ValueError):
    """Cards that are not a Fantasyland hand the solver can set."""

    exit_code = 2


class SparkUnavailableError(OfcStatsError, ImportError):
    """``ofc_stats.spark`` was imported without PySpark (the ``spark`` extra)."""

    exit_code = 2
