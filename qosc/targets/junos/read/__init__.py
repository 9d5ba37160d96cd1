"""Read JUNOS configurations back (curly-brace and set text) into behaviour: see parse, interpret, edge."""

from __future__ import annotations

from qosc.targets.junos.read.interpret import interpret
from qosc.targets.junos.read.parse import parse, sniff

READS: tuple[str, ...] = ("conf", "set")

__all__ = ["READS", "interpret", "parse", "sniff"]
