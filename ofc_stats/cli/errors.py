"""How every command ends on an error: one line on stderr and an exit code, never a traceback.

Library errors (:class:`~ofc_stats.errors.OfcStatsError`) exit with their
``exit_code``; the system refusing (disk full, permission denied, a read-only file
system, wherever a library wrapped it) with 1; a read that failed on a damaged
warehouse with 5, naming the file and pointing at ``ofc-stats check``; an interrupt
with 130; a bug with 70 (and its traceback only with ``OFC_STATS_DEBUG`` set).

Ctrl-C: inside a command, an interrupt stops the library where it stands (whatever
it committed is whole) and prints one line; once that line is printed, a second
Ctrl-C is ignored while the command winds up. Outside a command (Python still
importing, the arguments being parsed) the launcher (``ofc_stats_launcher``) prints
the same line and exits at once.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import typer
from typer.exceptions import TyperException

from ofc_stats.errors import OfcStatsError
from ofc_stats.util.system_errors import describe_system_error, system_error
from ofc_stats_launcher import INTERRUPTED as LAUNCHER_INTERRUPTED

INTERRUPTED = LAUNCHER_INTERRUPTED.decode().strip()  # one line, the same everywhere


def _damage(warehouse: Path | str | None) -> OfcStatsError | None:
    """What a cheap look finds damaged in ``warehouse`` (None: nothing, or no warehouse)."""
    from ofc_stats.warehouse import LOG_DIR, Warehouse, default_warehouse
    from ofc_stats.warehouse.check import first_damage

    root = Path(warehouse) if warehouse is not None else default_warehouse()
    if not (root / LOG_DIR).is_dir():
        return None
    try:
        return first_damage(Warehouse(root))
    except Exception:  # looking must never hide the error being reported
        return None


def _fail(message: str, code: int) -> typer.Exit:
    typer.echo(f"ofc-stats: error: {message}", err=True)
    return typer.Exit(code)


@contextmanager
def _interruptible() -> Iterator[None]:
    """Ctrl-C raises KeyboardInterrupt inside the block (the library cleans up), even
    where the launcher made it exit at once; restored after."""
    main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, signal.default_int_handler) if main else None
    try:
        yield
    finally:
        if main and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            signal.signal(signal.SIGINT, previous)


@contextmanager
def reported_errors(warehouse: Path | str | None = None) -> Iterator[None]:
    """Turn library errors (and the system's) into one line on stderr and an exit.

    Args:
        warehouse: the warehouse the command works on, if any: a read that fails for
            no reason ofc-stats knows is checked against it, to name a damaged file.
    """
    try:
        with _interruptible():
            yield
    except OfcStatsError as error:
        raise _fail(str(error), error.exit_code) from None
    except KeyboardInterrupt:
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGINT, signal.SIG_IGN)  # one line, however many Ctrl-C
        typer.echo(INTERRUPTED, err=True)
        raise typer.Exit(130) from None
    except (typer.Exit, typer.Abort, TyperException):
        raise  # usage errors (BadParameter): typer prints them and exits 2
    except Exception as error:
        refused = system_error(error)
        if refused is not None:
            raise _fail(describe_system_error(refused), 1) from None
        damage = _damage(warehouse)
        if damage is not None:
            raise _fail(str(damage), damage.exit_code) from None
        if isinstance(error, OSError):
            raise _fail(str(error), 1) from None
        # A bug, not bad input: still one line, with a way to see the traceback.
        if os.environ.get("OFC_STATS_DEBUG"):
            raise
        first = next((line for line in str(error).splitlines() if line.strip()), "")
        typer.echo(f"ofc-stats: internal error: {type(error).__name__}: {first.strip()} "
                   "(set OFC_STATS_DEBUG=1 for the traceback, and please report it)", err=True)
        raise typer.Exit(70) from None
