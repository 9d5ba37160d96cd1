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
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import lru_cache

from qosc.targets.base import SelfCheckError

Statement = tuple[str, ...]

_TOKEN = re.compile(r'#[^\n]*|/\*.*?\*/|"(?:[^"\\\n]|\\.)*"|[{};\[\]]|[^\s{};\[\]"#]+|\S', re.DOTALL)
_LIST = "\0list"


def _line(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _tokens(text: str, first_line: int = 1) -> list[str]:
    """The tokens of a text, comments left out (findall: far cheaper than one match object per token)."""
    toks = [t for t in _TOKEN.findall(text) if t[0] != "#" and not t.startswith("/*")]
    for k, tok in enumerate(toks):
        if tok[0] == '"' and (tok == '"' or not tok.endswith('"')):
            raise SelfCheckError(f"unterminated quoted string at line {first_line - 1 + _token_line(text, k)}")
    return toks


def _token_line(text: str, index: int) -> int:
    """The line of the index-th token of _tokens(text): worked out again, only for an error message."""
    k = -1
    for m in _TOKEN.finditer(text):
        tok = m.group()
        if tok[0] != "#" and not tok.startswith("/*"):
            k += 1
            if k == index:
                return _line(text, m.start())
    return _line(text, len(text))


def _expand(words: list[str], items: list[str] | None, line: Callable[[], int]) -> list[Statement]:
    if items is None:
        return [tuple(words)]
    if not items:
        raise SelfCheckError(f"empty [ ] list at line {line()}")
    at = words.index(_LIST)
    return [tuple(words[:at] + [item] + words[at + 1:]) for item in items]


class _Conf:
    """The curly-brace grammar as a state machine fed one token at a time (or one whole simple line)."""

    def __init__(self) -> None:
        self.found: set[Statement] = set()
        self.stack: list[list[str]] = []
        self.prefixes: list[Statement] = [()]  # the full path above each open level
        self.words: list[str] = []
        self.items: list[str] | None = None
        self.in_list = False

    @property
    def idle(self) -> bool:
        """Between statements: a line may be taken whole."""
        return not self.words and self.items is None

    def line(self, text: str, number: int) -> None:
        """One line of a text without /* */ comments (which alone can span lines)."""
        body = text.strip()
        if not body:
            return
        if self.idle and body[-1] in "{;" and _NOT_SIMPLE.search(body, 0, len(body) - 1) is None:
            words = body[:-1].split()
            if words:  # plain words and one terminator: the common line, taken without tokenizing
                if body[-1] == ";":
                    self.found.add(self.prefixes[-1] + tuple(words))
                else:
                    self.open(words)
                return
        if body == "}":
            self.token(body, lambda: number)
            return
        if body[0] == "#":  # a comment runs to the end of its line, inside a statement or not
            return
        for tok in _tokens(text, number):
            self.token(tok, lambda: number)

    def open(self, words: list[str]) -> None:
        self.stack.append(words)
        self.prefixes.append(self.prefixes[-1] + tuple(words))

    def token(self, tok: str, line: Callable[[], int]) -> None:
        if self.in_list:
            if tok == "]":
                self.in_list = False
            elif tok in _PUNCT:
                raise SelfCheckError(f"unexpected {tok!r} inside [ ] at line {line()}")
            else:
                assert self.items is not None
                self.items.append(tok)
        elif tok == "[":
            if self.items is not None:
                raise SelfCheckError(f"two [ ] lists in one statement at line {line()}")
            self.items, self.in_list = [], True
            self.words.append(_LIST)
        elif tok == "{":
            if not self.words or self.items is not None:
                raise SelfCheckError(f"'{{' without a statement name at line {line()}")
            self.open(self.words)
            self.words = []
        elif tok == ";":
            if not self.words:
                raise SelfCheckError(f"empty statement at line {line()}")
            prefix = self.prefixes[-1]
            self.found.update(prefix + s for s in _expand(self.words, self.items, line))
            self.words, self.items = [], None
        elif tok == "}":
            if self.words:
                raise SelfCheckError(f"statement {' '.join(self.words)!r} not ended by ';' at line {line()}")
            if not self.stack:
                raise SelfCheckError(f"unbalanced braces: '}}' without '{{' at line {line()}")
            self.stack.pop()
            self.prefixes.pop()
        else:
            self.words.append(tok)

    def finish(self, line: Callable[[], int]) -> set[Statement]:
        if self.in_list:
            raise SelfCheckError("unterminated [ ] list at the end of the text")
        if self.stack:
            raise SelfCheckError(f"unbalanced braces: {len(self.stack)} '{{' never closed (innermost "
                                 f"{' '.join(self.stack[-1])!r})")
        if self.words:
            raise SelfCheckError(f"statement {' '.join(self.words)!r} not ended by ';' at line {line()}")
        return self.found


def parse_conf(text: str) -> set[Statement]:
    """Statements of a curly-brace configuration; raises SelfCheckError on unbalanced or stray syntax."""
    if "/*" in text:  # a comment may span lines
        return parse_conf_tokens(text)
    conf = _Conf()
    number = 0
    for number, line in enumerate(text.split("\n"), 1):  # (quoted strings end at \n too)
        conf.line(line, number)
    return conf.finish(lambda: number)


def parse_conf_tokens(text: str) -> set[Statement]:
    """parse_conf token by token over the whole text: slower, and the reference the line-wise walk must equal."""
    conf = _Conf()
    at = 0
    for at, tok in enumerate(_tokens(text)):
        conf.token(tok, lambda: _token_line(text, at))  # noqa: B023 - called at once, for an error only
    return conf.finish(lambda: _token_line(text, at))


_NOT_SIMPLE = re.compile(r'["{};\[\]#]')
"""Not plain words: quotes, braces, brackets, a comment (a /* comment sends the whole text the token way)."""


_PUNCT = frozenset("{};[]")
_NOT_PLAIN = re.compile(r'["{};\[\]#]|/\*')
"""A set line without these (quotes, brackets, braces, comments) splits on white space like the tokenizer."""


def parse_set(text: str) -> set[Statement]:
    """Statements of `set` commands (one per line; '#' comments and blank lines ignored)."""
    found: set[Statement] = set()
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        plain = _NOT_PLAIN.search(line) is None
        toks = line.split() if plain else _tokens(line)
        if toks[:1] != ["set"] or len(toks) < 2:
            raise SelfCheckError(f"line {number} is not a set command: {line[:60]!r}")
        if plain:  # no brackets, braces or quotes: the words are the statement
            found.add(tuple(toks[1:]))
            continue
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
        found.update(_expand(words, items, lambda: number))  # noqa: B023 - called now
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
