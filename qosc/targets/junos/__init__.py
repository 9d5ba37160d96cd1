"""Juniper JUNOS target: class-of-service and firewall configuration for M-series and MX.

Two files per device, `<device>.conf` (curly-brace hierarchy, for `load merge`)
and `<device>.set` (set commands, for `load set`), both written by one walk of
one statement tree (lower.py -> serialize.py), which the junos grammar
(grammar.py) checks before anything is written.  Package layout: plan.py and
edge.py (the per-device decisions), sizing.py (shaper burst-size and the class
sizing of the SLS bounds), lower.py (plan -> statement tree),
serialize.py, grammar.py, yang_grammar.py (from Juniper's YANG, data in yang/
derived by scripts/derive-junos-grammar), references.py and documented.py (what
the YANG cannot say, with sources), platform.py and platforms/*.json (typed
platform data), push/ (the NETCONF driver's text and XML forms), tests/.

How the policy becomes JUNOS (the rules a reviewer needs):

Queues.  One forwarding class per queue, named after the service that owns
the queue (`queue N name`, the statement both M-series and MX accept).  Only
services scheduled on some interface of the device get one, and a service
with `queue.shared-with` is classified into its owner's class.  Numbering:
the default service takes queue 0 (where JUNOS puts best effort and anything
its default classifier does not know), the first network-control service
takes queue 3 (JUNOS queues routing-engine traffic, i.e. the routing
protocols, on queue 3 by default), and the other services take the free
numbers in policy order.  For geant-lbe this gives BE 0, EF 1, LBE 2, NC 3,
the GÉANT plan of domain.md 4.3; the same policy keeps these numbers on MX.
Router-generated traffic (`host-outbound-traffic forwarding-class`) goes to
the network-control class, or to the default class where there is none, never
to whatever Junos's default queue happens to be (a 0% LBE queue, say).

Classification.  A DSCP classifier that `import default`s and lists every
code point of the scheduled services.  The loss priority carries the AF drop
precedence (AFx1 low; AFx2 medium-high on MX, high on M-series; AFx3 high).
A service without AF code points whose drop behaviour does not depend on the
loss priority (no drop profile, or one for all) spreads its code points over
distinct loss priorities (low, high, ...; e.g. NC: cs6 low, cs7 high, as the
JUNOS default rewrite table does), so the rewrite rule can give each its own
code point back.  The code points JUNOS's default classifier sends to
assured-forwarding, expedited-forwarding or network-control (af11-af13, ef,
cs6, cs7) are pinned to the default service unless a service claims them: in
the GÉANT plan queue 2 is LBE, and AF1x must not land there.  Code points
without a JUNOS alias get one (`code-point-aliases dscp le 000001`).  The
same classifier and rewrite rule are also written as `dscp-ipv6` (named
`<policy>-ipv6`) and applied next to the IPv4 ones on every unit, so IPv6
traffic is classified and marked the same way.

Rewrite (marking).  One DSCP rewrite rule maps each (forwarding class, loss
priority) to the service's code point, so every service keeps its mark (LBE
stays cs1, BE stays be: DSCP transparency for the services the policy
declares).  It is applied on the units of core and edge interfaces; it is
also how marking happens, since edge filters only set the class and loss
priority.  Transparent interfaces get no rewrite rule (and no filter), so
every DSCP crosses them unchanged.  Where two declared code points must share
a class and loss priority (AFx2/AFx3 on M-series' two loss priorities), the
rule keeps the first and QOS115 warns; a service the device does not schedule
is queued and marked as the default service, and QOS116 warns.

MPLS EXP and 802.1p PCP (marking.py, lower_marks.py).  One EXP and one PCP
classifier and rewrite rule per device, every value spelled as bits, bound on
the units that trust or rewrite the domain (`rewrite-rules exp NAME protocol
mpls-any`, `ieee-802.1 NAME vlan-tag outer`; `ieee-802.1ad` where a service
carries a drop precedence in the DEI, on MX).  A PE imposes EXP with its
uplinks' EXP rewrite rule (so its edges must agree on `impose`: QOS114), and
writes the DSCP of IP packets entering an LSP with its DSCP rewrite rule bound
`protocol mpls` (MX).  M-series keeps EXP on MPLS units that do not rewrite it
with a table of its own (the box rewrites EXP by default there).  Tunnel
models: short-pipe rendered; pipe and uniform need explicit-null outside
class-of-service, QOS192.

Queue shares.  Schedulers per forwarding class: `transmit-rate percent N`
for percentages, the rate in bit/s for absolute shares, no transmit-rate
when no share is given (nothing reserved, as the policy says: Junos's
"transmit-rate (Schedulers)" and "excess-rate" pages); `exact` when the queue may not borrow (ceiling or rate cap
equal to the share); other caps become `shaping-rate` (MX only), with a
`burst-size` from qosc.sizing (sizing.py: max(10 MTU, 1 ms at the cap, the
service policer's CBS), the same numbers the SLS bound of the hop uses),
taken at the cap of the interface or unit the scheduler serves: a class
whose interfaces' caps give different bursts has one scheduler per burst
(`<class>-burst-<bytes>` beside the one named after the class, which has
the largest), each interface's scheduler map naming its own.
`buffer-size percent N` or `temporal` microseconds.  Priority low/high on
M-series; on MX the policy's priority is both `priority` (guaranteed rate) and
`excess-priority` (low or high: sharing of excess), see the platforms'
`priority_mapping` (domain.md 4.3), except where the queue has no excess
region: strict -> strict-high (with its rate cap as shaping-rate; `rate-cap: none`, no shaping-rate: a
strict-high queue's transmit rate does not limit it), and an
`exact` queue (Juniper's YANG refuses excess-priority with either).  On ACX7000 (junos-acx) an interface
has two strict queues: its first strict service in the policy's order is `priority low-latency`, the second
`strict-high` (schedulers.py: one scheduler per class and strict priority), neither with a transmit-rate
(QOS113 for a strict share there).  Drop profiles: segmented `fill-level N
drop-probability M` per point, or `interpolate` lists when the profile says
interpolate or was written as RED min/max/probability (a linear ramp, which
a two-point segmented profile would not be).  `drop-profile-map loss-priority
any` for one profile, else one per loss priority.  The scheduler map sits on
the physical interface (`class-of-service interfaces <ifd> scheduler-map`),
where JUNOS schedules port queues; classifier and rewrite rule on the unit.
Logical units of one physical interface with different services or shaping
get `per-unit-scheduler` on the interface and their map and shaping rate on
the unit (MX); M-series cannot, and QOS119 says so at the unit.  Derived
names (`-ipv6`, `-dscp`, `-<interface>`, `police-`) stay within Juniper's 64
characters (qosc.names, a stable hash suffix) and never start with `__`.

Edge conditioning (firewall).  Per edge classifier and trust, a `family inet`
and a `family inet6` filter, both attached to the unit (IPv6 is conditioned
like IPv4; attaching the inet6 filter configures family inet6 on the unit),
`interface-specific` so every interface polices its own customer.
Terms follow the rules in order; a rule whose prefixes are all of the other
family is left out of that family's filter.  `then` sets forwarding class and
loss priority of the service's mark, applies the policer, and accepts.  With
trust none a last term sends everything else to the default service; with
trust dscp the BA classifier stays in charge, services with a policer are
policed by their code points, and a last term accepts the rest.
Policers: two-colour `policer` (`then discard`, or a re-mark expressed as
`forwarding-class` and `loss-priority`); srTCM and trTCM as
`three-color-policer` (single-rate/two-rate, colour-blind unless color-aware),
red discarded with `action loss-priority high then discard` when violate is
drop.  A three-colour policer that drops both yellow and red traffic is the
two-colour policer at CIR/CBS, and is written as one (so it works on M-series).
JUNOS colours are loss priorities (green low, yellow medium-high, red
high), so an AF re-mark such as conform af21 / exceed af22 / violate af23 is
realised by those loss priorities plus the rewrite rule (af21/af22/af23 for
low/medium-high/high).  A re-mark that the rewrite rule cannot produce is
refused (QOS114) rather than silently changed.  M-series has no tricolor
marking (QOS111).

Diagnostics of this target: QOS110 strict priority on M-series, QOS111
three-colour policer on M-series, QOS112 queue cap M-series cannot express,
QOS113 values outside what JUNOS accepts, QOS114 classification or re-mark
JUNOS cannot realise, QOS115/QOS116 warnings where a DSCP will be rewritten,
QOS117 names that collide once made JUNOS-safe, QOS118 more queues on a
device than the platform has, QOS119 logical units that need per-unit
scheduling on M-series, QOS192 a tunnel model JUNOS cannot render.  `aqm: red` is the scheduler's drop-profile-map,
`none` a scheduler without one (tail drop), `codel` QOS113; `ecn` is not
rendered (the core reports QOS090 at the field).  Queue count per interface (QOS091), priority
levels (QOS092), strict count (QOS093) and policer ranges (QOS095) are the
generic checks.
"""


