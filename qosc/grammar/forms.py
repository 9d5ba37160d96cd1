"""Command forms: the grammar engine of line-oriented dialects (IOS CLI, tc batch, shell, sysctl.d).

A form is a pattern of words with a source:
    keyword            that literal word
    <type>             one word of a named value type (the dialect's table of ValueTypes)
    [ ... ]            optional
    ( a b | c )        alternatives, each a sequence
    X ...              X once or more
A mode is the list of forms a statement may take at one level (IOS: global
config, class-map, policy-map class, ...); a form names the mode its
children are in, if it opens one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from qosc.grammar.base import Source, Violation
from qosc.grammar.types import ValueType
from qosc.tree import Document, Statement


@dataclass(frozen=True)
class _Lit:
    word: str


@dataclass(frozen=True)
class _Typ:
    name: str


@dataclass(frozen=True)
class _Seq:
    items: tuple[Any, ...]


@dataclass(frozen=True)
class _Opt:
    body: _Seq


@dataclass(frozen=True)
class _Alt:
    options: tuple[_Seq, ...]


@dataclass(frozen=True)
class _Rep:
    body: Any


def _parse_pattern(pattern: str) -> _Seq:
    tokens = pattern.replace("[", " [ ").replace("]", " ] ").replace("(", " ( ").replace(")", " ) ").split()
    pos = 0

    def seq(stop: tuple[str, ...]) -> _Seq:
        nonlocal pos
        items: list[Any] = []
        while pos < len(tokens) and tokens[pos] not in stop:
            tok = tokens[pos]
            pos += 1
            if tok == "[":
                items.append(_Opt(seq(("]",))))
                pos += 1
            elif tok == "(":
                options = [seq(("|", ")"))]
                while tokens[pos] == "|":
                    pos += 1
                    options.append(seq(("|", ")")))
                pos += 1
                items.append(_Alt(tuple(options)))
            elif tok == "...":
                items[-1] = _Rep(items[-1])
            elif tok.startswith("<") and tok.endswith(">"):
                items.append(_Typ(tok[1:-1]))
            else:
                items.append(_Lit(tok))
        return _Seq(tuple(items))

    result = seq(())
    if pos != len(tokens):
        raise ValueError(f"unbalanced pattern {pattern!r}")
    return result


@dataclass(frozen=True)
class Form:
    """One statement form of a mode: its pattern, the mode of its children (if it opens one), its source."""

    pattern: str
    source: Source
    children: str | None = None

    @property
    def parsed(self) -> _Seq:
        return _parse_pattern_cached(self.pattern)


@lru_cache(maxsize=4096)
def _parse_pattern_cached(pattern: str) -> _Seq:
    return _parse_pattern(pattern)


class _Match:
    """Backtracking match of words against a pattern; remembers the deepest failure to explain a refusal."""

    def __init__(self, words: Sequence[str], types: Mapping[str, ValueType]) -> None:
        self.words = words
        self.types = types
        self.best = (-1, "")

    def fail(self, at: int, why: str) -> None:
        if at > self.best[0]:
            self.best = (at, why)

    def item(self, node: Any, at: int) -> list[int]:
        """Every position the node can end at when it starts at `at`."""
        if isinstance(node, _Lit):
            if at < len(self.words) and self.words[at] == node.word:
                return [at + 1]
            self.fail(at, f"expected {node.word!r}" + (f", found {self.words[at]!r}" if at < len(self.words) else
                                                         " at the end"))
            return []
        if isinstance(node, _Typ):
            if at >= len(self.words):
                self.fail(at, f"missing <{node.name}>")
                return []
            why = self.types[node.name].refuse(self.words[at])
            if why is not None:
                self.fail(at, f"<{node.name}>: {why}")
                return []
            return [at + 1]
        if isinstance(node, _Seq):
            ends = [at]
            for part in node.items:
                ends = sorted({e2 for e in ends for e2 in self.item(part, e)})
                if not ends:
                    return []
            return ends
        if isinstance(node, _Opt):
            return sorted({at, *self.item(node.body, at)})
        if isinstance(node, _Alt):
            return sorted({e for option in node.options for e in self.item(option, at)})
        if isinstance(node, _Rep):
            found: set[int] = set()
            frontier = self.item(node.body, at)
            while frontier:
                found.update(frontier)
                frontier = [e2 for e in frontier for e2 in self.item(node.body, e) if e2 not in found and e2 > e]
            return sorted(found)
        raise TypeError(node)

    def whole(self, pattern: _Seq) -> bool:
        ends = self.item(pattern, 0)
        if len(self.words) in ends:
            return True
        if ends:
            self.fail(max(ends), f"unexpected {self.words[max(ends)]!r}")
        return False


def match_form(words: Sequence[str], form: Form, types: Mapping[str, ValueType]) -> tuple[bool, int, str]:
    """(matched, how far it got, why not) of one statement's words against a form."""
    m = _Match(words, types)
    ok = m.whole(form.parsed)
    return ok, m.best[0], m.best[1]


