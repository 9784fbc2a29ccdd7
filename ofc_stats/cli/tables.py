"""Results as tables that fit the terminal, and never cut a name, an id or a number.

On a terminal (or with ``COLUMNS`` set) a table fits the width: it shows the columns
a reader looks at first (a command's compact view, or every column of other SQL),
wraps long text and column names (at ``_``) before anything else, and leaves out the
last columns that do not fit, saying which (``--wide`` shows every column at its
full width, ``--columns a,b`` the ones named). Numbers are right-aligned. In a pipe
(no terminal, no ``COLUMNS``) every column is printed whole, as wide as it takes.
Every value is printed as text: nothing from the data is read as markup or emoji.
"""

from __future__ import annotations

import datetime as dt
import math
import os
import shutil
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field

import polars as pl
import typer
from rich import box
from rich.cells import cell_len
from rich.console import Console
from rich.table import Table
from rich.text import Text

from ofc_stats.util.suggest import alternatives, did_you_mean

GAP = 2  # spaces between two columns
WRAP_WIDTH = 10  # the narrowest a column of long text is wrapped to
LONG_TEXT = 24  # text longer than this, with spaces in it, may wrap


@dataclass(frozen=True)
class View:
    """How a command's result is shown on a terminal.

    ``compact``: the columns shown by default, most wanted first (a column left out
    for width goes from the end); None: every column. ``wrap``: text columns that may
    wrap whatever their content; ``whole_lines``: columns of several lines each,
    which must not be wrapped (a board per line). ``note``: a line printed under the
    table.
    """

    compact: tuple[str, ...] | None = None
    wrap: frozenset[str] = field(default_factory=frozenset)
    whole_lines: frozenset[str] = field(default_factory=frozenset)
    note: str | None = None
    lines: bool = False  # a rule between rows (rows of several lines)


def terminal_width() -> int | None:
    """The width to fit, or None in a pipe (stdout not a terminal, no ``COLUMNS``)."""
    if sys.stdout.isatty():
        return shutil.get_terminal_size().columns  # honours COLUMNS
    columns = os.environ.get("COLUMNS", "")
    return int(columns) if columns.isdigit() and int(columns) > 0 else None


def console(width: int | None) -> Console:
    """A console writing to stdout that reads nothing in the text as markup or emoji."""
    return Console(file=sys.stdout, width=width or 10_000, markup=False, emoji=False,
                   highlight=False, soft_wrap=False)


def cell_text(value: object) -> str:
    """A value as a table cell: UTC moments without the offset, ``-0.0`` as ``0.0``."""
    if value is None:
        return ""
    if isinstance(value, float):
        if math.isfinite(value) and value == 0:
            return "0.0"
        return str(value)
    if isinstance(value, dt.datetime) and value.tzinfo is not None \
            and value.utcoffset() == dt.timedelta(0):
        return value.replace(tzinfo=None).isoformat(sep=" ")
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def same_decimals(cells: list[str]) -> list[str]:
    """A float column's cells with as many decimals each as the longest has, so that
    the points line up (``1.3`` beside ``2.403`` as ``1.300``); a column holding an
    exponent or no decimals is left as it is.

    >>> same_decimals(["2.403", "1.3", "", "0.0", "nan"])
    ['2.403', '1.300', '', '0.000', 'nan']
    """
    numbers = [cell for cell in cells if cell and cell[-1].isdigit()]
    if not numbers or any("e" in cell.lower() or "." not in cell for cell in numbers):
        return cells
    decimals = max(len(cell.split(".")[1]) for cell in numbers)
    return [cell + "0" * (decimals - len(cell.split(".")[1])) if cell in numbers else cell
            for cell in cells]


def selected_columns(frame: pl.DataFrame, columns: str | None) -> list[str]:
    """The columns ``--columns a,b,c`` names, in that order.

    Raises:
        typer.BadParameter: a name that is not a column, with the closest and all.
    """
    if columns is None:
        return list(frame.columns)
    names = [name.strip() for name in columns.split(",") if name.strip()]
    if not names:
        raise typer.BadParameter(f"give the columns to show, comma-separated (columns: "
                                 f"{alternatives(frame.columns, 'and')})",
                                 param_hint="--columns")
    for name in names:
        if name not in frame.columns:
            raise typer.BadParameter(
                f"no column {name!r}{did_you_mean(name, frame.columns)} (columns: "
                f"{alternatives(frame.columns, 'and')})", param_hint="--columns")
    return names


def _header_lines(name: str, width: int) -> list[str]:
    """A column name wrapped to ``width`` after its underscores."""
    pieces = [part + "_" for part in name.split("_")]
    pieces[-1] = pieces[-1][:-1]
    lines = [""]
    for piece in pieces:
        if lines[-1] and len(lines[-1]) + len(piece) > width:
            lines.append("")
        lines[-1] += piece
    return lines


