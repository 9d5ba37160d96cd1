"""Lower a Cisco device's plan (the commands mqc.py / catalyst.py decide) to its statement tree (qosc.tree).

One Document per device, in the dialect of its platform (ios-gsr, ios-xe,
catalyst6500: each its own command table and grammar): global statements
(catalyst6500's `mls qos` maps), access lists, class-maps, policy-maps with
their classes, interfaces.  Every statement carries typed words (typed by
the slot they fill in the dialect's grammar: rates, sizes, DSCPs, names...),
the notes of its block as comment lines, and its origin in the policy (the
service, rule, policer or interface it comes from).  serialize.py writes it,
grammar.py checks it first.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from qosc.model import Policy
from qosc.targets.ios.grammar import GRAMMARS, ROOT, IosGrammar
from qosc.tree import At, Document, Origin, Statement


def _leaf(g: IosGrammar, mode: str, cmd: Sequence[Any], origin: Origin | None = None) -> Statement:
    """A command as a statement; a command that names its own origin (common.Cmd) keeps it; a command with a body
    of its own (marks.Block: the IOS XE police block) has its sub-commands in the mode it enters."""
    texts = [str(w) for w in cmd]
    body = getattr(cmd, "body", None)
    where = getattr(cmd, "origin", None) or origin
    if body is None:
        return Statement(g.words(mode, texts), None, (), where)
    inner = g.enters(mode, texts) or mode
    return Statement(g.words(mode, texts), tuple(_leaf(g, inner, c, where) for c in body), (), where)


def _block(g: IosGrammar, head: Sequence[Any], body: Sequence[Sequence[Any]], fallback: str,
           notes: Sequence[str] = (), origin: Origin | None = None, mode: str = ROOT) -> Statement:
    texts = [str(w) for w in head]
    inner = g.enters(mode, texts) or fallback
    return Statement(g.words(mode, texts), tuple(_leaf(g, inner, c) for c in body), tuple(notes), origin)


def build(ir: dict[str, Any], stem: str, origin: Origin | None = None, policy: Policy | None = None) -> Document:
    """The statement tree of a device's IR (the dicts of mqc.py / catalyst.py).

    A class comes from its class-map's origin (the service or classifier rule it matches), class-default from
    its service (`policy` names it); a command from its own origin where it has one (a policer, a share, a drop
    profile), else from its block."""
    g = GRAMMARS[ir["dialect"]]
    cm_origin = {cm["name"]: cm.get("origin") for cm in ir["class_maps"]}
    services = policy.service_map if policy is not None else {}
    out: list[Statement] = []
    out += [_leaf(g, ROOT, cmd, origin) for cmd in ir.get("globals", [])]
    for acl in ir["acls"]:
        out.append(_block(g, [*acl["kind"].split(), acl["name"]], acl["entries"], "acl", origin=acl.get("origin")))
    for cm in ir["class_maps"]:
        out.append(_block(g, ["class-map", cm["kind"], cm["name"]], cm["matches"], "class-map",
                          origin=cm.get("origin")))
    for pm in ir["policy_maps"]:
        head = ["policy-map", pm["name"]]
        inner = g.enters(ROOT, head) or "policy-map"
        classes = []
        for c in pm["classes"]:
            service = services.get(c.get("service") or "")
            where = cm_origin.get(c["name"]) or (At(service.where) if service is not None else None)
            classes.append(_block(g, ["class", c["name"]], c["commands"], "policy-map-class", c["notes"], where,
                                  mode=inner))
        out.append(Statement(g.words(ROOT, head), tuple(classes), (), pm.get("origin")))
    for iface in ir["interfaces"]:
        out.append(_block(g, ["interface", iface["name"]], iface["commands"], "interface", iface["notes"],
                          iface.get("origin")))
    return Document(stem, ir["dialect"], tuple(out), tuple(ir["header"]), origin)
