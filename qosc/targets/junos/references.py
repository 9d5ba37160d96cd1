"""A file-level rule of the junos dialect that the YANG cannot state: every name a statement refers to is defined.

Juniper's configuration YANG types references (a forwarding class in a
classifier, a scheduler in a scheduler map, a filter on a unit) as plain
strings, and the commit refuses a configuration whose reference dangles
("referenced ... not defined").  The rule checks the names qosc refers to
against the names the same document defines (and JUNOS's built-in DSCP
aliases).  Source: Junos OS Class of Service User Guide, "Configuring
Forwarding Classes", "Defining Code Point Aliases", "Configuring Scheduler
Maps"; Routing Policies, Firewall Filters and Traffic Policers User Guide,
"Applying Firewall Filters to Interfaces" (commit checks).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from qosc.grammar import Source, Violation
from qosc.targets.junos.serialize import leaves
from qosc.tree import Document, Statement

SOURCE = Source("Junos OS Class of Service and Firewall user guides: commit refuses references to undefined "
                "forwarding classes, code-point aliases, classifiers, rewrite rules, drop profiles, schedulers, "
                "scheduler maps, policers and filters", "Junos OS 12.3 .. 23.4")

DEFINES = (  # (pattern, index of the defined name, kind)
    ("class-of-service forwarding-classes queue * *", 4, "forwarding class"),
    ("class-of-service code-point-aliases <dscp|dscp-ipv6> * *", 3, "code point"),
    ("class-of-service code-point-aliases <exp|ieee-802.1|ieee-802.1ad> * *", 3, "3-bit code point"),
    ("class-of-service classifiers <dscp|dscp-ipv6> *", 3, "classifier"),
    ("class-of-service classifiers <exp|ieee-802.1|ieee-802.1ad> *", 3, "3-bit classifier"),
    ("class-of-service drop-profiles *", 2, "drop profile"),
    ("class-of-service schedulers *", 2, "scheduler"),
    ("class-of-service scheduler-maps *", 2, "scheduler map"),
    ("class-of-service rewrite-rules <dscp|dscp-ipv6> *", 3, "rewrite rule"),
    ("class-of-service rewrite-rules <exp|ieee-802.1|ieee-802.1ad> *", 3, "3-bit rewrite rule"),
    ("firewall policer *", 2, "policer"),
    ("firewall three-color-policer *", 2, "three-color-policer"),
    ("firewall family inet filter *", 4, "inet filter"),
    ("firewall family inet6 filter *", 4, "inet6 filter"),
    ("firewall family ccc filter *", 4, "ccc filter"),
)
REFERS = (  # (pattern, index of the referenced name, kind)
    ("class-of-service classifiers <dscp|dscp-ipv6> * forwarding-class *", 5, "forwarding class"),
    ("class-of-service classifiers <dscp|dscp-ipv6> * forwarding-class * loss-priority * code-points *", 9,
     "code point"),
    ("class-of-service rewrite-rules <dscp|dscp-ipv6> * forwarding-class *", 5, "forwarding class"),
    ("class-of-service rewrite-rules <dscp|dscp-ipv6> * forwarding-class * loss-priority * code-point *", 9,
     "code point"),
    ("class-of-service classifiers <exp|ieee-802.1|ieee-802.1ad> * forwarding-class *", 5, "forwarding class"),
    ("class-of-service classifiers <exp|ieee-802.1|ieee-802.1ad> * forwarding-class * loss-priority * code-points *",
     9, "3-bit code point"),
    ("class-of-service rewrite-rules <exp|ieee-802.1|ieee-802.1ad> * forwarding-class *", 5, "forwarding class"),
    ("class-of-service rewrite-rules <exp|ieee-802.1|ieee-802.1ad> * forwarding-class * loss-priority * code-point *",
     9, "3-bit code point"),
    ("class-of-service schedulers * drop-profile-map loss-priority * protocol * drop-profile *", 9, "drop profile"),
    ("class-of-service scheduler-maps * forwarding-class * scheduler *", 4, "forwarding class"),
    ("class-of-service scheduler-maps * forwarding-class * scheduler *", 6, "scheduler"),
    ("class-of-service interfaces * scheduler-map *", 4, "scheduler map"),
    ("class-of-service interfaces * unit * scheduler-map *", 6, "scheduler map"),
    ("class-of-service interfaces * unit * classifiers <dscp|dscp-ipv6> *", 7, "classifier"),
    ("class-of-service interfaces * unit * rewrite-rules <dscp|dscp-ipv6> *", 7, "rewrite rule"),
    ("class-of-service interfaces * unit * rewrite-rules <dscp|dscp-ipv6> * protocol *", 7, "rewrite rule"),
    ("class-of-service interfaces * unit * classifiers <exp|ieee-802.1|ieee-802.1ad> *", 7, "3-bit classifier"),
    ("class-of-service interfaces * unit * rewrite-rules exp * protocol *", 7, "3-bit rewrite rule"),
    ("class-of-service interfaces * unit * rewrite-rules <ieee-802.1|ieee-802.1ad> * vlan-tag *", 7,
     "3-bit rewrite rule"),
    ("class-of-service host-outbound-traffic forwarding-class *", 3, "forwarding class"),
    ("firewall policer * then forwarding-class *", 5, "forwarding class"),
    ("firewall family * filter * term * then forwarding-class *", 9, "forwarding class"),
    ("firewall family * filter * term * then policer *", 9, "policer"),
    ("firewall family * filter * term * then three-color-policer * *", 10, "three-color-policer"),
    ("interfaces * unit * family inet filter input *", 8, "inet filter"),
    ("interfaces * unit * family inet6 filter input *", 8, "inet6 filter"),
    ("interfaces * unit * family ccc filter input *", 8, "ccc filter"),
)
BUILTIN_ALIASES = frozenset({
    "be", "cs1", "af11", "af12", "af13", "cs2", "af21", "af22", "af23", "cs3", "af31", "af32", "af33", "cs4",
    "af41", "af42", "af43", "cs5", "ef", "cs6", "cs7", "nc1", "nc2"})
"""JUNOS's built-in DSCP aliases (Junos OS CoS User Guide, "Default CoS Values and Aliases"; the same table as
the platforms' `dscp_aliases`)."""
_BITS = re.compile(r"[01]{6}")
_BITS3 = re.compile(r"[01]{3,4}")


