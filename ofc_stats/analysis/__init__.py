"""Analysis over the warehouse: scoring every stored hand, Fantasyland across hands, audit.

:func:`~ofc_stats.analysis.score.score_warehouse` (``ofc-stats score``),
:func:`~ofc_stats.analysis.fantasyland.refresh_transitions` (the ``fl_transitions``
table it keeps) and :func:`~ofc_stats.analysis.audit.audit_warehouse`
(``ofc-stats audit``).
"""
