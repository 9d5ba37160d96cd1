"""Typed platform data: what a box can do, as a frozen dataclass per target, validated when it is loaded.

Every target keeps its platforms as JSON files in its own package
(`qosc/targets/<target>/platforms/*.json`) and a dataclass that extends
`Platform` with the fields its lowering needs.  `load_platforms` reads the
files into that class and refuses any file whose keys or value types do not
match it, naming the file and the key, so a target never looks a value up by
a string at compile time.
"""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, TypeVar

from qosc.errors import TargetBug


@dataclass(frozen=True)
class Range:
    low: int
    high: int

    def __contains__(self, value: object) -> bool:
        return isinstance(value, int) and self.low <= value <= self.high


@dataclass(frozen=True, kw_only=True)
class PlatformBase:
    """What every platform file states: its name, target, description and sources."""

    name: str
    target: str
    description: str
    source: str
    sources: Mapping[str, str] = field(default_factory=dict)
    """Where individual facts come from (fact -> document, release), beside the file-wide `source`."""
    unverified: Mapping[str, str] = field(default_factory=dict)
    """Facts whose value no vendor text qosc's authors could read confirms (fact -> what the value is inferred
    from).  Each key names a field of the platform; a target says in its output which of them it relied on."""


@dataclass(frozen=True, kw_only=True)
class Platform(PlatformBase):
    """A device platform: the numbers the generic checks (QOS091-QOS095) need.  Targets extend it
    (as frozen, kw_only dataclasses) with the typed facts their lowering uses."""

    queues: int
    priorities: tuple[str, ...]
    strict_per_interface: int
    zero_share: bool
    policer_rate: Range
    policer_burst: Range
    queue_overflow: str = "reject"
    exp_default: str | None = None
    """What EXP the box imposes on a label when nothing configures it: 'ip-precedence' (copies the IP
    precedence, DSCP >> 3), 'forwarding-class' (its default rewrite table), or None (not documented, or no
    MPLS); the source is in the platform file's `sources`."""


P = TypeVar("P", bound=PlatformBase)


class PlatformDataError(TargetBug):
    """A platform file that does not match its target's platform class (a qosc bug, found when it loads)."""


def _convert(value: Any, hint: Any, where: str) -> Any:
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if hint is Any:
        return value
    if origin in (typing.Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        errors = []
        for arg in args:
            if arg is type(None):
                continue
            try:
                return _convert(value, arg, where)
            except PlatformDataError as exc:
                errors.append(str(exc))
        raise PlatformDataError("; ".join(errors) or f"{where}: null is not allowed")
    if dataclasses.is_dataclass(hint) and isinstance(hint, type):
        return load_dataclass(hint, value, where)
    if origin is tuple:
        if not isinstance(value, list):
            raise PlatformDataError(f"{where}: expected a list, got {type(value).__name__}")
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_convert(v, args[0], f"{where}[{i}]") for i, v in enumerate(value))
        if len(args) != len(value):
            raise PlatformDataError(f"{where}: expected {len(args)} items, got {len(value)}")
        return tuple(_convert(v, a, f"{where}[{i}]") for i, (v, a) in enumerate(zip(value, args, strict=True)))
    if origin in (dict, Mapping):
        if not isinstance(value, dict):
            raise PlatformDataError(f"{where}: expected a mapping, got {type(value).__name__}")
        key_type, value_type = args
        return types.MappingProxyType({_convert(k, key_type, f"{where} key {k!r}"): _convert(v, value_type,
                                                                                             f"{where}.{k}")
                                       for k, v in value.items()})
    if hint is bool:
        if not isinstance(value, bool):
            raise PlatformDataError(f"{where}: expected true or false, got {value!r}")
        return value
    if hint is int:
        if isinstance(value, str) and value.isdigit():  # JSON object keys are strings
            return int(value)
        if not isinstance(value, int) or isinstance(value, bool):
            raise PlatformDataError(f"{where}: expected an integer, got {value!r}")
        return value
    if hint is float:
        if not isinstance(value, int | float) or isinstance(value, bool):
            raise PlatformDataError(f"{where}: expected a number, got {value!r}")
        return float(value)
    if hint is str:
        if not isinstance(value, str):
            raise PlatformDataError(f"{where}: expected a string, got {value!r}")
        return value
    if typing.get_origin(hint) is typing.Literal:
        if value not in args:
            raise PlatformDataError(f"{where}: expected one of {args}, got {value!r}")
        return value
    raise PlatformDataError(f"{where}: no loader for type {hint!r}")


T = TypeVar("T")


def load_dataclass(cls: type[T], data: Any, where: str) -> T:
    """An instance of dataclass `cls` from JSON data; every key must be a field, every field typed right."""
    if isinstance(data, list) and len(data) == len(dataclasses.fields(cls)):  # type: ignore[arg-type]
        data = {f.name: v for f, v in zip(dataclasses.fields(cls), data, strict=True)}  # type: ignore[arg-type]
    if not isinstance(data, dict):
        raise PlatformDataError(f"{where}: expected a mapping for {cls.__name__}, got {type(data).__name__}")
    hints = typing.get_type_hints(cls)
    known = {f.name: f for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    unknown = sorted(k for k in data if k.replace("-", "_") not in known)
    if unknown:
        raise PlatformDataError(f"{where}: unknown key(s) {', '.join(unknown)} for {cls.__name__}")
    values = {}
    for name, f in known.items():
        key = name if name in data else name.replace("_", "-")
        if key not in data:
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise PlatformDataError(f"{where}: missing key {name!r} for {cls.__name__}")
            continue
        values[name] = _convert(data[key], hints[name], f"{where}.{name}")
    return cls(**values)


def load_platforms(cls: type[P], package: str) -> dict[str, P]:
    """Every `platforms/*.json` of a target package as `cls`, by platform name."""
    found: dict[str, P] = {}
    folder = resources.files(package).joinpath("platforms")
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if not entry.name.endswith(".json"):
            continue
        where = f"{package}/platforms/{entry.name}"
        try:
            data = json.loads(entry.read_text(encoding="utf-8"))
        except ValueError as exc:
            raise PlatformDataError(f"{where}: not JSON: {exc}") from None
        platform = load_dataclass(cls, data, where)
        fields = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
        strays = sorted(k for k in platform.unverified if k not in fields)
        if strays:
            raise PlatformDataError(f"{where}.unverified: {', '.join(strays)} name no fact of {cls.__name__}")
        if platform.name != entry.name[:-5]:
            raise PlatformDataError(f"{where}: name {platform.name!r} differs from the file name")
        found[platform.name] = platform
    return found
