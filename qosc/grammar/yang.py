"""A grammar from YANG-derived facts, for dialects whose statements spell the YANG data tree (a conformance kit).

Target-neutral.  A target keeps, per release of its vendor's schema, the
facts a derivation script extracted from the published YANG (JSON: for each
data node its kind, list keys, value type, mandatory, default, units,
max-elements, presence, choice cases, leafref target, `when` and `must`), and
checks every statement tree it lowers against them with `YangSchema.check`.

The statement convention is the one of Nokia's MD-CLI and of any CLI that
spells the YANG tree: every container, list and leaf is written by its name;
a list's name is followed by its keys (the first by value alone, the others
by name and value); a leaf by one value, a leaf-list by one value or a group
of values, an empty leaf by nothing.  A statement may cover several levels
(`qos sap-ingress "p" queue 1 rate pir 100` or nested blocks).

`walk` turns a statement tree into the data tree it stands for (`Data`, with
the statement each node came from), which is what the checks run on and what
an XML serializer writes:

- paths, keys and value types (ranges, digits, enumerations, lengths,
  patterns, unions);
- a leaf set twice with different values; two cases of one choice; more list
  entries than max-elements;
- mandatory leaves missing from a list entry or presence container the tree
  creates;
- leafrefs naming a list entry the tree does not define, when the tree
  defines that list (a policy applied must be written with it);
- `when` and `must` (qosc.grammar.xpath), with defaults filled in; an
  expression naming nodes the derived facts do not hold cannot be evaluated
  on a statement tree: `unevaluable()` lists those, and they are not checked.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from qosc.grammar.base import Source, Violation
from qosc.grammar.types import ValueType, value_type
from qosc.grammar.xpath import Unsupported, evaluate, paths_of
from qosc.tree import Document, Statement, Word


@dataclass
class SchemaNode:
    """One data node of the derived schema."""

    name: str
    kind: str  # container | list | leaf | leaf-list | empty
    children: dict[str, SchemaNode] = field(default_factory=dict)
    keys: tuple[str, ...] = ()
    type: ValueType | None = None
    mandatory: bool = False
    default: str | None = None
    units: str | None = None
    max: int | None = None
    presence: bool = False
    cases: tuple[tuple[str, str], ...] = ()
    leafref: str | None = None
    when: tuple[str, ...] = ()
    must: tuple[tuple[str, str], ...] = ()
    parent: SchemaNode | None = field(default=None, repr=False, compare=False)

    @classmethod
    def load(cls, name: str, data: dict[str, Any], parent: SchemaNode | None = None) -> SchemaNode:
        node = cls(name, data["kind"], {}, tuple(data.get("keys", ())),
                   value_type(data["type"]) if "type" in data else None, bool(data.get("mandatory")),
                   data.get("default"), data.get("units"), data.get("max"), bool(data.get("presence")),
                   tuple((c, k) for c, k in data.get("cases", ())), data.get("leafref"),
                   tuple(w["expr"] for w in data.get("when", ())),
                   tuple((m["expr"], m.get("error", "")) for m in data.get("must", ())), parent)
        node.children = {k: cls.load(k, v, node) for k, v in data.get("children", {}).items()}
        return node

    @property
    def path(self) -> str:
        up = self.parent.path if self.parent is not None else ""
        return f"{up}/{self.name}" if up else self.name

    def descendants(self) -> Iterator[SchemaNode]:
        yield self
        for child in self.children.values():
            yield from child.descendants()


@dataclass
class Data:
    """A node of the data tree a statement tree stands for."""

    schema: SchemaNode
    keys: tuple[str, ...] = ()
    value: str | None = None
    values: list[str] = field(default_factory=list)
    children: dict[tuple[str, tuple[str, ...]], Data] = field(default_factory=dict)
    parent: Data | None = field(default=None, repr=False)
    origin: tuple[Statement, ...] = field(default=(), repr=False)

    @property
    def name(self) -> str:
        return self.schema.name

    def child(self, schema: SchemaNode, keys: tuple[str, ...], origin: tuple[Statement, ...]) -> Data:
        found = self.children.get((schema.name, keys))
        if found is None:
            found = self.children[(schema.name, keys)] = Data(schema, keys, parent=self, origin=origin)
        return found

    def get(self, name: str) -> list[Data]:
        """Children of this name (every entry of a list); a leaf absent with a default reads as its default."""
        if name in self.schema.keys and len(self.keys) == len(self.schema.keys):
            return [Data(self.schema.children[name], value=self.keys[self.schema.keys.index(name)], parent=self)]
        found = [d for (n, _), d in self.children.items() if n == name]
        if not found:
            schema = self.schema.children.get(name)
            if schema is not None and schema.kind == "leaf" and schema.default is not None:
                return [Data(schema, value=schema.default, parent=self)]
        return found

    def text(self) -> str:
        if self.value is not None:
            return self.value
        if self.schema.kind == "leaf-list":
            return self.values[0] if self.values else ""
        return ""

    def walk(self) -> Iterator[Data]:
        yield self
        for child in self.children.values():
            yield from child.walk()

    def where(self) -> str:
        up = self.parent.where() if self.parent is not None and self.parent.parent is not None else ""
        key = "".join(f" {k}" for k in self.keys)
        return f"{up} {self.name}{key}".strip()


class _Walk:
    def __init__(self, schema: YangSchema) -> None:
        self.s = schema
        self.found: list[Violation] = []
        self.root = Data(schema.root)
        self.cases: dict[tuple[int, str], tuple[str, str]] = {}

    def refuse(self, path: tuple[Statement, ...], message: str) -> None:
        self.found.append(Violation(path, message, self.s.source))

    def value(self, path: tuple[Statement, ...], node: SchemaNode, word: Word) -> bool:
        ok = True
        for w in word.words:
            why = node.type.refuse(w.text) if node.type is not None else None
            if why is not None:
                self.refuse(path, f"{node.name}: {why}")
                ok = False
        return ok

    def choose(self, path: tuple[Statement, ...], data: Data, node: SchemaNode) -> None:
        for choice, case in node.cases:
            seen = self.cases.setdefault((id(data), choice), (case, node.name))
            if seen[0] != case:
                self.refuse(path, f"{node.name} and {seen[1]} are two cases of choice {choice} under "
                                  f"{data.where() or 'the top'}: the box keeps only the last")

    def statement(self, path: tuple[Statement, ...], data: Data) -> Data | None:
        """Consume a statement's words from `data`; the data node its children start from."""
        words = path[-1].words
        i = 0
        while i < len(words):
            w = words[i]
            node = data.schema.children.get(w.text) if w.kind.value != "group" else None
            if node is None or node.name in data.schema.keys:
                known = sorted(k for k in data.schema.children if k not in data.schema.keys)
                self.refuse(path, f"{w.text!r} is not a statement of {data.schema.path or 'the configuration'}"
                            + (f" (expected one of: {', '.join(known[:12])}{', ...' if len(known) > 12 else ''})"
                               if known else ""))
                return None
            self.choose(path, data, node)
            i += 1
            if node.kind in ("container", "list"):
                keys: list[str] = []
                for n, k in enumerate(node.keys):
                    if n and (i >= len(words) or words[i].text != k):
                        self.refuse(path, f"{node.name} needs its key {k} by name after the first key")
                        return None
                    i += 1 if n else 0
                    if i >= len(words):
                        if path[-1].children is None or n:
                            self.refuse(path, f"{node.name} needs its key {k}")
                            return None
                        break
                    if not self.value(path, node.children[k], words[i]):
                        return None
                    keys.append(words[i].text)
                    i += 1
                if len(keys) != len(node.keys):
                    self.refuse(path, f"{node.name} needs its keys {' '.join(node.keys)}")
                    return None
                data = data.child(node, tuple(keys), path)
                self.count(path, data)
                continue
            if node.kind == "empty":
                leaf = data.child(node, (), path)
                leaf.value = leaf.value or ""
                continue
            if i >= len(words):
                self.refuse(path, f"{node.name} needs a value")
                return None
            if self.value(path, node, words[i]):
                self.set(path, data.child(node, (), path), words[i])
            i += 1
            if i < len(words) or path[-1].children is not None:
                self.refuse(path, f"{node.name} is a {node.kind}: nothing may follow its value")
                return None
        return data

    def set(self, path: tuple[Statement, ...], leaf: Data, word: Word) -> None:
        if leaf.schema.kind == "leaf-list":
            leaf.values.extend(w.text for w in word.words if w.text not in leaf.values)
            return
        if leaf.value is not None and leaf.value != word.text:
            self.refuse(path, f"{leaf.name} is set to {leaf.value} and to {word.text} under "
                              f"{leaf.parent.where() if leaf.parent else ''}: one leaf, the box keeps the last")
        leaf.value = word.text

    def count(self, path: tuple[Statement, ...], entry: Data) -> None:
        schema = entry.schema
        if schema.max is None or entry.parent is None:
            return
        n = len(entry.parent.get(schema.name))
        if n > schema.max:
            self.refuse(path, f"{schema.name} has {n} entries, more than {schema.max}")

    def block(self, items: tuple[Statement, ...], above: tuple[Statement, ...], data: Data) -> None:
        for s in items:
            path = (*above, s)
            after = self.statement(path, data)
            if after is not None and s.children:
                self.block(s.children, path, after)


