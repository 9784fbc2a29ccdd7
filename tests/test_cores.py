"""Each stage sizes its threads to the cores the process may use, and what it holds in
flight stays the same whatever their number."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from ofc_stats.util.cores import available_cores

SIZES = """
import json
from ofc_stats.analysis.score import CHUNK_ROWS, SCORING_THREADS
from ofc_stats.formats.reading import BATCH_BYTES, PARSE_THREADS
from ofc_stats.ingest.run import READ_BATCH_HANDS
from ofc_stats.util.cores import available_cores
print(json.dumps({"cores": available_cores(), "parse": PARSE_THREADS, "hands": READ_BATCH_HANDS,
                  "bytes": BATCH_BYTES, "score": SCORING_THREADS, "rows": CHUNK_ROWS}))
"""


def sizes(cores: set[int] | None = None) -> dict[str, int]:
    """The sizes a new process sees, pinned to ``cores`` (all of this one's if None)."""
    pin = None if cores is None else (lambda: os.sched_setaffinity(0, cores))
    completed = subprocess.run([sys.executable, "-c", SIZES], capture_output=True, text=True,
                               check=True, preexec_fn=pin, timeout=120)
    result: dict[str, int] = json.loads(completed.stdout)
    return result


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="needs CPU affinity (Linux)")
def test_one_core_parses_and_scores_one_batch_at_a_time() -> None:
    one = sizes({min(os.sched_getaffinity(0))})
    assert one == {"cores": 1, "parse": 1, "hands": 10_000, "bytes": 24 << 20, "score": 1,
                   "rows": 1 << 19}


def test_what_is_in_flight_stays_the_same_on_more_cores() -> None:
    found = sizes()
    assert found["cores"] == available_cores()
    assert found["parse"] == min(8, found["cores"])
    assert found["parse"] * found["hands"] <= 10_000
    assert found["parse"] * found["bytes"] <= 24 << 20
    assert found["score"] == found["cores"]
    assert found["score"] * found["rows"] <= max(1 << 19, found["cores"] << 16)
