"""``ofc-stats spark`` as a file for spark-submit, which runs a Python file, not a
console script::

    job=$(python -c 'import ofc_stats.cli.spark_job as j; print(j.__file__)')
    spark-submit --master yarn "$job" score --input s3a://bucket/histories/ \\
        --output s3a://bucket/ofc/

The arguments are those of ``ofc-stats spark``; the session is spark-submit's.
"""

from __future__ import annotations

import sys
from pathlib import Path

# Run as a file, its folder (the command modules: stats.py, report.py...) comes first on
# the path, where it could shadow a top-level module of that name.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != _HERE]


def main(arguments: list[str] | None = None) -> None:
    """Run ``ofc-stats spark ARGUMENTS``."""
    from ofc_stats.cli import app

    app(prog_name="ofc-stats spark", args=["spark", *(sys.argv[1:] if arguments is None
                                                    else arguments)])


if __name__ == "__main__":
    main()
