"""What an SR OS configuration does with packets: its nokia-conf QoS policies and their bindings as behaviour.

Reads the data tree the YANG facts make of the parsed statements (so the
three forms read alike).  Interfaces, named as the policy names them
(ports.py): a Base router interface with a network QoS policy and a port is
`IF:PORT`, a network port with a network-queue policy and no such interface
`PORT`, a SAP with QoS policies `vpls:SERVICE:SAP` or `KIND:SERVICE:IF:SAP`.

Per network interface: the classes are the network-queue policy's queues
(named by their first forwarding class; CIR the share, PIR below 100 the cap,
expedited priority 3 and best-effort 0, expedited with CIR = PIR below 100
strict, MBS the buffer percentage), each class's drop curve per AF drop
precedence the slope of the port's egress pool that its code points' profile
meets (start-avg, max-avg, max-prob as a RED ramp); the 64 code points through
the `ingress dscp` of the interface's own network policy (the rest to its
default-action; a policy with lsp-exp or dot1p entries and no dscp entry does
not classify DSCP), for IPv4 and IPv6; every code point leaves unchanged
(network egress re-marks only traffic from SAPs unless remark-trusted); the
EXP and PCP values and the egress marks of its network policy (read/marks.py).
A port without a router interface reads with the device's first network
policy.  Per SAP: the classes are the sap-egress queues (percent-rate), the
classification the device's first network policy (the class a packet has
when it reaches the SAP), the edge rules the sap-ingress ip-criteria and
ipv6-criteria entries (one rule per entry description, values gathered),
their mark the class's network egress code point or in-remark, their envelope
the policer; its dot1p and lsp-exp entries, its sap-egress dot1p marks and
the EXP the device's router interfaces impose (read/marks.py).  Names a
binding gives that the configuration does not define are QOS174 warnings.
"""

from __future__ import annotations

from qosc.behaviour.model import Class, Curve, Device, Interface, Rule
from qosc.diagnostics import Diagnostic, Location, warning
from qosc.dscp import drop_precedence
from qosc.grammar.yang import Data
from qosc.targets.sros.grammar import YANG
from qosc.targets.sros.read.data import entries, num, one, val
from qosc.targets.sros.read.edge import sap_rules
from qosc.targets.sros.read.marks import Net, imposing, sap_classified, sap_pcp_marks
from qosc.targets.sros.slopes import line_curve
from qosc.tree import Document, locate

PROFILE_SLOPE = {"inplus": "highplus-slope", "in": "high-slope", "out": "low-slope", "exceed": "exceed-slope"}


def _loc(d: Data) -> Location | None:
    """Where a data node was read (the statement it came from)."""
    return locate(d.origin[-1].origin) if d.origin else None


def slope_curve(slope: Data | None) -> Curve | None:
    if slope is None or val(slope, "admin-state") != "enable":
        return None
    lo, hi, prob = (num(val(slope, k)) or 0.0 for k in ("start-avg", "max-avg", "max-prob"))
    return line_curve(lo, hi, prob)


