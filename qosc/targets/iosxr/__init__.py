"""The Cisco IOS XR target (iosxr): ASR 9000 and Cisco 8000, MQC policies checked against Cisco's unified YANG.

Layout: platform.py (typed platform data, platforms/*.json: what differs between the families, with its source),
forms.py (the CLI statements as forms onto the unified model), grammar.py (forms and the YANG facts of two
releases, yang/*.json derived by scripts/derive-iosxr-grammar), words.py (names and values with units),
lower.py (the device: class-maps, policy-maps, interfaces), queues.py (egress queuing classes), edge.py
(ingress classes: classifier rules, policers, marks, traffic-class), serialize.py (CLI and YANG XML from one
tree), codes.py (QOS240-QOS251), read/ (running-config back into the tree and behaviour), push.py (netmiko
cisco_xr: candidate, `show configuration` diff, `commit confirmed`, `commit`, abort on error).

Rules, the same on both families unless platform data says otherwise:

- a queue per service (shared-with services join their owner's class); the default service is class-default;
- strict services are `priority level 1`, then 2, ..., always capped (queue.rate-cap, else the service's
  policer CIR): `police rate` in the class on the ASR 9000, `shape average` on the Cisco 8000; `rate-cap: none`
  (uncapped on purpose) is refused (QOS048: no Cisco text read says the box serves a priority class without);
- shares: `bandwidth percent` (whole percentages) or `bandwidth <rate>` on the ASR 9000, `bandwidth remaining
  ratio` on the Cisco 8000 (no minimum bandwidth there); every non-strict class gets a `queue-limit` with
  units; drop profiles are `random-detect` profiles in time units of that queue-limit, at most
  `wred_per_class` of them in a class (the highest drop precedences share one beyond that, QOS251);
- the Cisco 8000 splits classification and queuing: every interface gets an input policy whose classes set
  the queue's traffic-class (and discard-class 1 for the drop precedences of a service's second WRED
  profile), and the output policy matches `traffic-class`;
- platform values no Cisco text qosc's authors could read confirms (platform `unverified`) are said where
  the output relies on them: QOS250 and the header of the `.cfg`;
- markings: class-maps match DSCP (IPv4 and IPv6), EXP (`mpls experimental topmost`) and PCP (`cos`) as the
  interface trusts them; an edge that imposes sets `mpls experimental imposition` in its input classes (and
  per policer colour); a core that rewrites EXP or PCP sets `mpls experimental topmost` / `cos` in its egress
  classes (ASR 9000; the Cisco 8000 keeps the received EXP on a swap, said by QOS246);
- a shaped interface or a sub-interface (`unit`) gets a parent policy shaping class-default with the
  queuing policy under it.
"""

from __future__ import annotations

from typing import Any, ClassVar

from qosc.grammar import Grammar
from qosc.model import Policy
from qosc.targets.base import Format, Lowered, Target
from qosc.targets.iosxr import serialize
from qosc.targets.iosxr.codes import CODES
from qosc.targets.iosxr.grammar import GRAMMAR
from qosc.targets.iosxr.lower import lower_device
from qosc.targets.iosxr.platform import IosxrPlatform

# Not here: devices.*.interfaces.*.egress-queueing (device-default, no egress queueing policy-map on the interface)
# is refused, QOS090 at its line: not written yet (the egress policy-map, lower.py, is also where the interface's
# egress marking is written).
FIELDS = frozenset({
    "name", "description", "services.*.description", "services.*.dscp", "services.*.default",
    "services.*.queue.share", "services.*.queue.buffer", "services.*.queue.priority", "services.*.queue.strict",
    "services.*.queue.rate-cap", "services.*.queue.ceiling", "services.*.queue.shared-with",
    "services.*.queue.aqm", "services.*.queue.ecn", "services.*.drop-profile", "services.*.policer",
    "services.*.exp", "services.*.pcp",
    "drop-profiles.*.description", "drop-profiles.*.points", "drop-profiles.*.min", "drop-profiles.*.max",
    "drop-profiles.*.max-probability", "drop-profiles.*.interpolate",
    "policers.*.description", "policers.*.cir", "policers.*.cbs", "policers.*.pir", "policers.*.pbs",
    "policers.*.ebs", "policers.*.conform", "policers.*.exceed", "policers.*.violate",
    "classifiers.*.description", "classifiers.*.rules.*.name", "classifiers.*.rules.*.description",
    "classifiers.*.rules.*.match.source", "classifiers.*.rules.*.match.destination",
    "classifiers.*.rules.*.match.protocol", "classifiers.*.rules.*.match.source-port",
    "classifiers.*.rules.*.match.destination-port", "classifiers.*.rules.*.match.dscp",
    "classifiers.*.rules.*.service", "classifiers.*.rules.*.set-dscp", "classifiers.*.rules.*.policer",
    "devices.*.interfaces.*.description", "devices.*.interfaces.*.role", "devices.*.interfaces.*.shape",
    "devices.*.interfaces.*.trust", "devices.*.interfaces.*.classifier", "devices.*.interfaces.*.services",
    "devices.*.interfaces.*.encapsulation", "devices.*.interfaces.*.rewrite", "devices.*.interfaces.*.impose",
    "devices.*.interfaces.*.unit", "devices.*.description", "mpls.tunnel-model",
})


class IosxrTarget(Target):
    name = "iosxr"
    description = ("Cisco IOS XR MQC (ASR 9000, Cisco 8000): class-map, policy-map, service-policy as CLI (.cfg) "
                   "and unified-model YANG XML (.xml), checked against Cisco's published YANG")
    package = __name__
    platform_class = IosxrPlatform
    fields = FIELDS
    codes = CODES
    formats = (Format("iosxr", ".cfg", serialize.cli), Format("iosxr", ".xml", serialize.xml))
    grammars: ClassVar[tuple[Grammar, ...]] = (GRAMMAR,)
    driver = "qosc.targets.iosxr.push:IosxrDriver"
    reader = "qosc.targets.iosxr.read"

    def lower(self, policy: Policy, unit: Any, platform: Any) -> Lowered:
        assert isinstance(platform, IosxrPlatform)
        doc, found = lower_device(policy, unit, platform)
        if any(d.is_error for d in found):
            return Lowered(diagnostics=found)
        return Lowered(documents=[doc], diagnostics=found)


TARGET = IosxrTarget()
