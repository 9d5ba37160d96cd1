"""Walking the nokia-conf data tree of a configuration read back: one child, a leaf's value, a list's entries."""

from __future__ import annotations

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
