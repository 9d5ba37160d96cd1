"""NETCONF XML of the junos dialect, built by the walk of the YANG-derived grammar (and JUNOS text back from it).

The RFC 6241 path (edit-config on candidate) sends the configuration as XML
in the element names of Juniper's own YANG (yang/junos-<release>.json, the
subset qosc writes): `to_xml` reads the generated text into a statement tree
and lets the 23.4R1 grammar walk it (yang_grammar.YangGrammar.check with a
sink), so every element is a schema node and a statement the grammar refuses
is a ConversionError, never dropped.  List entries carry their keys first, a
`[ a b ]` value is one element per value, an empty leaf an empty element.
yang.py writes the YANG module the test peer (netconfd) loads from the same
grammar data.  `to_text` turns the XML back into JUNOS text by the same
schema, so a person reads the RFC 6241 path's diff in the usual form.
"""

from __future__ import annotations

from lxml import etree

from qosc.targets.junos.push.text import Stmt, parse, serialise
from qosc.targets.junos.yang_grammar import Node, Where, YangGrammar
from qosc.tree import Document, Statement, Word, group, kw

NAMESPACE = "urn:qosc:params:xml:ns:yang:qosc-junos-qos"
MODULE = "qosc-junos-qos"
NC_NS = "urn:ietf:params:xml:ns:netconf:base:1.0"
RELEASE = "23.4R1"
GRAMMAR = YangGrammar(RELEASE)
OWNED_REPLACE = {("class-of-service",), ("firewall", "policer"), ("firewall", "three-color-policer"),
                 ("firewall", "family", "inet", "filter"), ("firewall", "family", "inet6", "filter")}


class ConversionError(ValueError):
    """A statement the YANG-derived grammar does not accept."""


def _word(w: str | list[str]) -> Word:
    return group(kw(x) for x in w) if isinstance(w, list) else kw(w)


def _statements(stmts: list[Stmt]) -> tuple[Statement, ...]:
    return tuple(Statement(tuple(_word(w) for w in st.words),
                           None if st.children is None else _statements(st.children)) for st in stmts)


class _Builder:
    """The sink of the grammar's walk: one element per schema node instance, in statement order."""

    def __init__(self) -> None:
        self.root = etree.Element(f"{{{NAMESPACE}}}configuration", nsmap={None: NAMESPACE})
        self.elements: dict[Where, etree._Element] = {(): self.root}

    def _sub(self, parent: etree._Element, tag: str, text: str | None = None) -> etree._Element:
        el = etree.SubElement(parent, f"{{{NAMESPACE}}}{tag}")
        if text is not None:
            el.text = text
        return el

    def enter(self, parent: Where, where: Where, tag: str, keys: tuple[tuple[str, str], ...]) -> None:
        if where in self.elements:
            return
        el = self._sub(self.elements[parent], tag)
        for name, value in keys:
            self._sub(el, name, value)
        self.elements[where] = el

    def leaf(self, where: Where, tag: str, value: str | None) -> None:
        parent = self.elements[where]
        if value is None and parent.find(f"{{{NAMESPACE}}}{tag}") is not None:
            return
        self._sub(parent, tag, value)


def to_xml(text: str, replace_owned: bool = True) -> etree._Element:
    """The generated JUNOS text as `<configuration xmlns=qosc>`; owned hierarchies get operation="replace"."""
    return document_xml(Document("push", "junos", _statements(parse(text))), replace_owned)


def document_xml(doc: Document, replace_owned: bool = True) -> etree._Element:
    """A statement tree as `<configuration xmlns=qosc>`, by the grammar's walk (ConversionError if refused)."""
    builder = _Builder()
    refused = GRAMMAR.check(doc, builder)
    if refused:
        raise ConversionError(f"{len(refused)} statement(s) refused by Juniper's YANG ({RELEASE}), first: "
                              f"{refused[0]}")
    if replace_owned:
        for el in builder.root.iter():
            path = tuple(etree.QName(a).localname for a in reversed(list(el.iterancestors())))[1:]
            if (*path, etree.QName(el).localname) in OWNED_REPLACE:
                el.set(f"{{{NC_NS}}}operation", "replace")
    return builder.root


def _local(el: etree._Element) -> str:
    return etree.QName(el).localname


def _elements(el: etree._Element) -> list[etree._Element]:
    return [c for c in el if isinstance(c.tag, str)]


def to_stmts(el: etree._Element, node: Node | None, lenient: bool = False, skip: tuple[str, ...] = ()) -> list[Stmt]:
    """XML of the schema back to JUNOS statements (for diffs a person reads, and for reading a device's
    configuration back: each statement keeps its element's source line).

    An element the schema subset does not know is a ConversionError, or with `lenient` (a whole device
    configuration read back) a statement spelled from the XML alone: `<name>` first as the entry's key,
    text as the value; `inactive` elements do nothing and are dropped, as the CLI reader drops them.
    """
    out: list[Stmt] = []
    children = [c for c in _elements(el) if _local(c) not in skip and not (lenient and c.get("inactive"))]
    i = 0
    while i < len(children):
        child, tag = children[i], _local(children[i])
        sub = node.children.get(tag) if node is not None else None
        if sub is None and not lenient:
            raise ConversionError(f"<{tag}> is not in Juniper's YANG under {node.name if node else '?'}")
        if sub is None:
            st = _generic(child, tag)
        elif sub.kind == "leaf-list":
            values = [child.text or ""]
            while i + 1 < len(children) and _local(children[i + 1]) == tag:
                i += 1
                values.append(children[i].text or "")
            st = Stmt([tag, values if len(values) > 1 else values[0]])
        elif sub.kind == "empty":
            st = Stmt([tag])
        elif sub.kind == "leaf":
            st = Stmt([(child.text or "").strip()] if sub.nokeyword else [tag, (child.text or "").strip()])
        elif sub.kind == "container":
            st = _compact([tag], to_stmts(child, sub, lenient))
        else:
            keys = [(child.findtext(f"{{*}}{k}") or child.findtext(k) or "").strip() for k in sub.keys]
            head = keys if len(keys) == 1 else [w for k, v in zip(sub.keys, keys, strict=True) for w in (k, v)]
            words: list[str | list[str]] = [] if sub.nokeyword else [tag]
            st = _compact(words + list(head), to_stmts(child, sub, lenient, sub.keys))
        st.line = child.sourceline
        out.append(st)
        i += 1
    return out


def _generic(el: etree._Element, tag: str) -> Stmt:
    """An element outside the schema subset, spelled from the XML alone (kept, not interpreted)."""
    inner = _elements(el)
    if not inner:
        value = (el.text or "").strip()
        return Stmt([tag, value] if value else [tag])
    head: list[str | list[str]] = [tag]
    if _local(inner[0]) == "name" and not _elements(inner[0]):
        head.append((inner[0].text or "").strip())
        inner = inner[1:]
    body = []
    for c in inner:
        st = _generic(c, _local(c))
        st.line = c.sourceline
        body.append(st)
    return _compact(head, body)


def _compact(head: list[str | list[str]], inner: list[Stmt]) -> Stmt:
    """JUNOS's one-line form for a single leaf (`transmit-rate percent 5;`, `queue 0 be;`), else a block."""
    if len(inner) == 1 and inner[0].children is None:
        return Stmt(head + inner[0].words)
    return Stmt(head, inner) if inner else Stmt(head)


def to_text(el: etree._Element | None) -> str:
    """The configuration as JUNOS text ('' for none)."""
    return serialise(to_stmts(el, GRAMMAR.root)) if el is not None else ""
