"""A warehouse's own settings, ``<warehouse>/ofc-stats.toml``: its house rules.

The file names the ruleset (a preset or a TOML ruleset file) that the default
scoring applies, for every hand or per site or per variant::

    [ruleset]
    default = "thursday.toml"          # every hand not matched below
    [ruleset.site]
    "home game" = "/home/ann/rules/thursday.toml"
    [ruleset.variant]
    progressive = "ultimate"

A hand takes its site's ruleset, else its variant's, else ``default``, else the preset
its variant implies. Relative paths are relative to the warehouse folder, so a
warehouse that carries its rulesets inside it can move. ``ofc-stats config`` reads
and writes the file (:func:`set_setting`, :func:`unset_setting`); it is plain TOML
and may be edited by hand.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from ofc_stats.engine.rules import PRESETS, Ruleset, Variant, get_ruleset, ruleset_for_variant
from ofc_stats.errors import ExitCode, OfcStatsError
from ofc_stats.util.suggest import alternatives, did_you_mean
from ofc_stats.warehouse.files import atomic_write_bytes

CONFIG_FILE = "ofc-stats.toml"
SCOPES = ("site", "variant")
KEYS_TEXT = "ruleset, ruleset.site.<site> or ruleset.variant.<variant>"


class ConfigError(OfcStatsError, ValueError):
    """An unknown setting, or a settings file that cannot be read."""

    exit_code = ExitCode.USAGE


@dataclass(frozen=True)
class WarehouseConfig:
    """The settings of one warehouse (all optional): the house rules by scope."""

    root: Path
    default: str | None = None
    sites: Mapping[str, str] = field(default_factory=dict)
    variants: Mapping[str, str] = field(default_factory=dict)

    @property
    def house_rules(self) -> bool:
        """Whether any ruleset is set (else every hand is scored by its variant)."""
        return bool(self.default or self.sites or self.variants)

    def settings(self) -> dict[str, str]:
        """Every setting as ``key = value`` (the keys ``ofc-stats config`` takes)."""
        found = {} if self.default is None else {"ruleset": self.default}
        found.update({f"ruleset.site.{site}": value for site, value in self.sites.items()})
        found.update({f"ruleset.variant.{variant}": value
                      for variant, value in self.variants.items()})
        return found

    def spec_for(self, site: str, variant: str) -> str | None:
        """The ruleset setting a hand of ``site`` and ``variant`` takes (None: its preset)."""
        return self.sites.get(site) or self.variants.get(variant) or self.default

    def ruleset_for(self, site: str, variant: str) -> Ruleset:
        """The ruleset the default scoring applies to a hand of ``site`` and ``variant``."""
        spec = self.spec_for(site, variant)
        return ruleset_for_variant(variant) if spec is None else load_spec(self.root, spec)

    def rulesets(self) -> list[tuple[str, Ruleset]]:
        """Every ruleset the default scoring may apply, each with where it applies:
        the settings' (loaded now, so an edited file counts) and the presets of the
        variants no setting covers."""
        found = [(key, load_spec(self.root, spec)) for key, spec in self.settings().items()]
        if self.default is None:
            found += [(f"preset.{variant.value}", ruleset_for_variant(variant.value))
                      for variant in Variant if variant.value not in self.variants]
        return found

    def describe(self) -> str:
        """The default scoring's rules in a few words, for messages and the report:
        ``by variant`` (each hand under its variant's preset), or the house rules."""
        if not self.house_rules:
            return "by variant"
        parts = [f"{self._name(spec)} at site {site}" for site, spec in self.sites.items()]
        parts += [f"{self._name(spec)} for {variant}" for variant, spec in self.variants.items()]
        rest = ("the rest by variant" if self.default is None
                else f"{self._name(self.default)}"
                + (" for the rest" if parts else " for every hand"))
        return "house rules: " + ", ".join([*parts, rest])

    def _name(self, spec: str) -> str:
        """A setting's ruleset by its name; the setting itself if it does not load
        (scoring says why; a description must not fail)."""
        try:
            return load_spec(self.root, spec).name
        except OfcStatsError:
            return spec


def load_spec(root: Path, spec: str) -> Ruleset:
    """A setting's ruleset: a preset by name, or a TOML file (relative to ``root``)."""
    if spec in PRESETS:
        return PRESETS[spec]
    path = Path(spec).expanduser()
    return get_ruleset(path if path.is_absolute() else root / path)


def read_config(root: Path) -> WarehouseConfig:
    """The settings in ``<root>/ofc-stats.toml`` (none if there is no file).

    Raises:
        ConfigError: the file is not TOML, or holds an unknown key.
    """
    path = root / CONFIG_FILE
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return WarehouseConfig(root)
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"cannot read {path}: {error}") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: invalid TOML: {error}") from None
    unknown = sorted(set(data) - {"ruleset"})
    if unknown:
        raise ConfigError(f"{path}: unknown setting {unknown[0]!r} (settings: {KEYS_TEXT})")
    rulesets = data.get("ruleset", {})
    if not isinstance(rulesets, dict):
        raise ConfigError(f"{path}: [ruleset] must be a table ({KEYS_TEXT})")
    unknown = sorted(set(rulesets) - {"default", *SCOPES})
    if unknown:
        raise ConfigError(f"{path}: unknown setting 'ruleset.{unknown[0]}' "
                          f"(settings: {KEYS_TEXT})")

    def table(name: str) -> dict[str, str]:
        value = rulesets.get(name, {})
        if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
            raise ConfigError(f"{path}: [ruleset.{name}] must map names to rulesets")
        return {str(key): item for key, item in value.items()}

    default = rulesets.get("default")
    if default is not None and not isinstance(default, str):
        raise ConfigError(f"{path}: ruleset.default must be a preset name or a file")
    variants = table("variant")
    for variant in variants:
        _check_variant(variant)
    return WarehouseConfig(root, default, MappingProxyType(table("site")),
                           MappingProxyType(variants))


