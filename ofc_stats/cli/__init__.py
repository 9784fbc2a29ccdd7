"""The ``ofc-stats`` command: thin Typer commands over the library."""

from ofc_stats.cli.app import app, run

__all__ = ["app", "run"]
