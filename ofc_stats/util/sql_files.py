"""The SQL files shipped with the package (``ofc_stats/sql``, a link to ``sql/``)."""

from __future__ import annotations

from importlib import resources
from importlib.resources.abc import Traversable


def sql_folder() -> Traversable:
    """The ``sql`` folder: ``views/``, ``queries/`` and ``report/``."""
    return resources.files("ofc_stats") / "sql"
