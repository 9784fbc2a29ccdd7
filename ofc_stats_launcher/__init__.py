"""The ``ofc-stats`` command's entry point: Ctrl-C is one line from the first instant.

Importing ofc-stats (numpy, polars, DuckDB, the commands) takes a good part of a
second, and a Ctrl-C in that time would end in Python's traceback. This package
imports none of it: it first sets a handler that prints the one line and exits with
130, then imports the app and runs it. Inside a command the app stops the library
cleanly on Ctrl-C instead (``ofc_stats.cli.errors``), and puts this handler back after.
"""

from __future__ import annotations

import os
import signal
from types import FrameType

INTERRUPTED = b"ofc-stats: interrupted\n"  # the same line as ofc_stats.cli.errors
EXIT_INTERRUPTED = 130


def _exit_at_once(signum: int, frame: FrameType | None) -> None:
    """Nothing is written outside a command: exit with the one line, at once."""
    os.write(2, INTERRUPTED)
    os._exit(EXIT_INTERRUPTED)


def exit_at_once_on_ctrl_c() -> None:
    """Until a command takes Ctrl-C over, let it print the one line and exit (130)."""
    signal.signal(signal.SIGINT, _exit_at_once)


def main() -> None:
    """Run ``ofc-stats`` with Ctrl-C one line at any moment."""
    exit_at_once_on_ctrl_c()
    from ofc_stats.cli import app

    app(prog_name="ofc-stats")
