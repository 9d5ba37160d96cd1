"""The junos dialect's grammar from Juniper's own YANG: statement paths, keys, value types, choices, conflicts.

The data (yang/junos-<release>.json) is derived from Juniper's published
configuration YANG by scripts/derive-junos-grammar and names its modules and
revisions.  `YangGrammar.check(document)` walks every statement of a
statement tree the way the JUNOS CLI reads it:

- inside a container or list entry, a word is a child's keyword, else the
  value of the next keyword-less leaf (`junos:cli-feature "nokeyword"`);
- a list's keyword is followed by its key (one key: the value alone, several
  keys: each key's keyword and value); a block statement may stop after the
  list's keyword (`schedulers { be { ... } }`), then each child starts with a key;
- a leaf takes one value of its type, a leaf-list one or several (`[ a b ]`),
  an empty leaf none;
- file-level rules over the whole document: one leaf set twice with
  different values (the box keeps the last), two cases of one choice under
  one parent (the box keeps the last), more list entries than max-elements;
- Juniper's `junos:must` constraints of every node the document holds
  (must.py), on the whole document once it is read: what `commit check`
  refuses, reported with the must's message, module and revision.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cached_property
from importlib import resources
from typing import Any, Protocol

from qosc.grammar import Source, ValueType, Violation, value_type
from qosc.targets.junos.must import Configuration, Expr, Instance, parse
from qosc.tree import Document, Statement, Word


@dataclass(frozen=True)
class Must:
    """A `junos:must` of a node (of one value of it, for an enumeration value's must)."""

    text: str
    expr: Expr
    message: str
    module: str
    value: str | None = None

    @classmethod
    def load(cls, data: dict[str, str]) -> Must:
        return cls(data["must"], parse(data["must"]), data["message"], data["module"], data.get("value"))


@dataclass
class Node:
    name: str
    kind: str  # container | list | leaf | leaf-list | empty
    children: dict[str, Node] = field(default_factory=dict)
    keys: tuple[str, ...] = ()
    type: ValueType | None = None
    nokeyword: bool = False
    cases: tuple[tuple[str, str], ...] = ()
    max: int | None = None
    musts: tuple[Must, ...] = ()

    @classmethod
    def load(cls, name: str, data: dict[str, Any]) -> Node:
        return cls(name, data["kind"], {k: cls.load(k, v) for k, v in data.get("children", {}).items()},
                   tuple(data.get("keys", ())), value_type(data["type"]) if "type" in data else None,
                   bool(data.get("nokeyword")), tuple((c, k) for c, k in data.get("cases", ())), data.get("max"),
                   tuple(Must.load(m) for m in data.get("must", ())))

    @cached_property
    def keyworded(self) -> dict[str, Node]:
        return {k: v for k, v in self.children.items() if not v.nokeyword and k not in self.keys}

    @cached_property
    def positional(self) -> tuple[Node, ...]:
        """Keyword-less leaves (not keys) and keyword-less lists, in order."""
        return tuple(v for k, v in self.children.items() if v.nokeyword and k not in self.keys)


class Sink(Protocol):
    """What a walk that builds something from the schema-annotated statements (the NETCONF XML) is told."""

    def enter(self, parent: Where, where: Where, tag: str, keys: tuple[tuple[str, str], ...]) -> None: ...
    def leaf(self, where: Where, tag: str, value: str | None) -> None: ...


Where = tuple[str, ...]
State = tuple[Node, bool, Where, Where]
"""(node, awaiting a list key, instance path, the instance path of the list's parent)."""


class _Walk:
    """The state of one document's check: what each list entry holds so far."""

    def __init__(self, grammar: YangGrammar, sink: Sink | None = None) -> None:
        self.g = grammar
        self.sink = sink
        self.found: list[Violation] = []
        self.leaves: dict[Where, tuple[str, tuple[Statement, ...]]] = {}
        self.cases: dict[tuple[Where, str], tuple[str, str]] = {}
        self.entries: dict[Where, set[str]] = {}
        self.config = Configuration()
        self.constrained: list[tuple[Instance, Node, tuple[Statement, ...]]] = []
        """The nodes that carry musts, with the statement that made each (checked once the document is read)."""

    def record(self, path: tuple[Statement, ...], node: Node, where: Where, parent: Where | None,
               keys: tuple[str, ...] = (), value: str | None = None, listed: Where | None = None) -> None:
        known = where in self.config.nodes
        inst = self.config.add(where, parent, node.name, keys, value, listed)
        if node.musts and not known:
            self.constrained.append((inst, node, path))

    def musts(self) -> None:
        """Every must of every node the document holds, evaluated on the whole document."""
        for inst, node, path in self.constrained:
            for must in node.musts:
                values: list[str | None] = list(inst.values) or [None]
                if must.value is not None:
                    values = [v for v in values if v == must.value]
                for value in values:
                    if not self.config.holds(must.expr, inst, value):
                        self.found.append(Violation(path, f"{must.message or 'junos:must ' + must.text} "
                                                          f"(junos:must of {node.name})", self.g.must_source(must)))
                        break

    def refuse(self, path: tuple[Statement, ...], message: str) -> None:
        self.found.append(Violation(path, message, self.g.source))

    def choose(self, path: tuple[Statement, ...], where: Where, node: Node) -> None:
        for choice, case in node.cases:
            key = (where, choice)
            seen = self.cases.setdefault(key, (case, node.name))
            if seen[0] != case:
                self.refuse(path, f"{node.name} and {seen[1]} are two cases of choice {choice} under "
                                  f"{' '.join(where) or 'the top'}: the box keeps only the last")

    def value(self, path: tuple[Statement, ...], node: Node, word: Word) -> None:
        if node.type is None:
            return
        for w in word.words:
            why = node.type.refuse(w.text)
            if why is not None:
                self.refuse(path, f"{node.name}: {why}")

    def leaf(self, path: tuple[Statement, ...], where: Where, node: Node, word: Word | None) -> None:
        if self.sink is not None:
            for w in (word.words if word is not None else (None,)):
                self.sink.leaf(where, node.name, None if w is None else w.text)
        here = (*where, node.name)
        for w in (word.words if word is not None else ()):
            self.record(path, node, here, where, value=w.text)
        if word is None:
            self.record(path, node, here, where)
            return
        self.value(path, node, word)
        if node.kind == "leaf":
            key = (*where, node.name)
            seen = self.leaves.setdefault(key, (word.text, path))
            if seen[0] != word.text:
                self.refuse(path, f"{node.name} is set to {seen[0]} and to {word.text} under "
                                  f"{' '.join(where)}: one leaf, the box keeps the last")

    def keys(self, path: tuple[Statement, ...], node: Node, words: list[Word], i: int,
             where: Where, parent: Where) -> tuple[int, Where] | None:
        """Read a list entry's keys at words[i]: (the next index, the entry's instance path), or None."""
        values: list[tuple[str, str]] = []
        if len(node.keys) == 1:
            self.value(path, node.children[node.keys[0]], words[i])
            values.append((node.keys[0], words[i].text))
            i += 1
        else:
            for k in node.keys:
                if i + 1 >= len(words) or words[i].text != k:
                    self.refuse(path, f"{node.name} needs its keys {' '.join(node.keys)} in order")
                    return None
                self.value(path, node.children[k], words[i + 1])
                values.append((k, words[i + 1].text))
                i += 2
        # the instance path: one key's value, or each key's name and value
        entry = (*where, values[0][1]) if len(values) == 1 else (*where, *(x for kv in values for x in kv))
        self.record(path, node, entry, parent, tuple(v for _, v in values), listed=where if where != parent else None)
        for k, v in values:
            self.record(path, node.children[k], (*entry, k), entry, value=v)
        self.count(path, node, parent, entry[-1])
        if self.sink is not None:
            self.sink.enter(parent, entry, node.name, tuple(values))
        return i, entry

    def statement(self, path: tuple[Statement, ...], state: State) -> State | None:
        """Consume a statement's words from `state`; the state its children start from."""
        node, awaiting, where, parent = state
        words = list(path[-1].words)
        i = 0
        while i < len(words):
            w = words[i]
            if awaiting:
                read = self.keys(path, node, words, i, where, parent)
                if read is None:
                    return None
                i, where = read
                awaiting = False
                continue
            child = node.keyworded.get(w.text) if w.kind.value != "group" else None
            if child is None:
                filled = {n for n in self.leaves if n[:-1] == where}
                child = next((c for c in node.positional if (*where, c.name) not in filled), None)
                if child is None:
                    self.refuse(path, f"{w.text!r} is not a statement of {node.name or 'the configuration'}"
                                      + (f" (expected one of: {', '.join(sorted(node.keyworded)[:12])}"
                                         f"{', ...' if len(node.keyworded) > 12 else ''})" if node.keyworded else ""))
                    return None
                self.choose(path, where, child)
                if child.kind == "list":
                    node, awaiting, parent = child, True, where
                    continue
                self.leaf(path, where, child, w)
                i += 1
                continue
            self.choose(path, where, child)
            i += 1
            if child.kind == "empty":
                self.leaf(path, where, child, None)
                continue
            if child.kind in ("leaf", "leaf-list"):
                if i >= len(words):
                    self.refuse(path, f"{child.name} needs a value")
                    return None
                self.leaf(path, where, child, words[i])
                i += 1
                continue
            if child.kind == "list":
                node, awaiting, parent, where = child, True, where, (*where, child.name)
                continue
            inner = (*where, child.name)
            self.record(path, child, inner, where)
            if self.sink is not None:
                self.sink.enter(where, inner, child.name, ())
            node, where = child, inner
        if path[-1].children is None and awaiting:
            self.refuse(path, f"{node.name} needs its key")
        return node, awaiting, where, parent

    def count(self, path: tuple[Statement, ...], node: Node, parent: Where, key: str) -> None:
        if node.max is None:
            return
        entries = self.entries.setdefault((*parent, node.name), set())
        entries.add(key)
        if len(entries) > node.max:
            self.refuse(path, f"{node.name} has {len(entries)} entries, more than {node.max}")

    def block(self, items: tuple[Statement, ...], above: tuple[Statement, ...], state: State) -> None:
        for s in items:
            path = (*above, s)
            after = self.statement(path, state)
            if after is not None and s.children:
                self.block(s.children, path, after)


class YangGrammar:
    """The grammar of one Junos release, from its derived data."""

    dialect = "junos"

    def __init__(self, release: str) -> None:
        self.release = release

    @cached_property
    def data(self) -> dict[str, Any]:
        text = resources.files(__package__).joinpath("yang", f"junos-{self.release}.json").read_text("utf-8")
        return json.loads(text)  # type: ignore[no-any-return]

    @cached_property
    def root(self) -> Node:
        return Node.load("", {"kind": "container", "children": self.data["tree"]})

    @cached_property
    def source(self) -> Source:
        modules = self.data["modules"]
        names = ", ".join(f"{m}@{r}" for m, r in modules.items() if m.startswith("junos-conf"))
        return Source("Juniper/yang conf-with-extensions (derived by scripts/derive-junos-grammar)", self.release,
                      names, modules.get("junos-conf-class-of-service", ""))

    def check(self, document: Document, sink: Sink | None = None) -> list[Violation]:
        """Every violation of the document; a sink is told each element the statements stand for."""
        walk = _Walk(self, sink)
        walk.block(document.statements, (), (self.root, False, (), ()))
        walk.musts()
        return walk.found

    def must_source(self, must: Must) -> Source:
        return Source("Juniper/yang conf-with-extensions, junos:must (derived by scripts/derive-junos-grammar)",
                      self.release, must.module, self.data["modules"].get(must.module, ""))
