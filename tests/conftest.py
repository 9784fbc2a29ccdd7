"""Shared test configuration: hypothesis profiles and the scored sample warehouse.

``HYPOTHESIS_PROFILE=thorough pytest`` runs the property tests with 20x more examples.
"""

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from ofc_stats.warehouse import Warehouse

settings.register_profile("ci", max_examples=150, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("thorough", max_examples=3000, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

SAMPLE_DATA = Path(__file__).resolve().parent.parent / "sample_data"

@pytest.fixture(autouse=True)
def no_terminal_size_from_the_runner(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test sees stdout as a pipe sees it, whatever the runner's environment holds
    (pytest-xdist's workers have ``COLUMNS=80``): a test that wants a width sets it."""
    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.delenv("LINES", raising=False)


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


# CI installs the spark extra and Java and sets this: the Spark tests must run there.
REQUIRE_SPARK = "OFC_STATS_REQUIRE_SPARK"


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    """One local Spark session (two cores) for every Spark test of the run.

    Skipped without the spark extra or Java, unless ``$OFC_STATS_REQUIRE_SPARK`` is
    set (as CI sets it): then their absence fails the tests.
    """
    missing = None
    try:
        from ofc_stats.spark import spark_session
    except ImportError as error:
        missing = f"the spark extra is not installed ({error})"
    if missing is None and shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        missing = "no Java on this machine (apt-get install openjdk-17-jre-headless)"
    if missing is not None:
        if os.environ.get(REQUIRE_SPARK):
            pytest.fail(f"{REQUIRE_SPARK} is set but {missing}")
        pytest.skip(missing)
    session = spark_session("local[2]", config={
        "spark.ui.enabled": "false", "spark.ui.showConsoleProgress": "false",
        "spark.sql.shuffle.partitions": "4"})
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()