class Reading:
    def __init__(self, document: Document) -> None:
        self.root, _ = YANG[0].walk(document)
        self.qos = one(self.root, "qos")
        self.diagnostics: list[Diagnostic] = []
        self.nets = {name: Net(d) for name, d in entries(self.qos, "network").items()}
        self.routers: list[tuple[str, str, Data, Net | None]] = []
        """(router interface, its port, its data, its network policy) of every Base router interface that names
        a network policy."""
        for router in self.root.get("router"):
            for name, i in entries(router, "interface").items():
                policy = val(i, "qos", "network-policy")
                if policy is None:
                    continue
                if policy not in self.nets:
                    self.missing("network", policy, i)
                self.routers.append((name, val(i, "port") or "", i, self.nets.get(policy)))
        used = [net for *_, net in self.routers if net is not None]
        self.net = used[0] if used else next(iter(self.nets.values()), Net(None))
        """The network policy that classifies what reaches a SAP (the first one applied)."""
        marking = [net for net in used if net.dscp_marks]
        self.dscp_marks = marking[0].dscp_marks if marking else self.net.dscp_marks
        where = _loc(self.routers[0][2]) if self.routers else None
        self.imposed = imposing([(n, net) for n, _, _, net in self.routers if net is not None], self.diagnostics,
                                where)

    def missing(self, what: str, name: str, where: Data) -> None:
        self.diagnostics.append(warning("QOS174", f"{where.where()} names {what} {name}, which is not defined",
                                        _loc(where)))

    def marks(self) -> dict[str, int]:
        """Forwarding class -> the DSCP network egress marks it with (traffic from SAPs)."""
        return self.dscp_marks

    def _classes(self, policy: Data, slopes: Data | None, percent: bool, net: Net) -> tuple[tuple[Class, ...],
                                                                                           dict[str, str]]:
        fc_queue = {fc: val(e, "queue") for fc, e in entries(policy, "fc").items()}
        out, by_fc = [], {}
        for qid, q in entries(policy, "queue").items():
            fcs = [fc for fc, n in fc_queue.items() if n == qid]
            if not fcs:
                continue
            rate = one(q, "percent-rate" if percent else "rate")
            cir, pir = num(val(rate, "cir")) or 0.0, num(val(rate, "pir")) or 100.0
            qtype = val(q, "queue-type") or "auto-expedited"
            expedited = qtype in ("expedited", "auto-expedited")
            strict = expedited and cir == pir  # CIR = PIR = 100%: strict and uncapped (rate-cap: none)
            mbs = num(val(q, "mbs")) if not percent else None
            name = fcs[0]
            for fc in fcs:
                by_fc[fc] = name
            drop = self._drops(fcs, slopes, q if percent else None, net)
            out.append(Class(name, share=cir, strict=strict, priority=3 if expedited else 0,
                             cap=pir if pir < 100 else None, buffer=("percent", mbs) if mbs else None,
                             drop=drop, queue=int(qid), origin=_loc(q)))
        return tuple(out), by_fc

    def _drops(self, fcs: list[str], pool: Data | None, queue: Data | None, net: Net
               ) -> tuple[tuple[int, Curve], ...]:
        by_prec: dict[int, Curve | None] = {}
        if queue is not None:  # sap-egress wred-queue native: out-of-profile meets the low slope
            name = val(queue, "wred-queue", "policy")
            policy = entries(self.qos, "slope-policy").get(name or "")
            curve = slope_curve(one(policy, "low-slope")) if policy is not None else None
            return ((0, curve),) if curve is not None else ()
        for code in range(64):
            where = net.dscp.get(code)
            if where is None or where[0] not in fcs:
                continue
            slope = one(pool, PROFILE_SLOPE.get(where[1], "low-slope")) if pool is not None else None
            by_prec.setdefault(drop_precedence(code), slope_curve(slope))
        curves = {p: c for p, c in by_prec.items() if c is not None}
        if not curves:
            return ()
        if len(set(by_prec.values())) == 1:
            return ((0, next(iter(curves.values()))),)
        return tuple(sorted(curves.items()))

    @staticmethod
    def table(net: Net, by_fc: dict[str, str]) -> tuple[str | None, ...]:
        out: list[str | None] = []
        for code in range(64):
            where = net.fc_of(code)
            out.append(by_fc.get(where[0]) if where is not None else None)
        return tuple(out)

    def network_interfaces(self) -> list[Interface]:
        ports = entries(self.root, "port")
        bound: set[str] = set()
        out = []
        for name, port_vlan, i, net in self.routers:
            port = port_vlan.split(":")[0]
            if not port:
                continue
            bound.add(port)
            out.append(self._network(f"{name}:{port_vlan}", ports.get(port), i, net or Net(None)))
        for port, p in ports.items():
            if port not in bound and val(p, "ethernet", "network", "egress", "queue-policy") is not None:
                # no router interface named: what reaches the port is classified as the device's first policy says
                out.append(self._network(port, p, p, self.net))
        return out

    def _network(self, name: str, port: Data | None, at: Data, net: Net) -> Interface:
        policy_name = val(port, "ethernet", "network", "egress", "queue-policy")
        policy = entries(self.qos, "network-queue").get(policy_name or "")
        if policy_name and policy is None:
            self.missing("network-queue", policy_name, at)
        pool_name = val(one(port, "network", "egress"), "pool", "slope-policy")
        pool = entries(self.qos, "slope-policy").get(pool_name or "")
        classes, by_fc = self._classes(policy, pool, False, net) if policy is not None else ((), {})
        rate = num(val(port, "ethernet", "egress", "rate"))
        # a policy that classifies on EXP or dot1p and lists no DSCP does not classify on DSCP
        dscp = not (not net.dscp and any(net.three.values()))
        none: tuple[str | None, ...] = (None,) * 64
        table = self.table(net, by_fc) if dscp else none
        keep = tuple(range(64))
        marks = sorted(net.marks("exp", by_fc) + net.marks("pcp", by_fc))
        return Interface(name, 0, "core", int(rate * 1000) if rate else None, int(rate * 1000) if rate else None,
                         classes, (table, table), (keep, keep), True, classify_exp=net.classified("exp", by_fc),
                         classify_pcp=net.classified("pcp", by_fc), marks=tuple(marks), origin=_loc(at))

    def sap_interfaces(self) -> list[Interface]:
        out = []
        service = one(self.root, "service")
        for kind in ("vpls", "vprn", "ies"):
            for svc, s in entries(service, kind).items():
                holders = [(None, s)] if kind == "vpls" else list(entries(s, "interface").items())
                for ifname, holder in holders:
                    for sap, d in entries(holder, "sap").items():
                        label = f"{kind}:{svc}:" + (f"{ifname}:" if ifname else "") + sap
                        out.append(self._sap(label, d))
        return out

    def _sap(self, label: str, sap: Data) -> Interface:
        eg_name = val(sap, "egress", "qos", "sap-egress", "policy-name")
        egress = entries(self.qos, "sap-egress").get(eg_name or "")
        if eg_name and egress is None:
            self.missing("sap-egress", eg_name, sap)
        classes, by_fc = self._classes(egress, None, True, self.net) if egress is not None else ((), {})
        in_name = val(sap, "ingress", "qos", "sap-ingress", "policy-name")
        ingress = entries(self.qos, "sap-ingress").get(in_name or "")
        if in_name and ingress is None:
            self.missing("sap-ingress", in_name, sap)
        rules: tuple[Rule, ...] = ()
        trust, unmatched = None, None
        if ingress is not None:
            rules, trust, unmatched = sap_rules(self, ingress)
        table = self.table(self.net, by_fc)
        none: tuple[int | None, ...] = (None,) * 64
        marks = sap_pcp_marks(egress, by_fc)
        if self.imposed is not None:
            marks += self.imposed.marks("exp", by_fc, "impose")
        return Interface(label, 0, "edge", None, None, classes, (table, table), (none, none), trust, rules,
                         unmatched, classify_exp=sap_classified(ingress, "exp", by_fc),
                         classify_pcp=sap_classified(ingress, "pcp", by_fc), marks=tuple(sorted(marks)),
                         origin=_loc(sap))


def interpret(document: Document, platform: object = None) -> tuple[Device, list[Diagnostic]]:
    r = Reading(document)
    interfaces = r.network_interfaces() + r.sap_interfaces()
    return Device(document.stem, getattr(platform, "name", None), tuple(interfaces)), r.diagnostics
