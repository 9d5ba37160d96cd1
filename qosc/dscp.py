"""DSCP codepoints: the names engineers write, and the numbers routers want.

A DSCP is the top 6 bits of the IP TOS byte (RFC 2474).  Policies may spell it
as a name (``ef``, ``AF41``), a decimal, a 6-bit binary string or hex; targets
need it back as a name in their own dialect, or as a TOS byte or precedence.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from types import MappingProxyType

_TABLE: dict[str, int] = {
    "default": 0, "be": 0, "cs0": 0,
    "le": 1,  # RFC 8622 lower effort
    **{f"cs{x}": 8 * x for x in range(1, 8)},
    **{f"af{x}{y}": 8 * x + 2 * y for x in range(1, 5) for y in range(1, 4)},
    "voice-admit": 44,  # RFC 5865
    "ef": 46,
    "nc1": 48, "nc2": 56,  # JUNOS aliases for cs6 and cs7
}  # fmt: skip

NAMES: Mapping[str, int] = MappingProxyType(_TABLE)
"""Every accepted name (lowercase) and its codepoint; read-only so no caller can redefine EF."""

_CANONICAL: Mapping[int, str] = MappingProxyType(
    {value: key for key, value in reversed(_TABLE.items()) if key not in ("be", "cs0", "nc1", "nc2")}
)
_ZERO = {"generic": "default", "ios": "default", "junos": "be"}
_AF = frozenset(8 * x + 2 * y for x in range(1, 5) for y in range(1, 4))
_AF_TYPO = re.compile(r"af([0-9])([0-9])", re.ASCII)
_DIGITS = re.compile(r"[0-9]+", re.ASCII)
_HEX = re.compile(r"0x[0-9a-f]+", re.ASCII)
_BIN = re.compile(r"(?:0b)?([01]+)", re.ASCII)
_KNOWN = "known names: default/be, le, cs0-cs7, af11-af43, ef, voice-admit, nc1, nc2, or a number 0-63"


class DscpError(ValueError):
    """A DSCP the engineer wrote cannot be understood; ``hint`` says what was probably meant."""

    def __init__(self, message: str, hint: str | None = None):
        super().__init__(message)
        self.message = message
        self.hint = hint


def _show(value: object) -> str:
    """Quote the input for a message without choking on huge ints or long text."""
    if value is None:
        return "null"
    if isinstance(value, str):
        return repr(value if len(value) <= 40 else value[:37] + "...")
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value) if value.bit_length() <= 64 else "a huge number"
    return repr(value) if isinstance(value, (bool, float)) else f"a {type(value).__name__}"


def _in_range(number: int, shown: str) -> int:
    if not 0 <= number <= 63:
        raise DscpError(f"DSCP {shown} is out of range 0..63", "a DSCP is 6 bits: write 0..63 or a name like ef")
    return number


def _or_list(names: list[str]) -> str:
    quoted = [f"'{n}'" for n in names]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " or " + quoted[-1]


def _suggest(word: str) -> str:
    """A did-you-mean hint: AF/CS typos get the nearest valid codepoint, the rest difflib."""
    typo = _AF_TYPO.fullmatch(word)
    if typo:
        x, y = int(typo[1]), int(typo[2])
        guesses = [f"af{min(max(x, 1), 4)}{min(max(y, 1), 3)}"]
        if 1 <= y <= 4 and 1 <= x <= 3 and f"af{y}{x}" not in guesses:
            guesses.append(f"af{y}{x}")
        return f"did you mean {_or_list(guesses)}? AF codepoints are af11..af43 (class 1-4, drop precedence 1-3)"
    if re.fullmatch(r"cs[0-9]+", word, re.ASCII):
        return "did you mean 'cs7'? class selectors are cs0..cs7"
    scored = [(difflib.SequenceMatcher(None, word, n).ratio(), n) for n in NAMES]
    matches = [n for s, n in sorted(scored, key=lambda sn: (-sn[0], sn[1])) if s >= 0.6][:3]
    return f"did you mean {_or_list(matches)}?" if matches else _KNOWN


def parse_dscp(value: object) -> int:
    """Parse a DSCP as written in a policy: name, decimal, 6-bit binary, 0b/0x literal, or int."""
    if isinstance(value, bool):
        raise DscpError(f"invalid DSCP {_show(value)}: a yes/no value is not a DSCP", "write a name like ef or 46")
    if isinstance(value, int):
        return _in_range(value, _show(value))
    if isinstance(value, float):
        hint = f"write {int(value)}" if value.is_integer() and 0 <= value <= 63 else "write a name like ef or 46"
        raise DscpError(f"invalid DSCP {_show(value)}: a DSCP is a whole number", hint)
    if not isinstance(value, str):
        raise DscpError(f"invalid DSCP: expected a name or number, got {_show(value)}", "write a name like ef or 46")
    text = value.strip().lower().replace("_", "-")
    if text in NAMES:
        return NAMES[text]
    binary = _BIN.fullmatch(text)
    if binary and (len(text) == 6 or text.startswith("0b")):
        return _in_range(int(binary[1], 2), _show(value))  # base 2 and 16 have no int() digit limit
    if _HEX.fullmatch(text):
        return _in_range(int(text, 16), _show(value))  # int() accepts the 0x prefix in base 16
    if _DIGITS.fullmatch(text):
        short = len(text) <= 18  # int() refuses very long decimal text; such numbers are out of range anyway
        return _in_range(int(text) if short else 64, text if short else _show(value))
    if text.startswith("-") and _DIGITS.fullmatch(text[1:]):
        shown = text if len(text) <= 19 else _show(value)
        raise DscpError(f"DSCP {shown} is out of range 0..63", "a DSCP is 6 bits: write 0..63 or a name like ef")
    raise DscpError(f"unknown DSCP {_show(value)}", _suggest(text))


def _check(dscp: int) -> int:
    """Guard the helpers: a wrong codepoint here is a bug upstream, not an engineer's typo."""
    if isinstance(dscp, bool) or not isinstance(dscp, int):
        raise DscpError(f"DSCP must be an int, got {_show(dscp)}")
    return _in_range(dscp, _show(dscp))


