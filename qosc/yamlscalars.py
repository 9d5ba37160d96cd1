"""Plain YAML scalars resolved the safe way, with bounds: booleans, nulls, and numbers no router config could hold
refused (OutOfRange) instead of stalling or overflowing."""

from __future__ import annotations

import math
import re

# PyYAML's YAML 1.1 safe resolution, minus timestamps and '=' (they stay
# strings), plus YAML 1.2 exponents without a dot or sign (1e9) so that
# '1e400' is a number and therefore reported as out of range.
_BOOL = {
    "yes": True, "Yes": True, "YES": True, "true": True, "True": True, "TRUE": True,
    "on": True, "On": True, "ON": True, "no": False, "No": False, "NO": False,
    "false": False, "False": False, "FALSE": False, "off": False, "Off": False, "OFF": False,
}
_NULL = frozenset(("", "~", "null", "Null", "NULL"))
_NUMERIC_START = frozenset("-+0123456789.")
_INT = re.compile(
    r"[-+]?(?:0b[0-1_]+|0[0-7_]+|0|[1-9][0-9_]*|0x[0-9a-fA-F_]+|[1-9][0-9_]*(?::[0-5]?[0-9])+)"
)
_FLOAT = re.compile(
    r"[-+]?(?:[0-9][0-9_]*\.[0-9_]*(?:[eE][-+]?[0-9]+)?|[0-9][0-9_]*[eE][-+]?[0-9]+"
    r"|\.[0-9][0-9_]*(?:[eE][-+]?[0-9]+)?|[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*"
    r"|\.(?:inf|Inf|INF))|\.(?:nan|NaN|NAN)"
)
INT_MIN, INT_MAX = -(2**63), 2**63 - 1
MERGE = object()  # marker for the '<<' merge key


class OutOfRange(Exception):
    """A numeric scalar that no router config could hold."""


def _to_int(text: str) -> int:
    """PyYAML's int rules, but bounded so huge literals cannot stall or overflow."""
    v = text.replace("_", "")
    sign = -1 if v[0] == "-" else 1
    if v[0] in "+-":
        v = v[1:]
    if ":" in v:
        n = 0
        for part in v.split(":"):
            if len(part) > 20:
                raise OutOfRange
            n = n * 60 + int(part)
            if n > 2**64:
                raise OutOfRange
    else:
        base, digits = 10, v
        if v.startswith("0b"):
            base, digits = 2, v[2:]
        elif v.startswith("0x"):
            base, digits = 16, v[2:]
        elif len(v) > 1 and v[0] == "0":
            base = 8
        if len(digits.lstrip("0")) > 64:  # >2**63 in any base; also dodges int-max-str-digits
            raise OutOfRange
        n = int(digits, base)  # ValueError for '0x_': resolve_plain keeps it a string
    n *= sign
    if not INT_MIN <= n <= INT_MAX:
        raise OutOfRange
    return n


def _to_float(text: str) -> float:
    v = text.replace("_", "").lower()
    sign = -1.0 if v[0] == "-" else 1.0
    if v[0] in "+-":
        v = v[1:]
    if ":" in v:
        n = 0.0
        for part in v.split(":"):
            n = n * 60 + float(part)
        f = sign * n
    else:
        if v in (".inf", ".nan"):
            raise OutOfRange
        f = sign * float(v)  # may overflow to inf ('1e400'), refused below
    if not math.isfinite(f):
        raise OutOfRange
    return f


def resolve_plain(text: str) -> object:
    """Value of an untagged plain scalar under (bounded) YAML 1.1 safe rules."""
    if text in _NULL:
        return None
    c = text[0]
    if c in _NUMERIC_START:
        if _FLOAT.fullmatch(text):
            return _to_float(text)
        if _INT.fullmatch(text):
            try:
                return _to_int(text)
            except ValueError:
                return text
        return text
    b = _BOOL.get(text)
    if b is not None:
        return b
    if text == "<<":
        return MERGE
    return text
