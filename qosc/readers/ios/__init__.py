"""Read Cisco IOS / IOS XE running-config text (MQC, ACLs) back into behaviour: see parse, mqc, interpret."""

from __future__ import annotations

from qosc.readers.ios.interpret import interpret
from qosc.readers.ios.parse import parse, sniff

READS: tuple[str, ...] = ("cfg",)

__all__ = ["READS", "interpret", "parse", "sniff"]
