"""CLI forms onto a YANG data tree: the conformance kit for dialects whose CLI does not spell their YANG.

Target-neutral.  Where a vendor's CLI words differ from its YANG (Cisco IOS
XR: `bandwidth 40 percent` is `bandwidth {value 40; unit percent}` in the
unified model, `random-detect dscp af11 20 ms 40 ms` an entry of the list
`random-detect` keyed by its thresholds with `af11` in its `dscp`
leaf-list), a target states its statements as forms in modes, each word of a
form either a keyword or a slot naming the YANG node its value sets:

    keyword        that literal word
    {a/b}          one word, the value of leaf a/b (relative to the mode's node)
    {a/b+}         one or more words, values of leaf-list a/b
    {a/b:x|y}      one word, the value of leaf a/b, only x or y (the CLI's subset of an enumeration)
    {a/b,}         one word, comma-separated values of leaf-list a/b
    {a/b=v}        no word: leaf a/b is v (an implied key, `class NAME` is type qos); {a/b=} creates a
                   presence container or empty leaf
    [ ... ]        optional

A list on a slot's path gets its keys from the slots of the same form that
name them.  A form that opens a block names the mode of its children and the
node (`node`, relative) their paths start from.  `CliYang.walk(document)`
builds the data tree (qosc.grammar.yang.Data) the statements stand for,
refusing a statement no form of its mode matches and a value its YANG type
refuses; `check` adds the schema's whole-tree rules (mandatory, leafref,
`when`, `must`: YangSchema.complete/references/constraints).  `roles(path)`
tells the conformance kit (qosc.grammar.kit) which word of a leaf line is a
keyword and which the value of which node, so it can make wrong variants of
every line from the facts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from qosc.grammar.base import Source, Violation
from qosc.grammar.yang import Data, SchemaNode, YangSchema
from qosc.tree import Document, Statement


@dataclass(frozen=True)
class _Lit:
    word: str


@dataclass(frozen=True)
class _Slot:
    path: str
    many: bool = False
    const: str | None = None
    only: tuple[str, ...] = ()
    commas: bool = False


@dataclass(frozen=True)
class _Opt:
    items: tuple[Any, ...]


def _parse(pattern: str) -> tuple[Any, ...]:
    tokens = pattern.replace("[", " [ ").replace("]", " ] ").split()
    pos = 0

    def seq() -> tuple[Any, ...]:
        nonlocal pos
        items: list[Any] = []
        while pos < len(tokens) and tokens[pos] != "]":
            tok = tokens[pos]
            pos += 1
            if tok == "[":
                items.append(_Opt(seq()))
                pos += 1
            elif tok.startswith("{") and tok.endswith("}"):
                body = tok[1:-1]
                path, eq, const = body.partition("=")
                path, _, only = path.partition(":")
                many, commas = path.endswith("+"), path.endswith(",")
                items.append(_Slot(path.rstrip("+,"), many, const if eq else None,
                                   tuple(only.split("|")) if only else (), commas))
            else:
                items.append(_Lit(tok))
        return tuple(items)

    out = seq()
    if pos != len(tokens):
        raise ValueError(f"unbalanced pattern {pattern!r}")
    return out


@dataclass(frozen=True)
class CliForm:
    """One statement form: its pattern, its source, and for a block the mode and node of its children."""

    pattern: str
    source: str
    mode: str | None = None
    node: str = ""

    @cached_property
    def items(self) -> tuple[Any, ...]:
        return _parse(self.pattern)


Capture = tuple[str, tuple[int, ...], str | None, bool]
"""(slot path, indices of the words it took, constant value or None, comma-separated)."""


def _node(base: SchemaNode, path: str) -> SchemaNode | None:
    here: SchemaNode | None = base
    for part in path.split("/") if path else ():
        here = here.children.get(part) if here is not None else None
    return here


def _refuse(node: SchemaNode, slot: _Slot, word: str) -> str | None:
    if slot.only and word not in slot.only:
        return f"{word!r} is not one of {', '.join(slot.only)}"
    for value in word.split(",") if slot.commas else (word,):
        why = node.type.refuse(value) if node.type is not None else None
        if why is not None:
            return why
    return None


class _Match:
    def __init__(self, words: Sequence[str], base: SchemaNode) -> None:
        self.words = words
        self.base = base
        self.best: tuple[int, str] = (-1, "")

    def fail(self, at: int, why: str) -> None:
        if at > self.best[0]:
            self.best = (at, why)

    def seq(self, items: tuple[Any, ...], at: int, caps: tuple[Capture, ...]) -> list[tuple[int, tuple[Capture, ...]]]:
        states = [(at, caps)]
        for item in items:
            nxt: list[tuple[int, tuple[Capture, ...]]] = []
            for pos, got in states:
                nxt += self.item(item, pos, got)
            states = nxt
            if not states:
                break
        return states

    def item(self, item: Any, at: int, caps: tuple[Capture, ...]) -> list[tuple[int, tuple[Capture, ...]]]:
        if isinstance(item, _Lit):
            if at < len(self.words) and self.words[at] == item.word:
                return [(at + 1, caps)]
            self.fail(at, f"expected {item.word!r}" + (f", found {self.words[at]!r}" if at < len(self.words)
                                                       else " at the end"))
            return []
        if isinstance(item, _Opt):
            return self.seq(item.items, at, caps) + [(at, caps)]
        if item.const is not None:
            return [(at, (*caps, (item.path, (), item.const, False)))]
        node = _node(self.base, item.path)
        if node is None:
            raise ValueError(f"slot {{{item.path}}} names no node under {self.base.path or 'the top'}")
        taken: list[int] = []
        out: list[tuple[int, tuple[Capture, ...]]] = []
        pos = at
        while pos < len(self.words):
            why = _refuse(node, item, self.words[pos])
            if why is not None:
                self.fail(pos, f"{item.path}: {why}")
                break
            taken.append(pos)
            pos += 1
            out.insert(0, (pos, (*caps, (item.path, tuple(taken), None, item.commas))))
            if not item.many:
                break
        if pos >= len(self.words) and not taken:
            self.fail(pos, f"missing {item.path}")
        return out


class CliYang:
    """A dialect's forms in modes, checked against one release's YANG facts (a YangSchema)."""

    def __init__(self, schema: YangSchema, modes: Mapping[str, Sequence[CliForm]], root: str,
                 document: str) -> None:
        self.schema = schema
        self.modes = {k: tuple(v) for k, v in modes.items()}
        self.root = root
        self.document = document

    @property
    def release(self) -> str:
        return self.schema.release

    @cached_property
    def source(self) -> Source:
        s = self.schema.source
        return Source(f"{self.document}; {s.document}", s.release, s.module, s.revision)

    def match(self, words: Sequence[str], mode: str, base: SchemaNode) -> tuple[CliForm, tuple[Capture, ...]] | str:
        """The first form of `mode` the words take (with its captures), or why none does."""
        best: tuple[int, str, CliForm | None] = (-1, "no form", None)
        for form in self.modes[mode]:
            m = _Match(words, base)
            for end, caps in m.seq(form.items, 0, ()):
                if end == len(words):
                    return form, caps
            if m.best[0] > best[0]:
                best = (m.best[0], m.best[1], form)
        hint = f" (closest: {best[2].pattern!r}, {best[2].source})" if best[2] is not None else ""
        return f"not a {mode} statement: {best[1]}{hint}"

    def _apply(self, path: tuple[Statement, ...], data: Data, caps: tuple[Capture, ...], words: Sequence[str],
               found: list[Violation]) -> dict[str, Data]:
        """Set the captured values under `data`; the data node of every path prefix reached, by prefix."""
        values = {p: ([v for i in idx for v in (words[i].split(",") if comma else (words[i],))] if c is None
                      else ([c] if c else [])) for p, idx, c, comma in caps}
        reached: dict[str, Data] = {"": data}

        def entry(here: Data, prefix: str, schema: SchemaNode) -> Data | None:
            if prefix in reached:
                return reached[prefix]
            keys: tuple[str, ...] = ()
            if schema.kind == "list":
                keys = tuple(values.get(f"{prefix}/{k}", [""])[0] for k in schema.keys)
                if "" in keys:
                    found.append(Violation(path, f"{schema.name} needs its keys {' '.join(schema.keys)}",
                                           self.source))
                    return None
            made = reached[prefix] = here.child(schema, keys, path)
            self._count(path, made, found)
            return made

        for p in values:
            parts = p.split("/")
            here: Data | None = data
            for n, part in enumerate(parts[:-1]):
                assert here is not None
                here = entry(here, "/".join(parts[:n + 1]), here.schema.children[part])
                if here is None:
                    return reached
            assert here is not None
            schema = here.schema.children[parts[-1]]
            if schema.kind in ("container", "list"):  # {presence=}
                entry(here, p, schema)
                continue
            if here.schema.kind == "list" and schema.name in here.schema.keys:
                continue
            leaf = here.child(schema, (), path)
            if schema.kind == "leaf-list":
                leaf.values.extend(v for v in values[p] if v not in leaf.values)
            elif schema.kind == "empty":
                leaf.value = ""
            else:
                value = values[p][0] if values[p] else ""
                if leaf.value is not None and leaf.value != value:
                    found.append(Violation(path, f"{schema.name} is set to {leaf.value} and to {value} under "
                                                 f"{here.where()}: one leaf, the box keeps the last", self.source))
                leaf.value = value
        return reached

    def _count(self, path: tuple[Statement, ...], entry: Data, found: list[Violation]) -> None:
        schema = entry.schema
        if schema.max is not None and entry.parent is not None and len(entry.parent.get(schema.name)) > schema.max:
            found.append(Violation(path, f"{schema.name} has more than {schema.max} entries", self.source))

    def walk(self, document: Document) -> tuple[Data, list[Violation]]:
        """The data tree a document stands for, and the statements refused on the way."""
        root = Data(self.schema.root)
        found: list[Violation] = []

        def block(items: Sequence[Statement], above: tuple[Statement, ...], mode: str, base: Data) -> None:
            for s in items:
                path = (*above, s)
                words = s.texts()
                got = self.match(words, mode, base.schema)
                if isinstance(got, str):
                    found.append(Violation(path, got, self.source))
                    continue
                form, caps = got
                reached = self._apply(path, base, caps, words, found)
                if s.children is not None:
                    if form.mode is None:
                        found.append(Violation(path, f"{form.pattern!r} takes no sub-statements", self.source))
                    elif form.node in reached:
                        block(s.children, path, form.mode, reached[form.node])

        block(document.statements, (), self.root, root)
        return root, found

    def check(self, document: Document) -> list[Violation]:
        return self.checked(document)[1]

    def checked(self, document: Document) -> tuple[Data, list[Violation]]:
        root, found = self.walk(document)
        s = self.schema
        return root, found + s.complete(root) + s.references(root) + s.constraints(root)

    def roles(self, path: Sequence[Statement]) -> list[tuple[str, SchemaNode]]:
        """What each word of a line (a path of statements) is: ('keyword' | 'key' | 'value', its node); the
        keyword's node is the node of the form's first slot (or the mode's node)."""
        out: list[tuple[str, SchemaNode]] = []
        mode, base = self.root, self.schema.root
        for s in path:
            got = self.match(s.texts(), mode, base)
            if isinstance(got, str):
                raise ValueError(got)
            form, caps = got
            by_word = {i: p for p, idx, _, _ in caps for i in idx}
            first = next((p for p, _, _, _ in caps), "")
            for i in range(len(s.words)):
                p = by_word.get(i)
                node = _node(base, p if p is not None else first) or base
                parent = _node(base, p.rpartition("/")[0]) if p is not None else None
                keyed = parent is not None and parent.kind == "list" and node.name in parent.keys
                out.append(("keyword" if p is None else "key" if keyed else "value", node))
            if form.mode is not None:
                mode, base = form.mode, _node(base, form.node) or base
        return out