from __future__ import annotations

from typing import Any, ClassVar

from qosc.codes import Code
from qosc.diagnostics import Diagnostic, Severity
from qosc.grammar import Grammar
from qosc.model import Device, Interface, Policy, Service
from qosc.sizing import ClassSizing, Unsized
from qosc.targets.base import Format, Lowered, Target
from qosc.targets.junos import serialize
from qosc.targets.junos.analysis import analyse
from qosc.targets.junos.grammar import GRAMMAR, JunosGrammar
from qosc.targets.junos.lower import lower_device
from qosc.targets.junos.plan import Plan, jname
from qosc.targets.junos.platform import JunosPlatform
from qosc.targets.junos.sizing import class_sizing

__all__ = ["CODES", "FIELDS", "TARGET", "JunosPlatform", "JunosTarget", "device_plan"]

_J = "junos"
CODES: tuple[Code, ...] = (
    Code("QOS110", _J, "error", "strict priority on a platform without strict-high (M-series)", _J),
    Code("QOS111", _J, "error", "three-colour policer on a platform without tricolor marking (M-series)", _J),
    Code("QOS112", _J, "error", "queue cap the platform cannot express", _J),
    Code("QOS113", _J, "error", "value JUNOS does not take", _J),
    Code("QOS114", _J, "error", "classification or re-mark JUNOS cannot realise", _J),
    Code("QOS115", _J, "warning|info", "code points sharing a class and loss priority are rewritten (warning); drop "
         "precedences sharing a loss priority share its drop profile (info)", _J),
    Code("QOS116", _J, "warning", "service the device does not schedule is queued and marked as the default", _J),
    Code("QOS117", _J, "error", "names that collide once made JUNOS-safe", _J),
    Code("QOS118", _J, "error", "more queues on a device than the platform has", _J),
    Code("QOS190", _J, "info", "policer named by IPv4 and IPv6 rules polices each family at its rate", _J),
    Code("QOS119", _J, "error", "logical units of one interface with different schedules where the platform "
         "schedules per port", _J),
    Code("QOS192", _J, "error", "RFC 3270 tunnel model JUNOS class-of-service cannot render", _J),
)

