"""Value types of grammar slots, as vendor schemas state them: ranges, decimals, strings, enumerations, unions.

They serialise to plain JSON (`to_json`, and `value_type` back), so grammar
data derived from a vendor's schema by a script is committed as data.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from qosc.grammar.base import Source, Violation
from qosc.tree import Statement, Word


class ValueType:
    """A type of value a grammar slot accepts.  `refuse(text)` says why a value does not fit, or None."""

    def refuse(self, text: str) -> str | None:
        raise NotImplementedError

    def to_json(self) -> Any:
        raise NotImplementedError

    def describe(self) -> str:
        raise NotImplementedError


@dataclass(frozen=True)
class IntRange(ValueType):
    """Decimal integers within one or more closed ranges (a YANG `range "1..64 | 100"`)."""

    ranges: tuple[tuple[int, int], ...]

    def refuse(self, text: str) -> str | None:
        if not re.fullmatch(r"-?[0-9]+", text):
            return f"{text!r} is not an integer"
        value = int(text)
        if any(low <= value <= high for low, high in self.ranges):
            return None
        return f"{value} is outside {self.describe()}"

    def to_json(self) -> Any:
        return {"int": [list(r) for r in self.ranges]}

    def describe(self) -> str:
        return " | ".join(f"{lo}..{hi}" if lo != hi else str(lo) for lo, hi in self.ranges)


@dataclass(frozen=True)
class DecimalRange(ValueType):
    """Decimal numbers within a range, with at most `digits` fraction digits (YANG decimal64)."""

    low: float
    high: float
    digits: int = 0

    def refuse(self, text: str) -> str | None:
        m = re.fullmatch(r"-?[0-9]+(?:\.([0-9]+))?", text)
        if not m:
            return f"{text!r} is not a decimal number"
        if m.group(1) and len(m.group(1)) > self.digits:
            return f"{text} has more than {self.digits} fraction digits"
        if not self.low <= float(text) <= self.high:
            return f"{text} is outside {self.describe()}"
        return None

    def to_json(self) -> Any:
        return {"decimal": [self.low, self.high, self.digits]}

    def describe(self) -> str:
        return f"{self.low:g}..{self.high:g}"


@lru_cache(maxsize=1024)
def _regex(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


@dataclass(frozen=True)
class String(ValueType):
    """A string with a length range and patterns: all of `patterns` must match the whole text,
    none of `refused` may (YANG `pattern` with `modifier invert-match`)."""

    min_length: int = 1
    max_length: int | None = None
    patterns: tuple[str, ...] = ()
    refused: tuple[str, ...] = ()

    def refuse(self, text: str) -> str | None:
        if len(text) < self.min_length:
            return f"{text!r} is shorter than {self.min_length} characters"
        if self.max_length is not None and len(text) > self.max_length:
            return f"{text!r} is {len(text)} characters, more than {self.max_length}"
        for p in self.patterns:
            if not _regex(p).fullmatch(text):
                return f"{text!r} does not match {p}"
        for p in self.refused:
            if _regex(p).fullmatch(text):
                return f"{text!r} matches the refused pattern {p}"
        return None

    def to_json(self) -> Any:
        return {"string": [self.min_length, self.max_length, list(self.patterns), list(self.refused)]}

    def describe(self) -> str:
        size = f"{self.min_length}..{self.max_length}" if self.max_length is not None else f"{self.min_length}.."
        return f"string of {size} characters" + (f" matching {' and '.join(self.patterns)}" if self.patterns else "")


@dataclass(frozen=True)
class Enum(ValueType):
    """One of a fixed set of words."""

    values: tuple[str, ...]

    def refuse(self, text: str) -> str | None:
        return None if text in self.values else f"{text!r} is not one of {', '.join(self.values)}"

    def to_json(self) -> Any:
        return {"enum": list(self.values)}

    def describe(self) -> str:
        return "one of " + ", ".join(self.values)


@dataclass(frozen=True)
class Union(ValueType):
    """Any of several types (YANG union): accepted if one accepts."""

    types: tuple[ValueType, ...]

    def refuse(self, text: str) -> str | None:
        reasons = []
        for t in self.types:
            why = t.refuse(text)
            if why is None:
                return None
            reasons.append(why)
        return f"{text!r} fits none of: " + "; ".join(t.describe() for t in self.types)

    def to_json(self) -> Any:
        return {"union": [t.to_json() for t in self.types]}

    def describe(self) -> str:
        return " or ".join(t.describe() for t in self.types)


@dataclass(frozen=True)
class Anything(ValueType):
    """Any word (a slot the schema leaves open); still a single word without control characters."""

    def refuse(self, text: str) -> str | None:
        return None

    def to_json(self) -> Any:
        return {"any": True}

    def describe(self) -> str:
        return "any word"


def value_type(data: Any) -> ValueType:
    """A value type from its JSON form (the inverse of `to_json`)."""
    if not isinstance(data, Mapping) or len(data) != 1:
        raise ValueError(f"not a value type: {data!r}")
    ((kind, arg),) = data.items()
    if kind == "int":
        return IntRange(tuple((int(lo), int(hi)) for lo, hi in arg))
    if kind == "decimal":
        return DecimalRange(float(arg[0]), float(arg[1]), int(arg[2]))
    if kind == "string":
        return String(int(arg[0]), None if arg[1] is None else int(arg[1]), tuple(arg[2]), tuple(arg[3]))
    if kind == "enum":
        return Enum(tuple(arg))
    if kind == "union":
        return Union(tuple(value_type(t) for t in arg))
    if kind == "any":
        return Anything()
    raise ValueError(f"unknown value type {kind!r}")


def check_words(path: tuple[Statement, ...], words: Sequence[Word], types: Sequence[ValueType],
                source: Source | None) -> list[Violation]:
    """Each word (group members one by one) against the type of its slot."""
    found = []
    for word, t in zip(words, types, strict=False):
        for w in word.words:
            why = t.refuse(w.text)
            if why is not None:
                found.append(Violation(path, why, source))
    return found
