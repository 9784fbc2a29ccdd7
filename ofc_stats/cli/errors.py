"""How every command ends on an error: one line on stderr and an exit code, never a traceback.

Library errors (:class:`~ofc_stats.errors.OfcStatsError`) exit with their
``exit_code``; the system refusing (disk full, permission denied, a read-only file
system, wherever a library wrapped it) with 7; a read that failed on a damaged
warehouse with 5, naming the file and pointing at ``ofc-stats check``; an interrupt
with 130; a bug with 70 (and its traceback only with ``OFC_STATS_DEBUG`` set);
:class:`~ofc_stats.errors.ExitCode` is the table. Usage errors that Typer finds (an
unknown option or command, a value of the wrong type, a missing argument) are turned
into the same one line, naming the option and what it accepts (:func:`usage_message`),
and exit with 2.

Ctrl-C: inside a command, an interrupt stops the library where it stands (whatever
it committed is whole) and prints one line; once that line is printed, a second
Ctrl-C is ignored while the command winds up. Outside a command (Python still
importing, the arguments being parsed) the launcher (``ofc_stats_launcher``) prints
the same line and exits at once.
"""

from __future__ import annotations

import os
import re
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import typer
from typer._click.exceptions import (
    BadParameter,
    ClickException,
    MissingParameter,
    NoSuchOption,
    UsageError,
)
from typer.exceptions import TyperException

from ofc_stats.errors import ExitCode, OfcStatsError, RulesetError
from ofc_stats.util.suggest import alternatives, did_you_mean
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
        raise typer.Exit(ExitCode.INTERRUPTED) from None
    except (typer.Exit, typer.Abort, TyperException):
        raise  # usage errors (BadParameter): the app prints them on one line, exit 2
    except Exception as error:
        refused = system_error(error)
        if refused is not None:
            raise _fail(describe_system_error(refused), ExitCode.SYSTEM) from None
        damage = _damage(warehouse)
        if damage is not None:
            raise _fail(str(damage), damage.exit_code) from None
        if isinstance(error, OSError):
            raise _fail(str(error), ExitCode.SYSTEM) from None
        # A bug, not bad input: still one line, with a way to see the traceback.
        if os.environ.get("OFC_STATS_DEBUG"):
            raise
        first = next((line for line in str(error).splitlines() if line.strip()), "")
        typer.echo(f"ofc-stats: internal error: {type(error).__name__}: {first.strip()} "
                   "(set OFC_STATS_DEBUG=1 for the traceback, and please report it)", err=True)
        raise typer.Exit(ExitCode.INTERNAL) from None


def check_ruleset(value: str | None, option: str, also: str = "") -> None:
    """Load the ruleset an option names before any work, so that a bad one is reported
    as the option's error: ``--ruleset: unknown ruleset 'bogus': ...`` (``also`` is
    added to the message)."""
    if value is None:
        return
    from ofc_stats.engine.rules import get_ruleset

    try:
        get_ruleset(value)
    except RulesetError as error:
        raise RulesetError(f"{option}: {error}{also}") from None


_NUMBER = re.compile(r"-?\d+(\.\d*)?")


def _help_hint(error: UsageError) -> str:
    return f" (see '{error.ctx.command_path} --help')" if error.ctx is not None else ""


def _option_name(error: BadParameter) -> str:
    """How the user wrote the parameter: ``--min-hands``, or ``PATH`` for an argument."""
    if error.param_hint is not None:
        hint = error.param_hint
        return hint if isinstance(hint, str) else " / ".join(hint)
    param = error.param
    if param is None:
        return "a value"
    if param.param_type_name == "argument":
        return param.metavar or (param.name or "").upper()
    longest = max(param.opts, key=len) if param.opts else f"--{param.name}"
    return longest


def _choices(param: Any) -> list[str]:
    # Typer 0.29 keeps them in the parameter's type descriptor, earlier ones in its type.
    descriptor = getattr(param, "type_descriptor", None) or getattr(param, "type", None)
    found = getattr(descriptor, "choices", None) or ()
    return [str(getattr(choice, "value", choice)) for choice in found]


def _bad_value(error: BadParameter) -> str:
    """``--min-hands 'abc' is not a whole number``: from the validation error behind
    Typer's message, which says what was wrong but not with which value."""
    option = _option_name(error)
    cause = error.__cause__
    details = cause.errors() if cause is not None and hasattr(cause, "errors") else []
    if not details:
        return f"{option}: {_sentence(error.message)}"
    first = details[0]
    kind, value, context = first.get("type", ""), first.get("input"), first.get("ctx") or {}
    shown = (repr(value) if isinstance(value, str) and not _NUMBER.fullmatch(value)
             else str(value))
    choices = _choices(error.param)
    if choices or kind in ("enum", "literal_error"):
        accepted = alternatives(choices) if choices else str(context.get("expected", ""))
        return (f"{option} {shown} is not one of {accepted}"
                f"{did_you_mean(str(value), choices)}")
    if kind.startswith("int_"):
        return f"{option} {shown} is not a whole number"
    if kind.startswith("float_") or kind.startswith("decimal_"):
        return f"{option} {shown} is not a number"
    if kind.startswith("bool_"):
        return f"{option} {shown} is not true or false"
    for bound, word in (("ge", "at least"), ("gt", "more than"), ("le", "at most"),
                        ("lt", "less than")):
        if bound in context:
            return f"{option} {shown} is out of range: it must be {word} {context[bound]}"
    return f"{option} {shown}: {_sentence(str(first.get('msg', error.message)))}"


def _sentence(text: str) -> str:
    """Click's ``Got unexpected ...`` as ``got unexpected ...``, without the full stop."""
    text = text.strip().rstrip(".")
    return text[:1].lower() + text[1:] if text[1:2].islower() or len(text) < 2 else text


def _no_such_command(error: UsageError) -> str | None:
    found = re.match(r"No such command '(.+)'", error.message)
    if found is None or error.ctx is None:
        return None
    commands = list(getattr(error.ctx.command, "commands", {}))
    return (f"no command {found.group(1)!r}{did_you_mean(found.group(1), commands)} "
            f"(commands: {alternatives(commands)})")


def usage_message(error: ClickException) -> str:
    """A usage error Typer found, as the one line ``ofc-stats: error:`` is followed by:
    the option named, what it accepts, and the closest option or command."""
    if isinstance(error, MissingParameter):
        name = _option_name(error)
        described = getattr(error.param, "help", None)
        what = f" ({_sentence(str(described))})" if described else ""
        return f"missing {name}{what}{_help_hint(error)}"
    if isinstance(error, NoSuchOption):
        possible = list(error.possibilities or [])
        hint = (f"; did you mean {alternatives(repr(p) for p in possible)}?"
                if possible else "")
        return f"no option {error.option_name!r}{hint}{_help_hint(error)}"
    if isinstance(error, BadParameter):
        return _bad_value(error)
    if isinstance(error, UsageError):
        return _no_such_command(error) or f"{_sentence(error.message)}{_help_hint(error)}"
    return _sentence(error.format_message())
