"""Nokia SR OS target: MD-CLI (tree and flat) and NETCONF XML of the nokia-conf model, for the 7750 SR and 7250 IXR.

Three files per device from one statement tree (lower.py -> serialize.py),
checked first against the facts derived from Nokia's published YANG of two
releases (grammar.py, yang/, scripts/derive-sros-grammar): `<device>.cfg`
(MD-CLI `configure { ... }` as `info` shows it, for `load merge`),
`<device>.flat` (`/configure ...` lines, as `info flat full-context`) and
`<device>.xml` (the `<configure>` element of nokia-conf, what the NETCONF push
sends).  Package layout: ports.py (where an interface is applied: its name),
plan.py and edge.py (the per-device decisions), lower.py and lower_edge.py
(plan -> tree), words.py, serialize.py, grammar.py and documented.py,
platform.py and platforms/*.json, read/ (reader), push/ (NETCONF driver), tests/.

How the policy becomes SR OS (the rules a reviewer needs):

Forwarding classes.  SR OS has eight fixed classes (be l2 af l1 h2 ef h1 nc).
The default service takes be; the others, network control first, then premium,
assured, other, best effort and scavenger, take the first free class of their
kind's list (platform data `fc_preference`: network control nc then h1, premium
ef h2 h1, assured af l1 h2, scavenger l2 l1, others l1 af h2 ...), then any
free class; a device needing a ninth is QOS230.  Services sharing a queue
(`shared-with`) share its class.  Each class uses the queue the default
network-queue policy gives it (be 1 ... nc 8).  The output's header states
the mapping.

Network side (core and transparent interfaces: `PORT`, `IF:PORT` or `IF:PORT:VLAN`, ports.py).
A `network-queue` policy per distinct queue plan: per class `queue-type`
expedited for priority high and strict services, best-effort for low (SR OS
serves expedited within CIR, best-effort within CIR, expedited above CIR,
best-effort above CIR: the order of domain.md 4.3, so a 0% best-effort
scavenger is served only when the other queues are within their CIR or
empty: strictly below best effort), `rate cir` the share and `pir` the cap
(ceiling or rate cap, else 100), whole percent (QOS234 when rounded), `mbs`
the buffer percentage (0% is not written: an MBS of 0 drops everything).
A strict service is expedited with CIR = PIR = its cap (100% for `rate-cap: none`: served first up to the
whole port, which the reader reads back as strict and uncapped).  The `network` QoS
policy (on router interface IF; one per distinct need of the interfaces)
classifies every carried code point to its class and profile (`ingress dscp`
where the interface trusts dscp, default-action the default service) and
marks at egress per class (`dscp-in/out-profile` the service's code point) the
traffic from SAPs; `remark-trusted` is not set, so DSCP from the network is
kept (DSCP 8 and LE cross unchanged).  The MPLS EXP and 802.1p domains
(`lsp-exp` and `dot1p` entries, egress values, the EXP a PE imposes, the tunnel
models): marking.py.
WRED: network queues take buffers from the port's egress pool, whose slope
policy has one slope per profile (highplus inplus, high in, low out, exceed
exceed): each distinct drop behaviour of the device (a drop profile, or tail
drop) gets a profile, network control first, scavenger last, and the slope of
that profile carries the curve (start-avg, max-avg, max-prob; a segmented
profile is written as its line, said in a comment).  More than four is QOS232.

Edge (`vpls:SERVICE:SAP`, `vprn|ies:SERVICE:IF:SAP`): see edge.py;
sap-ingress and sap-egress on the SAP.  `port ethernet egress rate` is the
interface's shape.

Diagnostics of this target: QOS230 more classes than eight, QOS231 an
interface name that says no SR OS place, QOS232 more drop behaviours than the
pool's slopes, QOS233 values SR OS does not take, QOS234 rates rounded to what
SR OS writes (warning), QOS235 classification or marking SR OS cannot realise,
QOS236 what SR OS does differently and qosc says (warning; info where the policy
cannot change it: AF precedences on the pool's four slopes, violating traffic
discarded above PIR, no per-queue WRED at an IXR's SAP egress), QOS237 configuration text
the reader cannot read, QOS238 an EXP imposition SR OS cannot render, QOS239 a
tunnel model SR OS cannot render on a PE.  `aqm: codel` is QOS233; `ecn` is not
rendered (QOS090).
"""

from __future__ import annotations

from typing import Any, ClassVar

from qosc.codes import Code
from qosc.diagnostics import Diagnostic, Severity
from qosc.grammar import Grammar
from qosc.model import Policy
from qosc.targets.base import Format, Lowered, Target
from qosc.targets.sros import serialize
from qosc.targets.sros.analysis import analyse
from qosc.targets.sros.grammar import GRAMMAR
from qosc.targets.sros.lower import lower_device
from qosc.targets.sros.plan import Plan
from qosc.targets.sros.platform import SrosPlatform

__all__ = ["CODES", "FIELDS", "TARGET", "SrosPlatform", "SrosTarget", "device_plan"]

