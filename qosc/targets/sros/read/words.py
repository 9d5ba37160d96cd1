"""SR OS configuration lines as typed statements: the words of one leaf line typed from the YANG facts.

Shared by the three readers (parse.py: MD-CLI tree and flat lines; xml.py:
nokia-conf XML), so each builds on this module and none on another reader.
"""

from __future__ import annotations

import re

from qosc.diagnostics import Location, error
from qosc.errors import InputError
from qosc.grammar.types import DecimalRange, Enum, IntRange, Union, ValueType
from qosc.grammar.yang import SchemaNode
from qosc.targets.sros.grammar import YANG
from qosc.tree import Kind, Statement, Word, decimal, group, integer, kw, name, text

IDENTIFIERS = frozenset({"port-id", "sap-id", "port"})
"""Leaves whose value MD-CLI shows bare although nokia-conf types it as a string (port and SAP identifiers)."""


def fail(message: str, where: Location) -> InputError:
    return InputError([error("QOS237", f"SR OS configuration: {message}", where)])


def typed(node: SchemaNode | None, value: str) -> Word:
    """A key or leaf value as the facts type it."""
    if node is None or node.type is None:
        return kw(value) if value and not any(c.isspace() for c in value) else text(value or '""')
    if node.name == "description":
        return text(value)
    if node.name in IDENTIFIERS:
        return Word(Kind.ADDRESS, value, value)
    return _by_type(node.type, value)


def _by_type(t: ValueType, value: str) -> Word:
    if isinstance(t, Union):
        fitting = next((m for m in t.types if m.refuse(value) is None), t.types[0])
        return _by_type(fitting, value)
    if isinstance(t, IntRange) and re.fullmatch(r"-?\d+", value):
        return integer(int(value), text=value)
    if isinstance(t, DecimalRange) and re.fullmatch(r"-?\d+(\.\d+)?", value):
        return decimal(float(value), value)
    if isinstance(t, Enum | IntRange | DecimalRange):
        return kw(value)
    return name(value) if value and not any(c.isspace() for c in value) else text(value)


def type_line(texts: list[str], where: Location) -> Statement:
    """One leaf line of raw texts as typed words, walking the facts (unknown parts are kept as keywords)."""
    here: SchemaNode | None = YANG[0].root
    words: list[Word] = []
    i = 0
    while i < len(texts):
        node = here.children.get(texts[i]) if here is not None else None
        words.append(kw(texts[i]))
        i += 1
        if node is None:
            here = None
            continue
        if node.kind in ("container", "list"):
            for n, key in enumerate(node.keys):
                if n and i < len(texts) and texts[i] == key:
                    words.append(kw(texts[i]))
                    i += 1
                if i < len(texts):
                    words.append(typed(node.children.get(key), texts[i]))
                    i += 1
            here = node
        elif node.kind in ("leaf", "leaf-list") and i < len(texts):
            values = texts[i:]
            if node.kind == "leaf-list" and len(values) > 1:
                words.append(group(typed(node, v) for v in values))
            else:
                words.append(typed(node, texts[i]))
            i = len(texts) if node.kind == "leaf-list" else i + 1
    return Statement(tuple(words), origin=where)
