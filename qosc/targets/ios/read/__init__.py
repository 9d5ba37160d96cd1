"""Read Cisco IOS / IOS XE running-config text (MQC, ACLs) back into behaviour: see parse, mqc, interpret."""

from __future__ import annotations

from qosc.targets.ios.read.interpret import interpret
from qosc.targets.ios.read.parse import parse, sniff

READS: tuple[str, ...] = ("cfg",)

__all__ = ["READS", "interpret", "parse", "sniff"]
