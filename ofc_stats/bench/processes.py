"""Running ``ofc-stats`` as a real process, so that what it reports (its peak memory
above all) is its own, not the benchmark's that built its input."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from typing import Any


def one_core() -> Callable[[], None] | None:
    """A ``preexec_fn`` that pins a child process to one core (its thread pools,
    polars' and DuckDB's, size themselves to it); None where the system cannot."""
    if not hasattr(os, "sched_setaffinity"):
        return None
    first = min(os.sched_getaffinity(0))
    return lambda: os.sched_setaffinity(0, {first})


def run_json(*arguments: str, pin: Callable[[], None] | None = None) -> dict[str, Any]:
    """Run ``python -m ofc_stats ARGUMENTS --json`` and return its JSON output
    (``pin``: run first in the child, such as :func:`one_core`)."""
    completed = subprocess.run([sys.executable, "-m", "ofc_stats", *arguments, "--json"],
                               capture_output=True, text=True, check=False,
                               preexec_fn=pin)  # the child is pinned before it starts
    if completed.returncode != 0:
        raise RuntimeError(f"ofc-stats {arguments[0]} failed: {completed.stderr.strip()}")
    result: dict[str, Any] = json.loads(completed.stdout)
    return result
