"""Juniper's `junos:must` constraints: their expressions, and their value on one configuration.

Juniper's configuration YANG carries most of what `commit check` refuses
beyond paths and types as `junos:must "<expression>"` with a
`junos:must-message` (module junos-common-ddl-extensions: "expression of
configuration-statement paths").  scripts/derive-junos-grammar copies the
ones on the nodes qosc writes into the grammar data (yang/junos-*.json, each
with its module), after checking that `parse` reads every one of them; an
expression of another form stops the derivation.  The forms, all that occur
in junos-conf-class-of-service, junos-conf-firewall and junos-conf-interfaces
of 23.4R1 and 17.4R1 on those nodes:

    expression := and ('||' and)*          and := unary ('&&' unary)*
    unary      := '!' unary | '(' expression ')' | ['any'] "path"

A path is a sequence of words, the words of a `set` command:

- `..` (leading only): up one node from the node that carries the must (a
  leaf's container or list entry, then that one's parent, ...); a path
  without `..` starts at the top of the configuration;
- a keyword, a list key or a leaf value;
- `$$`: the value of the node that carries the must (a leaf);
- `$$={v}`: the node the words before name has the value v;
- `${name}`: the key of the enclosing entry of the list `name`;
- `<glob>`: one word the shell pattern matches (`<*>` any word, `<ps*>` one
  starting with ps), in an `any "path"` (true when some node matches).

A path is true when the configuration holds that statement: the container,
list entry or leaf, or the leaf with that value.  The configuration is the
document qosc writes: what it does not write is absent (a must that needs
`chassis network-services enhanced-ip` is false, one that forbids
`interfaces X hierarchical-scheduler` true).  A must holds where its node is
present; a must of an enumeration value (`enum "mpls" { junos:must ... }`)
where the leaf has that value.

Cost: the grammar (yang_grammar.py) records the configuration while it walks
the document, folds away at load every path through a node its tree does not
have (`fold`: such a path never holds, so most musts of the nodes qosc writes
are constant and never evaluated), compiles each expression once
(`evaluator`), and lets the checks of both releases share one Configuration
and the value of the musts both carry.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from functools import cached_property

Where = tuple[str, ...]


class MustError(ValueError):
    """An expression of a form this module does not evaluate."""


@dataclass(frozen=True, eq=True)
class Path:
    up: int
    """How many `..` it starts with."""
    words: tuple[str, ...]
    any: bool = False

    @cached_property
    def steps(self) -> tuple[tuple[int, str], ...]:
        """The words as (kind, text): WORD a word (`$$={v}` is the word v), SELF `$$`, KEY `${list}`, GLOB."""
        out = []
        for w in self.words:
            if w == "$$":
                out.append((SELF, ""))
            elif (m := _VALUE.fullmatch(w)) is not None:
                out.append((WORD, m.group(1)))
            elif (m := _VARIABLE.fullmatch(w)) is not None:
                out.append((KEY, m.group(1)))
            elif (m := _GLOB.fullmatch(w)) is not None:
                out.append((GLOB, m.group(1)))
            else:
                out.append((WORD, w))
        return tuple(out)


    @cached_property
    def fixed(self) -> tuple[str, ...] | None:
        """The words after the `..`s when none depends on the node (`$$`, `${list}`): most paths."""
        if any(kind in (SELF, KEY) for kind, _ in self.steps):
            return None
        return tuple(text for _, text in self.steps)

    @cached_property
    def globs(self) -> tuple[str | None, ...]:
        return tuple(text if kind == GLOB else None for kind, text in self.steps)


WORD, SELF, KEY, GLOB = range(4)


@dataclass(frozen=True)
class Not:
    arg: Expr


@dataclass(frozen=True)
class And:
    args: tuple[Expr, ...]


@dataclass(frozen=True)
class Or:
    args: tuple[Expr, ...]


Expr = Path | Not | And | Or

_TOKEN = re.compile(r'\s*(?:(?P<op>&&|\|\||!|\(|\))|"(?P<path>[^"]*)"|(?P<word>[A-Za-z]+))')
_WORD = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.:/-]*")
_VALUE = re.compile(r"\$\$=\{([A-Za-z0-9_.:/-]+)\}")
_VARIABLE = re.compile(r"\$\{([A-Za-z0-9_-]+)\}")
_GLOB = re.compile(r"<([A-Za-z0-9_.:/*?-]+)>")
QUANTIFIERS = ("any",)
"""Words before a path: Junos knows `any`, `all` and `unique`; only `any` occurs on the nodes qosc writes."""


def _tokens(text: str) -> list[tuple[str, str]]:
    out, pos = [], 0
    while pos < len(text):
        if text[pos:].isspace():
            break
        m = _TOKEN.match(text, pos)
        if m is None:
            raise MustError(f"unknown form at {text[pos:pos + 20]!r}")
        kind = m.lastgroup or ""
        out.append((kind, m.group(kind)))
        pos = m.end()
    return out


def _path(text: str, quantified: bool) -> Path:
    words = text.split()
    up = 0
    while up < len(words) and words[up] == "..":
        up += 1
    rest = words[up:]
    for w in rest:
        if w == "$$" or _VALUE.fullmatch(w) or _VARIABLE.fullmatch(w) or _WORD.fullmatch(w):
            continue
        if _GLOB.fullmatch(w) and quantified:
            continue
        raise MustError(f"unknown path word {w!r} in {text!r}")
    if not rest:
        raise MustError(f"a path names no node: {text!r}")
    return Path(up, tuple(rest), quantified)


def parse(text: str) -> Expr:
    """The expression of a `junos:must` (MustError for a form the module docstring does not list)."""
    toks = _tokens(text)
    pos = 0

    def peek() -> tuple[str, str] | None:
        return toks[pos] if pos < len(toks) else None

    def take(kind: str, value: str | None = None) -> str:
        nonlocal pos
        tok = peek()
        if tok is None or tok[0] != kind or (value is not None and tok[1] != value):
            raise MustError(f"expected {value or kind} at token {pos} of {text!r}")
        pos += 1
        return tok[1]

    def unary() -> Expr:
        tok = peek()
        if tok == ("op", "!"):
            take("op", "!")
            return Not(unary())
        if tok == ("op", "("):
            take("op", "(")
            inner = expression()
            take("op", ")")
            return inner
        if tok is not None and tok[0] == "word":
            if tok[1] not in QUANTIFIERS:
                raise MustError(f"unknown quantifier {tok[1]!r} in {text!r}")
            take("word")
            return _path(take("path"), True)
        return _path(take("path"), False)

    def chain(kind: type[And | Or], op: str, inner: Callable[[], Expr]) -> Expr:
        args = [inner()]
        while peek() == ("op", op):
            take("op", op)
            args.append(inner())
        return args[0] if len(args) == 1 else kind(tuple(args))

    def conjunction() -> Expr:
        return chain(And, "&&", unary)

    def expression() -> Expr:
        return chain(Or, "||", conjunction)

    result = expression()
    if pos != len(toks):
        raise MustError(f"unexpected {toks[pos][1]!r} in {text!r}")
    return result


Check = Callable[["Configuration", Where, "str | None"], bool]


def evaluator(expr: Expr) -> Check:
    """The expression as a function of (configuration, the node that carries it, its value): Configuration.holds,
    compiled once so that checking a document does not dispatch on the expression's form."""
    if isinstance(expr, Path):
        path = expr
        return lambda c, at, v: c.exists(path, at, v)
    if isinstance(expr, Not):
        inner = evaluator(expr.arg)
        return lambda c, at, v: not inner(c, at, v)
    parts = tuple(evaluator(a) for a in expr.args)
    if isinstance(expr, And):
        def conjunction(c: Configuration, at: Where, v: str | None) -> bool:
            return all(part(c, at, v) for part in parts)
        return conjunction

    def disjunction(c: Configuration, at: Where, v: str | None) -> bool:
        return any(part(c, at, v) for part in parts)
    return disjunction


