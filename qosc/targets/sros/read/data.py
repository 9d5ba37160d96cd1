"""Reading nokia-conf data: a child, a leaf's text, a list's entries by key, a policer as an envelope.

Shared by interpret.py and edge.py (which builds the edge rules interpret.py reports), so neither imports
the other's importer.
"""

from __future__ import annotations

from qosc.behaviour.model import Envelope
from qosc.grammar.yang import Data


def one(d: Data | None, *names: str) -> Data | None:
    for n in names:
        if d is None:
            return None
        found = d.get(n)
        d = found[0] if found else None
    return d


def val(d: Data | None, *names: str) -> str | None:
    found = one(d, *names)
    return found.text() if found is not None else None


def entries(d: Data | None, name: str) -> dict[str, Data]:
    return {e.keys[0]: e for e in (d.get(name) if d is not None else []) if e.keys}


def num(text: str | None) -> float | None:
    try:
        return float(text) if text is not None else None
    except ValueError:
        return None


def envelope_of(policer: Data, conform: str, exceed: str) -> Envelope:
    rate = one(policer, "rate")
    cir = int((num(val(rate, "cir")) or 0) * 1000)
    pir_text = val(rate, "pir")
    cbs = int(num(val(policer, "cbs")) or 0)
    mbs = int(num(val(policer, "mbs")) or 0)
    if pir_text in (None, "max"):
        return Envelope(cir, cbs, conform=conform, exceed=exceed)
    pir = int((num(pir_text) or 0) * 1000)
    if pir == cir:
        if mbs > cbs:
            return Envelope(cir, cbs, ebs=mbs - cbs, conform=conform, exceed=exceed, violate="drop")
        return Envelope(cir, cbs, conform=conform, exceed="drop")
    return Envelope(cir, cbs, pir, mbs, conform=conform, exceed=exceed, violate="drop")
