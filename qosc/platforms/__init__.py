"""Platform capability data: one JSON file per platform, read-only.

Limits (queue count, priority levels, ranges) are data, not code, so a new
platform is a new file and the generic checker reports a policy that does not
fit the box at the policy's own line.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

from qosc.targets.platform import Range


@dataclass(frozen=True)
class Platform:
    name: str
    target: str
    description: str
    queues: int
    priorities: tuple[str, ...]
    strict_per_interface: int
    zero_share: bool
    policer_rate: Range
    policer_burst: Range
    queue_overflow: str
    source: str
    extra: Mapping[str, Any]


@lru_cache(maxsize=1)
def platforms() -> Mapping[str, Platform]:
    found: dict[str, Platform] = {}
    for entry in sorted(resources.files(__package__).iterdir(), key=lambda e: e.name):
        if not entry.name.endswith(".json"):
            continue
        data = json.loads(entry.read_text(encoding="utf-8"))
        found[data["name"]] = Platform(
            name=data["name"], target=data["target"], description=data["description"], queues=data["queues"],
            priorities=tuple(data["priorities"]), strict_per_interface=data["strict_per_interface"],
            zero_share=data["zero_share"], policer_rate=Range(*data["policer_rate"]),
            policer_burst=Range(*data["policer_burst"]), queue_overflow=data.get("queue_overflow", "reject"),
            source=data.get("source", ""), extra=data.get("extra", {}),
        )
    return found


def platform_names() -> tuple[str, ...]:
    return tuple(sorted(platforms()))


def get(name: str) -> Platform | None:
    return platforms().get(name)