def fold(expr: Expr, possible: Callable[[Path], bool]) -> Expr | bool:
    """The expression with every path that cannot exist (`possible` says so: a node outside the grammar's
    tree is never in a document the grammar checks) as False, simplified; True or False where constant."""
    if isinstance(expr, Path):
        return expr if possible(expr) else False
    if isinstance(expr, Not):
        inner = fold(expr.arg, possible)
        return (not inner) if isinstance(inner, bool) else Not(inner)
    absorbing = isinstance(expr, Or)  # True absorbs a disjunction, False a conjunction
    parts = [fold(a, possible) for a in expr.args]
    if absorbing in parts:
        return absorbing
    rest = [p for p in parts if not isinstance(p, bool)]
    if not rest:
        return not absorbing
    return rest[0] if len(rest) == 1 else type(expr)(tuple(rest))


def paths(expr: Expr) -> Iterable[Path]:
    if isinstance(expr, Path):
        yield expr
    elif isinstance(expr, Not):
        yield from paths(expr.arg)
    else:
        for a in expr.args:
            yield from paths(a)


def uses_own_value(expr: Expr) -> bool:
    """Whether the expression reads `$$`, the value of the node that carries it (only a leaf has one)."""
    return any("$$" in p.words for p in paths(expr))


# -- one configuration ---------------------------------------------------------------------------------------

