"""The version of ofc-stats (the reports and ``ofc-stats --version`` show it)."""

__version__ = "0.1.0"
