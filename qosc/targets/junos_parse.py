"""JUNOS target, part 4a: read rendered text back into statements, for the self-check.

`parse_conf` and `parse_set` turn the curly-brace hierarchy and the set
commands into the same kind of thing: a set of statements, each the full
tuple of words from the top of the hierarchy (lists in brackets become one
statement per item).  Both refuse stray or unbalanced syntax with
SelfCheckError.  They run on every render, so simple lines (plain words and
one terminator) are taken whole; `parse_conf_tokens` is the token-by-token
walk they must agree with (a test checks that on generated texts).
"""

from __future__ import annotations

import re
from collections.abc import Callable

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
