"""``ofc-stats report``: the warehouse as one self-contained, offline HTML page.

:func:`write_report` runs the report's SQL (``sql/report/*.sql``) in DuckDB, turns the
small aggregates into Plotly figures and writes one HTML file that embeds plotly.js
once and needs no network. The parts: :mod:`ofc_stats.report.data` (the datasets),
:mod:`ofc_stats.report.figures` (the charts), :mod:`ofc_stats.report.page` (the page).
What each figure shows and how: ``docs/reports.md``.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import re
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from ofc_stats.analysis.coverage import Coverage, score_first, unscored_hands
from ofc_stats.analysis.score import resolve_scoring
from ofc_stats.formats.canonical import variant_named
from ofc_stats.report.data import (
    EmptyScopeError,
    NoScoredHandsError,
    ReportError,
    ReportScope,
    UnknownPlayerError,
    UnknownTableError,
    UnknownVariantError,
    load_report_data,
    parse_since,
)
from ofc_stats.report.figures import report_charts
from ofc_stats.report.page import render_page
from ofc_stats.util.memory import peak_memory_mb
from ofc_stats.warehouse import Warehouse
from ofc_stats.warehouse.schemas import DEFAULT_SCORING

__all__ = [
    "EmptyScopeError",
    "NoScoredHandsError",
    "ReportError",
    "ReportScope",
    "ReportSummary",
    "UnknownPlayerError",
    "UnknownTableError",
    "UnknownVariantError",
    "default_report_path",
    "report_target",
    "write_report",
]

REPORTS_FOLDER = Path("reports")


@dataclass(frozen=True)
class ReportSummary:
    """What one ``report`` run wrote."""

    path: str
    bytes: int
    charts: int
    seconds: float
    hands: int  # hands in the report's scope (the player's, with a player)
    players: int
    peak_memory_mb: float
    scored_first: int = 0  # hands not scored yet that the report scored first
    unscored: int = 0  # stored hands it could not score: not in the report
    coverage: Coverage | None = None

    def as_dict(self) -> dict[str, object]:
        """Plain values, for JSON output."""
        return asdict(self)


def default_report_path(player: str | None = None, table: str | None = None,
                        since: str | dt.date | dt.datetime | None = None,
                        scoring: str | None = None, *, variant: str | None = None) -> Path:
    """``reports/<player>.html``, ``reports/table-<table>.html`` (both:
    ``reports/<player>-at-<table>.html``), or ``reports/overview.html``; one variant's
    adds ``-<variant>``, a period (``--since``) ``-since-<date>`` and a what-if scoring
    ``-<scoring>``, so reports of different scopes never overwrite each other.

    A name is made safe for a file (lower case, anything but letters and digits a
    ``-``); if that changed it, a short hash of the exact name keeps two players'
    files apart.

    >>> default_report_path("alice").as_posix()
    'reports/alice.html'
    >>> default_report_path("ColdWhale").as_posix()
    'reports/coldwhale-9f4e77.html'
    >>> default_report_path("Phil Ivey", since="2026-03-01").as_posix()
    'reports/phil-ivey-d2cbd9-since-2026-03-01.html'
    >>> default_report_path(table="Deneb").as_posix()
    'reports/table-deneb-38a618.html'
    >>> default_report_path(since="2026-03-01T20:00+01:00", scoring="ultimate").as_posix()
    'reports/overview-since-2026-03-01t1900z-ultimate.html'
    >>> default_report_path(variant="deuce-to-seven").as_posix()
    'reports/overview-deuce-to-seven.html'
    """
    parts = ([] if player is None else [_file_name(player, "player")]) + (
        [] if table is None else [_file_name(table, "table")])
    name = ("overview" if not parts else "-at-".join(parts) if player is not None
            else f"table-{parts[0]}")
    if variant is not None:
        name += f"-{_file_name(variant, 'variant')}"
    moment = parse_since(since)
    if moment is not None:
        stamp = (moment.strftime("%Y-%m-%d") if moment.time() == dt.time(0)
                 else moment.strftime("%Y-%m-%dt%H%Mz"))
        name += f"-since-{stamp}"
    if scoring is not None and scoring != DEFAULT_SCORING:
        name += f"-{_file_name(scoring, 'scoring')}"
    return REPORTS_FOLDER / f"{name}.html"


def _file_name(name: str, fallback: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:60] or fallback
    if slug == name and slug != "overview":  # that file is the overview's
        return slug
    return f"{slug}-{hashlib.sha256(name.encode()).hexdigest()[:6]}"


def report_target(out: Path | str | None, player: str | None = None,
                  table: str | None = None, variant: str | None = None, *,
                  since: str | dt.date | dt.datetime | None = None,
                  scoring: str | None = None) -> Path:
    """Where a report goes: ``out``, a regular file or a new path; a folder (one that
    exists, or a path ending in ``/``; ``.`` and the empty path are the current folder)
    means the default file name (:func:`default_report_path`) inside it; a link to a
    regular file means that file. None: :func:`default_report_path`.

    Raises:
        ReportError: ``out`` is (or leads to) a device, a named pipe, a socket or
            another special file (``/dev``, ``/proc``): a report is renamed into place,
            never over one of those.
    """
    default = default_report_path(player, table, since, scoring, variant=variant)
    if out is None:
        return default
    text = os.fspath(out)
    if text.endswith(("/", os.sep)) or text in ("", "."):
        return Path(text or ".") / default.name
    resolved = Path(os.path.realpath(text))
    special = next((top for top in ("/dev/", "/proc/", "/sys/")
                    if os.path.abspath(text).startswith(top) or str(resolved).startswith(top)),
                   None)
    if resolved.is_dir() and special is None:
        return resolved / default.name
    if special is not None or (resolved.exists() and not resolved.is_file()):
        kind = ("a device" if resolved.is_char_device() or resolved.is_block_device() else
                "a named pipe" if resolved.is_fifo() else "a socket" if resolved.is_socket()
                else f"a special file (under {special})" if special else
                "not a regular file")
        raise ReportError(f"not writing the report to {text}: it is {kind}; give a file or "
                          "a folder")
    return resolved if Path(text).is_symlink() else Path(text)


def write_report(warehouse: Warehouse | Path | str | None, *, player: str | None = None,
                 table: str | None = None, since: str | dt.date | dt.datetime | None = None,
                 out: Path | str | None = None, scoring: str | None = None,
                 variant: str | None = None, score: bool = True) -> ReportSummary:
    """Write the HTML report of ``player`` (or of every player) and say what was written.

    Args:
        warehouse: a :class:`Warehouse`, or its folder (None: the default warehouse).
        player: the player to report on; None for an overview of every player.
        table: only this table's hands.
        variant: only this variant's hands (``joker-ultimate``, ``deuce-to-seven``, ...).
        since: only hands from this date (midnight UTC) or moment on (ISO 8601, or as
            :func:`ofc_stats.util.moments.parse_moment` reads it: ``yesterday``, ``7d``).
        out: the HTML file, or a folder to put it in (:func:`report_target`); default
            :func:`default_report_path`. Folders are created, and the file is written
            under a temporary name and renamed into place.
        scoring: a stored what-if scoring to report from (see
            :func:`ofc_stats.analysis.score.resolve_scoring`); None: the default.
        score: score the hands not scored yet first (the summary says how many; and
            how many stored hands the report leaves out, if they could not be).

    Raises:
        NoScoredHandsError: nothing is scored yet (and it could not be).
        UnknownPlayerError, UnknownTableError: no such name among the scored hands.
        UnknownVariantError: no scored hand of that variant.
        EmptyScopeError: the player, table and date select no hand.
        ReportError: ``since`` is not a date; ``out`` is a device or a pipe.
    """
    started = time.perf_counter()
    store = warehouse if isinstance(warehouse, Warehouse) else Warehouse.open(warehouse)
    chosen = resolve_scoring(store, scoring)
    moment = parse_since(since)
    if variant is not None:
        variant = variant_named(variant)  # "Joker Ultimate", "2-7": as histories write them
    target = report_target(out, player, table, variant, since=moment, scoring=chosen)
    scope = ReportScope(player=player, table=table, since=moment, scoring=chosen,
                        variant=variant)
    coverage: Coverage | None = None
    if chosen == DEFAULT_SCORING:
        coverage = score_first(store) if score else unscored_hands(store)
    data = load_report_data(store, scope)
    charts = report_charts(data)
    page = render_page(data, charts, dt.datetime.now(dt.UTC)).encode("utf-8")
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_name(f".{target.name}.tmp-{os.getpid()}")
    try:
        temporary.write_bytes(page)
        os.replace(temporary, target)
    except OSError as error:  # name the file asked for, not the temporary one
        raise OSError(error.errno, error.strerror, str(target)) from error
    finally:
        temporary.unlink(missing_ok=True)
    return ReportSummary(
        path=str(target), bytes=len(page), charts=len(charts),
        seconds=time.perf_counter() - started, hands=int(data.summary["hands"]),
        players=int(data.summary["players"]), peak_memory_mb=peak_memory_mb(),
        scored_first=coverage.scored_now if coverage else 0,
        unscored=coverage.unscored if coverage else 0, coverage=coverage)
