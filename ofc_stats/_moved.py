"""Module paths of earlier versions, still importable: each is the module it became.

``import ofc_stats.warehouse_scoring`` gives the module object of
``ofc_stats.analysis.score`` itself (not a copy) and a :class:`DeprecationWarning`
naming the new path. :data:`MOVED` is the one table of them; the package installs
:class:`MovedModuleFinder` when it is imported. Nothing in the package imports an old
path (tests/test_architecture.py checks it).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import warnings
from collections.abc import Sequence
from types import ModuleType

# old path -> new path
MOVED = {
    "ofc_stats.cards": "ofc_stats.engine.cards",
    "ofc_stats.rules": "ofc_stats.engine.rules",
    "ofc_stats.evaluate": "ofc_stats.engine.evaluate",
    "ofc_stats.scoring": "ofc_stats.engine.scoring",
    "ofc_stats.boards": "ofc_stats.engine.boards",
    "ofc_stats.duckdb_connection": "ofc_stats.util.duckdb_connection",
    "ofc_stats.canonical": "ofc_stats.formats.canonical",
    "ofc_stats.upgrade": "ofc_stats.warehouse.upgrade",
    "ofc_stats.sources": "ofc_stats.ingest.sources",
    "ofc_stats.warehouse_scoring": "ofc_stats.analysis.score",
    "ofc_stats.fantasyland": "ofc_stats.analysis.fantasyland",
    "ofc_stats.audit": "ofc_stats.analysis.audit",
    "ofc_stats.report_data": "ofc_stats.report.data",
    "ofc_stats.report_figures": "ofc_stats.report.figures",
    "ofc_stats.report_page": "ofc_stats.report.page",
    "ofc_stats.ingest_bench": "ofc_stats.bench.ingest",
    "ofc_stats.formats.benchmark": "ofc_stats.bench.formats",
}


class _AliasLoader(importlib.abc.Loader):
    """Loads an old path as the module of its new one."""

    def __init__(self, new: str) -> None:
        self.new = new
        self._spec: importlib.machinery.ModuleSpec | None = None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        # stacklevel 2 is the importing code: the warnings module skips importlib's own
        # frames.
        warnings.warn(f"{spec.name} has moved to {self.new}; import it from there",
                      DeprecationWarning, stacklevel=2)
        module = importlib.import_module(self.new)
        self._spec = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        # The import system has just set the old spec on the module: give its own back.
        module.__spec__ = self._spec


class MovedModuleFinder(importlib.abc.MetaPathFinder):
    """Finds the old paths of :data:`MOVED` (after every other finder has not)."""

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        new = MOVED.get(fullname)
        if new is None:
            return None
        return importlib.machinery.ModuleSpec(fullname, _AliasLoader(new))


def install() -> None:
    """Put the finder on ``sys.meta_path`` (once), last: it never hides a real module."""
    if not any(isinstance(finder, MovedModuleFinder) for finder in sys.meta_path):
        sys.meta_path.append(MovedModuleFinder())
