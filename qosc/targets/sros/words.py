"""Words of the sros dialect: port identifiers, DSCP names, descriptions and percentages as nokia-conf spells them."""

from __future__ import annotations

import unicodedata

from qosc import dscp as dscp_mod
from qosc.tree import Kind, Statement, Word, decimal, stmt, text

DESCRIPTION = 80
"""nokia-types-sros description: 1..80 characters, 7-bit printable ASCII."""


def port_id(value: str) -> Word:
    """A port or SAP identifier: written bare, as MD-CLI shows it (a string in nokia-conf)."""
    return Word(Kind.ADDRESS, value, value)


def dscp_word(code: int) -> Word:
    """A DSCP as nokia-types-qos dscp-name spells it (be, cp1, cs1, af11, ef, nc1 for cs6, nc2 for cs7)."""
    named = {0: "be", 46: "ef", 48: "nc1", 56: "nc2"}.get(code)
    if named is None:
        generic = dscp_mod.name(code)
        named = generic if generic.startswith(("af", "cs")) else f"cp{code}"
    return Word(Kind.DSCP, named, code)


def ascii_text(value: str | None) -> Word | None:
    """A description as SR OS takes it: 7-bit printable ASCII, at most 80 characters; None when nothing is left."""
    if not value:
        return None
    folded = unicodedata.normalize("NFKD", value).encode("ascii", "ignore").decode("ascii")
    folded = "".join(c if 32 <= ord(c) < 127 else " " for c in folded).strip()[:DESCRIPTION].strip()
    return text(folded) if folded else None


def description(value: str | None, origin: object = None) -> list[Statement]:
    word = ascii_text(value)
    return [stmt("description", word, origin=origin)] if word is not None else []  # type: ignore[arg-type]


def num(value: float) -> Word:
    """A percentage with at most two decimals (decimal64 fraction-digits 2)."""
    shown = f"{value:.2f}"
    return decimal(value, shown)
