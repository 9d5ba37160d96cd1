"""The conformance kit of YANG-derived grammars: wrong statements made from the facts themselves.

Target-neutral.  `mutations(schema, document)` takes a document the grammar
accepts and, for every leaf line of it (the path from the top to a leaf, as
one statement), makes the wrong variants the facts say the box refuses: a
misspelled keyword (wrong path), a list key or leaf value outside its range,
not among its enumeration, or longer than its length.  A target's tests run
`refusals(schema, document)` on its own outputs and assert that each wrong
variant is refused while the line itself is accepted; a target plugs in by
declaring its grammar and the documents to mutate (see
tests/test_conformance.py), not by copying tests.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol

from qosc.grammar.base import Violation
from qosc.grammar.types import DecimalRange, Enum, IntRange, String, Union, ValueType
from qosc.grammar.yang import Data, SchemaNode, YangSchema
from qosc.tree import Document, Statement, Word, kw, walk


class Spelling(Protocol):
    """What the kit needs of a dialect's reading of its YANG facts."""

    def walk(self, document: Document) -> tuple[Data, list[Violation]]: ...

    def roles(self, path: Sequence[Statement]) -> list[tuple[str, SchemaNode]]: ...


@dataclass(frozen=True)
class Mutation:
    category: str  # path | key | enum | range | length
    line: tuple[Word, ...]
    """The leaf line before the change."""
    changed: tuple[Word, ...]
    at: int
    shape: tuple[int, ...] = ()
    """Words per statement where the line keeps its statements nested (empty: one flat statement)."""

    def document(self) -> Document:
        return Document("mutation", "mutation", (nest(self.changed, self.shape),))

    def __str__(self) -> str:
        before = " ".join(w.text for w in self.line)
        return f"{self.category}: word {self.at} of `{before}` -> {self.changed[self.at].text!r}"


def nest(words: tuple[Word, ...], shape: tuple[int, ...]) -> Statement:
    """A line's words as one statement, or as nested statements of `shape` words each."""
    if not shape:
        return Statement(words)
    head, rest = words[:shape[0]], words[shape[0]:]
    return Statement(head, (nest(rest, shape[1:]),) if shape[1:] else None)


def paths(document: Document) -> Iterator[tuple[Statement, ...]]:
    """Every leaf line of a document as the path of statements from the top to a statement without children."""
    for path in walk(document.statements):
        if not path[-1].children:
            yield path


def lines(document: Document) -> Iterator[tuple[Word, ...]]:
    """Every leaf line of a document: the words of the path from the top to a statement without children."""
    for path in paths(document):
        yield tuple(w for s in path for w in s.words)


def _roles(schema: YangSchema | Spelling, path: tuple[Statement, ...]) -> list[tuple[str, SchemaNode]]:
    if isinstance(schema, YangSchema):
        return roles(schema, tuple(w for s in path for w in s.words))
    return schema.roles(path)


def roles(schema: YangSchema, words: tuple[Word, ...]) -> list[tuple[str, SchemaNode]]:
    """What each word of a leaf line is: ('keyword' | 'key' | 'value', the schema node it belongs to)."""
    out: list[tuple[str, SchemaNode]] = []
    here = schema.root
    i = 0
    while i < len(words):
        node = here.children[words[i].text]
        out.append(("keyword", node))
        i += 1
        if node.kind in ("container", "list"):
            for n, key in enumerate(node.keys):
                if n:
                    out.append(("keyword", node.children[key]))
                    i += 1
                out.append(("key", node.children[key]))
                i += 1
            here = node
        elif node.kind != "empty":
            out.append(("value", node))
            i += 1
    return out


def _wrong(t: ValueType | None) -> Iterator[tuple[str, str]]:
    """(category, a word the type refuses)."""
    if isinstance(t, Union):
        if all(isinstance(m, Enum) for m in t.types):
            yield "enum", "no-such-value"
        return  # a union's members overlap: one wrong word per member is not wrong for the union
    if isinstance(t, IntRange):
        high = max(h for _, h in t.ranges)
        low = min(lo for lo, _ in t.ranges)
        yield "range", str(high + 1)
        yield "range", str(low - 1)
    elif isinstance(t, DecimalRange):
        yield "range", f"{t.high + 1:g}"
    elif isinstance(t, Enum):
        yield "enum", "no-such-value"
    elif isinstance(t, String) and t.max_length is not None:
        yield "length", "x" * (t.max_length + 1)


def _shape(schema: YangSchema | Spelling, path: tuple[Statement, ...]) -> tuple[int, ...]:
    return () if isinstance(schema, YangSchema) else tuple(len(s.words) for s in path)


def mutations(schema: YangSchema | Spelling, document: Document) -> Iterator[Mutation]:
    seen: set[tuple[str, str, str, str]] = set()
    for path in paths(document):
        line = tuple(w for s in path for w in s.words)
        shape = _shape(schema, path)
        for at, (role, node) in enumerate(_roles(schema, path)):
            found = [("path", line[at].text + "-x")] if role == "keyword" else list(_wrong(node.type))
            for category, text in found:
                key = (category, node.path, role, line[at].text if role == "keyword" else "")
                if key in seen:
                    continue
                seen.add(key)
                word = kw(text) if role == "keyword" else Word(line[at].kind, text, text)
                yield Mutation(category if role != "key" or category == "path" else "key",
                               line, (*line[:at], word, *line[at + 1:]), at, shape)


def refusals(schema: YangSchema | Spelling, document: Document) -> tuple[list[str], list[Mutation]]:
    """(the leaf lines the schema refuses, the mutations it accepts): both empty for a conforming grammar."""
    refused = []
    for path in paths(document):
        line = tuple(w for s in path for w in s.words)
        _, found = schema.walk(Document("line", "line", (nest(line, _shape(schema, path)),)))
        if found:
            refused.append(f"`{' '.join(w.text for w in line)}`: {found[0].message}")
    accepted = [m for m in mutations(schema, document) if not schema.walk(m.document())[1]]
    return refused, accepted