# The policy fields this target renders, listed (never derived from the schema: a field added to the schema is
# refused here, QOS090 at its line, until the lowering renders it).  Not here: services.*.queue.ecn (JUNOS has
# ECN marking only on some line cards, MX Trio `explicit-congestion-notification`).  queue.aqm: red is the
# scheduler's drop-profile-map, none a scheduler without one (tail drop), codel QOS113.  `port-type` is read: a
# JUNOS platform has one port structure, its own, so any value means it.
FIELDS = frozenset({
    "name", "description", "services.*.description", "services.*.dscp", "services.*.default",
    "services.*.queue.share", "services.*.queue.buffer", "services.*.queue.priority", "services.*.queue.strict",
    "services.*.queue.rate-cap", "services.*.queue.ceiling", "services.*.queue.shared-with",
    "services.*.queue.aqm", "services.*.drop-profile", "services.*.policer", "drop-profiles.*.description",
    "drop-profiles.*.points",
    "drop-profiles.*.min", "drop-profiles.*.max", "drop-profiles.*.max-probability", "drop-profiles.*.interpolate",
    "policers.*.description", "policers.*.cir", "policers.*.cbs", "policers.*.pir", "policers.*.pbs",
    "policers.*.ebs", "policers.*.conform", "policers.*.exceed", "policers.*.violate", "policers.*.color-aware",
    "classifiers.*.description", "classifiers.*.rules.*.name", "classifiers.*.rules.*.description",
    "classifiers.*.rules.*.match.source", "classifiers.*.rules.*.match.destination",
    "classifiers.*.rules.*.match.protocol", "classifiers.*.rules.*.match.source-port",
    "classifiers.*.rules.*.match.destination-port", "classifiers.*.rules.*.match.dscp",
    "classifiers.*.rules.*.service", "classifiers.*.rules.*.set-dscp", "classifiers.*.rules.*.policer",
    "classifiers.*.rules.*.mark", "classifiers.*.rules.*.match.pcp", "classifiers.*.rules.*.match.source-mac",
    "classifiers.*.rules.*.match.destination-mac", "classifiers.*.unmatched",
    "devices.*.interfaces.*.description", "devices.*.interfaces.*.role", "devices.*.interfaces.*.shape",
    "devices.*.interfaces.*.trust", "devices.*.interfaces.*.classifier", "devices.*.interfaces.*.services",
    "devices.*.interfaces.*.port-type", "devices.*.interfaces.*.unit", "devices.*.description",
    "services.*.exp", "services.*.pcp", "devices.*.interfaces.*.encapsulation", "devices.*.interfaces.*.rewrite",
    "devices.*.interfaces.*.impose", "mpls.tunnel-model", "devices.*.interfaces.*.egress-queueing",
})


