"""How many cores this process may run on."""

from __future__ import annotations

import os


def available_cores() -> int:
    """The cores this process may use: its CPU affinity where the system has one (a
    process pinned with ``taskset`` sees its own share, as polars' pool does), else
    the machine's count."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1
