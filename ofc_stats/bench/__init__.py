"""Benchmarks: throughput and peak memory of each stage, measured, never asserted in tests.

One module per stage (``ofc-stats bench <stage>``): :mod:`~ofc_stats.bench.scoring`
(the engine), :mod:`~ofc_stats.bench.score` (scoring a warehouse),
:mod:`~ofc_stats.bench.stats`, :mod:`~ofc_stats.bench.report`,
:mod:`~ofc_stats.bench.formats` (the readers and writers),
:mod:`~ofc_stats.bench.ingest`, :mod:`~ofc_stats.bench.simulate`; what they run on is
made by :mod:`~ofc_stats.bench.data`.
"""

from ofc_stats.bench.data import build_benchmark_warehouse, random_deals
from ofc_stats.bench.formats import FormatsBenchmark, benchmark_formats
from ofc_stats.bench.ingest import IngestBenchmark, benchmark_ingest
from ofc_stats.bench.report import ReportBenchmark, benchmark_report
from ofc_stats.bench.score import WarehouseScoringBenchmark, benchmark_warehouse_scoring
from ofc_stats.bench.scoring import ScoringBenchmark, benchmark_scoring
from ofc_stats.bench.simulate import SimulationBenchmark, benchmark_simulation
from ofc_stats.bench.stats import StatsBenchmark, benchmark_stats

__all__ = [
    "FormatsBenchmark",
    "IngestBenchmark",
    "ReportBenchmark",
    "ScoringBenchmark",
    "SimulationBenchmark",
    "StatsBenchmark",
    "WarehouseScoringBenchmark",
    "benchmark_formats",
    "benchmark_ingest",
    "benchmark_report",
    "benchmark_scoring",
    "benchmark_simulation",
    "benchmark_stats",
    "benchmark_warehouse_scoring",
    "build_benchmark_warehouse",
    "random_deals",
]