@dataclass
class Configuration:
    """What a document holds, as its statement paths (the words of its `set` commands): each container, list
    entry and leaf with the node it sits in, each leaf value, and each list entry's list and key.  Recorded
    cheaply while the grammar walks the document; indexed for the musts on first use."""

    parents: dict[Where, Where] = field(default_factory=dict)
    """Node -> the node it sits in (a list entry: the list's parent; the top level: ())."""
    values: list[tuple[Where, str]] = field(default_factory=list)
    """(leaf, a value of it)."""
    lists: list[Where] = field(default_factory=list)
    """A keyword list's own path (`firewall policer`), present as soon as the list has an entry."""
    entries: dict[Where, tuple[str, str]] = field(default_factory=dict)
    """List entry -> (the list's name, its first key), for `${list}`."""
    results: dict[tuple[str, Where, str | None], bool] = field(default_factory=dict)
    """(must, node, value) -> its value: a must both releases carry is evaluated once."""
    _extra: set[Where] | None = None
    _following: dict[Where, set[str]] | None = None
    _ends: set[tuple[int, str]] | None = None

    def cached(self, text: str, check: Check, at: Where, value: str | None) -> bool:
        key = (text, at, value)
        found = self.results.get(key)
        if found is None:
            found = self.results[key] = check(self, at, value)
        return found

    def present(self, path: Where) -> bool:
        if path in self.parents:
            return True
        if self._extra is None:
            self._extra = {(*w, v) for w, v in self.values} | set(self.lists)
        return path in self._extra

    @property
    def following(self) -> dict[Where, set[str]]:
        """Prefix -> the words that follow it in some present path (what a glob of an `any` path ranges over)."""
        if self._following is None:
            index: dict[Where, set[str]] = {}
            for where, parent in self.parents.items():
                for j in range(len(parent), len(where)):  # the words between the parent and the node
                    index.setdefault(where[:j], set()).add(where[j])
            for where, value in self.values:
                index.setdefault(where, set()).add(value)
            self._following = index
        return self._following

    def holds(self, expr: Expr, at: Where, value: str | None) -> bool:
        """The expression's value with the node at `at` carrying it and `value` its value ($$)."""
        return evaluator(expr)(self, at, value)

    def exists(self, p: Path, at: Where, value: str | None) -> bool:
        """Whether the configuration holds the path, climbing from `at`, with `value` for `$$`."""
        base: Where = ()
        if p.up:
            base = at
            for _ in range(p.up):
                base = self.parents.get(base, ())
        tail = p.fixed
        if tail is None:
            words = []
            for kind, text in p.steps:
                if kind == SELF:
                    if value is None:
                        return False
                    words.append(value)
                elif kind == KEY:
                    key = self._key(at, text)
                    if key is None:
                        return False
                    words.append(key)
                else:
                    words.append(text)
            tail = tuple(words)
        path = base + tail
        if not p.any:
            return self.present(path)
        if p.globs[-1] is None and (len(path), path[-1]) not in self.ends:
            return False  # no present path of that length ends with that word (the usual answer, found at once)
        globs: list[str | None] = [None] * len(base)
        return self._matches((), list(path), globs + list(p.globs))

    @property
    def ends(self) -> set[tuple[int, str]]:
        """(length, last word) of every present path."""
        if self._ends is None:
            self.present(())
            self._ends = {(len(p), p[-1]) for p in self.parents if p} | {(len(p), p[-1]) for p in self._extra or ()}
        return self._ends

    def _key(self, at: Where, list_name: str) -> str | None:
        node: Where | None = at
        while node:
            found = self.entries.get(node)
            if found is not None and found[0] == list_name:
                return found[1]
            node = self.parents.get(node)
        return None

    def _matches(self, prefix: Where, words: list[str], globs: list[str | None]) -> bool:
        """Whether a present path is `prefix` followed by `words`, where a glob (not None) matches any one word."""
        i = len(prefix)
        while i < len(words) and globs[i] is None:
            i += 1
        if i == len(words):
            return self.present((*prefix, *words[len(prefix):]))
        head = (*prefix, *words[len(prefix):i])
        glob = globs[i] or ""
        candidates: Iterable[str] = self.following.get(head, ())
        if glob != "*":
            candidates = [w for w in candidates if fnmatchcase(w, glob)]
        if all(g is None for g in globs[i + 1:]):  # the usual form: one glob, then words
            tail = tuple(words[i + 1:])
            return any(self.present((*head, w, *tail)) for w in candidates)
        return any(self._matches((*head, w), words, globs) for w in candidates)
