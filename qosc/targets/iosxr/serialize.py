"""Serializers of the iosxr dialect: IOS XR CLI (`<device>.cfg`) and the unified-model YANG XML (`<device>.xml`).

CLI: the layout `show running-config` gives, one space per level; a
class-map ends with ` end-class-map`, a policy-map with ` end-policy-map`,
every block with `!` at its own level; comments are `!` lines before their
statement (IOS XR ignores them when the file is loaded).  XML: the data tree
the same statements stand for, as the grammar's walk builds it from
Cisco-IOS-XR-um-policymap-classmap-cfg (26.2.1), Cisco-IOS-XR-um-interface-cfg and
Cisco-IOS-XR-um-if-service-policy-qos-cfg, list keys first, each top node
with its module's namespace: what a NETCONF <edit-config> carries.
"""

from __future__ import annotations

from collections.abc import Iterable
from xml.sax.saxutils import escape

from qosc.grammar.yang import Data
from qosc.targets.iosxr.grammar import GRAMMAR
from qosc.tree import Document, Rendered, Statement, Writer, origin_of

NS = "http://cisco.com/ns/yang/"
NAMESPACES = {"class-map": NS + "Cisco-IOS-XR-um-policymap-classmap-cfg",  # top nodes and the interface augment
              "policy-map": NS + "Cisco-IOS-XR-um-policymap-classmap-cfg",
              "interfaces": NS + "Cisco-IOS-XR-um-interface-cfg",
              "service-policy": NS + "Cisco-IOS-XR-um-if-service-policy-qos-cfg"}
END = {"class-map": "end-class-map", "policy-map": "end-policy-map"}


def cli(doc: Document) -> Rendered:
    out = Writer()
    for line in doc.header:
        out.line(f"!! {line}", doc.origin)

    def emit(items: Iterable[Statement], depth: int, path: tuple[Statement, ...]) -> None:
        pad = " " * depth
        for s in items:
            here = (*path, s)
            origin = origin_of(here)
            for line in s.comment:
                out.line(f"{pad}! {line}", origin)
            out.line(pad + " ".join(s.texts()), origin)
            if s.children is None:
                continue
            emit(s.children, depth + 1, here)
            if depth == 0 and s.keyword in END:
                out.line(f" {END[s.keyword]}", None)
            out.line(f"{pad}!", None)

    emit(doc.statements, 0, ())
    out.line("end", None)
    return out.done()


def _element(data: Data, depth: int, lines: list[str], namespace: str | None = None) -> None:
    pad = "  " * depth
    attr = f' xmlns="{namespace}"' if namespace else ""
    name = data.name
    if data.schema.kind == "leaf-list":
        lines.extend(f"{pad}<{name}{attr}>{escape(v)}</{name}>" for v in data.values)
        return
    if data.schema.kind in ("leaf", "empty"):
        value = data.value or ""
        lines.append(f"{pad}<{name}{attr}>{escape(value)}</{name}>" if value else f"{pad}<{name}{attr}/>")
        return
    if not data.keys and not data.children:  # a presence container (match-any)
        lines.append(f"{pad}<{name}{attr}/>")
        return
    lines.append(f"{pad}<{name}{attr}>")
    for key, value in zip(data.schema.keys, data.keys, strict=False):
        lines.append(f"{pad}  <{key}>{escape(value)}</{key}>")
    for child in data.children.values():
        augment = child.schema.path == "interfaces/interface/service-policy"  # the augment's own namespace
        _element(child, depth + 1, lines, NAMESPACES["service-policy"] if augment else None)
    lines.append(f"{pad}</{name}>")


def xml(doc: Document) -> Rendered:
    """The <config> of an <edit-config> (newest release's unified model)."""
    root = GRAMMAR.data(doc)
    lines = ['<config xmlns="urn:ietf:params:xml:ns:netconf:base:1.0">']
    for top in root.children.values():
        _element(top, 1, lines, NAMESPACES.get(top.name))
    lines.append("</config>")
    return Rendered("\n".join(lines) + "\n", (doc.origin,) * len(lines))
