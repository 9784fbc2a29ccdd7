"""``python -m ofc_stats.cli``: the same as ``python -m ofc_stats``."""

from ofc_stats.cli import run

run()
