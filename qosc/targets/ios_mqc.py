"""Target ios-mqc: Cisco IOS Modular QoS CLI for GSR 12000, 7600, ASR and ISR class routers.

The lowering rules are in qosc.targets.cisco_mqc; dialect differences between
platforms (precedence-only classification on older GSR engines, ``priority``
with a policer or with a rate, ECN) are platform data, never template branches.
Every rendered config passes the mode-structure self-check of
qosc.targets.cisco_modes against the platform's command table.
"""

from __future__ import annotations

from typing import Any

from qosc.model import Device, Policy
from qosc.platforms import Platform
from qosc.targets.cisco_common import Findings
from qosc.targets.cisco_mqc import lower
from qosc.targets.cisco_target import CiscoTarget


class IosMqcTarget(CiscoTarget):
    name = "ios-mqc"
    platforms = ("ios-gsr", "ios-xe")
    description = "Cisco IOS MQC (class-map, policy-map, service-policy) for GSR 12000, 7600, ASR and ISR routers"

    def lower_for(self, policy: Policy, device: Device, platform: Platform) -> tuple[dict[str, Any], Findings]:
        return lower(policy, device, platform)


TARGET = IosMqcTarget()
