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
from typing import Iterable, Iterator, Mapping, Sequence

from qosc.targets.base import SelfCheckError

Statement = tuple[str, ...]

_TOKEN = re.compile(r'#[^\n]*|/\*.*?\*/|"(?:[^"\\\n]|\\.)*"|[{};\[\]]|[^\s{};\[\]"#]+|\S', re.S)
_LIST = "\0list"


def _tokens(text: str) -> Iterator[tuple[str, int]]:
    for m in _TOKEN.finditer(text):
        tok = m.group()
        if tok.startswith("#") or tok.startswith("/*"):
            continue
        if tok == '"' or (tok.startswith('"') and not tok.endswith('"')):
            raise SelfCheckError(f"unterminated quoted string at line {text.count(chr(10), 0, m.start()) + 1}")
        yield tok, text.count("\n", 0, m.start()) + 1


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
    words: list[str] = []
    items: list[str] | None = None
    in_list = False
    line = 0
    for tok, line in _tokens(text):
        prefix = [w for level in stack for w in level]
        if in_list:
            if tok == "]":
                in_list = False
            elif tok in "{};[":
                raise SelfCheckError(f"unexpected {tok!r} inside [ ] at line {line}")
            else:
                assert items is not None
                items.append(tok)
        elif tok == "[":
            if items is not None:
                raise SelfCheckError(f"two [ ] lists in one statement at line {line}")
            items, in_list = [], True
            words.append(_LIST)
        elif tok == "{":
            if not words or items is not None:
                raise SelfCheckError(f"'{{' without a statement name at line {line}")
            stack.append(words)
            words = []
        elif tok == ";":
            if not words:
                raise SelfCheckError(f"empty statement at line {line}")
            found.update(tuple(prefix) + s for s in _expand(words, items, line))
            words, items = [], None
        elif tok == "}":
            if words:
                raise SelfCheckError(f"statement {' '.join(words)!r} not ended by ';' at line {line}")
            if not stack:
                raise SelfCheckError(f"unbalanced braces: '}}' without '{{' at line {line}")
            stack.pop()
        else:
            words.append(tok)
    if in_list:
        raise SelfCheckError("unterminated [ ] list at the end of the text")
    if stack:
        raise SelfCheckError(f"unbalanced braces: {len(stack)} '{{' never closed (innermost "
                             f"{' '.join(stack[-1])!r})")
    if words:
        raise SelfCheckError(f"statement {' '.join(words)!r} not ended by ';' at line {line}")
    return found


def parse_set(text: str) -> set[Statement]:
    """Statements of `set` commands (one per line; '#' comments and blank lines ignored)."""
    found: set[Statement] = set()
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        toks = [t for t, _ in _tokens(line)]
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


def _matches(pattern: Sequence[str], statement: Statement) -> bool:
    if len(pattern) != len(statement):
        return False
    for want, word in zip(pattern, statement):
        if want == "*":
            continue
        if want.startswith("<") and want.endswith(">"):
            if word not in want[1:-1].split("|"):
                return False
        elif want != word:
            return False
    return True


def unknown_paths(statements: Iterable[Statement], known: Iterable[str]) -> list[Statement]:
    patterns = [tuple(p.split()) for p in known]
    return sorted(s for s in statements if not any(_matches(p, s) for p in patterns))


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


def undefined_names(statements: Iterable[Statement], builtin_aliases: Iterable[str]) -> list[str]:
    statements = sorted(statements)
    defined: dict[str, set[str]] = {}
    for s in statements:
        for pattern, at, kind in _DEFINES:
            p = pattern.split()
            if len(s) > at and _matches(p, s[:len(p)]):
                defined.setdefault(kind, set()).add(s[at])
    defined.setdefault("code point", set()).update(builtin_aliases)
    defined["code point"] |= defined.get("code point alias", set())
    problems = []
    for s in statements:
        for pattern, at, kind in _REFERS:
            p = pattern.split()
            if len(s) == len(p) and _matches(p, s):
                name = s[at]
                if kind == "code point" and _BITS.fullmatch(name):
                    continue
                if kind == "three-color-policer" and not any(x[:4] == ("firewall", kind, name, s[9])
                                                             for x in statements):
                    problems.append(f"{s[9]} three-color-policer {name!r} (used by: {' '.join(s)})")
                if kind == "filter" and (s[5], name) not in {(x[2], x[4]) for x in statements
                                                              if x[:2] == ("firewall", "family") and len(x) > 4}:
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
