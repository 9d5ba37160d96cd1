"""Read Linux tc dumps (`tc -j qdisc/class/filter show`) back into behaviour: see parse, interpret."""

from __future__ import annotations

from qosc.readers.linux_tc.interpret import interpret
from qosc.readers.linux_tc.parse import parse, sniff

READS: tuple[str, ...] = ("json",)

__all__ = ["READS", "interpret", "parse", "sniff"]
