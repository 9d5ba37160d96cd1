"""DSCP names as nokia-types-qos dscp-name spells them (be, cp1 .. cp63, cs1 .. cs5, af11 .. af43, ef, nc1 = cs6,
nc2 = cs7) as code points."""

from __future__ import annotations

from qosc.dscp import parse_dscp

_NOKIA = {"be": 0, "ef": 46, "nc1": 48, "nc2": 56}


def code_of(text: str) -> int | None:
    if text in _NOKIA:
        return _NOKIA[text]
    if text.startswith("cp") and text[2:].isdigit() and int(text[2:]) < 64:
        return int(text[2:])
    try:
        return parse_dscp(text)
    except Exception:  # noqa: BLE001 - a name the reader does not know is no code point
        return None
