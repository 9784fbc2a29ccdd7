"""Shared test configuration: hypothesis profiles and the scored sample warehouse.

``HYPOTHESIS_PROFILE=thorough pytest`` runs the property tests with 20x more examples.
"""

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from ofc_stats.warehouse import Warehouse

settings.register_profile("ci", max_examples=150, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("thorough", max_examples=3000, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

SAMPLE_DATA = Path(__file__).resolve().parent.parent / "sample_data"


@pytest.fixture(scope="session")
def sample_warehouse(tmp_path_factory: pytest.TempPathFactory) -> Warehouse:
    """sample_data/ ingested, scored and its Fantasyland hands reviewed, as a
    newcomer's quick start does it."""
    from ofc_stats.analysis.fantasyland_review import review_warehouse
    from ofc_stats.analysis.score import score_warehouse
    from ofc_stats.ingest import ingest

    root = tmp_path_factory.mktemp("sample") / "warehouse"
    ingest([SAMPLE_DATA], root)
    warehouse = Warehouse.open(root)
    score_warehouse(warehouse)
    review_warehouse(warehouse)
    return warehouse
