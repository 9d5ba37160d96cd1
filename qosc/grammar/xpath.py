"""The XPath 1.0 subset YANG `when` and `must` statements use, evaluated on a data tree (qosc.grammar.yang.Data).

Relative location paths (`..`, `.`, node names, `current()`), string and
number literals, `=` `!=` `<` `<=` `>` `>=`, `and`, `or`, parentheses, and the
functions not(), true(), false(), boolean(), count(), string(), number(),
contains(), starts-with().  Anything else (absolute paths, predicates,
axes, arithmetic) raises Unsupported: the expression is listed as one the
kit cannot evaluate, never guessed.
"""

from __future__ import annotations

import re
from typing import Any

_TOKEN = re.compile(r"\s*(?:(!=|<=|>=|[=<>(),])|('[^']*'|\"[^\"]*\")|(\d+(?:\.\d+)?)|"
                    r"((?:\.\.|\.|[A-Za-z_][\w.-]*(?::[A-Za-z_][\w.-]*)?)(?:/(?:\.\.|\.|[A-Za-z_][\w.-]*"
                    r"(?::[A-Za-z_][\w.-]*)?))*(?:\(\))?(?:/(?:\.\.|[A-Za-z_][\w.-]*))*)|(\S))")
_FUNCTIONS = {"not", "true", "false", "boolean", "count", "string", "number", "contains", "starts-with",
              "current"}


class Unsupported(ValueError):
    """An XPath construct outside the evaluated subset."""


def _tokens(expr: str) -> list[tuple[str, str]]:
    out = []
    for m in _TOKEN.finditer(expr):
        op, lit, num, path, other = m.groups()
        if other is not None:
            raise Unsupported(f"{other!r} in {expr!r}")
        if op is not None:
            out.append(("op", op))
        elif lit is not None:
            out.append(("lit", lit[1:-1]))
        elif num is not None:
            out.append(("num", num))
        elif path is not None:
            out.append(("path", path))
    return out


class _Parser:
    def __init__(self, expr: str) -> None:
        self.toks = _tokens(expr)
        self.pos = 0

    def peek(self) -> tuple[str, str] | None:
        return self.toks[self.pos] if self.pos < len(self.toks) else None

    def take(self) -> tuple[str, str]:
        tok = self.toks[self.pos]
        self.pos += 1
        return tok

    def parse(self) -> Any:
        tree = self.or_()
        if self.peek() is not None:
            raise Unsupported(f"unexpected {self.peek()}")
        return tree

    def or_(self) -> Any:
        left = self.and_()
        while self.peek() == ("path", "or"):
            self.take()
            left = ("or", left, self.and_())
        return left

    def and_(self) -> Any:
        left = self.compare()
        while self.peek() == ("path", "and"):
            self.take()
            left = ("and", left, self.compare())
        return left

    def compare(self) -> Any:
        left = self.unary()
        tok = self.peek()
        if tok is not None and tok[0] == "op" and tok[1] in ("=", "!=", "<", "<=", ">", ">="):
            self.take()
            return ("cmp", tok[1], left, self.unary())
        return left

    def unary(self) -> Any:
        kind, text = self.take()
        if kind == "lit":
            return ("lit", text)
        if kind == "num":
            return ("num", float(text))
        if (kind, text) == ("op", "("):
            inner = self.or_()
            if self.take() != ("op", ")"):
                raise Unsupported("unbalanced parentheses")
            return inner
        if kind == "path" and self.peek() == ("op", "(") and text in _FUNCTIONS:
            self.take()
            args = []
            while self.peek() != ("op", ")"):
                args.append(self.or_())
                if self.peek() == ("op", ","):
                    self.take()
            self.take()
            return ("fn", text, args)
        if kind == "path":
            steps = text.split("/")
            if steps[0] == "current()":
                steps = steps[1:]
            if any("(" in s or ":" in s for s in steps):
                raise Unsupported(f"path {text!r}")
            return ("path", tuple(s for s in steps if s))
        raise Unsupported(f"unexpected {text!r}")


def paths_of(expr: str) -> list[tuple[str, ...]]:
    """The relative location paths an expression reads (raises Unsupported outside the subset)."""
    found: list[tuple[str, ...]] = []

    def visit(node: Any) -> None:
        if node[0] == "path":
            found.append(node[1])
        for part in node[1:]:
            if isinstance(part, tuple):
                visit(part)
            elif isinstance(part, list):
                for p in part:
                    visit(p)

    visit(_Parser(expr).parse())
    return found


def _select(context: Any, steps: tuple[str, ...]) -> list[Any]:
    nodes = [context]
    for step in steps:
        if step == "..":
            nodes = [n.parent for n in nodes if n.parent is not None]
        elif step != ".":
            nodes = [c for n in nodes for c in n.get(step)]
    return nodes


def _value(node: Any, context: Any) -> Any:
    kind = node[0]
    if kind == "lit":
        return node[1]
    if kind == "num":
        return node[1]
    if kind == "path":
        return _select(context, node[1])
    if kind == "and":
        return _bool(_value(node[1], context)) and _bool(_value(node[2], context))
    if kind == "or":
        return _bool(_value(node[1], context)) or _bool(_value(node[2], context))
    if kind == "cmp":
        return _compare(node[1], _value(node[2], context), _value(node[3], context))
    name, args = node[1], [_value(a, context) for a in node[2]]
    if name == "not":
        return not _bool(args[0])
    if name in ("true", "false"):
        return name == "true"
    if name == "boolean":
        return _bool(args[0])
    if name == "count":
        return float(len(args[0]))
    if name == "current":
        return [context]
    if name == "string":
        return _string(args[0])
    if name == "number":
        return _number(args[0])
    if name == "contains":
        return _string(args[1]) in _string(args[0])
    return _string(args[0]).startswith(_string(args[1]))


def _bool(v: Any) -> bool:
    if isinstance(v, list):
        return bool(v)
    if isinstance(v, str):
        return v != ""
    return bool(v)


def _string(v: Any) -> str:
    if isinstance(v, list):
        return v[0].text() if v else ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return str(int(v)) if v.is_integer() else str(v)
    return str(v)


def _number(v: Any) -> float:
    try:
        return float(_string(v)) if not isinstance(v, float) else v
    except ValueError:
        return float("nan")


def _compare(op: str, a: Any, b: Any) -> bool:
    left = [n.text() for n in a] if isinstance(a, list) else [a]
    right = [n.text() for n in b] if isinstance(b, list) else [b]
    for x in left:
        for y in right:
            if op in ("=", "!="):
                if isinstance(x, bool) or isinstance(y, bool):
                    same = _bool(x) == _bool(y)
                elif isinstance(x, float) or isinstance(y, float):
                    same = _number(x) == _number(y)
                else:
                    same = _string(x) == _string(y)
                if same == (op == "="):
                    return True
            else:
                nx, ny = _number(x), _number(y)
                if {"<": nx < ny, "<=": nx <= ny, ">": nx > ny, ">=": nx >= ny}[op]:
                    return True
    return False


def evaluate(expr: str, context: Any) -> bool:
    """The boolean value of an expression at a context node (raises Unsupported outside the subset)."""
    return _bool(_value(_Parser(expr).parse(), context))