class JunosTarget(Target):
    name = "junos"
    description = ("Juniper JUNOS class-of-service and firewall (M-series 4 queues, MX 8 queues, ACX7000 8 queues "
                   "with two strict); .conf and .set")
    package = __name__
    platform_class = JunosPlatform
    fields = FIELDS
    codes = CODES
    formats = (Format("junos", ".conf", serialize.curly), Format("junos", ".set", serialize.set_commands))
    grammars: ClassVar[tuple[Grammar, ...]] = (GRAMMAR,)
    driver = "qosc.targets.junos.push.driver:JunosDriver"
    driver_needs = ("ncclient", "lxml")
    reader = "qosc.targets.junos.read"
    default_port = 830

    def grammars_for(self, unit: Any) -> tuple[Grammar, ...]:
        """The junos grammar of the unit's platform (its scheduler priorities: JunosGrammar.for_platform)."""
        platform = self.platform_data.get(getattr(unit, "platform", ""))
        return (JunosGrammar.for_platform(platform),) if isinstance(platform, JunosPlatform) else self.grammars

    def lower(self, policy: Policy, unit: Any, platform: Any) -> Lowered:
        assert isinstance(platform, JunosPlatform)
        plan = analyse(policy, unit, platform)
        found = _diagnostics(policy, plan)
        if any(d.severity is Severity.ERROR for d in found):
            return Lowered(diagnostics=found, data=plan)
        return Lowered(documents=[lower_device(policy, unit, plan)], diagnostics=found, data=plan)


    def class_sizing(self, policy: Policy, device: Device, iface: Interface,
                     service: Service) -> ClassSizing | Unsized | None:
        """Drain rate, queue and shaper burst of the class carrying `service` on `iface` (junos/sizing.py): the
        numbers the scheduler is written with."""
        platform = self.platform_data[device.platform]
        assert isinstance(platform, JunosPlatform)
        return class_sizing(policy, device, iface, service, platform)


def _diagnostics(policy: Policy, plan: Plan) -> list[Diagnostic]:
    found = [Diagnostic(p.code, Severity(p.severity), p.message, p.location, p.hint) for p in plan.problems]
    found += _collisions(policy)
    return sorted(set(found), key=Diagnostic.sort_key)


def _collisions(policy: Policy) -> list[Diagnostic]:
    """Names that become equal once made JUNOS-safe ('.' becomes '-')."""
    found = []
    for what, items in (("drop profile", policy.drop_profiles), ("policer", policy.policers),
                        ("classifier", policy.classifiers)):
        seen: dict[str, str] = {}
        for item in items:
            key = jname(item.name)
            if key in seen and seen[key] != item.name:
                found.append(Diagnostic("QOS117", Severity.ERROR, f"{what}s '{seen[key]}' and '{item.name}' both "
                                        f"become '{key}' on JUNOS", item.where.loc,
                                        "JUNOS names allow letters, digits, '-' and '_'; rename one"))
            seen.setdefault(key, item.name)
    return found


def device_plan(policy: Policy, device: Device, platform: JunosPlatform) -> Plan:
    """The per-device decisions (for tests and read-back)."""
    return analyse(policy, device, platform)


TARGET = JunosTarget()