class YangSchema:
    """The derived facts of one release (a JSON file from a derivation script) and the checks on them."""

    def __init__(self, path: Path, document: str) -> None:
        self.file = path
        self.document = document

    @cached_property
    def data(self) -> dict[str, Any]:
        loaded: dict[str, Any] = json.loads(self.file.read_text("utf-8"))
        return loaded

    @property
    def release(self) -> str:
        return str(self.data["release"])

    @cached_property
    def root(self) -> SchemaNode:
        return SchemaNode.load("", {"kind": "container", "children": self.data["tree"]})

    @cached_property
    def source(self) -> Source:
        modules = self.data["modules"]
        main = next(iter(modules))  # the module the data tree belongs to; the file names them all
        return Source(self.document, self.release, main, modules[main])

    def node(self, path: str) -> SchemaNode:
        """The schema node at a slash-separated path (KeyError if the derived facts do not hold it)."""
        here = self.root
        for part in path.split("/"):
            here = here.children[part]
        return here

    def walk(self, document: Document) -> tuple[Data, list[Violation]]:
        """The data tree a document stands for, and the violations found reading it."""
        w = _Walk(self)
        w.block(document.statements, (), w.root)
        return w.root, w.found

    def check(self, document: Document) -> list[Violation]:
        return self.checked(document)[1]

    def checked(self, document: Document) -> tuple[Data, list[Violation]]:
        """The data tree and every violation (paths, types, whole-tree rules): one walk for both."""
        root, found = self.walk(document)
        return root, found + self.complete(root) + self.references(root) + self.constraints(root)

    # -- whole-tree rules -------------------------------------------------------------------------------------

    def complete(self, root: Data) -> list[Violation]:
        """Mandatory leaves missing from the list entries and presence containers the tree creates."""
        return [Violation(data.origin, f"{data.where()} lacks its mandatory {missing}", self.source)
                for data in root.walk() if data.schema.kind == "list" or data.schema.presence
                for missing in _mandatory_missing(data, data.schema)]

    def references(self, root: Data) -> list[Violation]:
        """Leafrefs to entries of a list the tree defines but not that entry."""
        found = []
        for data in root.walk():
            ref = data.schema.leafref
            if ref is None or data.value is None:
                continue
            parents = ref.split("/")[:-1]  # the list holding the named key
            entries = _at(root, parents)
            if entries and not any(e.keys and e.keys[0] == data.value for e in entries):
                found.append(Violation(data.origin, f"{data.name} {data.value} names no {'/'.join(parents)} "
                                                    "entry this configuration defines", self.source))
        return found

    def constraints(self, root: Data) -> list[Violation]:
        """`when` and `must` of every node the tree holds, where they can be evaluated."""
        unevaluable = {(p, e) for p, _, e in self.unevaluable()}

        def holds(data: Data, expr: str) -> bool:
            return (data.schema.path, expr) in unevaluable or evaluate(expr, data)

        found = [Violation(d.origin, f"{d.where()} is written where its `when {e}` is false: the box refuses it",
                           self.source) for d in root.walk() for e in d.schema.when if not holds(d, e)]
        found += [Violation(d.origin, f"{d.where()} breaks `must {e}`" + (f": {why}" if why else ""), self.source)
                  for d in root.walk() for e, why in d.schema.must if not holds(d, e)]
        return found

    def unevaluable(self) -> list[tuple[str, str, str]]:
        """(path, 'when'|'must', expression) of the constraints that name nodes outside the derived facts or
        XPath this kit does not evaluate: they are stored, listed, and left to the box."""
        out = []
        for node in self.root.descendants():
            for kind, exprs in (("when", node.when), ("must", tuple(e for e, _ in node.must))):
                for expr in exprs:
                    try:
                        reachable = all(_reaches(node, p) for p in paths_of(expr))
                    except Unsupported:
                        reachable = False
                    if not reachable:
                        out.append((node.path, kind, expr))
        return out

    def constraints_listed(self) -> list[tuple[str, str, str]]:
        """Every stored `when` and `must`: (path, kind, expression)."""
        return [(n.path, k, e) for n in self.root.descendants()
                for k, exprs in (("when", n.when), ("must", tuple(x for x, _ in n.must))) for e in exprs]


def _mandatory_missing(data: Data, schema: SchemaNode) -> Iterator[str]:
    for name, child in schema.children.items():
        if child.cases:
            continue  # in a case of a choice: mandatory only when that case is taken (left to the box)
        if child.kind == "leaf" and child.mandatory and not data.get(name):
            yield name
        elif child.kind == "container" and not child.presence:
            inner = data.get(name)
            if inner:
                yield from _mandatory_missing(inner[0], child)
            elif any(c.mandatory for c in child.children.values()):
                yield from (f"{name} {n}" for n, c in child.children.items() if c.mandatory)


def _at(root: Data, parts: list[str]) -> list[Data]:
    nodes = [root]
    for part in parts:
        nodes = [c for n in nodes for c in n.get(part)]
    return nodes


def _reaches(node: SchemaNode, steps: tuple[str, ...]) -> bool:
    """Whether a relative location path from a schema node stays inside the derived facts."""
    here: SchemaNode | None = node
    for step in steps:
        if here is None:
            return False
        here = here.parent if step == ".." else (here if step == "." else here.children.get(step))
    return here is not None
