"""Discover targets and what they bring: platforms and diagnostic codes.

Every package (or, while targets move into packages, module) in
qosc.targets that defines `TARGET` is a target; a package whose dialect
serves several targets (IOS: ios-mqc and catalyst6500) defines `TARGETS`.  The core asks this module,
never a target by name, so adding a target touches nothing in the core.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

import qosc.targets
from qosc import codes as codes_mod
from qosc.targets.base import Lowered, Output, Target
from qosc.targets.platform import PlatformBase

_SKIP = {"base", "registry", "platform"}


@lru_cache(maxsize=1)
def targets() -> Mapping[str, Target]:
    found: dict[str, Target] = {}
    for info in sorted(pkgutil.iter_modules(qosc.targets.__path__), key=lambda i: i.name):
        if info.name in _SKIP or info.name.startswith("_"):
            continue
        module = importlib.import_module(f"qosc.targets.{info.name}")
        for target in getattr(module, "TARGETS", None) or ([module.TARGET] if hasattr(module, "TARGET") else []):
            found[target.name] = as_target(target)
    return dict(sorted(found.items()))


_ADAPTED: dict[int, Target] = {}


def as_target(obj: Any) -> Target:
    """A Target for a target object: itself, or (for a target module of the earlier form) its adapter."""
    if isinstance(obj, Target):
        return obj
    adapted = _ADAPTED.get(id(obj))
    if adapted is None or adapted.old is not obj:  # type: ignore[attr-defined]
        adapted = _ADAPTED[id(obj)] = LegacyTarget(obj)
    return adapted


def for_platform(platform: str) -> list[Target]:
    """The targets that serve a platform (usually one)."""
    return [t for t in targets().values() if platform in t.platforms]


@lru_cache(maxsize=1)
def platforms() -> Mapping[str, PlatformBase]:
    """Every platform of every target, by name."""
    found = {name: data for target in targets().values() for name, data in target.platform_data.items()}
    return dict(sorted(found.items()))


def platform(name: str) -> PlatformBase | None:
    return platforms().get(name)


def device_platform_names() -> tuple[str, ...]:
    """Platforms a policy's `devices:` may name (host platforms are chosen by hosts: instead)."""
    return tuple(sorted(name for t in targets().values() if t.serves == "devices" for name in t.platforms))


@lru_cache(maxsize=1)
def all_codes() -> tuple[codes_mod.Code, ...]:
    """The core's codes, every target's codes, and the codes of targets not yet in their own package."""
    own = [c for t in targets().values() for c in t.codes]
    declared = {c.code for c in own}
    legacy = [c for c in codes_mod.LEGACY_TARGETS if c.code not in declared]
    return tuple(sorted([*codes_mod.CORE, *legacy, *own], key=lambda c: c.code))


class LegacyTarget(Target):
    """A target module of the earlier form (check/outputs/check_and_outputs) driven through the contract.

    It claims every target field (it predates the field list) and renders
    with its own templates and self-check; it goes away as each target moves
    into its package.
    """

    def __init__(self, old: Any) -> None:
        self.old = old
        self.name = old.name  # type: ignore[misc]
        self.description = old.description  # type: ignore[misc]
        self.package = f"qosc.targets.{old.name}"  # type: ignore[misc]
        from qosc import fields as fields_mod
        self.fields = frozenset(fields_mod.target_fields())  # type: ignore[misc]
        self.driver = None  # type: ignore[misc]

    def __getattr__(self, attr: str) -> Any:
        """Everything else (outputs, check, lower_for, ...) is the old target's."""
        return getattr(self.__dict__["old"], attr)

    @property
    def platform_data(self) -> Mapping[str, PlatformBase]:  # type: ignore[override]
        from qosc.platforms import get
        return {name: get(name) for name in self.old.platforms}  # type: ignore[misc]

    @property
    def platforms(self) -> tuple[str, ...]:
        return tuple(self.old.platforms)

    def queues(self, platform: Any, interface: Any) -> int:
        extra = getattr(platform, "extra", {})
        types = extra.get("port_types", {})
        chosen = interface.port_type or extra.get("default_port_type")
        if chosen in types:
            spec = types[chosen]
            return int(spec["queues"]) + (1 if spec.get("priority_queue") else 0)
        return int(platform.queues)

    def lower(self, policy: Any, unit: Any, platform: Any) -> Lowered:
        both = getattr(self.old, "check_and_outputs", None)
        if both is not None:
            found, renderer = both(policy, unit)
            return Lowered(diagnostics=list(found), data=renderer)
        return Lowered(diagnostics=list(self.old.check(policy, unit)),
                       data=lambda: self.old.outputs(policy, unit))

    def render(self, lowered: Lowered) -> list[Output]:
        return list(lowered.data())