def _matcher(pattern: str) -> tuple[frozenset[str] | None, ...]:
    return tuple(None if w == "*" else frozenset(w[1:-1].split("|") if w.startswith("<") else [w])
                 for w in pattern.split())


def _matches(matcher: tuple[frozenset[str] | None, ...], words: tuple[str, ...], prefix: bool) -> bool:
    if len(words) < len(matcher) or (not prefix and len(words) != len(matcher)):
        return False
    return all(allowed is None or w in allowed for allowed, w in zip(matcher, words, strict=False))


_DEFINES = [(_matcher(p), at, kind) for p, at, kind in DEFINES]
_REFERS = [(_matcher(p), at, kind) for p, at, kind in REFERS]
Rule = tuple[tuple[frozenset[str] | None, ...], int, str]


def _index(rules: list[Rule]) -> dict[tuple[str, str | None], list[Rule]]:
    """Rules by their first word and second word (None where the second is a wildcard): a command is matched
    against the few rules of its own hierarchy only."""
    index: dict[tuple[str, str | None], list[Rule]] = {}
    for rule in rules:
        first, second = rule[0][0], rule[0][1]
        for w0 in first or ():
            for w1 in second if second is not None else (None,):
                index.setdefault((w0, w1), []).append(rule)
    return index


_DEFINES_BY, _REFERS_BY = _index(_DEFINES), _index(_REFERS)


def _candidates(index: dict[tuple[str, str | None], list[Rule]], words: tuple[str, ...]) -> list[Rule]:
    if len(words) < 2:
        return []
    return index.get((words[0], words[1]), []) + index.get((words[0], None), [])


def dangling(commands: Iterable[tuple[tuple[Statement, ...], tuple[str, ...]]],
             builtin_aliases: Iterable[str] = BUILTIN_ALIASES) -> list[Violation]:
    """Violations for every reference (in set-command form) to a name the document does not define."""
    commands = list(commands)
    defined: dict[str, set[str]] = {"code point": set(builtin_aliases)}
    for _, words in commands:
        for matcher, at, kind in _candidates(_DEFINES_BY, words):
            if _matches(matcher, words, prefix=True):
                defined.setdefault(kind, set()).add(words[at])
    found = []
    for path, words in commands:
        for matcher, at, kind in _candidates(_REFERS_BY, words):
            if not _matches(matcher, words, prefix=False):
                continue
            value = words[at]
            if (kind == "code point" and _BITS.fullmatch(value)) or (kind == "3-bit code point"
                                                                     and _BITS3.fullmatch(value)):
                continue
            if value not in defined.get(kind, set()):
                found.append(Violation(path, f"{kind} {value!r} is referred to but not defined "
                                             f"({' '.join(words)})", SOURCE))
    return found


def check(doc: Document) -> list[Violation]:
    return dangling(leaves(doc))
