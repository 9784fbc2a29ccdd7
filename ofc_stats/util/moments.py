"""Moments typed by a user (``--since``, ``-p since=...``): dates, times, words, spans ago.

One parser for every command, so ``stats``, ``report`` and the named queries read
``--since`` alike and fail alike, naming the option and what it accepts.

>>> now = dt.datetime(2026, 3, 10, 15, 30, tzinfo=dt.UTC)
>>> parse_moment("2026-03-01").isoformat()
'2026-03-01T00:00:00+00:00'
>>> parse_moment("2026-03-01 20:00+01:00").isoformat()
'2026-03-01T19:00:00+00:00'
>>> parse_moment("yesterday", now=now).isoformat()
'2026-03-09T00:00:00+00:00'
>>> parse_moment("36h", now=now).isoformat(), parse_moment("2 weeks ago", now=now).date()
('2026-03-09T03:30:00+00:00', datetime.date(2026, 2, 24))
"""

from __future__ import annotations

import datetime as dt
import re

from ofc_stats.errors import ExitCode, OfcStatsError

ACCEPTED = ("a date (2026-03-01), a date and time (2026-03-01T20:00 or '2026-03-01 20:00', "
            "UTC unless it gives an offset), today, yesterday, or a time ago (90m, 12h, 7d, "
            "2w, '3 days ago')")
_UNITS = {"m": "minutes", "min": "minutes", "mins": "minutes", "minute": "minutes",
          "minutes": "minutes", "h": "hours", "hr": "hours", "hrs": "hours", "hour": "hours",
          "hours": "hours", "d": "days", "day": "days", "days": "days", "w": "weeks",
          "week": "weeks", "weeks": "weeks"}
_AGO = re.compile(r"^(\d+)\s*([a-z]+)(?:\s+ago)?$")


class MomentError(OfcStatsError, ValueError):
    """Text that is not a moment in any accepted form."""

    exit_code = ExitCode.USAGE


def parse_moment(text: str | dt.date | dt.datetime, option: str = "--since", *,
                 now: dt.datetime | None = None) -> dt.datetime:
    """A moment as an aware UTC datetime; a date means its midnight, UTC.

    Args:
        text: what the user typed (see :data:`ACCEPTED`), or a date or datetime.
        option: how the value was given (``--since``, ``-p since=``), for the message.
        now: the present, for the words and spans (default: now).

    Raises:
        MomentError: naming ``option``, the text and the forms accepted.
    """
    if isinstance(text, dt.datetime):
        moment = text
    elif isinstance(text, dt.date):
        moment = dt.datetime(text.year, text.month, text.day)
    else:
        moment = _parse_text(text, option, now or dt.datetime.now(dt.UTC))
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.UTC)
    return moment.astimezone(dt.UTC)


def _parse_text(text: str, option: str, now: dt.datetime) -> dt.datetime:
    cleaned = " ".join(text.strip().lower().split())
    midnight = now.astimezone(dt.UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    words = {"now": now, "today": midnight, "yesterday": midnight - dt.timedelta(days=1)}
    if cleaned in words:
        return words[cleaned]
    ago = _AGO.match(cleaned)
    if ago and ago.group(2) in _UNITS:
        return now - dt.timedelta(**{_UNITS[ago.group(2)]: int(ago.group(1))})
    try:
        return dt.datetime.fromisoformat(text.strip())
    except ValueError:
        raise MomentError(f"{option} {text!r} is not a date or time; use {ACCEPTED}"
                          ) from None
