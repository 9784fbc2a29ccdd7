"""Benchmarks: throughput and peak memory of each stage, measured, never asserted in tests."""

from ofc_stats.bench.scoring import (
    ReportBenchmark,
    ScoringBenchmark,
    StatsBenchmark,
    WarehouseScoringBenchmark,
    benchmark_report,
    benchmark_scoring,
    benchmark_stats,
    benchmark_warehouse_scoring,
    build_benchmark_warehouse,
    random_deals,
)

__all__ = [
    "ReportBenchmark",
    "ScoringBenchmark",
    "StatsBenchmark",
    "WarehouseScoringBenchmark",
    "benchmark_report",
    "benchmark_scoring",
    "benchmark_stats",
    "benchmark_warehouse_scoring",
    "build_benchmark_warehouse",
    "random_deals",
]
