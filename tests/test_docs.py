"""The documentation stays true: every command is documented, CI runs the README's
test command, and the reference pages the README links exist."""

from __future__ import annotations

import gzip
import re
import subprocess
import sys
from pathlib import Path

import pytest
import typer.main
from typer.core import TyperGroup

from ofc_stats.cli import app

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def commands() -> list[tuple[str, typer.main.TyperCommand]]:
    group = typer.main.get_command(app)
    assert isinstance(group, TyperGroup)
    found = []
    for name, command in group.commands.items():
        if isinstance(command, TyperGroup):
            found.extend((f"{name} {sub}", subcommand)
                         for sub, subcommand in command.commands.items())
        else:
            found.append((name, command))
    return found


def test_every_command_has_help_and_is_in_the_readme() -> None:
    bench = re.search(r"`ofc-stats bench ([a-z|\\]+)`", README)  # "a\|b" in a table
    assert bench is not None
    benchmarks = set(bench.group(1).replace("\\", "").split("|"))
    for name, command in commands():
        assert (command.help or "").strip(), f"{name} has no help text"
        if name.startswith("bench "):
            assert name.removeprefix("bench ") in benchmarks, f"README lacks bench {name}"
        elif " " in name and f"`ofc-stats {name}" not in README:
            # a group's subcommand, named in the group's row: `ofc-stats config [set|get]`
            group, sub = name.split(" ", 1)
            row = re.search(rf"`ofc-stats {group} \[([a-z|\\]+)\]`", README)
            assert row is not None, f"README lacks ofc-stats {group}"
            assert sub in row.group(1).replace("\\", "").split("|"), f"README lacks {name}"
        else:
            assert f"`ofc-stats {name}" in README, f"README lacks ofc-stats {name}"


def test_ci_runs_the_readme_test_command() -> None:
    test_command = "python -m pip install -e '.[dev]' && python -m pytest -n 2 --dist loadfile"
    assert test_command in README
    assert test_command in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_linked_documents_exist() -> None:
    for link in re.findall(r"\]\((docs/[^)]+)\)", README):
        assert (ROOT / link).is_file(), link


@pytest.mark.slow
def test_the_readme_python_examples_run(tmp_path: Path) -> None:
    """Every Python block of the README runs as it stands, in a folder holding the
    sample data (and the text session the readers' example opens)."""
    blocks = re.findall(r"```python\n(.*?)```", README, flags=re.DOTALL)
    assert len(blocks) >= 3
    (tmp_path / "sample_data").symlink_to(ROOT / "sample_data")
    (tmp_path / "session.txt").write_bytes(
        gzip.decompress((ROOT / "sample_data" / "betelgeuse.txt.gz").read_bytes()))
    for number, block in enumerate(blocks):
        done = subprocess.run([sys.executable, "-c", block], cwd=tmp_path,
                              capture_output=True, text=True, check=False)
        assert done.returncode == 0, f"README Python block {number + 1}:\n{done.stderr}"
    assert (tmp_path / "warehouse" / "_log").is_dir()
    assert (tmp_path / "sim" / "faults.tsv").is_file()


def test_every_toml_example_of_the_rulesets_page_loads(tmp_path: Path) -> None:
    from ofc_stats.engine.rules import load_ruleset

    page = (ROOT / "docs" / "rulesets.md").read_text(encoding="utf-8")
    examples = re.findall(r"```toml\n(.*?)```", page, flags=re.DOTALL)
    assert len(examples) >= 3
    settings = [example for example in examples
                if example.startswith("# <warehouse>/ofc-stats.toml")]
    assert len(settings) == 1  # the house rules' file, not a ruleset
    for index, example in enumerate(examples):
        if example in settings:
            from ofc_stats.warehouse.config import CONFIG_FILE, read_config

            (tmp_path / CONFIG_FILE).write_text(example, encoding="utf-8")
            assert read_config(tmp_path).house_rules
            continue
        path = tmp_path / f"example{index}.toml"
        path.write_text(example, encoding="utf-8")
        assert load_ruleset(path).name
