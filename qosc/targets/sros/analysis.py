"""SR OS target: the whole plan of a device, its parts in order (plan.py, then marking.py and edge.py, which
build on it).

Separate from plan.py so that neither part imports the other's importer.
"""

from __future__ import annotations

from qosc.model import Device, Policy
from qosc.targets.sros.edge import plan_edge
from qosc.targets.sros.marking import plan_marking
from qosc.targets.sros.plan import Plan, core
from qosc.targets.sros.platform import SrosPlatform


def analyse(policy: Policy, device: Device, platform: SrosPlatform) -> Plan:
    """Maps the services onto the eight forwarding classes, the ports, slopes and classification, then the
    marking domains, then the edge."""
    plan = core(policy, device, platform)
    plan.marking = plan_marking(plan)  # the edge part builds on the marking part
    plan.edge = plan_edge(plan)
    return plan
