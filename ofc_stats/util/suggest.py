"""Suggestions for a name that matched nothing: ``did you mean 'leaderboard'?``.

>>> did_you_mean("leaderbord", ["leaderboard", "hand_list", "win_rates"])
"; did you mean 'leaderboard'?"
>>> alternatives(["'a'", "'b'", "'c'"])
"'a', 'b' or 'c'"
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def alternatives(items: Iterable[str], word: str = "or") -> str:
    """``a``, ``a or b``, ``a, b or c``."""
    listed = list(items)
    if len(listed) <= 1:
        return "".join(listed)
    return f"{', '.join(listed[:-1])} {word} {listed[-1]}"


def closest(name: str, candidates: Iterable[str], count: int = 3,
            cutoff: float = 0.6) -> list[str]:
    """The candidates most like ``name`` (case aside), best first; a candidate that
    differs from it in case alone comes first."""
    known = list(dict.fromkeys(candidates))
    by_lower: dict[str, list[str]] = {}
    for candidate in known:
        by_lower.setdefault(candidate.lower(), []).append(candidate)
    same_case = [c for c in by_lower.get(name.lower(), []) if c != name]
    near = difflib.get_close_matches(name.lower(), list(by_lower), n=count, cutoff=cutoff)
    found = same_case + [c for lower in near for c in by_lower[lower] if c not in same_case]
    return [c for c in found if c != name][:count]


def did_you_mean(name: str, candidates: Iterable[str], count: int = 3) -> str:
    """``"; did you mean 'x' or 'y'?"`` for the closest candidates, or ``""``."""
    return hint(closest(name, candidates, count))


def hint(found: Iterable[str]) -> str:
    """``"; did you mean 'x' or 'y'?"`` naming ``found``, or ``""`` if it is empty."""
    quoted = [repr(item) for item in found]
    return f"; did you mean {alternatives(quoted)}?" if quoted else ""
