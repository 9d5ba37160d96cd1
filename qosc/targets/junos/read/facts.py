"""JUNOS facts the reader needs: default classifier, loss priorities, priorities, number spellings.

Source: Junos OS Class of Service User Guide (Routing Devices), release 21.4:
"Default DSCP and DSCP IPv6 Classifiers" (dscp-default: ef -> expedited-forwarding,
af11 -> assured-forwarding low, af12/af13 -> assured-forwarding high, cs6/cs7 ->
network-control, every other code point -> best-effort, loss priority low),
"Default Forwarding Classes" (best-effort queue 0, expedited-forwarding 1,
assured-forwarding 2, network-control 3), "Configuring Schedulers" (priority
low, medium-low, medium-high, high, strict-high), "Rate and size suffixes"
(k, m, g: 10^3, 10^6, 10^9), "Default IP Precedence Classifier" (ipprec-compatibility, assigned
implicitly to every logical interface without a classifier: 000/010/100 best-effort low, 001/011/101
best-effort high, 110 network-control low, 111 network-control high), "Default CoS Values and Aliases"
(standard inet-precedence aliases be 000, af11 001, af21 010, af31 011, af41 100, ef 101, cs6 and nc1 110,
cs7 and nc2 111).  The 3-bit families: "Default Aliases for CoS Value Bit Patterns Overview" (MPLS EXP and
IEEE 802.1: be 000, be1 001, ef 010, ef1 011, af11 100, af12 101, nc1/cs6 110, nc2/cs7 111; IEEE 802.1ad:
the same with a fourth bit, the DEI, and `-dei` aliases for it set), "Default MPLS EXP Classifier" and
"Default IEEE 802.1p Classifier" (000 best-effort low, 001 best-effort high, 010/011 expedited-forwarding
low/high, 100/101 assured-forwarding low/high, 110/111 network-control low/high), "Default IEEE 802.1ad
Classifier" (the PCP pairs as the 802.1p table, the DEI bit the loss priority: set is high).
"""

from __future__ import annotations

from functools import lru_cache

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


PRIORITY = {"low": 0, "medium-low": 1, "medium-high": 2, "high": 3, "strict-high": 3, "low-latency": 3}
STRICT = {"strict-high": 0, "low-latency": 1}
"""Scheduler priorities served before every other queue, by the order they are served in (behaviour Class
strict_rank): strict-high and, above it, low-latency ("Transmission
Priority Scheduling", Junos OS Class of Service User Guide: in order of increasing priority low, low-medium,
low-high, medium-low, medium-high, high, strict-high, low-latency; the low-latency queue has a higher priority
than any other, strict-high included; Junos OS Evolved ACX7000 routers)."""
LOSS_PRECEDENCE = {"low": 1, "medium-low": 2, "medium-high": 2, "high": 3, "any": 0}

_SUFFIX = {"k": 10**3, "m": 10**6, "g": 10**9}


def number(text: str) -> int:
    """A JUNOS rate or size: digits with an optional k/m/g suffix (decimal multiples)."""
    t = text.lower()
    if t and t[-1] in _SUFFIX:
        return int(float(t[:-1]) * _SUFFIX[t[-1]])
    return int(float(t))


DSCP_FAMILIES = ("dscp", "dscp-ipv6")
PRECEDENCE = "inet-precedence"
THREE_BIT = ("exp", "ieee-802.1", "ieee-802.1ad")
"""The marking domains' families (qosc.targets.junos.read.marks): MPLS EXP and 802.1p/802.1ad PCP."""
BITS = {"dscp": 6, "dscp-ipv6": 6, PRECEDENCE: 3, "exp": 3, "ieee-802.1": 3, "ieee-802.1ad": 4}
"""The classifier and rewrite families this reader reads (IP code points: dscp, dscp-ipv6, inet-precedence; the
marking domains: THREE_BIT), and the width of their code points."""
PRECEDENCE_ALIASES = {"be": 0, "af11": 1, "af21": 2, "af31": 3, "af41": 4, "ef": 5, "cs6": 6, "nc1": 6, "cs7": 7,
                      "nc2": 7}
