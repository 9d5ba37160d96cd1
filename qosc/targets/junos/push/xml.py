"""The qosc-managed JUNOS subset as a schema: text -> NETCONF XML, and the YANG module generated from it.

The RFC 6241 path (edit-config on candidate) needs XML that a server can
validate.  SCHEMA below describes the hierarchies qosc emits
(class-of-service, firewall policers and filters, interface filter
attachments) with JUNOS's XML conventions: a list entry's key is `<name>`, a
`[ a b ]` value is a leaf-list, a flag (`exact;`) is an empty leaf.  The same
SCHEMA generates yang/qosc-junos-qos.yang (qosc/targets/junos/push/yang.py; a test
keeps the two in sync), so netconfd checks every edit-config against exactly
what this converter produces.  `to_text()` turns the XML back into JUNOS text,
so a person reads the RFC 6241 path's diff in the usual form.

Statements the schema does not know are an error (ConversionError), never
silently dropped.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

from lxml import etree

from qosc.targets.junos.push.text import Stmt, parse, serialise

NAMESPACE = "urn:qosc:params:xml:ns:yang:qosc-junos-qos"
MODULE = "qosc-junos-qos"
NC_NS = "urn:ietf:params:xml:ns:netconf:base:1.0"


class ConversionError(ValueError):
    """A statement the qosc YANG subset does not model."""


@dataclass
class Node:
    kind: str  # container | list | leaf | leaf-list | empty
    children: dict[str, Node] = field(default_factory=dict)
    type: str = "string"  # YANG type body for leaves
    block: bool = False  # list written as `kw { KEY {...} KEY2; }`
    named_keys: tuple[str, ...] = ()  # list keyed by named leaves: `kw k1 v1 k2 v2`
    bare: str | None = None  # child leaf that takes a value given without its keyword


def C(bare: str | None = None, **children: Node) -> Node:
    return Node("container", _names(children), bare=bare)


def L(block: bool = False, named_keys: tuple[str, ...] = (), bare: str | None = None, **children: Node) -> Node:
    return Node("list", _names(children), block=block, named_keys=named_keys, bare=bare)


def F(type_: str = "string") -> Node:
    return Node("leaf", type=type_)


def LL(type_: str = "string") -> Node:
    return Node("leaf-list", type=type_)


E = Node("empty")


def _names(children: dict[str, Node]) -> dict[str, Node]:
    return {k.replace("_", "-"): v for k, v in children.items()}


PERCENT = "uint8 { range \"0..100\"; }"
LOSS = "enumeration { enum low; enum medium-low; enum medium-high; enum high; }"
LOSS_ANY = "enumeration { enum any; enum low; enum medium-low; enum medium-high; enum high; }"
PRIORITY = ("enumeration { enum low; enum medium-low; enum medium-high; enum high; enum strict-high; "
            "enum none; }")
# One node may stand in several places of the schema: only _normalise changes a node, and it is idempotent.
FAMILY_CLASSIFIER = L(import_=F(), forwarding_class=L(loss_priority=L(code_points=LL())))
FAMILY_REWRITE = L(forwarding_class=L(loss_priority=L(code_point=F())))
MATCH = C(source_address=L(block=True, bare=None, except_=E), destination_address=L(block=True, except_=E),
          address=L(block=True, except_=E), protocol=LL(), next_header=LL(), payload_protocol=LL(),
          source_port=LL(), destination_port=LL(), port=LL(), dscp=LL(), traffic_class=LL(),
          precedence=LL(), loss_priority=LL(), forwarding_class=LL())
ACTION = C(accept=E, discard=E, reject=E, count=F(), policer=F(), forwarding_class=F(), loss_priority=F(LOSS),
           dscp=F(), traffic_class=F(), next=F(),
           three_color_policer=C(single_rate=F(), two_rate=F()))
RATE = C(bare="rate", percent=F(PERCENT), rate=F(), remainder=E, exact=E, temporal=F())

SCHEMA = C(
    class_of_service=C(
        classifiers=C(dscp=FAMILY_CLASSIFIER, dscp_ipv6=FAMILY_CLASSIFIER, inet_precedence=FAMILY_CLASSIFIER),
        code_point_aliases=C(dscp=L(block=True, bare="bits"), dscp_ipv6=L(block=True, bare="bits"),
                             inet_precedence=L(block=True, bare="bits")),
        drop_profiles=L(block=True, fill_level=L(drop_probability=F(PERCENT)),
                        interpolate=C(fill_level=LL(PERCENT), drop_probability=LL(PERCENT))),
        forwarding_classes=C(class_=L(queue_num=F("uint8 { range \"0..15\"; }"), priority=F(LOSS)),
                             queue=L(bare="class-name", class_name=F(), priority=F(LOSS))),
        interfaces=L(block=True, scheduler_map=F(), shaping_rate=F(),
                     unit=L(scheduler_map=F(), shaping_rate=F(), forwarding_class=F(),
                            classifiers=C(dscp=L(), dscp_ipv6=L(), inet_precedence=L()),
                            rewrite_rules=C(dscp=L(), dscp_ipv6=L(), inet_precedence=L()))),
        rewrite_rules=C(dscp=FAMILY_REWRITE, dscp_ipv6=FAMILY_REWRITE, inet_precedence=FAMILY_REWRITE),
        scheduler_maps=L(block=True, forwarding_class=L(scheduler=F())),
        schedulers=L(block=True, transmit_rate=RATE, shaping_rate=RATE,
                     buffer_size=RATE, priority=F(PRIORITY), excess_priority=F(PRIORITY),
                     excess_rate=RATE, explicit_congestion_notification=E,
                     drop_profile_map=L(named_keys=("loss-priority", "protocol"), loss_priority=F(LOSS_ANY),
                                        protocol=F(), drop_profile=F())),
        host_outbound_traffic=C(forwarding_class=F(), dscp_code_point=F()),
    ),
    firewall=C(
        policer=L(filter_specific=E, logical_interface_policer=E,
                  if_exceeding=C(bandwidth_limit=F(), bandwidth_percent=F(PERCENT), burst_size_limit=F()),
                  then=C(discard=E, loss_priority=F(LOSS), forwarding_class=F())),
        three_color_policer=L(
            filter_specific=E, logical_interface_policer=E,
            single_rate=C(color_blind=E, color_aware=E, committed_information_rate=F(), committed_burst_size=F(),
                          excess_burst_size=F()),
            two_rate=C(color_blind=E, color_aware=E, committed_information_rate=F(), committed_burst_size=F(),
                       peak_information_rate=F(), peak_burst_size=F()),
            action=C(loss_priority=L(then=C(discard=E)))),
        family=L(filter=L(interface_specific=E, term=L(from_=MATCH, then=ACTION))),
    ),
    interfaces=L(block=True, unit=L(family=L(filter=C(input=F(), output=F(), input_list=LL(),
                                                      output_list=LL())))),
)


def _fix(name: str) -> str:
    return name.rstrip("-")


def _normalise(node: Node) -> Node:
    node.children = {_fix(k): _normalise(v) for k, v in node.children.items()}
    return node


_normalise(SCHEMA)


def _text(tok: str | list[str], where: str) -> str:
    if isinstance(tok, list):
        raise ConversionError(f"{where}: a [ list ] where one value is expected")
    return tok


def _sub(parent: etree._Element, name: str, text: str | None = None) -> etree._Element:
    el = etree.SubElement(parent, f"{{{NAMESPACE}}}{name}")
    if text is not None:
        el.text = text
    return el


def _fill(el: etree._Element, node: Node, words: list, children: list[Stmt] | None, where: str) -> None:
    i = 0
    while i < len(words):
        word = words[i]
        key = word if isinstance(word, str) else None
        child = node.children.get(key) if key else None
        if child is None or key is None:  # (a child implies a key)
            if node.bare and key is not None:
                _sub(el, node.bare, key)
                i += 1
                continue
            raise ConversionError(f"{where}: '{word}' is not in the qosc YANG subset")
        here = f"{where} {key}"
        if child.kind == "leaf":
            if i + 1 >= len(words):
                raise ConversionError(f"{here}: value missing")
            _sub(el, key, _text(words[i + 1], here))
            i += 2
        elif child.kind == "leaf-list":
            if i + 1 >= len(words):
                raise ConversionError(f"{here}: value missing")
            values = words[i + 1] if isinstance(words[i + 1], list) else [words[i + 1]]
            for v in values:
                _sub(el, key, v)
            i += 2
        elif child.kind == "empty":
            _sub(el, key)
            i += 1
        else:  # container or list: consumes the rest of the line (and the block)
            _stmt(el, key, child, words[i + 1:], children, here)
            return
    for st in children or []:
        _stmt(el, st.keyword, node.children.get(st.keyword) or _unknown(where, st), st.words[1:], st.children,
              f"{where} {st.keyword}")


def _unknown(where: str, st: Stmt) -> Node:
    raise ConversionError(f"{where}: '{st.keyword}' is not in the qosc YANG subset")


def _stmt(parent: etree._Element, key: str, node: Node, rest: list, children: list[Stmt] | None, where: str) -> None:
    if node.kind in ("leaf", "leaf-list", "empty"):
        if children is not None:
            raise ConversionError(f"{where}: a block where a value is expected")
        _fill(parent, Node("container", {key: node}), [key, *rest], None, where)
        return
    if node.kind == "container":
        _fill(_sub(parent, key), node, rest, children, where)
        return
    if node.block and not rest:  # kw { KEY ...; KEY { ... } }
        for entry in children or []:
            el = _sub(parent, key)
            _sub(el, "name", _text(entry.words[0], where))
            _fill(el, node, entry.words[1:], entry.children, f"{where} {entry.words[0]}")
        return
    el = _sub(parent, key)
    if node.named_keys:
        _fill(el, node, rest, children, where)
        return
    if not rest:
        raise ConversionError(f"{where}: list entry without a name")
    _sub(el, "name", _text(rest[0], where))
    _fill(el, node, rest[1:], children, f"{where} {rest[0]}")


OWNED_REPLACE = {("class-of-service",), ("firewall", "policer"), ("firewall", "three-color-policer"),
                 ("firewall", "family", "filter")}


def to_xml(text: str, replace_owned: bool = True) -> etree._Element:
    """The generated JUNOS text as `<configuration xmlns=qosc>`; owned hierarchies get operation="replace"."""
    root = etree.Element(f"{{{NAMESPACE}}}configuration", nsmap={None: NAMESPACE})
    _fill(root, SCHEMA, [], parse(text), "")
    if replace_owned:
        for el in root.iter():
            path = tuple(etree.QName(a).localname for a in reversed(list(el.iterancestors())))[1:]
            path += (etree.QName(el).localname,)
            if path in OWNED_REPLACE:
                el.set(f"{{{NC_NS}}}operation", "replace")
    return root


def _local(el: etree._Element) -> str:
    return etree.QName(el).localname


def to_stmts(el: etree._Element, node: Node = SCHEMA) -> list[Stmt]:
    """XML of the subset back to JUNOS statements (for diffs a person reads)."""
    out: list[Stmt] = []
    children = [c for c in el if isinstance(c.tag, str)]
    i = 0
    while i < len(children):
        child, name = children[i], _local(children[i])
        sub = node.children.get(name) or (Node("leaf") if name == node.bare else Node("container"))
        if sub.kind == "leaf-list" or (sub.kind == "list" and sub.block):
            group = [child]
            while i + 1 < len(children) and _local(children[i + 1]) == name:
                i += 1
                group.append(children[i])
            if sub.kind == "leaf-list":
                values = [g.text or "" for g in group]
                out.append(Stmt([name, values if len(values) > 1 else values[0]]))
            else:
                out.append(Stmt([name], [_entry(g, sub, []) for g in group]))
        elif sub.kind == "leaf":
            out.append(Stmt([name, child.text or ""]) if name != node.bare else Stmt([child.text or ""]))
        elif sub.kind == "empty":
            out.append(Stmt([name]))
        elif sub.kind == "container":
            inner = to_stmts(child, sub)
            out.append(Stmt([name, *inner[0].words]) if _one_leaf(child, sub, inner) else Stmt([name], inner))
        elif sub.named_keys:
            keys = [w for k in sub.named_keys for w in (k, child.findtext(f"{{*}}{k}") or "")]
            rest = [c for c in child if isinstance(c.tag, str) and _local(c) not in sub.named_keys]
            out.append(_entry_from(name, keys, rest, sub))
        else:
            out.append(_entry(child, sub, [name]))
        i += 1
    return out


def _entry(el: etree._Element, node: Node, prefix: list) -> Stmt:
    rest = [c for c in el if isinstance(c.tag, str) and _local(c) != "name"]
    return _entry_from(None, [*prefix, el.findtext("{*}name") or ""], rest, node)


def _entry_from(name: str | None, words: list, rest: list, node: Node) -> Stmt:
    holder = etree.Element("x")
    holder.extend(copy.deepcopy(c) for c in rest)
    children = to_stmts(holder, node)
    head = ([name] if name else []) + words
    if _one_leaf(holder, node, children):  # one value: JUNOS's one-line form
        return Stmt(head + children[0].words)
    return Stmt(head, children or None)


def _one_leaf(holder: etree._Element, node: Node, children: list[Stmt]) -> bool:
    names = {_local(c) for c in holder if isinstance(c.tag, str)}
    if len(children) != 1 or len(names) != 1:
        return False
    name = names.pop()
    kind = node.children[name].kind if name in node.children else ("leaf" if name == node.bare else "")
    return kind in ("leaf", "leaf-list", "empty")


def to_text(el: etree._Element | None) -> str:
    """The subset as JUNOS configuration text ('' for none)."""
    return serialise(to_stmts(el)) if el is not None else ""
