"""Module paths of earlier versions still import: the same module, with a warning."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

import ofc_stats
from ofc_stats._moved import MOVED


@pytest.mark.parametrize(("old", "new"), sorted(MOVED.items()))
def test_an_old_path_is_the_new_module_and_warns(old: str, new: str) -> None:
    sys.modules.pop(old, None)  # imported by an earlier test: import it afresh
    with pytest.warns(DeprecationWarning, match=f"{old} has moved to {new}"):
        module = importlib.import_module(old)
    assert module is importlib.import_module(new)
    # The module keeps its own name and spec.
    assert module.__name__ == new
    assert module.__spec__ is not None
    assert module.__spec__.name == new


def test_from_import_of_an_old_path_in_a_fresh_interpreter() -> None:
    old, new = "ofc_stats.cards", MOVED["ofc_stats.cards"]
    package, _, name = old.rpartition(".")
    code = (f"import warnings; warnings.simplefilter('error')\n"
            f"try:\n    from {package} import {name}\n"
            f"except DeprecationWarning as w:\n    print(w)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert f"{old} has moved to {new}" in done.stdout


def test_the_new_paths_exist_and_no_old_path_is_a_file_still() -> None:
    root = Path(ofc_stats.__file__).parent.parent
    for old, new in MOVED.items():
        assert importlib.util.find_spec(new) is not None, new
        path = root.joinpath(*old.split("."))
        assert not path.with_suffix(".py").exists(), old
        assert not path.is_dir(), old
