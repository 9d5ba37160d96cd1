"""JUNOS facts the reader needs: default classifier, loss priorities, priorities, number spellings.

Source: Junos OS Class of Service User Guide (Routing Devices), release 21.4:
"Default DSCP and DSCP IPv6 Classifiers" (dscp-default: ef -> expedited-forwarding,
af11 -> assured-forwarding low, af12/af13 -> assured-forwarding high, cs6/cs7 ->
network-control, every other code point -> best-effort, loss priority low),
"Default Forwarding Classes" (best-effort queue 0, expedited-forwarding 1,
assured-forwarding 2, network-control 3), "Configuring Schedulers" (priority
low, medium-low, medium-high, high, strict-high), "Rate and size suffixes"
(k, m, g: 10^3, 10^6, 10^9).
"""

from __future__ import annotations

from qosc.dscp import parse_dscp
from qosc.tree import Kind, Word, integer, kw

DEFAULT_QUEUES = {"best-effort": 0, "expedited-forwarding": 1, "assured-forwarding": 2, "network-control": 3}


def default_classifier(code: int) -> tuple[str, str]:
    """(forwarding class, loss priority) of a code point in dscp-default."""
    if code == 46:
        return "expedited-forwarding", "low"
    if code == 10:
        return "assured-forwarding", "low"
    if code in (12, 14):
        return "assured-forwarding", "high"
    if code in (48, 56):
        return "network-control", "low"
    return "best-effort", "low"


PRIORITY = {"low": 0, "medium-low": 1, "medium-high": 2, "high": 3, "strict-high": 3}
LOSS_PRECEDENCE = {"low": 1, "medium-low": 2, "medium-high": 2, "high": 3, "any": 0}

_SUFFIX = {"k": 10**3, "m": 10**6, "g": 10**9}


def number(text: str) -> int:
    """A JUNOS rate or size: digits with an optional k/m/g suffix (decimal multiples)."""
    t = text.lower()
    if t and t[-1] in _SUFFIX:
        return int(float(t[:-1]) * _SUFFIX[t[-1]])
    return int(float(t))


def code_point(text: str, aliases: dict[str, int]) -> int:
    """A code point as JUNOS writes it: a 6-bit string or an alias (standard or code-point-aliases)."""
    if len(text) == 6 and set(text) <= {"0", "1"}:
        return int(text, 2)
    if text in aliases:
        return aliases[text]
    return parse_dscp(text)


def word(text: str) -> Word:
    """A word as read from configuration text or XML: quoted text, a plain number, else a keyword."""
    if text.startswith('"') and text.endswith('"') and len(text) >= 2:
        inner = text[1:-1] or '""'
        return Word(Kind.TEXT, inner, inner)
    if text.isdigit():
        return integer(int(text), text=text)
    return kw(text)
