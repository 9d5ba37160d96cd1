"""Read SR OS configurations back (MD-CLI tree and flat text, nokia-conf XML) into behaviour: parse, interpret."""

from __future__ import annotations

from qosc.targets.sros.read.interpret import interpret
from qosc.targets.sros.read.parse import parse, sniff

READS: tuple[str, ...] = ("cfg", "flat", "xml")

__all__ = ["READS", "interpret", "parse", "sniff"]