@dataclass
class _Column:
    name: str
    cells: list[str]
    numeric: bool
    wraps: bool

    @property
    def natural(self) -> int:
        """Its width with nothing wrapped."""
        return max([len(self.name), *(cell_len(line) for cell in self.cells
                                      for line in cell.splitlines())])

    @property
    def narrowest(self) -> int:
        """The least it can take without cutting anything: long text wrapped, the
        name wrapped at its underscores."""
        header = max(len(part) + 1 for part in self.name.split("_")) - 1
        if not self.wraps:
            return max([header, *(cell_len(line) for cell in self.cells
                                  for line in cell.splitlines())])
        longest_word = max((cell_len(word) for cell in self.cells for word in cell.split()),
                           default=0)
        return max(header, min(self.natural, max(WRAP_WIDTH, longest_word)))


def _columns(frame: pl.DataFrame, names: Sequence[str], view: View) -> list[_Column]:
    found = []
    for name in names:
        series = frame[name]
        cells = [cell_text(value) for value in series.to_list()]
        numeric = series.dtype.is_numeric()
        if series.dtype.is_float():
            cells = same_decimals(cells)
        wraps = name not in view.whole_lines and (name in view.wrap or (
            not numeric and any(len(cell) > LONG_TEXT and len(cell.split()) > 1
                                for cell in cells)))
        found.append(_Column(name, cells, numeric, wraps))
    return found


def _fit(columns: list[_Column], width: int) -> tuple[list[int], int]:
    """Widths for the first columns that fit in ``width`` (at least one), and how
    many fit: each column as wide as it needs, else the widest ones wrapped to one
    common width (never below what they can take), else columns left out from the end."""
    shown = len(columns)
    while True:
        part = columns[:shown]
        room = width - GAP * (shown - 1)
        natural = [column.natural for column in part]
        narrowest = [column.narrowest for column in part]

        def capped(cap: int, natural: list[int] = natural,
                   narrowest: list[int] = narrowest) -> list[int]:
            return [min(n, max(low, cap)) for n, low in zip(natural, narrowest, strict=True)]

        if sum(capped(0)) <= room or shown == 1:
            low, high = 0, max(natural)
            while low < high:  # the widest common cap that fits
                middle = (low + high + 1) // 2
                if sum(capped(middle)) <= room:
                    low = middle
                else:
                    high = middle - 1
            return capped(low), shown
        shown -= 1


def print_table(frame: pl.DataFrame, *, view: View | None = None, wide: bool = False,
                columns: str | None = None, title: str | None = None) -> None:
    """Print a result as a table that fits the terminal (see the module's docstring).

    Args:
        frame: the result.
        view: the command's compact view (None: every column, in order).
        wide: every column (or the ones ``columns`` names) at full width.
        columns: ``--columns``: the columns to show, comma-separated.
        title: a line over the table.
    """
    view = view or View()
    width = terminal_width()
    if columns is not None:
        names = selected_columns(frame, columns)
    elif wide or width is None or view.compact is None:
        names = list(frame.columns)
    else:
        names = [name for name in view.compact if name in frame.columns]
    found = _columns(frame, names, view)
    fitting = width is not None and not wide and columns is None
    if fitting and found:
        widths, shown = _fit(found, int(width or 0))
    else:
        widths, shown = [column.natural for column in found], len(found)
    hidden = [column.name for column in found[shown:]]
    if fitting:  # and the columns the compact view leaves out
        hidden += [name for name in frame.columns if name not in names]
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False,
                  collapse_padding=True, title=None if title is None else Text(title),
                  title_justify="left", header_style="bold", show_lines=view.lines)
    for column, column_width in zip(found[:shown], widths, strict=False):
        table.add_column(Text("\n".join(_header_lines(column.name, column_width))),
                         width=column_width, justify="right" if column.numeric else "left",
                         no_wrap=not column.wraps, overflow="fold")
    for row in range(frame.height):
        table.add_row(*(Text(column.cells[row]) for column in found[:shown]))
    needed = sum(widths[:shown]) + GAP * max(shown - 1, 0)
    out = console(max(needed, cell_len(title or "")) if not fitting else width)
    if found:
        out.print(table)
    notes = []
    if hidden and width is not None:
        notes.append(f"{len(hidden)} more column{'s' if len(hidden) > 1 else ''}: "
                     f"{', '.join(hidden)} (--wide shows them all, --columns picks)")
    if view.note and width is not None and frame.height:
        notes.append(view.note)
    for note in notes:
        console(width).print(Text(note, style="dim"))
