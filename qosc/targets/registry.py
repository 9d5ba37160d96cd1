"""Discover targets and what they bring: platforms and diagnostic codes.

Every package in qosc.targets that defines `TARGET` is a target; a package whose dialect
serves several targets (IOS: ios-mqc and catalyst6500) defines `TARGETS`.  The core asks this module,
never a target by name, so adding a target touches nothing in the core.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Mapping
from functools import lru_cache

import qosc.targets
from qosc import codes as codes_mod
from qosc.targets.base import Target
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
            if not isinstance(target, Target):
                raise TypeError(f"qosc.targets.{info.name}: {target!r} is not a qosc.targets.base.Target")
            found[target.name] = target
    return dict(sorted(found.items()))


def for_platform(platform: str) -> list[Target]:
    """The targets that serve a platform (usually one)."""
    return list(_serving(platform))


@lru_cache(maxsize=256)
def _serving(platform: str) -> tuple[Target, ...]:
    return tuple(t for t in targets().values() if platform in t.platforms)


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
    """The core's codes and every target's codes."""
    own = [c for t in targets().values() for c in t.codes]
    return tuple(sorted([*codes_mod.CORE, *own], key=lambda c: c.code))
