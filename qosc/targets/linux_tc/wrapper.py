"""The one shell script per device that applies and tears down its interfaces' batches: `<device>/qosc-tc.sh`.

The logic (records, foreign qdiscs left alone, scratch-namespace check,
restore on failure, exit codes; templates/apply.j2, teardown.j2, dump.sh.j2)
is written once per device; each interface carries only its data: its batch
`<iface>.tc` beside the script, whether the batch adds a clsact qdisc (the
one thing the logic asks of an interface), and the comment block that says
what its numbers are.  Interfaces whose block is the same text (interfaces
of one profile) share it: the block is written once, headed by their names.
The script names no device (its folder does), so devices of the same
interfaces get the same script, which the output can then share (qosc.emit
links files of equal content).
"""

from __future__ import annotations

from collections.abc import Sequence

from qosc.render import render_package
from qosc.targets.linux_tc.lower import InterfacePlan

SCRIPT = "qosc-tc.sh"
"""The script's file name, in the device's folder beside the batches."""


def interface_lines(p: InterfacePlan) -> tuple[str, ...]:
    """What the comment block of one interface says (everything but its name)."""
    lines = [f"Interface: {p.description}"] if p.description else []
    lines.append(f"role {p.role}; kernel support needed: {', '.join(p.kernel_kinds)}")
    lines.append(f"Egress: HTB root 1: at {p.egress.tc_rate} (burst {p.egress.burst} bytes); unmatched traffic "
                 f"goes to 1:{p.egress.default_minor} ({p.egress.default_service}).")
    if p.egress.dscp_prios != (1, 2):
        lines.append(f"u32 DSCP filters at prio {p.egress.dscp_prios[0]} (IPv4 ip dsfield) and "
                     f"{p.egress.dscp_prios[1]} (IPv6 ip6 priority)")
    lines += list(p.egress.marking)
    if p.egress.vlan_map:
        lines.append("This batch writes 802.1p (rewrite: pcp), so apply runs it only on a VLAN device whose "
                     "egress-qos-map turns the packet priorities it sets into the same PCP "
                     f"({p.egress.vlan_pairs or '0:0'}): "
                     "it reads the map (ip -d link show; IP=/path/to/ip selects the binary), never changes it, and "
                     "otherwise exits 4 before anything changes.")
    lines += [f"  {c.classid} {'+'.join(c.members)} (dscp {','.join(str(d) for d in c.dscp) or 'none'}): {c.why}"
              for c in p.egress.leaves]
    lines += [f"Note: {n}" for n in (*p.egress.notes, *p.ingress.notes)]
    if p.has_ingress:
        lines.append("Ingress:")
        lines += [f"  {line}" for line in p.ingress_summary]
    return tuple(lines)


def script(plans: Sequence[InterfacePlan]) -> str:
    """The device's qosc-tc.sh (plans: its interfaces, in policy order; at least one)."""
    first = plans[0]
    groups: dict[tuple[str, ...], list[str]] = {}
    for p in plans:
        groups.setdefault(interface_lines(p), []).append(p.name)
    device = {"policy": first.policy, "source": first.source, "names": [p.name for p in plans], "interfaces": plans,
              "blocks": [(names, lines) for lines, names in groups.items()],
              "vlan": any(p.egress.vlan_map for p in plans)}
    return render_package(__package__ or "qosc.targets.linux_tc", "qosc-tc.sh.j2", d=device)
