"""Read JUNOS configurations back (curly and set text, XML) into behaviour: see parse, xml, interpret, edge."""

from __future__ import annotations

from qosc.targets.junos.read.interpret import interpret
from qosc.targets.junos.read.parse import parse, sniff

READS: tuple[str, ...] = ("conf", "set", "xml")

__all__ = ["READS", "interpret", "parse", "sniff"]
