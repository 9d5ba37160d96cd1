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
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from fnmatch import fnmatchcase

Where = tuple[str, ...]


class MustError(ValueError):
    """An expression of a form this module does not evaluate."""


@dataclass(frozen=True)
class Path:
    up: int
    """How many `..` it starts with."""
    words: tuple[str, ...]
    any: bool = False


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
class Instance:
    """A node of the configuration: a container, a list entry or a leaf, with its parent node."""

    where: Where
    parent: Where | None
    tag: str
    """The schema node's name (a list entry's: the list's)."""
    keys: tuple[str, ...] = ()
    values: list[str] = field(default_factory=list)


@dataclass
class Configuration:
    """Every statement path a document holds (the words of its `set` commands and each prefix of them)."""

    nodes: dict[Where, Instance] = field(default_factory=dict)
    present: set[Where] = field(default_factory=set)

    def add(self, where: Where, parent: Where | None, tag: str, keys: tuple[str, ...] = (),
            value: str | None = None, listed: Where | None = None) -> Instance:
        """Record a node (once) and a value of it; `listed`: the path of a keyword list's name (`firewall
        policer`), which holds as soon as the list has an entry."""
        node = self.nodes.get(where)
        if node is None:
            node = self.nodes[where] = Instance(where, parent, tag, keys)
            self.present.add(where)
            if listed is not None:
                self.present.add(listed)
        if value is not None and value not in node.values:
            node.values.append(value)
            self.present.add((*where, value))
        return node

    def holds(self, expr: Expr, at: Instance, value: str | None) -> bool:
        """The expression's value with `at` the node that carries it and `value` its value ($$)."""
        if isinstance(expr, Not):
            return not self.holds(expr.arg, at, value)
        if isinstance(expr, And):
            return all(self.holds(a, at, value) for a in expr.args)
        if isinstance(expr, Or):
            return any(self.holds(a, at, value) for a in expr.args)
        return self._exists(expr, at, value)

    def _exists(self, p: Path, at: Instance, value: str | None) -> bool:
        base: Where = ()
        if p.up:
            node: Instance | None = at
            for _ in range(p.up):
                parent = node.parent if node is not None else None
                node = self.nodes.get(parent) if parent is not None else None
            base = node.where if node is not None else ()
        words = list(base)
        for w in p.words:
            if w == "$$":
                if value is None:
                    return False
                words.append(value)
            elif (m := _VALUE.fullmatch(w)) is not None:
                words.append(m.group(1))
            elif (m := _VARIABLE.fullmatch(w)) is not None:
                key = self._key(at, m.group(1))
                if key is None:
                    return False
                words.append(key)
            else:
                words.append(w)
        if not p.any:
            return tuple(words) in self.present
        globs = [m.group(1) if (m := _GLOB.fullmatch(w)) is not None else None for w in words]
        return any(len(have) == len(words) and all(h == w if g is None else fnmatchcase(h, g)
                                                   for w, g, h in zip(words, globs, have, strict=True))
                   for have in self.present)

    def _key(self, at: Instance, list_name: str) -> str | None:
        node: Instance | None = at
        while node is not None:
            if node.tag == list_name and node.keys:
                return node.keys[0]
            node = self.nodes.get(node.parent) if node.parent is not None else None
        return None
