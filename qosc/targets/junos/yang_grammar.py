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
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from importlib import resources
from typing import Any, Protocol

from qosc.grammar import Source, ValueType, Violation, value_type
from qosc.targets.junos.must import WORD, Check, Configuration, Expr, evaluator, fold, parse
from qosc.targets.junos.must import Path as MustPath
from qosc.tree import Document, Statement, Word


@dataclass(frozen=True)
class Must:
    """A `junos:must` of a node (of one value of it, for an enumeration value's must)."""

    text: str
    expr: Expr
    check: Check
    """The expression compiled (with its impossible paths folded away: `_fold`)."""
    message: str
    module: str
    value: str | None = None

    @classmethod
    def load(cls, data: dict[str, str]) -> Must:
        expr = parse(data["must"])
        return cls(data["must"], expr, evaluator(expr), data["message"], data["module"], data.get("value"))


def _fold(root: Node, node: Node, chain: tuple[Node, ...]) -> None:
    """Keep only the musts that can fail, compiled: a path through a node outside the grammar's tree is false
    (the walk records only nodes of the tree), so most musts of the nodes qosc writes are constant."""
    kept = []
    for must in node.musts:
        folded = fold(must.expr, lambda p: _possible(root, chain, p))
        if folded is not True:
            kept.append(replace(must, check=_never if folded is False else evaluator(folded)))
    node.musts = tuple(kept)
    for child in node.children.values():
        _fold(root, child, (*chain, child))


def _never(config: Configuration, at: Where, value: str | None) -> bool:
    return False


def _possible(root: Node, chain: tuple[Node, ...], path: MustPath) -> bool:
    """Whether the path can name a node of the tree: climbing from the last node of `chain` (root first), then
    keywords, list keys (any word), a leaf's value (one its type takes, where the word is given)."""
    node: Node | None = root if not path.up or path.up >= len(chain) else chain[-1 - path.up]
    keys: list[str | None] = []  # what a list entry's words still are: a key's name, or None for a value
    leaf: Node | None = None
    for kind, text in path.steps:
        if keys:
            expected = keys.pop(0)
            if expected is not None and kind == WORD and text != expected:
                return False
        elif leaf is not None:
            if kind == WORD and leaf.type is not None and leaf.type.refuse(text) is not None:
                return False
            leaf = node = None
        elif node is None:
            return False  # a word after a leaf's value
        else:
            child = node.keyworded.get(text) if kind == WORD else None
            if child is None:
                lists = [c for c in node.positional if c.kind == "list"]
                if lists:  # a key of a keyword-less list (`interfaces ge-0/0/0`)
                    node = lists[0]
                    continue
                if not node.positional:
                    return False
                node = None  # the value of a keyword-less leaf
                continue
            if child.kind == "list":
                node = child
                keys = [None] if len(child.keys) == 1 else [x for k in child.keys for x in (k, None)]
            elif child.kind in ("leaf", "leaf-list"):
                leaf = child
            elif child.kind == "empty":
                node = None
            else:
                node = child
    return True


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

    def __init__(self, grammar: YangGrammar, sink: Sink | None = None, config: Configuration | None = None) -> None:
        self.g = grammar
        self.sink = sink
        self.found: list[Violation] = []
        self.leaves: dict[Where, tuple[str, tuple[Statement, ...]]] = {}
        self.cases: dict[tuple[Where, str], tuple[str, str]] = {}
        self.entries: dict[Where, set[str]] = {}
        self.config = Configuration() if config is None else config
        self.recording = not self.config.parents
        self.parents, self.values = self.config.parents, self.config.values
        """False when another release's walk of the same document has recorded the configuration already."""
        self.constrained: dict[Where, tuple[Node, tuple[Statement, ...], list[str]]] = {}
        """The nodes that carry musts: each with the statement that made it and its values ($$)."""

    def record(self, path: tuple[Statement, ...], node: Node, where: Where, parent: Where,
               value: str | None = None) -> None:
        if self.recording:
            self.parents.setdefault(where, parent)
            if value is not None:
                self.values.append((where, value))
        if node.musts:
            values = self.constrained.setdefault(where, (node, path, []))[2]
            if value is not None and value not in values:
                values.append(value)

    def musts(self) -> None:
        """Every must of every node the document holds, evaluated on the whole document."""
        cached = self.config.cached
        for where, (node, path, values) in self.constrained.items():
            for must in node.musts:
                if must.value is not None:
                    if must.value not in values:
                        continue  # the must of an enumeration value the leaf does not have
                    candidates: Sequence[str | None] = (must.value,)
                else:
                    candidates = values or (None,)
                for v in candidates:
                    if not cached(must.text, must.check, where, v):
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
        if word is None:
            self.record(path, node, here, where)
            return
        for w in word.words:
            self.record(path, node, here, where, value=w.text)
        self.value(path, node, word)
        if node.kind == "leaf":
            seen = self.leaves.setdefault(here, (word.text, path))
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
        self.record(path, node, entry, parent)
        if self.recording:
            self.config.entries[entry] = (node.name, values[0][1])
            if where != parent:
                self.config.lists.append(where)
        for k, v in values:  # a key leaf is recorded where a must needs it (`..` from it)
            key = node.children[k]
            if key.musts:
                self.record(path, key, (*entry, k), entry, value=v)
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
        root = Node.load("", {"kind": "container", "children": self.data["tree"]})
        _fold(root, root, (root,))
        return root

    @cached_property
    def source(self) -> Source:
        modules = self.data["modules"]
        names = ", ".join(f"{m}@{r}" for m, r in modules.items() if m.startswith("junos-conf"))
        return Source("Juniper/yang conf-with-extensions (derived by scripts/derive-junos-grammar)", self.release,
                      names, modules.get("junos-conf-class-of-service", ""))

    def check(self, document: Document, sink: Sink | None = None,
              config: Configuration | None = None) -> list[Violation]:
        """Every violation of the document; a sink is told each element the statements stand for.  `config`: the
        document's configuration as another release's check recorded it (shared, with the musts' results)."""
        walk = _Walk(self, sink, config)
        walk.block(document.statements, (), (self.root, False, (), ()))
        walk.musts()
        return walk.found

    def must_source(self, must: Must) -> Source:
        return Source("Juniper/yang conf-with-extensions, junos:must (derived by scripts/derive-junos-grammar)",
                      self.release, must.module, self.data["modules"].get(must.module, ""))