def name(dscp: int, dialect: str = "generic") -> str:
    """Canonical name for a target dialect (only 0 differs: "default", or "be" on JUNOS); else decimal."""
    if dialect not in _ZERO:
        raise DscpError(f"unknown DSCP dialect {dialect!r}", f"use one of {', '.join(sorted(_ZERO))}")
    _check(dscp)
    return _ZERO[dialect] if dscp == 0 else _CANONICAL.get(dscp, str(dscp))


def bits(dscp: int) -> str:
    """The 6 bits as text, as some vendors and RFC tables write them: 46 -> "101110"."""
    return format(_check(dscp), "06b")


def tos(dscp: int) -> int:
    """The full TOS byte with ECN bits zero, for targets that only match on TOS: 46 -> 0xb8."""
    return _check(dscp) << 2


def precedence(dscp: int) -> int:
    """The old IP precedence (top 3 bits), for devices that only look at those: 46 -> 5."""
    return _check(dscp) >> 3


def af_class(dscp: int) -> int | None:
    """AF class 1-4 for an AFxy codepoint, None otherwise: 10 -> 1, 36 -> 4, 46 -> None."""
    return dscp >> 3 if _check(dscp) in _AF else None


def drop_precedence(dscp: int) -> int:
    """AF drop precedence (AFx1 -> 1 .. AFx3 -> 3); non-AF traffic counts as low drop, 1."""
    if type(dscp) is int and 0 <= dscp <= 63:  # the hot path (targets ask for every code point of every queue)
        return _DROP_PRECEDENCE[dscp]
    _check(dscp)
    raise AssertionError("unreachable: _check refuses what is not an int in 0..63")  # pragma: no cover


_DROP_PRECEDENCE = tuple((x & 7) >> 1 if x in _AF else 1 for x in range(64))


def is_scavenger(dscp: int) -> bool:
    """True for less-than-best-effort traffic: CS1 (legacy scavenger) or LE (RFC 8622)."""
    return _check(dscp) in (1, 8)
