"""Lower one Linux device to statement trees: per interface, the tc batch, and the plan its wrappers print.

The plan (plan.py: HTB egress, edge.py: clsact ingress) holds every value as
a typed word; this module puts the words in tc's order, one statement per
batch line, each with the policy origin it comes from:

- the HTB root qdisc and root class: the interface (its speed);
- a leaf class and its qdisc: the service that owns the queue (its queue,
  buffer, AQM or drop profile);
- an egress filter: the DSCP, EXP or PCP value of the service it classifies (marks.py), or the interface's
  rewrite (the last filter, which sets the 802.1p priority of what no other filter matched);
- clsact and the ingress filters: the classifier rule, the trusted service,
  or the interface's trust.

A batch is flat (tc -batch has no blocks and no comments), so no statement
has children; what a reader needs to know about the numbers is in the
device script (wrapper.py, templates/qosc-tc.sh.j2), written from the same plan.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from qosc.model import Device, Policy
from qosc.targets.linux_tc.edge import Ingress, lower_ingress, new_indexes
from qosc.targets.linux_tc.plan import Egress, lower_egress
from qosc.targets.linux_tc.platform import LinuxTcPlatform
from qosc.targets.linux_tc.words import bitrate, classid, dev, handle, kws, minor, nbytes
from qosc.tree import At, Document, Statement, Word, integer


def stmt(*words: Word | str, origin: At | None = None) -> Statement:
    """A batch statement (flat: no children, no comment); plain strings are keywords, made once each."""
    return Statement(tuple(w for word in words for w in (kws(word) if isinstance(word, str) else (word,))),
                     origin=origin)

DIALECT = "tc"
ROOT = handle(1)
ROOT_CLASS = classid(1, 1)


@dataclass
class InterfacePlan:
    """One interface: its egress and ingress plans, and what the device script prints about them."""

    policy: str
    source: str
    device: str
    name: str
    role: str
    description: str | None
    egress: Egress
    ingress: Ingress
    kernel_kinds: tuple[str, ...]
    where: Any = None

    @property
    def has_ingress(self) -> bool:
        return bool(self.ingress.filters)

    @property
    def ingress_summary(self) -> list[str]:
        """One line per ingress tc prio: which rule, which family, how many filters of which kind."""
        rows: dict[int, list] = {}
        for f in self.ingress.filters:
            row = rows.setdefault(f.prio, [f.protocol, f.rule, 0, f.action_kinds, f.kind])
            row[2] += 1
        return [f"prio {prio} {proto}: {rule} ({n} {kind} filter{'s' if n > 1 else ''}): "
                f"{', '.join(kinds)}" for prio, (proto, rule, n, kinds, kind) in rows.items()]


def kernel_kinds(egress: Egress, ingress: Ingress) -> tuple[str, ...]:
    """The qdisc, classifier and action kinds the batch needs from the kernel, for the header."""
    found = ["htb"] + [leaf.qdisc_kind for leaf in egress.leaves]
    found += [k for f in egress.filters for k in (f.kind, *f.action_kinds)]
    if ingress.filters:
        found.append("clsact")
        for f in ingress.filters:
            found += [f.kind, *f.action_kinds]
    return tuple(dict.fromkeys(found))


def plan(policy: Policy, device: Device, platform: LinuxTcPlatform) -> list[InterfacePlan]:
    indexes = new_indexes(platform.police_index_base)
    plans = []
    egresses: dict[Any, Egress] = {}  # interfaces of equal settings get the same classes: lower them once
    for iface in device.interfaces:
        egress = egresses.get(iface.settings())
        if egress is None:
            egress = egresses[iface.settings()] = lower_egress(policy, iface, platform)
        ingress = lower_ingress(policy, device, iface, indexes)
        plans.append(InterfacePlan(
            policy=policy.name, source=policy.source, device=device.name, name=iface.name,
            role=iface.role.value, description=iface.description, egress=egress, ingress=ingress,
            kernel_kinds=kernel_kinds(egress, ingress), where=iface.where,
        ))
    return plans


def batch(policy: Policy, p: InterfacePlan, stem: str) -> Document:
    """The tc batch of one interface, as a statement tree (one statement a line)."""
    d = dev(p.name)
    link = At(p.where, "speed", "shape")
    out: list[Statement] = [
        stmt("qdisc", "add", "dev", d, "root", "handle", ROOT, "htb", "default", minor(int(p.egress.default_minor, 16)),
             origin=link),
        stmt("class", "add", "dev", d, "parent", ROOT, "classid", ROOT_CLASS, "htb", "rate", bitrate(p.egress.rate),
             "ceil", bitrate(p.egress.rate), "burst", nbytes(p.egress.burst), "cburst", nbytes(p.egress.burst),
             "quantum", nbytes(p.egress.quantum), origin=link),
    ]
    for c in p.egress.leaves:
        where = policy.service_map[c.service].where
        out.append(stmt("class", "add", "dev", d, "parent", ROOT_CLASS, "classid", classid(1, c.minor), "htb",
                        "rate", bitrate(c.rate), "ceil", bitrate(c.ceil), "burst", nbytes(c.burst), "cburst",
                        nbytes(c.cburst), "prio", integer(c.prio, "prio"), "quantum", nbytes(c.quantum),
                        origin=At(where, "queue")))
        out.append(stmt("qdisc", "add", "dev", d, "parent", classid(1, c.minor), "handle", handle(c.minor),
                        *c.qdisc_words, origin=At(where, "queue.aqm", "drop-profile", "queue.buffer", "queue")))
    for f in p.egress.filters:
        actions = [w for a in f.actions for w in (*kws("action"), *a)]
        owner = p.where if f.domain == "all" else policy.service_map[f.service].where
        fields = ("rewrite", "encapsulation") if f.domain == "all" else (f.domain,)
        out.append(stmt("filter", "add", "dev", d, "parent", ROOT, "protocol", f.protocol, "prio",
                        integer(f.prio, "prio"), f.kind, *f.match_words, "flowid", classid(1, f.minor), *actions,
                        origin=At(owner, *fields)))
    if p.has_ingress:
        out.append(stmt("qdisc", "add", "dev", d, "clsact", origin=At(p.where, "classifier", "trust", "role")))
        for g in p.ingress.filters:
            actions = [w for a in g.actions for w in (*kws("action"), *a)]
            out.append(stmt("filter", "add", "dev", d, "ingress", "protocol", g.protocol, "prio",
                            integer(g.prio, "prio"), g.kind, *g.match_words, *actions, origin=g.origin))
    return Document(stem, DIALECT, tuple(out), origin=At(p.where))