class CommandGrammar:
    """The grammar of a line-oriented dialect: modes of forms, value types, and file-level rules.

    `rules` are extra checks on the whole document (a key set twice, an
    interface configured twice, ...), each a function document -> violations.
    """

    def __init__(self, dialect: str, modes: Mapping[str, Sequence[Form]], root: str,
                 types: Mapping[str, ValueType], rules: Sequence[Any] = ()) -> None:
        self.dialect = dialect
        self.modes = {name: tuple(forms) for name, forms in modes.items()}
        self.root = root
        self.types = dict(types)
        self.rules = tuple(rules)
        self._by_first: dict[str, dict[str, tuple[Form, ...]]] = {}
        self._open: dict[str, tuple[Form, ...]] = {}
        for mode, forms in self.modes.items():  # every pattern parses, names known types, opens known modes
            index: dict[str, list[Form]] = {}
            rest: list[Form] = []
            for form in forms:
                self._known(form.parsed, form)
                if form.children is not None and form.children not in self.modes:
                    raise ValueError(f"{dialect}: form {form.pattern!r} opens unknown mode {form.children!r}")
                first = form.parsed.items[0] if form.parsed.items else None
                if isinstance(first, _Lit):
                    index.setdefault(first.word, []).append(form)
                else:
                    rest.append(form)
            self._by_first[mode] = {k: tuple(v) for k, v in index.items()}
            self._open[mode] = tuple(rest)

    def _known(self, node: Any, form: Form) -> None:
        if isinstance(node, _Typ) and node.name not in self.types:
            raise ValueError(f"{self.dialect}: form {form.pattern!r} uses unknown type <{node.name}>")
        for child in getattr(node, "items", ()) + getattr(node, "options", ()):
            self._known(child, form)
        for attr in ("body",):
            if hasattr(node, attr):
                self._known(getattr(node, attr), form)

    def form_of(self, words: Sequence[str], mode: str) -> tuple[Form | None, str]:
        """The first form of `mode` the words match, or None and the best explanation why none does."""
        best: tuple[int, str, Form | None] = (-1, "no form", None)
        candidates = self._by_first[mode].get(words[0], ()) + self._open[mode] if words else self.modes[mode]
        for form in candidates or self.modes[mode]:
            ok, depth, why = match_form(words, form, self.types)
            if ok:
                return form, ""
            if depth > best[0]:
                best = (depth, why, form)
        closest = best[2]
        hint = f" (closest form: {closest.pattern!r}, {closest.source})" if closest is not None else ""
        return None, f"not a {mode} statement: {best[1]}{hint}"

    def check(self, document: Document) -> list[Violation]:
        found: list[Violation] = []
        stack: list[tuple[tuple[Statement, ...], Sequence[Statement], str]] = [((), document.statements, self.root)]
        while stack:
            above, statements, mode = stack.pop()
            for s in statements:
                path = (*above, s)
                form, why = self.form_of(s.texts(), mode)
                if form is None:
                    found.append(Violation(path, why))
                    continue
                if s.children is not None:
                    if form.children is None:
                        found.append(Violation(path, f"{form.pattern!r} takes no sub-statements", form.source))
                    else:
                        stack.append((path, s.children, form.children))
        for rule in self.rules:
            found.extend(rule(document))
        return found
