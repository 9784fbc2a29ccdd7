"""The process's memory, as the commands' summaries and the benchmarks report it."""

from __future__ import annotations

import contextlib
import os
import resource
import sys
import threading
from collections.abc import Iterator
from pathlib import Path


def peak_memory_mb() -> float:
    """Peak resident memory of this process so far, in MiB."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    # Linux reports KiB, macOS bytes.
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024


def process_peak_mb() -> float:
    """This process's peak resident memory in MiB.

    ``VmHWM`` on Linux, which starts afresh in a new program; ``ru_maxrss`` (what
    :func:`peak_memory_mb` reads) would carry the peak of the process
    that started it.
    """
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return peak_memory_mb()


_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def resident_mb() -> float:
    """The process's resident memory now, in MiB (Linux; else the peak so far)."""
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * _PAGE / (1024 * 1024)
    except OSError:
        return peak_memory_mb()


@contextlib.contextmanager
def sampled_peak(every: float = 0.005) -> Iterator[list[float]]:
    """Sample resident memory in a thread while the block runs; yields [peak MiB]."""
    peak = [resident_mb()]
    done = threading.Event()

    def sample() -> None:
        while not done.wait(every):
            peak[0] = max(peak[0], resident_mb())

    thread = threading.Thread(target=sample, daemon=True)
    thread.start()
    try:
        yield peak
    finally:
        done.set()
        thread.join()
        peak[0] = max(peak[0], resident_mb())
