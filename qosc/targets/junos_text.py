"""JUNOS target, part 4: read the rendered text back, and the self-check every render goes through.

`parse_conf` and `parse_set` turn the curly-brace hierarchy and the set
commands into the same kind of thing: a set of statements, each the full
tuple of words from the top of the hierarchy (lists in brackets become one
statement per item).  `self_check` then demands balanced braces, statement
paths from the platform's list of known JUNOS statements, every referenced
name defined in the same text, and identical statements in both formats.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Iterable, Iterator, Mapping, Sequence

from qosc.targets.base import SelfCheckError

Statement = tuple[str, ...]

_TOKEN = re.compile(r'#[^\n]*|/\*.*?\*/|"(?:[^"\\\n]|\\.)*"|[{};\[\]]|[^\s{};\[\]"#]+|\S', re.S)
_LIST = "\0list"


def _line(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _tokens(text: str) -> Iterator[tuple[str, int]]:
    """(token, offset) pairs; line numbers are worked out only for an error (counting them is most of the work)."""
    for m in _TOKEN.finditer(text):
        tok = m.group()
        first = tok[0]
        if first == "#" or (first == "/" and tok.startswith("/*")):
            continue
        if first == '"' and (tok == '"' or not tok.endswith('"')):
            raise SelfCheckError(f"unterminated quoted string at line {_line(text, m.start())}")
        yield tok, m.start()


def _expand(words: list[str], items: list[str] | None, line: int) -> list[Statement]:
    if items is None:
        return [tuple(words)]
    if not items:
        raise SelfCheckError(f"empty [ ] list at line {line}")
    at = words.index(_LIST)
    return [tuple(words[:at] + [item] + words[at + 1:]) for item in items]


def parse_conf(text: str) -> set[Statement]:
    """Statements of a curly-brace configuration; raises SelfCheckError on unbalanced or stray syntax."""
    found: set[Statement] = set()
    stack: list[list[str]] = []
    prefixes: list[Statement] = [()]  # the full path above each open level
    words: list[str] = []
    items: list[str] | None = None
    in_list = False
    at = 0
    for tok, at in _tokens(text):
        if in_list:
            if tok == "]":
                in_list = False
            elif tok in _PUNCT:
                raise SelfCheckError(f"unexpected {tok!r} inside [ ] at line {_line(text, at)}")
            else:
                assert items is not None
                items.append(tok)
        elif tok == "[":
            if items is not None:
                raise SelfCheckError(f"two [ ] lists in one statement at line {_line(text, at)}")
            items, in_list = [], True
            words.append(_LIST)
        elif tok == "{":
            if not words or items is not None:
                raise SelfCheckError(f"'{{' without a statement name at line {_line(text, at)}")
            stack.append(words)
            prefixes.append(prefixes[-1] + tuple(words))
            words = []
        elif tok == ";":
            if not words:
                raise SelfCheckError(f"empty statement at line {_line(text, at)}")
            prefix = prefixes[-1]
            if items is None:
                found.add(prefix + tuple(words))
            else:
                found.update(prefix + s for s in _expand(words, items, _line(text, at)))
            words, items = [], None
        elif tok == "}":
            if words:
                raise SelfCheckError(f"statement {' '.join(words)!r} not ended by ';' at line {_line(text, at)}")
            if not stack:
                raise SelfCheckError(f"unbalanced braces: '}}' without '{{' at line {_line(text, at)}")
            stack.pop()
            prefixes.pop()
        else:
            words.append(tok)
    if in_list:
        raise SelfCheckError("unterminated [ ] list at the end of the text")
    if stack:
        raise SelfCheckError(f"unbalanced braces: {len(stack)} '{{' never closed (innermost "
                             f"{' '.join(stack[-1])!r})")
    if words:
        raise SelfCheckError(f"statement {' '.join(words)!r} not ended by ';' at line {_line(text, at)}")
    return found


_PUNCT = frozenset("{};[]")
_PLAIN = re.compile(r'[^"{};\[\]#/]*')
"""A set line without quotes, brackets, braces, comments or slashes splits on white space like the tokenizer."""


def parse_set(text: str) -> set[Statement]:
    """Statements of `set` commands (one per line; '#' comments and blank lines ignored)."""
    found: set[Statement] = set()
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        toks = line.split() if _PLAIN.fullmatch(line) else [t for t, _ in _tokens(line)]
        if toks[:1] != ["set"] or len(toks) < 2:
            raise SelfCheckError(f"line {number} is not a set command: {line[:60]!r}")
        words: list[str] = []
        items: list[str] | None = None
        in_list = False
        for tok in toks[1:]:
            if in_list:
                if tok == "]":
                    in_list = False
                else:
                    assert items is not None
                    items.append(tok)
            elif tok == "[" and items is None:
                items, in_list = [], True
                words.append(_LIST)
            elif tok in "{};[]":
                raise SelfCheckError(f"unexpected {tok!r} in set command at line {number}")
            else:
                words.append(tok)
        if in_list:
            raise SelfCheckError(f"unterminated [ ] list at line {number}")
        found.update(_expand(words, items, number))
    return found


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


def _in_trie(node: Trie, statement: Statement, at: int = 0) -> bool:
    if at == len(statement):
        return _END in node
    word = statement[at]
    child = node.get(word)
    if child is not None and _in_trie(child, statement, at + 1):
        return True
    wild = node.get("*")
    return wild is not None and wild is not child and _in_trie(wild, statement, at + 1)


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
    ("class-of-service classifiers <dscp|dscp-ipv6> * forwarding-class * loss-priority * code-points *", 9, "code point"),
    ("class-of-service rewrite-rules <dscp|dscp-ipv6> * forwarding-class *", 5, "forwarding class"),
    ("class-of-service rewrite-rules <dscp|dscp-ipv6> * forwarding-class * loss-priority * code-point *", 9, "code point"),
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


def _rule_trie(patterns: Sequence[tuple[str, int, str]]) -> dict[str, Any]:
    """Like _trie, with each pattern's (index, kind) kept at its end node under _END."""
    root: dict[str, Any] = {}
    for pattern, at, kind in patterns:
        level = [root]
        for want in pattern.split():
            keys = want[1:-1].split("|") if want.startswith("<") and want.endswith(">") else [want]
            level = [node.setdefault(key, {}) for node in level for key in keys]
        for node in level:
            node.setdefault(_END, []).append((at, kind))
    return root


def _rules(node: dict[str, Any], statement: Statement, prefix: bool, at: int = 0) -> Iterator[Rule]:
    """The rules of the patterns `statement` matches (prefix=True: that a leading part of it matches)."""
    if prefix or at == len(statement):
        yield from node.get(_END, ())
    if at == len(statement):
        return
    child = node.get(statement[at])
    if child is not None:
        yield from _rules(child, statement, prefix, at + 1)
    wild = node.get("*")
    if wild is not None and wild is not child:
        yield from _rules(wild, statement, prefix, at + 1)


_DEFINES_TRIE = _rule_trie(_DEFINES)
_REFERS_TRIE = _rule_trie(_REFERS)


def undefined_names(statements: Iterable[Statement], builtin_aliases: Iterable[str]) -> list[str]:
    statements = sorted(statements)
    defined: dict[str, set[str]] = {}
    filters: set[tuple[str, str]] = set()
    three_color: set[tuple[str, ...]] = set()
    for s in statements:
        for at, kind in _rules(_DEFINES_TRIE, s, prefix=True):
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
        for at, kind in _rules(_REFERS_TRIE, s, prefix=False):
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
