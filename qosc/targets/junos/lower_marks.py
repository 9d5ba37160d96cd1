"""JUNOS target, part 3b: the statements of the 3-bit marking domains (marking.py says what and why).

`classifiers exp|ieee-802.1|ieee-802.1ad NAME { forwarding-class FC { loss-priority LP code-points [ bits ]; } }`
and `rewrite-rules ... { forwarding-class FC { loss-priority LP code-point bits; } }` per table, and on the unit
`classifiers { exp NAME; ieee-802.1 NAME; }` and `rewrite-rules { exp NAME protocol mpls-any; ieee-802.1 NAME
vlan-tag outer; }` (Junos OS CoS User Guide: 'classifiers (Logical Interface)', 'rewrite-rules (Interfaces)';
the YANG-derived grammar checks every word).
"""

from __future__ import annotations

from qosc.model import Interface
from qosc.targets.junos.marking import Marks, Table
from qosc.targets.junos.plan import Plan
from qosc.tree import At, Statement, Word, group, kw, name, stmt


def _origins(plan: Plan) -> dict[str, At]:
    return {fc.name: At(fc.owner.where, "exp", "pcp") for fc in plan.classes}


def _codes(codes: list[str]) -> Word:
    return kw(codes[0]) if len(codes) == 1 else group(kw(c) for c in codes)


def classifier(plan: Plan, table: Table) -> Statement:
    order = {fc.name: fc.queue for fc in plan.classes}
    lps = list(plan.platform.loss_priorities)
    by_fc: dict[str, dict[str, list[str]]] = {}
    for code, (fc, lp) in table.classify.items():
        by_fc.setdefault(fc, {}).setdefault(lp, []).append(code)
    origin = _origins(plan)
    return stmt(kw(table.family), name(table.name), children=[
        stmt("forwarding-class", name(fc), origin=origin.get(fc), children=[
            stmt("loss-priority", kw(lp), "code-points", _codes(codes))
            for lp, codes in sorted(entries.items(), key=lambda kv: lps.index(kv[0]))])
        for fc, entries in sorted(by_fc.items(), key=lambda kv: order[kv[0]])])


def rewrite_rule(plan: Plan, table: Table) -> Statement:
    by_fc: dict[str, list[tuple[str, str]]] = {}
    for (fc, lp), code in table.rewrite.items():
        by_fc.setdefault(fc, []).append((lp, code))
    origin = _origins(plan)
    return stmt(kw(table.family), name(table.name), children=[
        stmt("forwarding-class", name(fc), origin=origin.get(fc), children=[
            stmt("loss-priority", kw(lp), "code-point", kw(code)) for lp, code in entries])
        for fc, entries in by_fc.items()])


def definitions(plan: Plan) -> tuple[list[Statement], list[Statement]]:
    """(classifiers, rewrite rules) of the device's 3-bit tables that its units bind."""
    marks: Marks = plan.marks
    tables = marks.tables()
    used = {(family, name) for i in plan.device.interfaces for family, name in marks.rewrites(plan, i)}
    bound = {(family, name) for i in plan.device.interfaces for family, name in marks.classifiers(plan, i)}
    return ([classifier(plan, t) for t in tables if (t.family, t.name) in bound],
            [rewrite_rule(plan, t) for t in tables if t.rewrite and (t.family, t.name) in used])


def unit_classifiers(plan: Plan, iface: Interface) -> list[Statement]:
    return [stmt(kw(family), name(table), origin=At(iface.where, "trust", "encapsulation"))
            for family, table in plan.marks.classifiers(plan, iface)]


def unit_rewrites(plan: Plan, iface: Interface) -> list[Statement]:
    out = []
    for family, table in plan.marks.rewrites(plan, iface):
        tail = ("protocol", "mpls-any") if family == "exp" else ("vlan-tag", "outer")
        out.append(stmt(kw(family), name(table), *tail, origin=At(iface.where, "rewrite", "impose", "encapsulation")))
    return out
