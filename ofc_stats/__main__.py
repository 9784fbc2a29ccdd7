"""``python -m ofc_stats``: the same as the ``ofc-stats`` command."""

from ofc_stats.cli import run

run()