def _check_variant(name: str) -> None:
    known = [variant.value for variant in Variant]
    if name not in known:
        raise ConfigError(f"ruleset.variant.{name}: no variant {name!r} (variants: "
                          f"{alternatives(known)}){did_you_mean(name, known)}")


def parse_key(key: str) -> tuple[str, str | None]:
    """``ruleset`` -> ``("default", None)``; ``ruleset.site.X`` -> ``("site", "X")``.

    Raises:
        ConfigError: a key that is no setting, with the closest one.
    """
    if key == "ruleset":
        return "default", None
    head, _, rest = key.partition(".")
    scope, _, name = rest.partition(".")
    if head == "ruleset" and scope in SCOPES and name:
        if scope == "variant":
            _check_variant(name)
        return scope, name
    hint = did_you_mean(key, ["ruleset", "ruleset.site.", "ruleset.variant."])
    raise ConfigError(f"no setting {key!r} (settings: {KEYS_TEXT}){hint}")


def _stored_spec(root: Path, value: str) -> str:
    """How a ruleset given on the command line is written down: a preset by name, a
    file inside the warehouse relative to it, any other file by its absolute path."""
    if value in PRESETS:
        return value
    path = Path(value).expanduser().resolve()
    try:
        return path.relative_to(root.resolve()).as_posix()
    except ValueError:
        return str(path)


def set_setting(root: Path, key: str, value: str) -> WarehouseConfig:
    """Set ``key`` to the ruleset ``value`` (a preset name or a TOML file), checked by
    loading it; returns the new settings.

    Raises:
        ConfigError: an unknown key. RulesetError: a ruleset that does not load.
    """
    scope, name = parse_key(key)
    get_ruleset(value)  # loads (and so checks) it, relative to where the user is
    config = read_config(root)
    spec = _stored_spec(root, value)
    if scope == "default":
        updated = WarehouseConfig(root, spec, config.sites, config.variants)
    elif scope == "site":
        updated = WarehouseConfig(root, config.default, {**config.sites, str(name): spec},
                                  config.variants)
    else:
        updated = WarehouseConfig(root, config.default, config.sites,
                                  {**config.variants, str(name): spec})
    _write(updated)
    return updated


def unset_setting(root: Path, key: str) -> WarehouseConfig:
    """Remove ``key`` (nothing happens if it is not set); returns the new settings."""
    scope, name = parse_key(key)
    config = read_config(root)
    sites, variants = dict(config.sites), dict(config.variants)
    default = None if scope == "default" else config.default
    if scope == "site":
        sites.pop(str(name), None)
    elif scope == "variant":
        variants.pop(str(name), None)
    updated = WarehouseConfig(root, default, sites, variants)
    _write(updated)
    return updated


def _toml_string(text: str) -> str:
    # A JSON string is a TOML basic string (the same escapes).
    return json.dumps(text, ensure_ascii=False)


def _write(config: WarehouseConfig) -> None:
    lines = ["# The settings of this warehouse; 'ofc-stats config' reads and writes them.",
             "# A ruleset is a preset name or a TOML ruleset file (relative paths are",
             "# relative to this folder). A hand takes its site's, else its variant's, else",
             "# the default; with none, the preset its variant implies.", "[ruleset]"]
    if config.default is not None:
        lines.append(f"default = {_toml_string(config.default)}")
    tables: dict[str, Mapping[str, Any]] = {"site": config.sites, "variant": config.variants}
    for scope, values in tables.items():
        if values:
            lines.append(f"\n[ruleset.{scope}]")
            lines += [f"{_toml_string(name)} = {_toml_string(spec)}"
                      for name, spec in sorted(values.items())]
    atomic_write_bytes(config.root / CONFIG_FILE, ("\n".join(lines) + "\n").encode())