_S = "sros"
CODES: tuple[Code, ...] = (
    Code("QOS230", _S, "error", "more queued services on a device than SR OS's eight forwarding classes", _S),
    Code("QOS231", _S, "error", "interface name that says no SR OS port, router interface or SAP", _S),
    Code("QOS232", _S, "error", "more drop behaviours on a device than an SR OS egress pool has slopes", _S),
    Code("QOS233", _S, "error", "value SR OS does not take", _S),
    Code("QOS234", _S, "warning", "queue rate rounded to what SR OS writes", _S),
    Code("QOS235", _S, "error", "classification or marking SR OS cannot realise", _S),
    Code("QOS236", _S, "warning|info", "what SR OS does differently from the policy, said (warning); what the policy "
         "cannot change for SR OS: AF precedences alike on the pool's slopes, violating traffic discarded, no "
         "per-queue WRED at SAP egress (info)", _S),
    Code("QOS237", _S, "error", "SR OS configuration text the reader cannot read", _S),
    Code("QOS238", _S, "error", "EXP imposition SR OS cannot render: SAPs that disagree on impose, or an MPLS "
         "interface of the PE that does not write EXP", _S),
    Code("QOS239", _S, "error", "RFC 3270 tunnel model SR OS cannot render on a PE", _S),
)

# The policy fields this target renders (listed, never derived from the schema).  Not here: services.*.queue.ecn;
# devices.*.interfaces.*.egress-queueing (device-default), refused (QOS090 at its line): not written yet, an
# interface's egress marking and its queues are lowered together (lower_network.py, ports.py).
FIELDS = frozenset({
    "name", "description", "services.*.description", "services.*.dscp", "services.*.default",
    "services.*.queue.share", "services.*.queue.buffer", "services.*.queue.priority", "services.*.queue.strict",
    "services.*.queue.rate-cap", "services.*.queue.ceiling", "services.*.queue.shared-with",
    "services.*.queue.aqm", "services.*.drop-profile", "services.*.policer", "drop-profiles.*.description",
    "drop-profiles.*.points", "drop-profiles.*.min", "drop-profiles.*.max", "drop-profiles.*.max-probability",
    "drop-profiles.*.interpolate",
    "policers.*.description", "policers.*.cir", "policers.*.cbs", "policers.*.pir", "policers.*.pbs",
    "policers.*.ebs", "policers.*.conform", "policers.*.exceed", "policers.*.violate", "policers.*.color-aware",
    "classifiers.*.description", "classifiers.*.rules.*.name", "classifiers.*.rules.*.description",
    "classifiers.*.rules.*.match.source", "classifiers.*.rules.*.match.destination",
    "classifiers.*.rules.*.match.protocol", "classifiers.*.rules.*.match.source-port",
    "classifiers.*.rules.*.match.destination-port", "classifiers.*.rules.*.match.dscp",
    "classifiers.*.rules.*.service", "classifiers.*.rules.*.set-dscp", "classifiers.*.rules.*.policer",
    "devices.*.interfaces.*.description", "devices.*.interfaces.*.role", "devices.*.interfaces.*.shape",
    "devices.*.interfaces.*.trust", "devices.*.interfaces.*.classifier", "devices.*.interfaces.*.services",
    "devices.*.description",
    # the marking domains (marking.py)
    "services.*.exp", "services.*.pcp", "devices.*.interfaces.*.encapsulation", "devices.*.interfaces.*.rewrite",
    "devices.*.interfaces.*.impose", "mpls.tunnel-model",
})


class SrosTarget(Target):
    name = "sros"
    description = ("Nokia SR OS (7750 SR, 7250 IXR) QoS policies: MD-CLI tree (.cfg), flat (.flat) and nokia-conf "
                   "NETCONF XML (.xml)")
    package = __name__
    platform_class = SrosPlatform
    fields = FIELDS
    codes = CODES
    formats = (Format("sros", ".cfg", serialize.tree), Format("sros", ".flat", serialize.flat),
               Format("sros", ".xml", serialize.xml))
    grammars: ClassVar[tuple[Grammar, ...]] = (GRAMMAR,)
    driver = "qosc.targets.sros.push.driver:SrosDriver"
    reader = "qosc.targets.sros.read"
    default_port = 830

    def lower(self, policy: Policy, unit: Any, platform: Any) -> Lowered:
        assert isinstance(platform, SrosPlatform)
        plan = analyse(policy, unit, platform)
        found = sorted({Diagnostic(p.code, Severity(p.severity), p.message, p.location, p.hint)
                        for p in plan.problems}, key=Diagnostic.sort_key)
        if any(d.severity is Severity.ERROR for d in found):
            return Lowered(diagnostics=found, data=plan)
        return Lowered(documents=[lower_device(policy, unit, plan)], diagnostics=found, data=plan)


def device_plan(policy: Policy, device: Any, platform: SrosPlatform) -> Plan:
    """The per-device decisions (for tests and read-back)."""
    return analyse(policy, device, platform)


TARGET = SrosTarget()
