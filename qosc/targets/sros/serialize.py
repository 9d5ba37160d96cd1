"""Serializers of the sros dialect: MD-CLI tree, MD-CLI flat lines and nokia-conf NETCONF XML, from one tree.

Tree (`<device>.cfg`, for MD-CLI `load merge`): the layout of `info` inside
`configure { ... }`, four spaces per level, `words {` ... `}` for a block.
Flat (`<device>.flat`, to paste or for `load merge` in flat form): one line per
leaf, its full path from `/configure`, as `info flat full-context` writes it;
an entry or container without leaves is a line of its own.  Strings (names,
descriptions) are double-quoted with `\\` and `"` escaped; numbers, keywords,
enumerations and port or SAP identifiers are bare, as MD-CLI shows them.
Comments are `#` lines (the header and each statement's reasons).  XML
(`<device>.xml`): the `<configure>` element of the nokia-conf data tree the
same statements stand for, with the namespace of the release's YANG, list keys
first (as NETCONF requires); built by the YANG grammar's walk, so the element
names are the schema's (`<sap-ingress-name>`), not guessed.
"""

from __future__ import annotations

from collections.abc import Iterable

from qosc.grammar.yang import Data
from qosc.targets.sros.grammar import GRAMMAR
from qosc.tree import Document, Kind, Rendered, Statement, Word, Writer, origin_of

NAMESPACE = "urn:nokia.com:sros:ns:yang:sr:conf"


def escape(text: str) -> str:
    """XML character data: &, < and > escaped (what xml.sax.saxutils.escape does, without importing urllib)."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def word(w: Word) -> str:
    if w.kind is Kind.GROUP:
        return "[" + " ".join(word(x) for x in w.words) + "]"
    if w.kind in (Kind.NAME, Kind.TEXT):
        return '"' + w.text.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return w.text


def words(s: Statement) -> str:
    return " ".join(word(w) for w in s.words)


def _header(out: Writer, doc: Document) -> None:
    for line in doc.header:
        out.line(f"# {line}", doc.origin)


def tree(doc: Document) -> Rendered:
    out = Writer()
    _header(out, doc)
    out.line("configure {", doc.origin)

    def emit(items: Iterable[Statement], depth: int, path: tuple[Statement, ...]) -> None:
        pad = "    " * depth
        for s in items:
            here = (*path, s)
            origin = origin_of(here)
            for line in s.comment:
                out.line(f"{pad}# {line}", origin)
            if s.children is None:
                out.line(f"{pad}{words(s)}", origin)
            else:
                out.line(f"{pad}{words(s)} {{", origin)
                emit(s.children, depth + 1, here)
                out.line(f"{pad}}}", None)

    emit(doc.statements, 1, ())
    out.line("}", None)
    return out.done()


def leaves(doc: Document) -> list[tuple[tuple[Statement, ...], tuple[str, ...]]]:
    """Every flat line of a document as (statement path, words after /configure), in order."""
    found: list[tuple[tuple[Statement, ...], tuple[str, ...]]] = []

    def visit(items: Iterable[Statement], path: tuple[Statement, ...], prefix: tuple[str, ...]) -> None:
        for s in items:
            here = (*path, s)
            line = prefix + tuple(word(w) for w in s.words)
            if s.children:
                visit(s.children, here, line)
            else:
                found.append((here, line))

    visit(doc.statements, (), ())
    return found


def flat(doc: Document) -> Rendered:
    out = Writer()
    _header(out, doc)
    for path, line in leaves(doc):
        for comment in path[-1].comment:
            out.line(f"# {comment}", origin_of(path))
        out.line("/configure " + " ".join(line), origin_of(path))
    return out.done()


def _comment(text: str) -> str:
    return "<!-- " + text.replace("--", "- -") + " -->"


def xml(doc: Document) -> Rendered:
    out = Writer()
    out.line('<?xml version="1.0" encoding="UTF-8"?>', None)
    for line in doc.header:
        out.line(_comment(line), doc.origin)
    root = GRAMMAR.data(doc)
    out.line(f'<configure xmlns="{NAMESPACE}">', doc.origin)
    _element_children(out, root, 1)
    out.line("</configure>", None)
    return out.done()


def _element_children(out: Writer, data: Data, depth: int) -> None:
    pad = "  " * depth
    schema = data.schema
    for key, value in zip(schema.keys, data.keys, strict=True):
        out.line(f"{pad}<{key}>{escape(value)}</{key}>", origin_of(data.origin) if data.origin else None)
    for child in data.children.values():
        origin = origin_of(child.origin) if child.origin else None
        tag = child.name
        if child.schema.kind == "empty":
            out.line(f"{pad}<{tag}/>", origin)
        elif child.schema.kind == "leaf":
            out.line(f"{pad}<{tag}>{escape(child.value or '')}</{tag}>", origin)
        elif child.schema.kind == "leaf-list":
            for v in child.values:
                out.line(f"{pad}<{tag}>{escape(v)}</{tag}>", origin)
        else:
            out.line(f"{pad}<{tag}>", origin)
            _element_children(out, child, depth + 1)
            out.line(f"{pad}</{tag}>", None)
