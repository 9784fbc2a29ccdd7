"""Running ``ofc-stats`` as a real process, so that what it reports (its peak memory
above all) is its own, not the benchmark's that built its input."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any


def run_json(*arguments: str) -> dict[str, Any]:
    """Run ``python -m ofc_stats ARGUMENTS --json`` and return its JSON output."""
    completed = subprocess.run([sys.executable, "-m", "ofc_stats", *arguments, "--json"],
                               capture_output=True, text=True, check=False)
    if completed.returncode != 0:
        raise RuntimeError(f"ofc-stats {arguments[0]} failed: {completed.stderr.strip()}")
    result: dict[str, Any] = json.loads(completed.stdout)
    return result
