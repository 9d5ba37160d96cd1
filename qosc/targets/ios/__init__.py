"""The Cisco IOS targets: ios-mqc (GSR 12000, 7600, ASR, ISR) and catalyst6500 (PFC QoS), one package.

Layout: platform.py (typed platform data, platforms/*.json), common.py (what
both lowerings share: findings, commands, policers, header notes, the WRED
ramp check), lowering.py (their base: names, class-maps, input classes),
acl.py (ACLs from classifier rules), mqc.py +
queueing.py + marks.py (ios-mqc decisions; marks.py the MPLS EXP and 802.1p
CoS of issue 21), catalyst.py + pfc.py + cosmap.py (catalyst6500 decisions,
port plan, CoS maps), lower.py (those decisions as the device's statement tree, one
dialect per platform: ios-gsr, ios-xe, catalyst6500), table.py (each
dialect's command table, the one description of its grammar: every form and
range with its command-reference or YANG source), grammar.py (the tree checked
against it), serialize.py (the tree as IOS CLI text with its source map),
target.py (the contract), sizing.py (the police burst of a priority class and
the class sizing of the SLS bounds, qosc.sizing), codes.py (QOS120-QOS139, QOS180-QOS189, QOS191), push.py
(the SSH push driver), read/ (running-config back into the tree), tests/.

Dialect differences between platforms (precedence-only classification on
older GSR engines, ``priority`` with a policer or with a rate, ECN) are typed
platform data and per-platform command tables, never serializer branches.
"""

from __future__ import annotations

from typing import Any

from qosc.model import Device, Interface, Policy, Service
from qosc.sizing import ClassSizing, Unsized
from qosc.targets.base import Platform
from qosc.targets.ios.catalyst import CatalystLowering
from qosc.targets.ios.codes import CATALYST_CODES, MQC_CODES
from qosc.targets.ios.common import Findings
from qosc.targets.ios.mqc import lower as lower_mqc
from qosc.targets.ios.platform import CatalystPlatform, MqcPlatform
from qosc.targets.ios.sizing import class_sizing as mqc_class_sizing
from qosc.targets.ios.target import FIELDS, QUEUEING, UNIT, CiscoTarget, formats_of, grammars_of
from qosc.targets.platform import PlatformBase


class IosMqcTarget(CiscoTarget):
    name = "ios-mqc"
    description = "Cisco IOS MQC (class-map, policy-map, service-policy) for GSR 12000, 7600, ASR and ISR routers"
    platform_class = MqcPlatform
    codes = MQC_CODES
    formats = formats_of("ios-mqc")
    grammars = grammars_of("ios-mqc")

    def lower_for(self, policy: Policy, device: Device, platform: Any) -> tuple[dict[str, Any], Findings]:
        return lower_mqc(policy, device, platform)

    def supports(self, field_path: str, platform: PlatformBase) -> bool:
        """`unit:` on every MQC platform: where the dialect cannot queue on a sub-interface, the lowering refuses it
        (QOS186) as it refuses the same sub-interface written in the name (POS0/0.1), not as a field it drops."""
        return field_path == UNIT or super().supports(field_path, platform)

    def class_sizing(self, policy: Policy, device: Device, iface: Interface,
                     service: Service) -> ClassSizing | Unsized | None:
        """The drain rate and police bucket of the class carrying `service` on `iface` (sizing.py): the numbers
        its `priority` + `police` are written with."""
        platform = self.platform_data[device.platform]
        assert isinstance(platform, MqcPlatform)
        return mqc_class_sizing(policy, iface, service, platform)


class Catalyst6500Target(CiscoTarget):
    name = "catalyst6500"
    description = "Cisco Catalyst 6500 PFC QoS: mls qos maps, per-port WRR queues by CoS, ingress policing"
    platform_class = CatalystPlatform
    # egress-queueing: device-default refused (QOS090 at its line): a PFC port without wrr-queue and
    # priority-queue commands would queue by its port type's defaults, but the catalyst6500 reader reads a port
    # without queue commands as applying no QoS of its own (trust alone: QOS172), so such a port could not be
    # verified or compared; the queues of a PFC port are always the policy's
    fields = FIELDS - {QUEUEING}
    codes = CATALYST_CODES
    formats = formats_of("catalyst6500")
    grammars = grammars_of("catalyst6500")

    def lower_for(self, policy: Policy, device: Device, platform: Any) -> tuple[dict[str, Any], Findings]:
        lowering = CatalystLowering(policy, device, platform)
        return lowering.lower(), lowering.found

    def queues(self, platform: Platform, interface: Interface) -> int:
        """The WRR queues of the interface's port type, plus its priority queue."""
        if not isinstance(platform, CatalystPlatform) or (interface.port_type or platform.default_port_type) \
                not in platform.port_types:
            return platform.queues
        _, spec = platform.port_type(interface.port_type)
        return spec.queues + (1 if spec.priority_queue else 0)


TARGETS = (IosMqcTarget(), Catalyst6500Target())
