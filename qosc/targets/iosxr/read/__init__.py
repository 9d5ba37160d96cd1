"""Read IOS XR running-config text (class-map, policy-map, interface service-policy) back into behaviour."""

from __future__ import annotations

from qosc.targets.iosxr.read.interpret import interpret
from qosc.targets.iosxr.read.parse import parse, sniff

READS: tuple[str, ...] = ("cfg",)

__all__ = ["READS", "interpret", "parse", "sniff"]
