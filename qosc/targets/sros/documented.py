"""What nokia-conf leaves to prose: rules from Nokia's descriptions and guides, each with its source.

The YANG types these values as plain strings or numbers; the box refuses or
misreads them all the same.  Each rule names where it comes from.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from qosc.grammar import Source, Violation
from qosc.grammar.yang import Data

INTERFACE_NAME = Source("nokia-types-sros typedef interface-name (description): 'If the interface is configured by "
                        "the user, it must start with a letter'", "26.3", "nokia-types-sros", "2026-03-11")
SLOPE_ORDER = Source("Nokia 7750 SR Quality of Service Guide, 'Slope policies': the start-avg of a slope is at "
                     "most its max-avg (the drop probability rises from start-avg to max-avg)")
CIR_PIR = Source("Nokia 7750 SR Quality of Service Guide, 'Network queue policies' and 'Queue parameters': the "
                 "CIR of a queue above its PIR is operationally the PIR")


def _interface_names(root: Data) -> Iterator[Violation]:
    for d in root.walk():
        if d.schema.path == "router/interface" and d.keys and not d.keys[0][:1].isalpha():
            yield Violation(d.origin, f"router interface {d.keys[0]!r} must start with a letter", INTERFACE_NAME)


def _slopes(root: Data) -> Iterator[Violation]:
    for d in root.walk():
        if d.schema.name.endswith("-slope") and d.schema.path.startswith("qos/slope-policy/"):
            start, top = d.get("start-avg"), d.get("max-avg")
            if start and top and int(start[0].text()) > int(top[0].text()):
                yield Violation(d.origin, f"{d.where()}: start-avg {start[0].text()} above max-avg "
                                          f"{top[0].text()}", SLOPE_ORDER)


def _rates(root: Data) -> Iterator[Violation]:
    for d in root.walk():
        if d.schema.path == "qos/network-queue/queue/rate":
            cir, pir = d.get("cir"), d.get("pir")
            if cir and pir and int(cir[0].text()) > int(pir[0].text()):
                yield Violation(d.origin, f"{d.where()}: cir {cir[0].text()} above pir {pir[0].text()}", CIR_PIR)


RULES: tuple[Callable[[Data], Iterator[Violation]], ...] = (_interface_names, _slopes, _rates)


def check(root: Data) -> list[Violation]:
    return [v for rule in RULES for v in rule(root)]
