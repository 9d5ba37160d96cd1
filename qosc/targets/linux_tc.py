"""Target linux-tc: iproute2 tc for a Linux router or host (platform linux).

Per device and interface it writes three files:

- ``<device>/<iface>.tc``: a ``tc -batch`` file (no comments: tc -batch has none);
- ``<device>/<iface>.sh``: a POSIX sh wrapper that replaces what qosc recorded
  installing on the interface (its HTB root and its clsact qdisc; records in
  $QOSC_STATE_DIR, per network namespace and interface), leaves every other
  qdisc alone (refusing, exit 4, where it would have to replace one), checks
  the batch in a scratch namespace first, and on a failure on the interface
  restores the previous tree from the batch that made it, proven by comparing
  ``tc -j`` dumps (exit 1; 5 when the dumps differ).  HTB cannot be replaced
  in place, so it deletes then adds; running it twice leaves the same state.
  The interface name comes from the policy; ``sh eth0.sh IFACE`` or
  ``QOSC_IFACE=IFACE`` applies the same batch to another interface (the lab
  uses this for a veth);
- ``<device>/<iface>-teardown.sh``: removes what the wrapper recorded installing, and restores it
  the same way if tc fails half-way.

The lowering lives in linux_tc_plan (HTB egress) and linux_tc_edge (clsact
ingress); every render is applied for real by linux_tc_selfcheck.  What that
check loaded, and what this kernel could not, depends on the machine, not on
the policy: it is reported by the compile (QOS104 info), not written into the
files, so the files are the same on every machine.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from qosc.diagnostics import Diagnostic, error, warning
from qosc.model import Device, Interface, Policy, Role, Service
from qosc.platforms import get
from qosc.render import render
from qosc.sizing import ClassSizing
from qosc.targets import linux_tc_selfcheck as selfcheck
from qosc.targets.base import Output
from qosc.targets.linux_tc_edge import Ingress, lower_ingress, new_indexes
from qosc.targets.linux_tc_plan import (
    QUEUE_BYTES_MAX,
    Egress,
    class_sizing,
    lower_egress,
    queue_bytes_at_most,
    queue_bytes_wanted,
    setting,
)

TEMPLATES = "linux-tc"
IFNAME = re.compile(r"^[A-Za-z0-9_.-]{1,15}$")


@dataclass
class InterfacePlan:
    """The IR of one interface: what the templates print."""

    policy: str
    source: str
    device: str
    name: str
    role: str
    description: str | None
    egress: Egress
    ingress: Ingress
    kernel_kinds: tuple[str, ...]

    @property
    def has_ingress(self) -> bool:
        return bool(self.ingress.filters)

    @property
    def ingress_summary(self) -> list[str]:
        """One line per ingress tc prio: which rule, which family, how many u32 filters."""
        rows: dict[int, list] = {}
        for f in self.ingress.filters:
            row = rows.setdefault(f.prio, [f.protocol, f.rule, 0, f.actions])
            row[2] += 1
        return [f"prio {prio} {proto}: {rule} ({n} u32 filter{'s' if n > 1 else ''}): "
                f"{', '.join(a.split()[0] for a in actions)}" for prio, (proto, rule, n, actions) in rows.items()]


def kernel_kinds(egress: Egress, ingress: Ingress) -> tuple[str, ...]:
    """The qdisc, classifier and action kinds the batch needs from the kernel, for the header."""
    found = ["htb"] + [leaf.qdisc_kind for leaf in egress.leaves]
    if egress.filters:
        found.append("u32")
    if ingress.filters:
        found += ["clsact", "u32"]
        for f in ingress.filters:
            found += [a.split()[0] for a in f.actions]
    return tuple(dict.fromkeys(found))


class LinuxTcTarget:
    name = "linux-tc"
    platforms = ("linux",)
    description = "Linux iproute2 tc: HTB egress with u32 DSCP filters, clsact policing and remarking at the edge"

    # -- diagnostics ---------------------------------------------------------
    def check(self, policy: Policy, device: Device) -> Iterable[Diagnostic]:
        for iface in device.interfaces:
            if not IFNAME.match(iface.name) or iface.name in (".", ".."):
                yield error("QOS140", f"{device.name}: '{iface.name}' is not a Linux interface name (at most 15 "
                            "characters, no '/', ':' or spaces)", iface.where.loc, "use the kernel's name, e.g. eth0")
            if not iface.rate:
                yield error("QOS141", f"{device.name}:{iface.name} has no speed: HTB needs the link rate for its root "
                            "class", iface.where.at("speed") or iface.where.loc, "set speed: (or shape:), e.g. 1G")
            if iface.role is Role.EDGE:
                yield from self._edge_checks(policy, device, iface)
            yield from self._queue_checks(policy, device, iface)
        for s in policy.services:
            names = {n for _, n in s.drop_profiles}
            if s.queue.aqm == "red" and len(names) > 1 and any(s.name in i.services for i in device.interfaces):
                yield warning("QOS143", f"service '{s.name}' has a drop profile per drop precedence, but Linux red "
                              "has one curve per queue; linux-tc uses the low-precedence profile for all",
                              s.where.at("drop-profile"), "gred would need tc_index, which dsmark set (removed "
                              "in Linux 6.3); use one drop profile, or a router target for real WRED")

    def _queue_checks(self, policy: Policy, device: Device, iface: Interface) -> Iterator[Diagnostic]:
        if not iface.rate:
            return
        platform = get(device.platform)
        for s in policy.services_on(iface):
            if s.queue.shared_with or queue_bytes_at_most(s, iface, platform) <= QUEUE_BYTES_MAX:
                continue
            wanted = queue_bytes_wanted(policy, s, iface, platform)
            if wanted > QUEUE_BYTES_MAX:
                yield warning("QOS144", f"service '{s.name}' on {device.name}:{iface.name} asks for a {wanted} byte "
                              f"queue; tc's fifo and red limits are 32-bit byte counts, so linux-tc queues at most "
                              f"{QUEUE_BYTES_MAX} bytes", s.where.at("queue.buffer"),
                              "give the service a smaller buffer (a time or percentage that fits in 4 GiB)")

    def _edge_checks(self, policy: Policy, device: Device, iface: Interface) -> Iterator[Diagnostic]:
        classifier = policy.classifier_map.get(iface.classifier or "")
        used = {r.policer or policy.service_map[r.service].policer for r in (classifier.rules if classifier else ())
                if r.service in policy.service_map}
        used |= {s.policer for s in policy.services}
        for p in policy.policers:
            if p.name in used and p.color_aware:
                yield warning("QOS142", f"policer '{p.name}' is colour-aware, but tc police is colour-blind; "
                              f"{device.name}:{iface.name} polices it colour-blind", p.where.at("color-aware"),
                              "remark at the first edge only, or drop color-aware for Linux")

    # -- sizing (the SLS bounds use the numbers the batch is written with) --------------
    def class_sizing(self, policy: Policy, device: Device, iface: Interface, service: Service) -> ClassSizing | None:
        """Drain rate, queue limit and shaper burst of the class carrying `service` on `iface`."""
        if not iface.rate:
            return None
        return class_sizing(policy, policy.queue_owner(service), iface, get(device.platform))

    # -- output ----------------------------------------------------------------
    def plan(self, policy: Policy, device: Device) -> list[InterfacePlan]:
        platform = get(device.platform)
        indexes = new_indexes(setting(platform, "police_index_base"))
        plans = []
        egresses: dict[Any, Egress] = {}  # interfaces of equal settings get the same classes: lower them once
        for iface in device.interfaces:
            egress = egresses.get(iface.settings())
            if egress is None:
                egress = egresses[iface.settings()] = lower_egress(policy, iface, platform)
            ingress = lower_ingress(policy, device, iface, indexes)
            plans.append(InterfacePlan(
                policy=policy.name, source=policy.source, device=device.name, name=iface.name,
                role=iface.role.value, description=iface.description, egress=egress, ingress=ingress,
                kernel_kinds=kernel_kinds(egress, ingress),
            ))
        return plans

    def outputs(self, policy: Policy, device: Device) -> list[Output]:
        out: list[Output] = []
        for plan in self.plan(policy, device):
            batch = render(TEMPLATES, "batch.tc.j2", p=plan)
            report = selfcheck.run(batch, plan.name)  # raises on a qosc bug; what this kernel lacks is a note
            out.append(Output(f"{device.name}/{plan.name}.tc", batch, tuple(report.notes())))
            out.append(Output(f"{device.name}/{plan.name}.sh", render(TEMPLATES, "apply.sh.j2", p=plan)))
            out.append(Output(f"{device.name}/{plan.name}-teardown.sh", render(TEMPLATES, "teardown.sh.j2", p=plan)))
        return out


TARGET = LinuxTcTarget()
