"""JUNOS target, part 4b: the self-check every render goes through.

`self_check` parses both renders (qosc.targets.junos_parse) and demands
balanced braces, statement paths from the platform's list of known JUNOS
statements, every referenced name defined in the same text, and identical
statements in both formats.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache

from qosc.targets.base import SelfCheckError
from qosc.targets.junos_parse import Statement, parse_conf, parse_conf_tokens, parse_set

__all__ = ["Statement", "parse_conf", "parse_conf_tokens", "parse_set", "self_check", "undefined_names",
           "unknown_paths"]

_END = ""
"""The trie key that marks the end of a pattern (no statement word is empty)."""
Trie = dict[str, "Trie"]


@lru_cache(maxsize=64)
def _trie(patterns: tuple[str, ...]) -> Trie:
    """Patterns ('*' any word, '<a|b>' one of) as a word trie, alternatives spelled out: one walk per statement."""
    root: Trie = {}
    for pattern in patterns:
        level = [root]
        for want in pattern.split():
            keys = want[1:-1].split("|") if want.startswith("<") and want.endswith(">") else [want]
            level = [node.setdefault(key, {}) for node in level for key in keys]
        for node in level:
            node[_END] = {}
    return root


def _in_trie(root: Trie, statement: Statement) -> bool:
    """Whether some pattern of the trie matches the whole statement (a literal word or '*' at each step)."""
    size = len(statement)
    pending = [(root, 0)]
    while pending:
        node, at = pending.pop()
        if at == size:
            if _END in node:
                return True
            continue
        wild = node.get("*")
        if wild is not None:
            pending.append((wild, at + 1))
        child = node.get(statement[at])
        if child is not None and child is not wild:
            pending.append((child, at + 1))  # tried first: literal words are the common case
    return False


def unknown_paths(statements: Iterable[Statement], known: Iterable[str]) -> list[Statement]:
    trie = _trie(tuple(known))
    return sorted(s for s in statements if not _in_trie(trie, s))


_DEFINES = (  # (pattern, index of the defined name, kind)
    ("class-of-service forwarding-classes queue * *", 4, "forwarding class"),
    ("class-of-service code-point-aliases <dscp|dscp-ipv6> * *", 3, "code point alias"),
    ("class-of-service classifiers <dscp|dscp-ipv6> *", 3, "classifier"),
    ("class-of-service drop-profiles *", 2, "drop profile"),
    ("class-of-service schedulers *", 2, "scheduler"),
    ("class-of-service scheduler-maps *", 2, "scheduler map"),
    ("class-of-service rewrite-rules <dscp|dscp-ipv6> *", 3, "rewrite rule"),
    ("firewall policer *", 2, "policer"),
    ("firewall three-color-policer * *", 2, "three-color-policer"),
    ("firewall family * filter *", 4, "filter"),
)
_REFERS = (  # (pattern, index of the referenced name, kind)
    ("class-of-service classifiers <dscp|dscp-ipv6> * forwarding-class *", 5, "forwarding class"),
    ("class-of-service classifiers <dscp|dscp-ipv6> * forwarding-class * loss-priority * code-points *", 9,
     "code point"),
    ("class-of-service rewrite-rules <dscp|dscp-ipv6> * forwarding-class *", 5, "forwarding class"),
    ("class-of-service rewrite-rules <dscp|dscp-ipv6> * forwarding-class * loss-priority * code-point *", 9,
     "code point"),
    ("class-of-service schedulers * drop-profile-map loss-priority * protocol * drop-profile *", 9, "drop profile"),
    ("class-of-service scheduler-maps * forwarding-class * scheduler *", 4, "forwarding class"),
    ("class-of-service scheduler-maps * forwarding-class * scheduler *", 6, "scheduler"),
    ("class-of-service interfaces * scheduler-map *", 4, "scheduler map"),
    ("class-of-service interfaces * unit * classifiers <dscp|dscp-ipv6> *", 7, "classifier"),
    ("class-of-service interfaces * unit * rewrite-rules <dscp|dscp-ipv6> *", 7, "rewrite rule"),
    ("firewall policer * then forwarding-class *", 5, "forwarding class"),
    ("firewall family * filter * term * then forwarding-class *", 9, "forwarding class"),
    ("firewall family * filter * term * then policer *", 9, "policer"),
    ("firewall family * filter * term * then three-color-policer * *", 10, "three-color-policer"),
    ("interfaces * unit * family * filter input *", 8, "filter"),
)
_BITS = re.compile(r"[01]{6}")


Rule = tuple[int, str]
"""(index of the name in the statement, kind of name)."""
Words = tuple[frozenset[str] | None, ...]
"""A pattern as a matcher: per word the words it allows, None for any."""


def _index(patterns: Sequence[tuple[str, int, str]]) -> dict[tuple[str, str], list[tuple[Words, int, str]]]:
    """Patterns by their first two words ('*' for a wildcard second word): a statement has few candidates."""
    index: dict[tuple[str, str], list[tuple[Words, int, str]]] = {}
    for pattern, at, kind in patterns:
        words = pattern.split()
        matcher = tuple(None if w == "*" else frozenset(w[1:-1].split("|") if w.startswith("<") else [w])
                        for w in words)
        index.setdefault((words[0], words[1]), []).append((matcher, at, kind))
    return index


def _rules(index: dict[tuple[str, str], list[tuple[Words, int, str]]], statement: Statement,
           prefix: bool) -> list[Rule]:
    """The rules of the patterns `statement` matches (prefix=True: that a leading part of it matches)."""
    if len(statement) < 2:
        return []
    found = []
    size = len(statement)
    for key in ((statement[0], statement[1]), (statement[0], "*")):
        for matcher, at, kind in index.get(key, ()):
            if size < len(matcher) or (not prefix and size != len(matcher)):
                continue
            for allowed, word in zip(matcher, statement, strict=False):  # prefix: the statement may be longer
                if allowed is not None and word not in allowed:
                    break
            else:
                found.append((at, kind))
    return found


_DEFINES_INDEX = _index(_DEFINES)
_REFERS_INDEX = _index(_REFERS)


def undefined_names(statements: Iterable[Statement], builtin_aliases: Iterable[str]) -> list[str]:
    statements = sorted(statements)
    defined: dict[str, set[str]] = {}
    filters: set[tuple[str, str]] = set()
    three_color: set[tuple[str, ...]] = set()
    for s in statements:
        for at, kind in _rules(_DEFINES_INDEX, s, prefix=True):
            if len(s) > at:
                defined.setdefault(kind, set()).add(s[at])
        if s[:2] == ("firewall", "family") and len(s) > 4:
            filters.add((s[2], s[4]))
        elif s[:2] == ("firewall", "three-color-policer") and len(s) > 3:
            three_color.add(s[:4])
    defined.setdefault("code point", set()).update(builtin_aliases)
    defined["code point"] |= defined.get("code point alias", set())
    problems = []
    for s in statements:
        for at, kind in _rules(_REFERS_INDEX, s, prefix=False):
            name = s[at]
            if kind == "code point" and _BITS.fullmatch(name):
                continue
            if kind == "three-color-policer" and ("firewall", kind, name, s[9]) not in three_color:
                problems.append(f"{s[9]} three-color-policer {name!r} (used by: {' '.join(s)})")
            if kind == "filter" and (s[5], name) not in filters:
                problems.append(f"family {s[5]} filter {name!r} (used by {' '.join(s[:4])})")
            elif kind != "filter" and name not in defined.get(kind, set()):
                problems.append(f"{kind} {name!r} (used by: {' '.join(s)})")
    return problems


def self_check(conf: str, set_text: str, extra: Mapping[str, object]) -> None:
    """Raise SelfCheckError unless both renders are well-formed, known, closed and identical."""
    statements = parse_conf(conf)
    as_set = parse_set(set_text)
    if statements != as_set:
        only_conf = sorted(statements - as_set)[:3]
        only_set = sorted(as_set - statements)[:3]
        raise SelfCheckError(f"the .conf and .set renders differ: only in .conf {only_conf}, only in .set {only_set}")
    unknown = unknown_paths(statements, extra["statement_paths"])  # type: ignore[arg-type]
    if unknown:
        raise SelfCheckError(f"{len(unknown)} statement(s) outside the known JUNOS statement paths, first: "
                             f"{' '.join(unknown[0])!r}")
    missing = undefined_names(statements, extra["dscp_aliases"])  # type: ignore[arg-type]
    if missing:
        raise SelfCheckError(f"{len(missing)} reference(s) to names not defined in the output, first: {missing[0]}")
    queues = [s[3] for s in statements if s[:3] == ("class-of-service", "forwarding-classes", "queue")]
    if len(queues) != len(set(queues)):
        raise SelfCheckError("two forwarding classes on one queue")