_ALIASES3 = {"be": 0, "be1": 1, "ef": 2, "ef1": 3, "af11": 4, "af12": 5, "nc1": 6, "cs6": 6, "nc2": 7, "cs7": 7}
_ALIASES4 = {**{a: v << 1 for a, v in _ALIASES3.items()}, **{f"{a}-dei": v << 1 | 1 for a, v in _ALIASES3.items()
                                                              if not a.startswith("cs")}}
_DEFAULT3 = ("best-effort", "expedited-forwarding", "assured-forwarding", "network-control")


def default_classifier3(value: int) -> tuple[str, str]:
    """(forwarding class, loss priority) of a 3-bit value in the default EXP or IEEE 802.1p classifier."""
    return _DEFAULT3[value >> 1], "high" if value & 1 else "low"


IPPREC_DEFAULT = {0: ("best-effort", "low"), 1: ("assured-forwarding", "low"), 2: ("best-effort", "low"),
                  3: ("best-effort", "low"), 4: ("best-effort", "low"), 5: ("expedited-forwarding", "low"),
                  6: ("network-control", "low"), 7: ("network-control", "high")}
"""ipprec-default (`classifiers inet-precedence default` on a unit): "Default IP Precedence Classifier
(ipprec-default)", Junos OS 13.1 Class of Service Configuration Guide."""


DEFAULT_REWRITE = {("expedited-forwarding", "low"): 46, ("expedited-forwarding", "high"): 46,
                   ("assured-forwarding", "low"): 10, ("assured-forwarding", "high"): 12,
                   ("best-effort", "low"): 0, ("best-effort", "high"): 0,
                   ("network-control", "low"): 48, ("network-control", "high"): 56}
"""`rewrite-rules dscp default` (and dscp-ipv6): "Applying Default Rewrite Rules", Junos OS Class of Service User
Guide, Table 1 (ef; af11 and af12; be; nc1/cs6 and nc2/cs7)."""


def ipprec_compatibility(precedence: int) -> tuple[str, str]:
    """(forwarding class, loss priority) of an IP precedence in the implicit ipprec-compatibility classifier."""
    return ("network-control" if precedence >= 6 else "best-effort"), ("high" if precedence % 2 else "low")


def code_point(text: str, aliases: dict[str, int], family: str = "dscp") -> int:
    """A code point as JUNOS writes it in a family: a bit string of the family's width (6 for dscp and
    dscp-ipv6, 3 for inet-precedence, exp and ieee-802.1, 4 for ieee-802.1ad), an alias of the family's
    code-point-aliases or a standard alias of the family.  Raises ValueError (DscpError for a DSCP) for anything
    else: an EXP or precedence value is never read as a DSCP."""
    width = BITS.get(family, 6)
    if len(text) == width and set(text) <= {"0", "1"}:
        return int(text, 2)
    if text in aliases:
        return aliases[text]
    if family == PRECEDENCE:
        if text in PRECEDENCE_ALIASES:
            return PRECEDENCE_ALIASES[text]
        raise ValueError(f"{text!r} is neither a 3-bit precedence nor an inet-precedence alias")
    if family in THREE_BIT:
        standard = _ALIASES4 if width == 4 else _ALIASES3
        if text in standard:
            return standard[text]
        raise ValueError(f"{text!r} is neither a {width}-bit pattern nor a {family} alias")
    return parse_dscp(text)


@lru_cache(maxsize=1 << 16)
def word(text: str) -> Word:
    """A word as read from configuration text or XML: quoted text, a plain number, else a keyword (words are
    immutable: the ones a configuration repeats are one shared object, checked once)."""
    if text.startswith('"') and text.endswith('"') and len(text) >= 2:
        inner = text[1:-1] or '""'
        return Word(Kind.TEXT, inner, inner)
    if text.isdigit():
        return integer(int(text), text=text)
    return kw(text)
