"""What an IOS MQC configuration does with packets: output policy-maps as classes, input ones as edge rules.

Per interface with a service-policy: the output policy's classes in order
(a code point belongs to the first class whose class-map matches it, the
rest to class-default); shares from bandwidth percent, kbps (of the
interface rate: its `bandwidth` statement, else the speed its type runs at),
remaining percent or remaining ratio (of what priority, capped by its rate
or its policer, and bandwidth leave; a ratio is its part of the sum of the
policy-map's ratios);
priority classes strict, their rate their cap and share; WRED thresholds in
packets of the queue limit as drop curves per drop precedence (fill % to
0.1; where classic IOS takes no queue-limit beside WRED, of the queue
`_reference` infers); a queue-limit as a buffer in percent of the
platform's packet pool (qosc's convention);
`set dscp` in an output class as the rewrite.
The input policy's classes are the edge rules (access-list matches, set
dscp, police; `police aggregate` the named aggregate's, one policer shared by
every class that names it), class-default's `set dscp` the mark of unmatched
traffic.
Dangling class-map, policy-map and access-list names are QOS174.

Interface rates by type: Cisco IOS Interface and Hardware Component
Configuration Guide (IOS XE 17), "bandwidth" default = the interface speed.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from qosc.behaviour.model import Class, Curve, Device, Envelope, Interface, Rule
from qosc.configtext import guard
from qosc.diagnostics import Diagnostic, Location, warning
from qosc.dscp import drop_precedence
from qosc.targets.ios.read.acl import Match
from qosc.targets.ios.read.inventory import seen as seen_objects
from qosc.targets.ios.read.inventory import uses as used_objects
from qosc.targets.ios.read.mqc import Config, PolicyClass, code, collect
from qosc.targets.ios.read.pfc import classes as pfc_classes
from qosc.targets.ios.read.pfc import is_pfc, port_type
from qosc.tree import Document

_SPEEDS = (("HundredGigE", 10**11), ("FortyGigabitEthernet", 4 * 10**10), ("TenGigabitEthernet", 10**10),
           ("GigabitEthernet", 10**9), ("FastEthernet", 10**8), ("Ethernet", 10**7))
DEFAULT_QUEUE_LIMIT = 64


def _rate(name: str, lines: list[tuple[tuple[str, ...], Location | None]]) -> int | None:
    for w, _ in lines:
        if w[:1] == ("bandwidth",) and len(w) == 2 and w[1].isdigit():
            return int(w[1]) * 1000
    return next((bps for prefix, bps in _SPEEDS if name.startswith(prefix)), None)


def _pct(bps: float, rate: int | None) -> float | None:
    return None if rate is None else round(bps * 100.0 / rate, 6)


def _action(words: tuple[str, ...], i: int) -> str:
    a = words[i + 1] if i + 1 < len(words) else "transmit"
    if a in ("set-dscp-transmit", "set-ip-dscp-transmit") and i + 2 < len(words):
        return f"dscp {code(words[i + 2])}"
    return {"drop": "drop", "transmit": "transmit"}.get(a, a)


def envelope(w: tuple[str, ...], mark: int | None, policed: dict[str, dict[int, int]]) -> Envelope:
    """A `police` line: `police cir X bc Y [pir P be Z]` or `police X [Y [Z]] [pir P]`, with actions."""
    values: dict[str, int] = {}
    plain: list[int] = []
    i = 1
    while i < len(w) and not w[i].endswith("-action"):
        if w[i] in ("cir", "bc", "pir", "be") and i + 1 < len(w) and w[i + 1].isdigit():
            values[w[i]] = int(w[i + 1])
            i += 2
        elif w[i].isdigit():
            plain.append(int(w[i]))
            i += 1
        else:
            i += 1
    cir = values.get("cir", plain[0] if plain else 0)
    bc = values.get("bc", plain[1] if len(plain) > 1 else 0)
    pir = values.get("pir")
    be = values.get("be", plain[2] if len(plain) > 2 else None)
    acts = {w[j]: _action(w, j) for j in range(len(w)) if w[j].endswith("-action")}

    def norm(a: str | None, which: str) -> str | None:
        if a == "policed-dscp-transmit" and mark is not None:
            # without PIR the PFC marks exceeding traffic down through the max-burst map too (12.2SX guide)
            got = policed.get("max-burst" if which == "violate" or pir is None else "normal-burst", {}).get(mark)
            return f"dscp {got}" if got is not None else "transmit"
        return "transmit" if mark is not None and a == f"dscp {mark}" else a
    return Envelope(cir, bc, pir, be if pir else None, None if pir else be,
                    norm(acts.get("conform-action", "transmit"), "conform") or "transmit",
                    norm(acts.get("exceed-action", "drop"), "exceed") or "drop", norm(acts.get("violate-action"),
                                                                                     "violate"))


def _reference(limit: int | None, share: float | None, wred: list[tuple[str, int, int, int, int]],
               queue: Any) -> int:
    """The queue, in packets, WRED thresholds are a fill level of: the class's queue-limit; where the platform
    takes no queue-limit with WRED (classic IOS: the thresholds bound the queue themselves), the default limit
    when the thresholds fit in it, else the class's share of the port's packet pool (qosc's convention of a
    buffer equal to the share, GÉANT's choice), else the highest maximum threshold (the queue WRED bounds)."""
    if limit is not None:
        return limit
    default = getattr(queue, "default_limit", DEFAULT_QUEUE_LIMIT)
    top = max((high for _, _, _, high, _ in wred), default=0)
    if top <= default:
        return default
    pool = getattr(queue, "port_buffer_packets", None)
    if share is not None and pool:
        by_share = max(1, round(share * pool / 100))
        if top <= by_share:
            return by_share
    return top


def _class(c: Config, pc: PolicyClass, rate: int | None, fixed: float, queue: Any = None, ratios: int = 0) -> Class:
    share = cap = cap_rate = ceiling = None
    strict = False
    limit: int | None = None
    red: dict[int, Curve] = {}
    wred: list[tuple[str, int, int, int, int]] = []
    for w, _ in pc.lines:
        if w[:2] == ("bandwidth", "percent"):
            share = float(w[2])
        elif w[:3] == ("bandwidth", "remaining", "percent"):
            share = round(max(100.0 - fixed, 0.0) * float(w[3]) / 100.0, 6)
        elif w[:3] == ("bandwidth", "remaining", "ratio") and len(w) > 3 and w[3].isdigit() and ratios:
            share = round(max(100.0 - fixed, 0.0) * int(w[3]) / ratios, 6)
        elif w[:1] == ("bandwidth",) and len(w) == 2:
            share = _pct(int(w[1]) * 1000, rate)
        elif w[:1] == ("priority",):
            strict = True
            if w[1:2] == ("percent",):
                cap = share = float(w[2])
            elif len(w) >= 2 and w[1].isdigit():
                cap = share = _pct(int(w[1]) * 1000, rate)
        elif w[:1] == ("queue-limit",) and len(w) >= 2:
            limit = int(w[1])
        elif w[:2] == ("shape", "average") and len(w) >= 3 and w[2].isdigit() and not strict:
            ceiling = _pct(int(w[2]), rate)  # a bandwidth class's maximum (shares.py): its ceiling
        elif w[:1] == ("random-detect",) and len(w) >= 6 and w[1] in ("dscp", "precedence"):
            wred.append((w[1], code(w[2]) if w[1] == "dscp" else int(w[2]), int(w[3]), int(w[4]), int(w[5])))
    reference = _reference(limit, share, wred, queue)
    for kind, value, low, high, denom in wred:
        curve = Curve(((round(low * 100.0 / reference, 1), 0.0), (round(high * 100.0 / reference, 1), 100.0 / denom)),
                      True, 100.0)
        red.setdefault(drop_precedence(value) if kind == "dscp" else 0, curve)
    if len(set(red.values())) == 1 and red:
        red = {0: next(iter(red.values()))}
    elif red and 0 not in red:
        for level in (1, 2, 3):
            red.setdefault(level, red[min(red)])
    police = next((w for w, _ in pc.lines if w[:1] == ("police",)), None)
    if strict and share is None and police is not None:  # `priority` with no rate: its policer is its rate
        cap = share = _pct(envelope(police, None, {}).cir, rate)
        cap_rate = envelope(police, None, {}).cir if cap is None else None
    return Class(pc.name, share=share, strict=strict, cap=cap, cap_rate=cap_rate, ceiling=ceiling,
                 buffer=_buffer(limit if limit is not None or not wred else reference, queue),
                 drop=tuple(sorted(red.items())), origin=pc.origin)


def _buffer(packets: int | None, queue: Any) -> tuple[str, float] | None:
    """A queue of `packets` as the policy says buffers: percent of the port's packet pool where the platform
    has one (qosc's convention), else packets; None for the default queue."""
    if packets is None:
        return None
    pool = getattr(queue, "port_buffer_packets", None)
    return ("percent", round(packets * 100.0 / pool, 6)) if pool else ("packets", float(packets))


def _fixed(pcs: list[PolicyClass], rate: int | None) -> float:
    """The percent of the interface `bandwidth` and `priority` reserve: what `bandwidth remaining` shares are of
    the rest of.  A `priority` class without a rate is reserved its policer's CIR (its hard cap)."""
    total = 0.0
    for pc in pcs:
        for w, _ in pc.lines:
            if w[:2] in (("bandwidth", "percent"), ("priority", "percent")):
                total += float(w[2])
            elif w[:1] in (("bandwidth",), ("priority",)) and len(w) == 2 and w[1].isdigit():
                total += _pct(int(w[1]) * 1000, rate) or 0.0
            elif w == ("priority",):
                police = next((x for x, _ in pc.lines if x[:1] == ("police",) and x[1:2] != ("aggregate",)), None)
                total += (_pct(envelope(police, None, {}).cir, rate) or 0.0) if police else 0.0
    return total


def _ratios(pcs: list[PolicyClass]) -> int:
    """The sum of the policy-map's `bandwidth remaining ratio`s: each class gets its ratio of that sum of what
    `bandwidth` and `priority` leave (IOS XE; Cisco-IOS-XE-policy: bandwidth remaining ratio, 'ratio for sharing
    excess bandwidth')."""
    return sum(int(w[3]) for pc in pcs for w, _ in pc.lines
               if w[:3] == ("bandwidth", "remaining", "ratio") and len(w) > 3 and w[3].isdigit())


Output = tuple[tuple[Class, ...], list[list[str | None]], list[list[int | None]]]


def _output(c: Config, name: str, policy: str, rate: int | None, queue: Any = None) -> Output:
    pcs = c.policies.get(policy, [])
    if not any(pc.name == "class-default" for pc in pcs):  # every policy-map ends in class-default
        pcs = [*pcs, PolicyClass("class-default", [], c.where.get(("policy-map", policy)))]
    fixed, ratios = _fixed(pcs, rate), _ratios(pcs)
    classes: list[Class] = []
    read: list[PolicyClass] = []
    for pc in pcs:  # a class with a value qosc cannot read is left out (named): its traffic is class-default's
        with guard(c.diagnostics, f"policy-map {policy} class {pc.name}", pc.origin):
            classes.append(_class(c, pc, rate, fixed, queue, ratios))
            read.append(pc)
    classify: list[list[str | None]] = [[None] * 64, [None] * 64]
    rewrite: list[list[int | None]] = [list(range(64)), list(range(64))]
    for pc in read:
        with guard(c.diagnostics, f"policy-map {policy} class {pc.name}", pc.origin):
            _classify(c, policy, pc, classify, rewrite)
    return tuple(classes), classify, rewrite


def _classify(c: Config, policy: str, pc: PolicyClass, classify: list[list[str | None]],
              rewrite: list[list[int | None]]) -> None:
    """The code points an output class takes (those no class before it took) and what it marks them with."""
    cm = c.class_maps.get(pc.name)
    if pc.name == "class-default":
        sets: tuple[set[int], set[int]] = (set(range(64)), set(range(64)))
    elif cm is None:
        c.diagnostics.append(warning("QOS174", f"policy-map {policy} names class-map {pc.name}, which is not "
                                     "defined", pc.origin))
        return
    elif cm.all and (cm.acls or cm.other):
        c.diagnostics.append(warning("QOS172", f"class-map match-all {pc.name} matches more than code points "
                                     f"({', '.join(cm.acls + cm.other)[:100]}): no code point is classified by it "
                                     "alone (its packets are taken as class-default's)", cm.origin))
        return
    else:
        if cm.acls or cm.other:
            c.diagnostics.append(warning("QOS172", f"class-map match-any {pc.name}: its matches other than code "
                                         f"points ({', '.join(cm.acls + cm.other)[:100]}) are not read: only its "
                                         "code points are classified into it", cm.origin))
        sets = (cm.v4 or set(), cm.v6 or set())
    mark = next((code(w[-1]) for w, _ in pc.lines if w[:2] in (("set", "dscp"), ("set", "ip"))), None)
    for fam in (0, 1):
        for x in sets[fam]:
            if classify[fam][x] is None:
                classify[fam][x] = pc.name
                if mark is not None:
                    rewrite[fam][x] = mark


def _police(c: Config, pc: PolicyClass) -> tuple[tuple[str, ...] | None, str | None]:
    """The class's `police` line, and the name of the aggregate it is where several classes share one.

    Catalyst 6500 PFC: `police aggregate NAME` polices with the named aggregate `mls qos aggregate-policer NAME
    <police arguments>`; every class (of every port) naming it is policed together (Understanding Quality of
    Service on the Catalyst 6500 Switch, 8.6 Aggregates and Microflows).  An undefined name is QOS174."""
    police = next((w for w, _ in pc.lines if w[:1] == ("police",)), None)
    if police is None or police[:2] != ("police", "aggregate") or len(police) < 3:
        return police, None
    name = police[2]
    body = next((w for w, _ in c.globals if w[:3] == ("mls", "qos", "aggregate-policer") and w[3:4] == (name,)),
                None)
    if body is None:
        c.diagnostics.append(warning("QOS174", f"class {pc.name} polices with aggregate {name}, which is not "
                                     "defined", pc.origin))
        return None, None
    return ("police", *body[4:]), name


def _input(c: Config, policy: str, pfc: bool = False) -> tuple[list[Rule], int | None, bool]:
    """The rules of an input policy-map, the mark of unmatched traffic, and whether class-default's policer makes
    the PFC trust its DSCP.

    Catalyst 6500 PFC (`pfc`): policing with `conform-action transmit` (also the default conform action) sets the
    trust state of the class's conforming traffic to trust DSCP, so the class's `set ip dscp` does not mark it:
    the customer's DSCP is kept (Catalyst 6500 Release 12.2SX Software Configuration Guide, Configuring PFC QoS,
    police; domain.md 6); `conform-action set-dscp-transmit` marks.  Such a class is read as marking nothing."""
    rules: list[Rule] = []
    unmatched = None
    default_trusts = False
    policed: dict[str, dict[int, int]] = {}
    for w, _ in c.globals:
        if w[:4] == ("mls", "qos", "map", "policed-dscp") and "to" in w:
            k = w.index("to")
            for x in w[5:k]:
                policed.setdefault(w[4], {})[int(x)] = int(w[k + 1])
    for pc in c.policies.get(policy, []):
        mark = next((code(w[-1]) for w, _ in pc.lines if w[:2] in (("set", "dscp"), ("set", "ip"))), None)
        police, shared = _police(c, pc)
        if mark is None and police is not None:
            for j, x in enumerate(police):
                if x == "conform-action" and police[j + 1:j + 2] == ("set-dscp-transmit",):
                    mark = code(police[j + 2])
        conform = police[police.index("conform-action") + 1] if police and "conform-action" in police[:-1] else None
        trusts = pfc and police is not None and conform in (None, "transmit")
        mark = None if trusts else mark
        if pc.name == "class-default":
            unmatched, default_trusts = mark, trusts
            continue
        cm = c.class_maps.get(pc.name)
        match = Match()
        for acl in cm.acls if cm else ():
            entries = c.acls.get(acl)
            if entries is None:
                c.diagnostics.append(warning("QOS174", f"class-map {pc.name} names access list {acl}, which is "
                                             "not defined", cm.origin if cm else None))
                continue
            for e in entries:
                match.add(e)
        dscps = sorted(cm.v4 or ()) if cm and cm.v4 and len(cm.v4) < 64 else []
        rules.append(Rule(pc.name, tuple(match.sources), tuple(match.destinations), tuple(match.protocols),
                          tuple(match.source_ports), tuple(match.destination_ports), tuple(dscps), mark,
                          dataclasses.replace(envelope(police, mark, policed), shared=shared) if police else None,
                          tuple(match.families) or ("inet", "inet6"), origin=pc.origin))
    return rules, unmatched, default_trusts


def interpret(document: Document, platform: object = None) -> tuple[Device, list[Diagnostic]]:
    c = collect(document)
    interfaces = []
    read: dict[str, tuple[str, str]] = {}
    for name, lines in c.interfaces.items():
        with guard(c.diagnostics, f"interface {name}", c.where.get(("interface", name))):
            iface = _interface(c, name, lines, platform)
            if iface is not None:
                interfaces.append(iface)
                read[name] = (iface.name, str(iface.unit))
    owned = tuple(sorted(((k, n, loc) for (k, n), loc in c.where.items() if k != "interface"),
                         key=lambda t: (t[0], t[1])))
    return Device(document.stem, None, tuple(interfaces), owned,
                  document.origin if isinstance(document.origin, Location) else None,
                  seen=seen_objects(c), uses=used_objects(c, read)), c.diagnostics


def parent_shaper(c: Config, policy: str) -> tuple[str | None, int | None]:
    """(child policy, shaping rate in bit/s) of a hierarchical policy-map: a parent whose only class is
    class-default with `shape average` and `service-policy CHILD` (Cisco IOS XE QoS: Modular QoS CLI
    Configuration Guide, "Hierarchical Queueing Framework": the parent shapes, the child's classes share the
    shaped rate); (None, None) for any other policy-map."""
    pcs = c.policies.get(policy, [])
    if len(pcs) != 1 or pcs[0].name != "class-default":
        return None, None
    lines = [w for w, _ in pcs[0].lines]
    child = next((w[1] for w in lines if w[:1] == ("service-policy",) and len(w) == 2), None)
    rate = next((int(w[2]) for w in lines if w[:2] == ("shape", "average") and len(w) >= 3 and w[2].isdigit()), None)
    if child is None or child not in c.policies:
        return None, None
    return child, rate


def _interface(c: Config, name: str, lines: list[tuple[tuple[str, ...], Location | None]],
               platform: object) -> Interface | None:
    """What one interface does with packets: its output classes, input rules, trust; None without QoS."""
    policies = {w[1]: w[-1] for w, _ in lines if w[:1] == ("service-policy",) and len(w) >= 3
                and w[1] in ("input", "output")}
    trust = any(w[:3] == ("mls", "qos", "trust") for w, _ in lines)
    for policy in policies.values():
        if policy not in c.policies:
            c.diagnostics.append(warning("QOS174", f"interface {name} names policy-map {policy}, which is not "
                                         "defined", c.where.get(("interface", name))))
    if not policies and not is_pfc(lines):
        if trust:
            what = " ".join(next(w for w, _ in lines if w[:3] == ("mls", "qos", "trust")))
            c.diagnostics.append(warning("QOS172", f"interface {name}: `{what}` on a port without queueing or a "
                                         "service-policy of its own: not lifted (a policy's interface is its "
                                         "services' queues)", next(loc for w, loc in lines
                                                                   if w[:3] == ("mls", "qos", "trust"))))
        return None
    rate = _rate(name, lines)
    shape = None
    if "output" in policies:
        child, shape = parent_shaper(c, policies["output"])
        if child is not None:  # a parent shaper: the child's classes share the shaped rate
            policies["output"], rate = child, shape or rate
    classes, classify, rewrite = _output(c, name, policies["output"], rate, getattr(platform, "queue", None)) \
        if "output" in policies \
        else ((), [[None] * 64] * 2, [[None] * 64] * 2)
    options: tuple[tuple[str, str], ...] = ()
    if is_pfc(lines):  # Catalyst 6500: egress queues by CoS, not an output policy-map
        classes, by_code = pfc_classes(lines, c.globals, c.where.get(("interface", name)))
        classify = [list(by_code), list(by_code)]
        rewrite = [[*range(64)], [*range(64)]]
        kind = port_type(lines, platform)
        options = (("port-type", kind),) if kind else ()
    rules, unmatched, default_trusts = _input(c, policies["input"], is_pfc(lines)) if "input" in policies \
        else ([], None, False)
    port, _, unit = name.partition(".")
    role = "edge" if "input" in policies else "core"
    trusted = unmatched is None
    if is_pfc(lines) and role == "edge":
        # PFC: a port without `mls qos trust` is untrusted: unmarked traffic takes the port CoS 0, DSCP 0 (unless
        # class-default's policer transmits it, which trusts its DSCP)
        trusted = trust
        unmatched = 0 if not trust and unmatched is None and not default_trusts else unmatched
    return Interface(port, int(unit) if unit.isdigit() else 0, role, rate, shape, classes,
                     (tuple(classify[0]), tuple(classify[1])), (tuple(rewrite[0]), tuple(rewrite[1])),
                     None if role != "edge" else trusted, tuple(rules), unmatched,
                     options, origin=c.where.get(("interface", name)),
                     default_class="class-default" if "output" in policies and not is_pfc(lines) else None)
