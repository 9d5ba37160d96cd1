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
the network policy's `ingress dscp` (the rest to its default-action), for IPv4
and IPv6; every code point leaves unchanged (network egress re-marks only
traffic from SAPs unless remark-trusted).  Per SAP: the classes are the
sap-egress queues (percent-rate), the classification the device's network
policy (the class a packet has when it reaches the SAP), the edge rules the
sap-ingress ip-criteria and ipv6-criteria entries (one rule per entry
description, values gathered), their mark the class's network egress code
point or in-remark, their envelope the policer.  Names a binding gives that
the configuration does not define are QOS174 warnings.
"""

from __future__ import annotations

from qosc.behaviour.model import Class, Curve, Device, Interface, Rule
from qosc.diagnostics import Diagnostic, Location, warning
from qosc.dscp import drop_precedence
from qosc.grammar.yang import Data
from qosc.targets.sros.grammar import YANG
from qosc.targets.sros.read.codes import code_of
from qosc.targets.sros.read.data import entries, num, one, val
from qosc.targets.sros.read.edge import sap_rules
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
        nets = entries(self.qos, "network")
        self.network = next(iter(nets.values()), None)
        if len(nets) > 1:
            used = [val(i, "qos", "network-policy") for r in self.root.get("router") for i in r.get("interface")]
            self.network = next((nets[u] for u in used if u in nets), self.network)
        self.classify, self.default = self._classify()

    def missing(self, what: str, name: str, where: Data) -> None:
        self.diagnostics.append(warning("QOS174", f"{where.where()} names {what} {name}, which is not defined",
                                        _loc(where)))

    def _classify(self) -> tuple[dict[int, tuple[str, str]], tuple[str, str] | None]:
        codes: dict[int, tuple[str, str]] = {}
        ingress = one(self.network, "ingress")
        for name, e in entries(ingress, "dscp").items():
            code = code_of(name)
            if code is not None:
                codes[code] = (val(e, "fc") or "be", val(e, "profile") or "out")
        default = None
        if ingress is not None:
            default = (val(ingress, "default-action", "fc") or "be", val(ingress, "default-action", "profile")
                       or "out")
        return codes, default

    def fc_of(self, code: int) -> tuple[str, str] | None:
        return self.classify.get(code, self.default)

    def marks(self) -> dict[str, int]:
        out = {}
        for fc, e in entries(one(self.network, "egress"), "fc").items():
            code = code_of(val(e, "dscp-in-profile") or "")
            if code is not None:
                out[fc] = code
        return out

    def _classes(self, policy: Data, slopes: Data | None, percent: bool) -> tuple[tuple[Class, ...],
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
            strict = expedited and cir == pir and pir < 100
            mbs = num(val(q, "mbs")) if not percent else None
            name = fcs[0]
            for fc in fcs:
                by_fc[fc] = name
            drop = self._drops(fcs, slopes, q if percent else None)
            out.append(Class(name, share=cir, strict=strict, priority=3 if expedited else 0,
                             cap=pir if pir < 100 else None, buffer=("percent", mbs) if mbs else None,
                             drop=drop, queue=int(qid), origin=_loc(q)))
        return tuple(out), by_fc

    def _drops(self, fcs: list[str], pool: Data | None, queue: Data | None) -> tuple[tuple[int, Curve], ...]:
        by_prec: dict[int, Curve | None] = {}
        if queue is not None:  # sap-egress wred-queue native: out-of-profile meets the low slope
            name = val(queue, "wred-queue", "policy")
            policy = entries(self.qos, "slope-policy").get(name or "")
            curve = slope_curve(one(policy, "low-slope")) if policy is not None else None
            return ((0, curve),) if curve is not None else ()
        for code in range(64):
            where = self.classify.get(code)
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

    def table(self, by_fc: dict[str, str]) -> tuple[str | None, ...]:
        out: list[str | None] = []
        for code in range(64):
            where = self.fc_of(code)
            out.append(by_fc.get(where[0]) if where is not None else None)
        return tuple(out)

    def network_interfaces(self) -> list[Interface]:
        ports = entries(self.root, "port")
        bound: dict[str, str] = {}
        out = []
        for router in self.root.get("router"):
            for name, i in entries(router, "interface").items():
                port = (val(i, "port") or "").split(":")[0]
                if val(i, "qos", "network-policy") is None or not port:
                    continue
                bound[port] = name
                out.append(self._network(f"{name}:{port}", ports.get(port), i))
        for port, p in ports.items():
            if port not in bound and val(p, "ethernet", "network", "egress", "queue-policy") is not None:
                out.append(self._network(port, p, p))
        return out

    def _network(self, name: str, port: Data | None, at: Data) -> Interface:
        policy_name = val(port, "ethernet", "network", "egress", "queue-policy")
        policy = entries(self.qos, "network-queue").get(policy_name or "")
        if policy_name and policy is None:
            self.missing("network-queue", policy_name, at)
        pool_name = val(one(port, "network", "egress"), "pool", "slope-policy")
        pool = entries(self.qos, "slope-policy").get(pool_name or "")
        classes, by_fc = self._classes(policy, pool, False) if policy is not None else ((), {})
        rate = num(val(port, "ethernet", "egress", "rate"))
        table = self.table(by_fc)
        keep = tuple(range(64))
        return Interface(name, 0, "core", int(rate * 1000) if rate else None, int(rate * 1000) if rate else None,
                         classes, (table, table), (keep, keep), True,
                         origin=_loc(at))

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
        classes, by_fc = self._classes(egress, None, True) if egress is not None else ((), {})
        in_name = val(sap, "ingress", "qos", "sap-ingress", "policy-name")
        ingress = entries(self.qos, "sap-ingress").get(in_name or "")
        if in_name and ingress is None:
            self.missing("sap-ingress", in_name, sap)
        rules: tuple[Rule, ...] = ()
        trust, unmatched = None, None
        if ingress is not None:
            rules, trust, unmatched = sap_rules(self, ingress)
        table = self.table(by_fc)
        none: tuple[int | None, ...] = (None,) * 64
        return Interface(label, 0, "edge", None, None, classes, (table, table), (none, none), trust, rules,
                         unmatched, origin=_loc(sap))


def interpret(document: Document, platform: object = None) -> tuple[Device, list[Diagnostic]]:
    r = Reading(document)
    interfaces = r.network_interfaces() + r.sap_interfaces()
    return Device(document.stem, getattr(platform, "name", None), tuple(interfaces)), r.diagnostics
