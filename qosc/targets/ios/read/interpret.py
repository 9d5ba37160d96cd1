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
The input policy's classes are the edge rules (read.edge: access-list
matches, set dscp, police; `police aggregate` the named aggregate's, one
policer shared by every class that names it), class-default's `set dscp` the
mark of unmatched traffic.  The EXP and CoS domains (classification, rewrite,
imposition, the PFC's CoS maps): read.marks; an input policy that only gives
drop precedences or rewrites the topmost EXP is a core's.
Dangling class-map, policy-map and access-list names are QOS174.

Interface rates by type: Cisco IOS Interface and Hardware Component
Configuration Guide (IOS XE 17), "bandwidth" default = the interface speed.
"""

from __future__ import annotations

from typing import Any

from qosc.behaviour.model import Class, Curve, Device, Interface
from qosc.configtext import guard
from qosc.diagnostics import Diagnostic, Location, warning
from qosc.dscp import drop_precedence
from qosc.targets.ios.read.edge import envelope, input_rules
from qosc.targets.ios.read.inventory import seen as seen_objects
from qosc.targets.ios.read.inventory import uses as used_objects
from qosc.targets.ios.read.marks import Mark, Slot, classify3, impositions, pfc_cos, rewrites
from qosc.targets.ios.read.mqc import Config, PolicyClass, code, collect
from qosc.targets.ios.read.pfc import Lines, dscp_cos, is_pfc, port_type
from qosc.targets.ios.read.pfc import classes as pfc_classes
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


def _edge(c: Config, policy: str | None) -> bool:
    """An interface with an input policy is an edge, unless that policy only gives EXP or CoS values their drop
    precedence (`set discard-class`) or rewrites the topmost EXP: a core's (read.marks); one naming an undefined
    policy-map is taken as an edge."""
    if policy is None:
        return False
    if policy not in c.policies:
        return True
    core = (("set", "discard-class"), ("set", "mpls", "experimental", "topmost"))
    return any(not any(w[:len(head)] == head for head in core) for pc in c.policies[policy] for w, _ in pc.lines) \
        or not c.policies[policy]


def _trusts_dscp(c: Config, policy: str | None) -> bool:
    """An edge that marks no unclassified traffic keeps its DSCP, unless its input classes classify EXP or CoS
    and none matches a DSCP (an 802.1p edge: its DSCP is the customer's, not trusted for its class)."""
    maps = [c.class_maps.get(pc.name) for pc in c.policies.get(policy or "", [])]
    three = any(cm is not None and (cm.cos or cm.exp) for cm in maps)
    dscp = any(cm is not None and cm.v4 and len(cm.v4) < 64 for cm in maps)
    return dscp or not three


def _domains(c: Config, policies: dict[str, str], classify: list[str | None], lines: Lines
             ) -> tuple[tuple[Slot, ...], tuple[Slot, ...], tuple[Mark, ...]]:
    """classify_exp, classify_pcp and marks of an interface (read.marks)."""
    out = c.policies.get(policies.get("output", ""), [])
    if out and not any(pc.name == "class-default" for pc in out):
        out = [*out, PolicyClass("class-default", [], None)]
    inputs = c.policies.get(policies.get("input", ""), [])
    exp, pcp = classify3(c, out, inputs, "exp"), classify3(c, out, inputs, "cos")
    marks = rewrites(out, exp) + impositions(c, inputs, classify, pcp, exp)
    if is_pfc(lines):
        pcp, pfc_marks = pfc_cos(lines, c.globals, classify, dscp_cos(c.globals))
        marks += pfc_marks
    return exp, pcp, tuple(sorted(marks))


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
    rules, unmatched, default_trusts = input_rules(c, policies["input"], is_pfc(lines)) if "input" in policies \
        else ([], None, False)
    exp, pcp, marks = _domains(c, policies, list(classify[0]), lines)
    trusts_cos = is_pfc(lines) and any(pcp)  # the internal DSCP comes from the CoS, not the packet's DSCP
    port, _, unit = name.partition(".")
    role = "edge" if _edge(c, policies.get("input")) else "core"
    trusted = unmatched is None and _trusts_dscp(c, policies.get("input"))
    if is_pfc(lines) and role == "edge":
        # PFC: a port without `mls qos trust` is untrusted: unmarked traffic takes the port CoS 0, DSCP 0 (unless
        # class-default's policer transmits it, which trusts its DSCP)
        trusted = trust
        unmatched = 0 if not trust and unmatched is None and not default_trusts else unmatched
    return Interface(port, int(unit) if unit.isdigit() else 0, role, rate, shape, classes,
                     (tuple(classify[0]), tuple(classify[1])), (tuple(rewrite[0]), tuple(rewrite[1])),
                     False if trusts_cos else None if role != "edge" else trusted, tuple(rules), unmatched,
                     options, exp, pcp, marks, default_queueing="output" not in policies and not is_pfc(lines),
                     origin=c.where.get(("interface", name)),
                     default_class="class-default" if "output" in policies and not is_pfc(lines) else None)
