"""JUNOS target: the whole plan of a device, its parts in order (plan.py, schedulers.py, edge.py, marking.py).

Separate from plan.py because the other parts build on the plan's core: this
module runs them, so none of them needs to import another that imports it.
"""

from __future__ import annotations

from qosc.model import Device, Policy
from qosc.targets.junos.edge import plan_edge
from qosc.targets.junos.marking import plan_marks
from qosc.targets.junos.plan import Plan, core, uncarried
from qosc.targets.junos.platform import JunosPlatform
from qosc.targets.junos.schedulers import plan_schedulers


def analyse(policy: Policy, device: Device, platform: JunosPlatform) -> Plan:
    """Numbers the queues, gives every code point a forwarding class and loss priority, derives the schedulers,
    the edge filters and the markings, and collects the target's own problems (QOS11x) at the policy's lines."""
    plan = core(policy, device, platform)
    plan_schedulers(plan)
    uncarried(plan)
    plan.edge = plan_edge(plan)
    plan.marks = plan_marks(plan)
    return plan
