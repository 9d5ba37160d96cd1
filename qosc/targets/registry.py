"""Discover targets: every module in qosc.targets that defines TARGET."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Mapping
from functools import lru_cache

import qosc.targets
from qosc.targets.base import Target

_SKIP = {"base", "registry"}


@lru_cache(maxsize=1)
def targets() -> Mapping[str, Target]:
    found: dict[str, Target] = {}
    for info in sorted(pkgutil.iter_modules(qosc.targets.__path__), key=lambda i: i.name):
        if info.name in _SKIP or info.name.startswith("_"):
            continue
        module = importlib.import_module(f"qosc.targets.{info.name}")
        target = getattr(module, "TARGET", None)
        if target is not None:
            found[target.name] = target
    return dict(sorted(found.items()))


def for_platform(platform: str) -> list[Target]:
    """The targets that serve a platform (usually one)."""
    return [t for t in targets().values() if platform in t.platforms]
