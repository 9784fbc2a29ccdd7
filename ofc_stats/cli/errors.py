"""How every command ends on an error: one line on stderr and an exit code, never a traceback.

Library errors (:class:`~ofc_stats.errors.OfcStatsError`) exit with their
``exit_code``; system errors with 1, an interrupt with 130, a bug with 70 (and its
traceback only with ``OFC_STATS_DEBUG`` set)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

import typer
from typer.exceptions import TyperException

from ofc_stats.errors import OfcStatsError


@contextmanager
def reported_errors() -> Iterator[None]:
    """Turn library errors (and a few system ones) into one line on stderr and an exit."""
    try:
        yield
    except OfcStatsError as error:
        typer.echo(f"ofc-stats: error: {error}", err=True)
        raise typer.Exit(error.exit_code) from None
    except OSError as error:
        where = f": {error.filename}" if error.filename else ""
        typer.echo(f"ofc-stats: error: {error.strerror or error}{where}", err=True)
        raise typer.Exit(1) from None
    except KeyboardInterrupt:
        typer.echo("ofc-stats: interrupted", err=True)
        raise typer.Exit(130) from None
    except (typer.Exit, typer.Abort, TyperException):
        raise  # usage errors (BadParameter): typer prints them and exits 2
    except Exception as error:
        # A bug, not bad input: still one line, with a way to see the traceback.
        if os.environ.get("OFC_STATS_DEBUG"):
            raise
        typer.echo(f"ofc-stats: internal error: {type(error).__name__}: {error} "
                   "(set OFC_STATS_DEBUG=1 for the traceback, and please report it)", err=True)
        raise typer.Exit(70) from None
