"""The process's memory, as the benchmarks and the commands' summaries report it."""

from __future__ import annotations

import resource
import sys


def peak_memory_mb() -> float:
    """Peak resident memory of this process so far, in MiB."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    # Linux reports KiB, macOS bytes.
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024
