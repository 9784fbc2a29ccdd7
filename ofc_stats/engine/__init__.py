"""The scoring engine: cards, rules, row strength, scoring of boards. Pure, no I/O.

:mod:`~ofc_stats.engine.cards` (notation <-> codes), :mod:`~ofc_stats.engine.rules`
(rulesets, presets, TOML), :mod:`~ofc_stats.engine.evaluate` (one comparable strength
per row), :mod:`~ofc_stats.engine.scoring` (``score_batch``: numpy arrays in, arrays
out) and :mod:`~ofc_stats.engine.boards` (polars tables of boards in, scores out; the
board's layout in columns). It imports nothing of the package above it.
"""
