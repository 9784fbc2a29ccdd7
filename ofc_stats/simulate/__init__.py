"""The simulator: realistic OFC sessions as canonical hand records, deterministic by seed.

>>> from ofc_stats.simulate import SimulationConfig, simulate
>>> batches = list(simulate(SimulationConfig(seed=1, hands=40, variants=("pineapple",))))
>>> sum(batch.hands.height for batch in batches)
40

:class:`Simulation` runs a :class:`SimulationConfig` and records the faults it
injected; :func:`simulate` is the same as an iterator of batches;
:func:`ofc_stats.simulate.files.write_simulation` writes one to hand-history files.
How players are modelled: ``docs/simulator.md``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np

from ofc_stats.formats.canonical import CanonicalBatch
from ofc_stats.simulate.config import (
    DEFAULT_FAULT_COUNTS,
    FL_FAULTS,
    Fault,
    FaultKind,
    SimulationConfig,
    SimulationError,
    parse_faults,
)
from ofc_stats.simulate.records import canonical_batches, hand_times
from ofc_stats.simulate.tables import (
    STAKES_VARIANTS,
    GroupResult,
    PlayerPool,
    TablePlan,
    plan_tables,
    player_pool,
    simulate_group,
)

GROUP_HANDS = 100_000  # hands simulated together: bounds memory, keeps steps busy
MIS_SCORE_AMOUNTS = np.array([1, 2, 3, 4, 6])
MIS_PAID_CENTS = 100  # a room that pays a dollar to the wrong player


class Simulation:
    """One run of a :class:`SimulationConfig`.

    Iterate it for :class:`CanonicalBatch` es (hands ordered by table and time,
    streets included, no problems). Once iterated, :attr:`faults` lists every
    injected record fault and :attr:`protected` the hand ids that file faults must
    leave alone (faulty hands and the hands a Fantasyland fault is judged against).
    """

    def __init__(self, config: SimulationConfig,
                 dealt_as: Callable[[list[TablePlan]], list[TablePlan]] | None = None
                 ) -> None:
        """``dealt_as``: the tables as they are dealt, from the tables planned (a writer
        whose format reads a variant as another has that other dealt)."""
        self.config = config
        seeds = np.random.SeedSequence(config.seed)
        self._setup_seed, self._group_seeds = seeds.spawn(2)
        rng = np.random.default_rng(self._setup_seed)
        self.pool: PlayerPool = player_pool(config.pool_size, rng)
        self.tables: list[TablePlan] = plan_tables(config.hands, config.table_count,
                                                   config.variants, rng, config.first_table)
        if dealt_as is not None:
            self.tables = dealt_as(self.tables)
        self.groups = _groups(self.tables)
        self._quotas = _spread_faults(config, self.groups, self.tables, rng)
        self.faults: list[Fault] = []
        self.protected: set[str] = set()
        self.hands_written = 0

    def __iter__(self) -> Iterator[CanonicalBatch]:
        self.faults = []
        self.protected = set()
        self.hands_written = 0
        group_seeds = self._group_seeds.spawn(len(self.groups))
        for group_tables, quota, seed in zip(self.groups, self._quotas, group_seeds,
                                             strict=True):
            yield from self._run_group(group_tables, quota, seed)

    def _run_group(self, table_indices: list[int], quota: dict[FaultKind, int],
                   seed: np.random.SeedSequence) -> Iterator[CanonicalBatch]:
        config = self.config
        rng = np.random.default_rng(seed)
        plans = [self.tables[index] for index in table_indices]
        fantasyland_quota = {kind: quota.get(kind, 0) for kind in FL_FAULTS}
        group = simulate_group(plans, plans[0].variant, self.pool, config.session_hands,
                               fantasyland_quota, rng)
        times = hand_times(group, config.start, rng)

        def hand_id(hand: int) -> str:
            return f"{plans[int(group.table[hand])].code}-{int(times.sequence[hand]):06d}"

        def fault(kind: FaultKind, hand: int, details: str, board: int | None = None) -> Fault:
            player = "" if board is None else self.pool.names[int(group.player[board])]
            return Fault(config.site_name, hand_id(hand), kind, details,
                         table=plans[int(group.table[hand])].name, player=player)

        protected = np.zeros(len(group.table), dtype=bool)
        faults = []
        for kind, hand, board, details in group.faults:
            faults.append(fault(kind, hand, details, board))
            protected[[hand - 1, hand]] = True
        reported = group.points.copy()
        starts = np.searchsorted(group.hand, np.arange(len(group.table) + 1))
        for hand in _pick(~protected, quota.get(FaultKind.MIS_SCORED, 0), rng):
            boards = starts[hand] + rng.choice(starts[hand + 1] - starts[hand], 2,
                                               replace=False)
            amount = int(rng.choice(MIS_SCORE_AMOUNTS))
            reported[boards[0]] += amount
            reported[boards[1]] -= amount
            names = [self.pool.names[int(group.player[board])] for board in boards]
            faults.append(fault(
                FaultKind.MIS_SCORED, hand,
                f"reported points of {names[0]} {int(reported[boards[0]]):+d} "
                f"(scorer {int(group.points[boards[0]]):+d}) and of {names[1]} "
                f"{int(reported[boards[1]]):+d} (scorer {int(group.points[boards[1]]):+d})",
                int(boards[0])))
            protected[hand] = True
        paid = self._mis_paid(group, starts, protected, quota.get(FaultKind.MIS_PAID, 0),
                              rng, fault, faults)
        # Gaps: never a table's first or last hand, nor a hand a fault needs.
        keep = np.ones(len(group.table), dtype=bool)
        first = times.sequence == 1
        last = np.ones(len(group.table), dtype=bool)
        last[:-1] = group.table[1:] != group.table[:-1]
        for hand in _pick(~protected & ~first & ~last, quota.get(FaultKind.GAP, 0), rng):
            keep[hand] = False
            protected[[hand - 1, hand + 1]] = True
            faults.append(fault(FaultKind.GAP, hand,
                                "hand left out of the history: the table's sequence skips it"))
        self.faults.extend(faults)
        self.protected.update(hand_id(int(hand)) for hand in np.flatnonzero(protected & keep))
        for batch in canonical_batches(group, times, keep, reported, plans, self.pool,
                                       config.site_name, config.currency,
                                       config.utc_offset_minutes, config.batch_hands, paid):
            self.hands_written += batch.hands.height
            yield batch


    def _mis_paid(self, group: GroupResult, starts: np.ndarray, protected: np.ndarray,
                  count: int, rng: np.random.Generator, fault: FaultMaker,
                  faults: list[Fault]) -> np.ndarray:
        """The money the room reports (cents): the capped money, except in ``count``
        hands at table stakes where it paid the uncapped money (where a cap applied)
        or a dollar to the wrong player."""
        paid = group.money.copy()
        at_stakes = np.add.reduceat((group.stacks >= 0).astype(np.int64), starts[:-1]) > 0 \
            if len(group.money) else np.zeros(0, dtype=bool)
        capped = np.add.reduceat((group.money != group.money_uncapped).astype(np.int64),
                                 starts[:-1]) > 0 if len(group.money) else at_stakes
        # Hands where a cap applied first: the room's likeliest mistake is to ignore it.
        chosen = _pick(at_stakes & capped & ~protected, count, rng)
        chosen += _pick(at_stakes & ~capped & ~protected, count - len(chosen), rng)
        for hand in sorted(chosen):
            boards = np.arange(starts[hand], starts[hand + 1])
            if (group.money[boards] != group.money_uncapped[boards]).any():
                paid[boards] = group.money_uncapped[boards]
                what = "paid the money without the table-stakes cap"
            else:
                pair = rng.choice(boards, 2, replace=False)
                paid[pair[0]] += MIS_PAID_CENTS
                paid[pair[1]] -= MIS_PAID_CENTS
                what = "paid a dollar to the wrong player"
            names = [self.pool.names[int(group.player[board])] for board in boards]
            faults.append(fault(FaultKind.MIS_PAID, hand, f"{what}: " + ", ".join(
                f"{name} paid {paid[board] / 100:+.2f}, owed {group.money[board] / 100:+.2f}"
                for name, board in zip(names, boards, strict=True)), int(boards[0])))
            protected[hand] = True
        return paid


FaultMaker = Callable[..., Fault]


def _pick(candidates: np.ndarray, count: int, rng: np.random.Generator) -> list[int]:
    """Up to ``count`` random indices where ``candidates`` is true, in order."""
    where = np.flatnonzero(candidates)
    if count <= 0 or not len(where):
        return []
    return sorted(rng.choice(where, size=min(count, len(where)), replace=False).tolist())


def _groups(tables: list[TablePlan]) -> list[list[int]]:
    """Tables simulated together: one variant per group, about GROUP_HANDS hands."""
    groups: list[list[int]] = []
    for variant in dict.fromkeys(table.variant for table in tables):
        current: list[int] = []
        total = 0
        for index, table in enumerate(tables):
            if table.variant is not variant:
                continue
            current.append(index)
            total += table.hands
            if total >= GROUP_HANDS:
                groups.append(current)
                current, total = [], 0
        if current:
            groups.append(current)
    return groups


def _spread_faults(config: SimulationConfig, groups: list[list[int]],
                   tables: list[TablePlan], rng: np.random.Generator
                   ) -> list[dict[FaultKind, int]]:
    """Record faults per group, drawn in proportion to the groups' hands."""
    weights = np.array([sum(tables[index].hands for index in group) for group in groups],
                       dtype=np.float64)
    # Money is paid (and mis-paid) only at the tables played for table stakes.
    at_stakes = np.array([tables[group[0]].variant in STAKES_VARIANTS for group in groups])
    quotas: list[dict[FaultKind, int]] = [{} for _ in groups]
    for kind, count in config.faults.items():
        if not kind.in_records:
            continue
        chances = weights * at_stakes if kind is FaultKind.MIS_PAID else weights
        if not chances.sum():
            continue
        for group in rng.choice(len(groups), size=count, p=chances / chances.sum()).tolist():
            quotas[group][kind] = quotas[group].get(kind, 0) + 1
    return quotas


def simulate(config: SimulationConfig) -> Iterator[CanonicalBatch]:
    """Simulate ``config``: canonical batches, hands ordered by table and time.

    Use :class:`Simulation` to read the injected faults afterwards.
    """
    return iter(Simulation(config))


__all__ = [
    "DEFAULT_FAULT_COUNTS",
    "Fault",
    "FaultKind",
    "Simulation",
    "SimulationConfig",
    "SimulationError",
    "parse_faults",
    "simulate",
]
