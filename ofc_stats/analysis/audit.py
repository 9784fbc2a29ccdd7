"""``ofc-stats audit``: every place where the history and the rules disagree.

Reads what ``score`` wrote (the default scoring, or a stored what-if) and what
``ingest`` set aside:

==================  ========  ===============================================
kind                severity  found where
==================  ========  ===============================================
``points``          error     reported points differ from ours (a hand)
``royalties``       error     reported royalties differ from ours (a hand)
``money``           error     the money the room paid differs from ours: points
                              times the point value, capped at the stacks where
                              table stakes are in force (a hand)
``fl_missing``      error     Fantasyland earned, not given (fl_transitions)
``fl_unearned``     error     Fantasyland given, not earned
``fl_cards``        error     Fantasyland with the wrong number of cards
``impossible``      error     a board that cannot exist: duplicate cards, a row
                              too long, an unreadable card (rejects not resolved:
                              the hand was not stored whole after all), or an
                              incomplete board, a joker, a wrong player count
                              (flagged by the scorer)
``gap``             info      hands missing from a table's history
``left_in_fl``      info      a player left the table while due Fantasyland
==================  ========  ===============================================
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from ofc_stats.analysis.coverage import Coverage, score_first, unscored_hands
from ofc_stats.analysis.fantasyland import transitions_of
from ofc_stats.errors import NotScoredError
from ofc_stats.warehouse import Warehouse
from ofc_stats.warehouse.catalog import UNRESOLVABLE_KINDS
from ofc_stats.warehouse.schemas import DEFAULT_SCORING

ERROR_KINDS = ("points", "royalties", "money", "fl_missing", "fl_unearned", "fl_cards",
               "impossible")
INFO_KINDS = ("gap", "left_in_fl")
IMPOSSIBLE_REJECTS = ("duplicate card", "row size", "card", "players", "seat")

FINDINGS_SCHEMA = pl.Schema({
    "kind": pl.String(),
    "severity": pl.String(),
    "site": pl.String(),
    "table": pl.String(),
    "hand_id": pl.String(),
    "started_at": pl.Datetime("us", "UTC"),
    "player": pl.String(),
    "detail": pl.String(),
    "ours": pl.String(),
    "reported": pl.String(),
    "boards": pl.String(),
    "source": pl.String(),
})


@dataclass(frozen=True)
class AuditReport:
    """Findings (one row each), their counts per kind and site, and how many stored
    hands the findings cover."""

    findings: pl.DataFrame
    summary: pl.DataFrame
    coverage: Coverage | None = None

    @property
    def errors(self) -> int:
        """How many findings are errors (not information)."""
        return self.findings.filter(pl.col("severity") == "error").height


def _signed(column: str) -> pl.Expr:
    value = pl.col(column)
    if column.endswith("money"):  # decimals as money: 12.5 -> 12.50, no trailing zeros past
        text = value.round(2).cast(pl.Decimal(18, 2)).cast(pl.String)
    else:
        text = value.cast(pl.String)
    return pl.when(value > 0).then(pl.format("+{}", text)).otherwise(text)


def _finding(frame: pl.LazyFrame, kind: str, severity: str, **columns: pl.Expr
             ) -> pl.LazyFrame:
    values = {name: pl.lit(None, dtype) for name, dtype in FINDINGS_SCHEMA.items()}
    values.update({"kind": pl.lit(kind), "severity": pl.lit(severity)})
    values.update(columns)
    return frame.select(**{name: expr.cast(FINDINGS_SCHEMA[name])
                           for name, expr in values.items()})


Hand = tuple[str, str]  # (site, hand_id)


def _only(frame: pl.LazyFrame, hand: Hand | None) -> pl.LazyFrame:
    """The rows of one hand (all with None): read only that far."""
    if hand is None:
        return frame
    return frame.filter((pl.col("site") == hand[0]) & (pl.col("hand_id") == hand[1]))


def _reported_mismatches(warehouse: Warehouse, scoring: str, hand: Hand | None
                         ) -> list[pl.LazyFrame]:
    if not warehouse.files("player_hands", scoring):
        return []
    player_hands = _only(warehouse.scan("player_hands", scoring), hand)
    if "money_capped" in player_hands.collect_schema():
        # What the room owed: the capped money where table stakes hold, else the money.
        player_hands = player_hands.with_columns(
            pl.coalesce(pl.col("money_capped").cast(pl.Decimal(18, 6)), "money")
            .alias("due_money"))
        checks: tuple[tuple[str, str, str], ...] = (
            ("points", "points", "reported_points"),
            ("royalties", "royalties", "reported_royalties"),
            ("money", "due_money", "reported_money"))
    else:  # scored before money was
        checks = (("points", "points", "reported_points"),
                  ("royalties", "royalties", "reported_royalties"))
    seats = _only(warehouse.scan("seats"), hand).select(
        "site", "hand_id", "seat",
        pl.format("{}: {} / {} / {}", "player", "top", "middle", "bottom").alias("board"))
    parts = []
    for kind, ours, reported in checks:
        wrong_hands = (player_hands.filter(pl.col(reported).is_not_null()
                                           & pl.col(ours).is_not_null()
                                           & (pl.col(reported) != pl.col(ours)))
                       .select("site", "hand_id").unique())
        rows = (player_hands.join(wrong_hands, on=["site", "hand_id"], how="semi")
                .join(seats, on=["site", "hand_id", "seat"], how="left")
                .sort("site", "hand_id", "seat")
                .group_by("site", "hand_id", maintain_order=True)
                .agg(pl.col("table").first(), pl.col("started_at").first(),
                     pl.format("{} {}", "player", _signed(ours)).str.join(", ").alias("ours"),
                     pl.format("{} {}", "player", _signed(reported)).str.join(", ")
                     .alias("reported"),
                     pl.col("player").filter(pl.col(reported) != pl.col(ours))
                     .str.join(", ").alias("players"),
                     pl.col("board").str.join("; ").alias("boards")))
        parts.append(_finding(
            rows, kind, "error", site=pl.col("site"), table=pl.col("table"),
            hand_id=pl.col("hand_id"), started_at=pl.col("started_at"),
            player=pl.col("players"),
            detail=pl.format(f"reported {kind} differ from ours for {{}}", pl.col("players")),
            ours=pl.col("ours"), reported=pl.col("reported"), boards=pl.col("boards")))
    return parts


def _fantasyland(warehouse: Warehouse, scoring: str, hand: Hand | None
                 ) -> list[pl.LazyFrame]:
    if scoring == DEFAULT_SCORING and not warehouse.files("fl_transitions"):
        return []
    transitions = transitions_of(warehouse, scoring)
    if not transitions.collect_schema().names():
        return []
    transitions = _only(transitions, hand)
    parts = []
    for status in ("fl_missing", "fl_unearned", "fl_cards"):
        parts.append(_finding(
            transitions.filter(pl.col("status") == status), status, "error",
            site=pl.col("site"), table=pl.col("table"), hand_id=pl.col("hand_id"),
            started_at=pl.col("started_at"), player=pl.col("player"), detail=pl.col("reason"),
            ours=pl.format("{} ({} cards)", pl.when(pl.col("expected_fl"))
                           .then(pl.lit("Fantasyland")).otherwise(pl.lit("normal hand")),
                           pl.col("expected_cards").cast(pl.String).fill_null("-")),
            reported=pl.format("{} ({} cards)", pl.when(pl.col("recorded_fl"))
                               .then(pl.lit("Fantasyland")).otherwise(pl.lit("normal hand")),
                               pl.col("recorded_cards").cast(pl.String).fill_null("-"))))
    gaps = transitions.filter((pl.col("status") == "gap") & pl.col("player").is_null())
    parts.append(_finding(
        gaps, "gap", "info", site=pl.col("site"), table=pl.col("table"),
        hand_id=pl.col("hand_id"), started_at=pl.col("started_at"),
        detail=pl.format("hands missing between {} and {}; Fantasyland not checked across",
                         pl.col("prev_hand_id"), pl.col("hand_id"))))
    parts.append(_finding(
        transitions.filter(pl.col("status") == "left_in_fantasyland"), "left_in_fl", "info",
        site=pl.col("site"), table=pl.col("table"), hand_id=pl.col("hand_id"),
        started_at=pl.col("started_at"), player=pl.col("player"), detail=pl.col("reason")))
    return parts


def unresolved_rejects(warehouse: Warehouse) -> pl.LazyFrame:
    """The rejects whose hand was never stored whole after all (by the same (site,
    hand_id), or read from the same file and line once complete): what the
    ``rejects`` view calls not ``resolved`` (ofc_stats.warehouse.catalog)."""
    hands = warehouse.scan("hands").select("site", "hand_id", pl.col("source_file").alias(
        "file"), pl.col("source_line").alias("line"))
    rejects = warehouse.scan("rejects")
    resolvable = ~pl.col("kind").is_in(list(UNRESOLVABLE_KINDS))
    resolved = (rejects.filter(resolvable)
                .join(hands.select("site", "hand_id"), on=["site", "hand_id"], how="semi"))
    resolved = pl.concat([resolved, rejects.filter(resolvable).join(
        hands.select("file", "line"), on=["file", "line"], how="semi")])
    return rejects.join(resolved.unique(), on=list(rejects.collect_schema()), how="anti",
                        nulls_equal=True)


def _impossible(warehouse: Warehouse, scoring: str, hand: Hand | None
                ) -> list[pl.LazyFrame]:
    parts = []
    if warehouse.files("rejects") and hand is None:  # a rejected hand is not stored
        parts.append(_finding(
            unresolved_rejects(warehouse).filter(pl.col("kind").is_in(IMPOSSIBLE_REJECTS)),
            "impossible", "error", site=pl.col("site"), hand_id=pl.col("hand_id"),
            detail=pl.col("reason"),
            source=pl.format("{}:{}", pl.col("file"), pl.col("line").cast(pl.String)
                             .fill_null("?"))))
    if warehouse.files("player_hands", scoring):
        flagged = _only(warehouse.scan("player_hands", scoring), hand).filter(
            pl.col("problem").is_not_null())
        seats = _only(warehouse.scan("seats"), hand).select(
            "site", "hand_id", "seat",
            pl.format("{} / {} / {}", "top", "middle", "bottom").alias("board"))
        parts.append(_finding(
            flagged.join(seats, on=["site", "hand_id", "seat"], how="left"), "impossible",
            "error", site=pl.col("site"), table=pl.col("table"), hand_id=pl.col("hand_id"),
            started_at=pl.col("started_at"), player=pl.col("player"),
            detail=pl.col("problem"), boards=pl.col("board")))
    return parts


def audit_warehouse(warehouse: Warehouse, scoring: str = DEFAULT_SCORING,
                    hand: Hand | None = None, *, score: bool = True) -> AuditReport:
    """Every disagreement between the stored histories and the rules: the rules of the
    default scoring, or of a stored what-if ``scoring`` (whose Fantasyland chains are
    followed now, under its rules); with ``hand`` (site, hand id), that hand's only.

    Args:
        warehouse: the warehouse.
        scoring: the stored scoring whose rules the hands are held to.
        hand: only this hand's findings (nothing is scored first, no coverage).
        score: score the hands not scored yet first (else the report's ``coverage``
            says how many stored hands the default scoring leaves out).

    Raises:
        NotScoredError: the warehouse has hands but no scores, and they could not be
            scored (``score`` false, another writer, a read-only warehouse).
        WarehouseDamagedError: a file the log names is missing or damaged.
    """
    warehouse.require_whole()
    coverage: Coverage | None = None
    if hand is None and scoring == DEFAULT_SCORING:
        coverage = score_first(warehouse) if score else unscored_hands(warehouse)
    if warehouse.files("hands") and not warehouse.files("player_hands", scoring):
        why = f" ({coverage.reason})" if coverage is not None and coverage.reason else ""
        raise NotScoredError(f"the warehouse has hands but no scores{why}: run "
                             "'ofc-stats score' first")
    parts = [*_reported_mismatches(warehouse, scoring, hand),
             *_fantasyland(warehouse, scoring, hand), *_impossible(warehouse, scoring, hand)]
    findings = (pl.concat([part.collect() for part in parts]) if parts
                else FINDINGS_SCHEMA.to_frame())
    order = {kind: rank for rank, kind in enumerate((*ERROR_KINDS, *INFO_KINDS))}
    findings = (findings.with_columns(pl.col("kind").replace_strict(order).alias("_order"))
                .sort("_order", "site", "started_at", "hand_id", "player", nulls_last=True)
                .drop("_order"))
    summary = (findings.group_by("kind", "severity", "site").agg(pl.len().alias("count"))
               .with_columns(pl.col("kind").replace_strict(order).alias("_order"))
               .sort("_order", "site").drop("_order"))
    return AuditReport(findings=findings, summary=summary, coverage=coverage)
