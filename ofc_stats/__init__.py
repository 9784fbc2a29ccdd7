"""ofc-stats: Open Face Chinese poker hand histories turned into trustworthy numbers.

The public API::

    from ofc_stats import score_boards, score_hands, get_ruleset, solve_fantasyland
"""

import sys
import threading

if sys.argv[:1] == ["-m"] and threading.current_thread() is threading.main_thread():
    # ``python -m ofc_stats`` (Python names the module "-m" while it finds it): Ctrl-C
    # one line from here on, as the ``ofc-stats`` launcher does, before the heavy
    # imports below; inside a command the app takes it over (ofc_stats.cli.errors).
    from ofc_stats_launcher import exit_at_once_on_ctrl_c

    exit_at_once_on_ctrl_c()

from ofc_stats import _moved
from ofc_stats.engine.boards import ScoredHands, score_boards, score_hands, score_matchups
from ofc_stats.engine.cards import card_text, parse_card, parse_cards
from ofc_stats.engine.evaluate import Category, describe, strength_of
from ofc_stats.engine.fantasyland_solver import FantasylandSetting, solve_fantasyland
from ofc_stats.engine.rules import (
    PRESETS,
    FantasylandRules,
    Row,
    RoyaltyTable,
    Ruleset,
    ScoringMethod,
    Variant,
    get_ruleset,
    load_ruleset,
)
from ofc_stats.errors import (
    BoardsError,
    FantasylandHandError,
    InvalidCardError,
    OfcStatsError,
    RulesetError,
)
from ofc_stats.version import __version__

_moved.install()  # the module paths of earlier versions still import

__all__ = [
    "PRESETS",
    "BoardsError",
    "Category",
    "FantasylandHandError",
    "FantasylandRules",
    "FantasylandSetting",
    "InvalidCardError",
    "OfcStatsError",
    "Row",
    "RoyaltyTable",
    "Ruleset",
    "RulesetError",
    "ScoredHands",
    "ScoringMethod",
    "Variant",
    "__version__",
    "card_text",
    "describe",
    "get_ruleset",
    "load_ruleset",
    "parse_card",
    "parse_cards",
    "score_boards",
    "score_hands",
    "score_matchups",
    "solve_fantasyland",
    "strength_of",
]
