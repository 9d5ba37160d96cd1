"""Rates, sizes, times and percentages as network engineers write them in YAML.

Everything is parsed once, exactly (Decimal/Fraction, never float arithmetic),
into plain integers: bit/s, bytes and microseconds.  Templates later print the
numbers back with ``format_*``, which is an exact inverse of ``parse_*`` so a
value survives a round trip through a rendered config unchanged.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

MAX_RATE = 10**15  # bit/s: 1 Pbit/s, far above any interface
MAX_SIZE = 2**40  # bytes: 1 TiB
MAX_TIME = 3_600_000_000  # microseconds: one hour

_Formatter = Callable[[int], str]

_NUMBER = re.compile(r"([+-]?)([0-9]+(?:\.[0-9]*)?|\.[0-9]+)[ \t]*(.*)", re.ASCII | re.DOTALL)

_RATE_PREFIXES: Mapping[str, int] = {"": 1, "k": 10**3, "K": 10**3, "M": 10**6, "G": 10**9, "T": 10**12}
_RATE_SUFFIXES = ("", "bps", "bit/s", "b/s", "bit")
_RATE_UNITS: Mapping[str, int] = {p + s: f for p, f in _RATE_PREFIXES.items() for s in _RATE_SUFFIXES}
_SIZE_UNITS: Mapping[str, int] = {
    "": 1, "B": 1,
    "k": 10**3, "K": 10**3, "kB": 10**3, "KB": 10**3,
    "M": 10**6, "MB": 10**6, "G": 10**9, "GB": 10**9,
    "KiB": 2**10, "MiB": 2**20, "GiB": 2**30,
}  # fmt: skip
_TIME_UNITS: Mapping[str, int] = {"us": 1, "\u00b5s": 1, "\u03bcs": 1, "ms": 1000, "s": 1_000_000}

_RATE_FORMS: Sequence[tuple[str, int]] = (("", 1), ("k", 10**3), ("M", 10**6), ("G", 10**9), ("T", 10**12))
_SIZE_FORMS: Sequence[tuple[str, int]] = (
    ("B", 1), ("KB", 10**3), ("MB", 10**6), ("GB", 10**9), ("KiB", 2**10), ("MiB", 2**20), ("GiB", 2**30),
)  # fmt: skip
_TIME_FORMS: Sequence[tuple[str, int]] = (("us", 1), ("ms", 1000), ("s", 1_000_000))

_RATE_HINT = "write a rate like 10M, 2.5G or 64k"
_RATE_HINT_PCT = "write a rate like 10M, 2.5G, 64k or 5%"
_SIZE_HINT = "write a size like 1500B, 64KB or 1MiB"
_SIZE_HINT_PCT = "write a size like 1500B, 64KB, 1MiB or 20%"
_TIME_HINT = "write a time like 10ms, 500us or 2s"
_PERCENT_HINT = "write a percentage like 5% or 12.5%"


class UnitError(ValueError):
    """A value the engineer wrote cannot be understood; ``hint`` shows a correct example."""

    def __init__(self, message: str, hint: str | None = None):
        super().__init__(message)
        self.message = message
        self.hint = hint


@dataclass(frozen=True, order=True)
class Percent:
    """A share of something not known yet (the parent's rate or buffer), resolved later with ``of``."""

    value: float

    def of(self, total: int) -> int:
        """Exact share of ``total``, rounded half-to-even like ``round``, so 12.5% of 1G is exact."""
        return round(Fraction(total) * Fraction(self.value) / 100)

    def __str__(self) -> str:
        number = float(self.value)
        return f"{int(number)}%" if number.is_integer() else f"{number!r}%"


def _show(value: object) -> str:
    """Quote what the engineer wrote for a message, without choking on huge or odd values."""
    if value is None:
        return "null"
    if isinstance(value, str):
        return repr(value if len(value) <= 40 else value[:37] + "...")
    if isinstance(value, Fraction) and max(value.numerator.bit_length(), value.denominator.bit_length()) > 100:
        return "a huge fraction"
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 100:
        return "a huge number"
    if isinstance(value, (bool, int, float, Decimal, Fraction)):
        return repr(value) if isinstance(value, (bool, float)) else str(value)
    return f"a {type(value).__name__}"


def _number(value: object, kind: str, hint: str) -> tuple[Fraction, str]:
    """Split a YAML value into an exact number and its (possibly empty) unit text."""
    if isinstance(value, bool):
        raise UnitError(f"invalid {kind} {_show(value)}: a yes/no value is not a {kind}", hint)
    if isinstance(value, int):
        return Fraction(value), ""
    if isinstance(value, (float, Decimal)):
        if not (math.isfinite(value) if isinstance(value, float) else value.is_finite()):
            raise UnitError(f"invalid {kind} {_show(value)}: not a finite number", hint)
        return Fraction(value), ""
    if isinstance(value, Fraction):
        return value, ""
    if not isinstance(value, str):
        raise UnitError(f"invalid {kind}: expected a number or text, got {_show(value)}", hint)
    match = _NUMBER.fullmatch(value.strip())
    if not match:
        raise UnitError(f"invalid {kind} {_show(value)}", hint)
    sign, digits, unit = match.groups()
    number = Fraction(Decimal(digits))
    return (-number if sign == "-" else number), unit


def _scale(number: Fraction, factor: int, value: object, kind: str, what: str, limit: int, fmt: _Formatter) -> int:
    """Apply a unit and enforce sign, maximum and integrality with a helpful hint."""
    if number < 0:
        raise UnitError(f"{kind} {_show(value)} is negative", f"a {kind} must be 0 or more")
    result = number * factor
    if result > limit:
        raise UnitError(f"{kind} {_show(value)} is above the maximum {fmt(limit)}", f"write at most {fmt(limit)}")
    if result.denominator != 1:
        low, high = math.floor(result), math.ceil(result)
        raise UnitError(
            f"{kind} {_show(value)} is not a whole number of {what}",
            f"{kind}s are whole {what}: write {fmt(low)} or {fmt(high)}",
        )
    return int(result)


def _percent(number: Fraction, value: object) -> Percent:
    """Range-check a share: more than 100% of a parent is always a mistake."""
    if not 0 <= number <= 100:
        raise UnitError(f"percentage {_show(value)} is out of range 0..100%", _PERCENT_HINT)
    return Percent(float(number))


def parse_percent(value: object) -> Percent:
    """Parse ``5%`` or ``12.5%``; a bare number is refused because 0.5 could mean 0.5% or 50%."""
    if isinstance(value, Percent):
        return value
    number, unit = _number(value, "percentage", _PERCENT_HINT)
    if unit == "":
        raise UnitError(f"percentage {_show(value)} has no % sign", _PERCENT_HINT)
    if unit != "%":
        raise UnitError(f"invalid percentage {_show(value)}", _PERCENT_HINT)
    return _percent(number, value)


def _maybe_percent(value: object, number: Fraction | None, kind: str, allow: bool, example: str) -> Percent:
    """Accept a percentage only where the caller can resolve it against a parent value."""
    if not allow:
        raise UnitError(f"{kind} {_show(value)} is a percentage, but an absolute {kind} is needed here", example)
    if isinstance(value, Percent):
        return value
    assert number is not None
    return _percent(number, value)


def parse_rate(value: object, allow_percent: bool = True) -> int | Percent:
    """Parse a rate into bit/s (decimal prefixes, 1k = 1000), or a Percent of the parent rate."""
    hint = _RATE_HINT_PCT if allow_percent else _RATE_HINT
    if isinstance(value, Percent):
        return _maybe_percent(value, None, "rate", allow_percent, _RATE_HINT)
    number, unit = _number(value, "rate", hint)
    if unit == "%":
        return _maybe_percent(value, number, "rate", allow_percent, _RATE_HINT)
    if unit[:1] == "m" and unit[1:] in _RATE_SUFFIXES:
        raise UnitError(f"invalid rate {_show(value)}: lowercase m is ambiguous", "use M for megabit/s, e.g. 10M")
    if unit not in _RATE_UNITS:
        raise UnitError(f"invalid rate {_show(value)}", hint)
    return _scale(number, _RATE_UNITS[unit], value, "rate", "bit/s", MAX_RATE, format_rate)


def parse_size(value: object, allow_percent: bool = False) -> int | Percent:
    """Parse a size into bytes (KB = 1000, KiB = 1024), or a Percent when the caller allows it."""
    hint = _SIZE_HINT_PCT if allow_percent else _SIZE_HINT
    if isinstance(value, Percent):
        return _maybe_percent(value, None, "size", allow_percent, _SIZE_HINT)
    number, unit = _number(value, "size", hint)
    if unit == "%":
        return _maybe_percent(value, number, "size", allow_percent, _SIZE_HINT)
    if unit.endswith(("b", "bit")):
        raise UnitError(f"invalid size {_show(value)}: sizes are in bytes, not bits", "use B for bytes, e.g. 64KB")
    if unit not in _SIZE_UNITS:
        raise UnitError(f"invalid size {_show(value)}", hint)
    return _scale(number, _SIZE_UNITS[unit], value, "size", "bytes", MAX_SIZE, format_size)


def parse_time(value: object) -> int:
    """Parse a time into microseconds; a bare number is refused since 10 could be ms or us."""
    number, unit = _number(value, "time", _TIME_HINT)
    if unit == "":
        raise UnitError(f"time {_show(value)} has no unit", "add a unit: write 10ms, 500us or 2s")
    if unit not in _TIME_UNITS:
        raise UnitError(f"invalid time {_show(value)}", _TIME_HINT)
    return _scale(number, _TIME_UNITS[unit], value, "time", "microseconds", MAX_TIME, format_time)


def _decimal(n: int, factor: int) -> str:
    """Exact decimal text of n / factor; terminates because factor is a power of 2 or 10."""
    whole, rest = divmod(n, factor)
    digits = []
    while rest:
        digit, rest = divmod(rest * 10, factor)
        digits.append(str(digit))
    return f"{whole}.{''.join(digits)}" if digits else str(whole)


def _format(n: int, forms: Sequence[tuple[str, int]], prefer_larger: bool, kind: str) -> str:
    """Shortest exact spelling of n; ties go to the larger or smaller unit as the kind prefers."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ValueError(f"cannot format {n!r} as a {kind}: expected an int >= 0")
    candidates = []
    for rank, (suffix, factor) in enumerate(forms):
        if factor == 1 or n >= factor:
            text = _decimal(n, factor) + suffix
            candidates.append((len(text), -rank if prefer_larger else rank, text))
    return min(candidates)[2]



def format_rate(bps: int) -> str:
    """Render bit/s as engineers write them: 2500000000 -> "2.5G", 1500 -> "1.5k", 7 -> "7"."""
    return _format(bps, _RATE_FORMS, True, "rate")


def format_size(nbytes: int) -> str:
    """Render bytes: 64000 -> "64KB", 65536 -> "64KiB"; ties keep bytes, so an MTU stays "1500B"."""
    return _format(nbytes, _SIZE_FORMS, False, "size")


def format_time(us: int) -> str:
    """Render microseconds: 14500 -> "14.5ms", 2000000 -> "2s", 100 -> "100us"."""
    return _format(us, _TIME_FORMS, True, "time")
