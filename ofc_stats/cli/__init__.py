"""The ``ofc-stats`` command: thin Typer commands over the library.

Each command parses its options, calls one library function and prints the result.
Library errors become one line on stderr and a non-zero exit code, never a traceback
(:mod:`ofc_stats.cli.errors`). One module per command (``bench``: one for its
subcommands); importing them here registers them on the app, in the order
``ofc-stats --help`` lists them.
"""

from ofc_stats.cli.app import app, run

# In the order of ``ofc-stats --help``:
# isort: off
from ofc_stats.cli import rules, simulate, ingest, score, review, audit  # noqa: F401
from ofc_stats.cli import query, stats, hand, report, config, check, spark  # noqa: F401
from ofc_stats.cli import bench  # noqa: F401
# isort: on

__all__ = ["app", "run"]
