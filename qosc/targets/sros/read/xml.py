"""nokia-conf XML (a `<configure>` element, alone or in a NETCONF `<data>` or `<config>`) into leaf lines.

Each element is a schema node of the facts: a list entry's key elements
become the words after its name (the first by value, the others by name and
value), a leaf its value, a container its name; elements the facts do not
hold are kept by their tag and text.  Each line's origin is its element's line.
Parsed with lxml without entities, DTDs or network access (the push extra).
"""

from __future__ import annotations

from typing import Any

from qosc.diagnostics import Location
from qosc.grammar.yang import SchemaNode
from qosc.targets.sros.grammar import YANG
from qosc.targets.sros.read.words import fail, type_line
from qosc.tree import Statement


def parse_xml(text: str, source: str) -> tuple[Statement, ...]:
    try:
        from lxml import etree
    except ImportError as exc:  # lxml comes with the push extra
        raise fail(f"reading XML needs lxml ({exc})", Location(source, 1, 1)) from None
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False,
                             remove_comments=True, remove_pis=True)
    try:
        root = etree.fromstring(text.encode("utf-8"), parser)
    except etree.XMLSyntaxError as exc:
        line, col = exc.position or (1, 1)
        raise fail(str(exc.msg or exc), Location(source, max(line, 1), max(col, 1))) from None
    conf = root if etree.QName(root).localname == "configure" else next(
        (e for e in root.iter() if isinstance(e.tag, str) and etree.QName(e).localname == "configure"), None)
    if conf is None:
        raise fail(f"no <configure> in <{etree.QName(root).localname}>", Location(source, root.sourceline or 1, 1))
    out: list[Statement] = []
    _children(conf, YANG[0].root, [], out, source)
    return tuple(out)


def _local(e: Any) -> str:
    tag = e.tag
    return tag.rpartition("}")[2] if isinstance(tag, str) else ""


def _children(element: Any, node: SchemaNode | None, prefix: list[str], out: list[Statement], source: str) -> None:
    for child in element:
        if not isinstance(child.tag, str):
            continue
        tag = _local(child)
        where = Location(source, child.sourceline or 1, 1)
        schema = node.children.get(tag) if node is not None else None
        if schema is not None and tag in (node.keys if node is not None else ()):
            continue  # a key: already part of the entry's words
        if schema is None and len(child) == 0:
            out.append(type_line([*prefix, tag, *([child.text.strip()] if (child.text or "").strip() else [])],
                                 where))
            continue
        if schema is not None and schema.kind in ("leaf", "leaf-list", "empty"):
            value = [] if schema.kind == "empty" else [child.text or ""]
            out.append(type_line([*prefix, tag, *value], where))
            continue
        words = [*prefix, tag]
        for n, key in enumerate(schema.keys if schema is not None else ()):
            element_key = next((k for k in child if isinstance(k.tag, str) and _local(k) == key), None)
            if n:
                words.append(key)
            words.append((element_key.text or "") if element_key is not None else "")
        before = len(out)
        _children(child, schema, words, out, source)
        if len(out) == before:
            out.append(type_line(words, where))  # an entry or container without leaves is a line of its own
