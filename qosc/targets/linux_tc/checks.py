"""linux-tc diagnostics (QOS140-QOS144, QOS147-QOS149): what a policy asks that tc cannot do as written.

QOS149 is the marking domains (marks.py): an edge that imposes EXP, and the RFC 3270 tunnel models pipe and
uniform, are errors (Linux imposes and pops labels by routing, not in a qdisc); a drop precedence carried in the
802.1p DEI, and an interface that both classifies and writes PCP, are warnings (what Linux does instead).  QOS048 (a
core code): a strict service uncapped on purpose (rate-cap: none), which HTB cannot serve so."""

from __future__ import annotations

import re
from collections.abc import Iterator

from qosc.codes import Code
from qosc.diagnostics import Diagnostic, error, info, warning
from qosc.model import Device, Domain, Interface, Policy, Role
from qosc.targets.linux_tc.plan import (
    QUEUE_BYTES_MAX,
    frame,
    link_burst,
    local_floor,
    queue_bytes_at_most,
    queue_bytes_wanted,
)
from qosc.targets.linux_tc.platform import LinuxTcPlatform

NAME = "linux-tc"
CODES: tuple[Code, ...] = (
    Code("QOS140", NAME, "error", "not a Linux interface name", NAME),
    Code("QOS141", NAME, "error", "interface without speed", NAME),
    Code("QOS142", NAME, "warning", "colour-aware policer rendered colour-blind", NAME),
    Code("QOS143", NAME, "info", "per-precedence drop profiles on a single RED queue (the low-precedence one "
         "runs)", NAME),
    Code("QOS144", NAME, "warning", "queue larger than tc's 32-bit byte limit, clamped", NAME),
    Code("QOS147", NAME, "error", "link rate whose HTB burst passes tc's 32-bit byte limit", NAME),
    Code("QOS148", NAME, "warning", "a buffer below what a local TCP socket keeps in the qdisc (local-senders)", NAME),
    Code("QOS149", NAME, "error|warning", "MPLS or 802.1p marking tc cannot render as asked: EXP imposition or the "
         "pipe and uniform tunnel models (error); a DEI, or PCP classified and written on one interface "
         "(warning)", NAME),
)
BURST_BYTES_MAX = 2**32 - 1  # tc-htb(8) burst/cburst: get_size() into a __u32
IFNAME = re.compile(r"^[A-Za-z0-9_.-]{1,15}$")


def check(policy: Policy, device: Device, platform: LinuxTcPlatform) -> Iterator[Diagnostic]:
    for iface in device.interfaces:
        if not IFNAME.match(iface.name) or iface.name in (".", ".."):
            yield error("QOS140", f"{device.name}: '{iface.name}' is not a Linux interface name (at most 15 "
                        "characters, no '/', ':' or spaces)", iface.where.loc, "use the kernel's name, e.g. eth0")
        if not iface.rate:
            yield error("QOS141", f"{device.name}:{iface.name} has no speed: HTB needs the link rate for its root "
                        "class", iface.where.at("speed") or iface.where.loc, "set speed: (or shape:), e.g. 1G")
        if iface.role is Role.EDGE:
            yield from _edge_checks(policy, device, iface)
        yield from _queue_checks(policy, device, iface, platform)
    yield from _marking_checks(policy, device)
    for s in policy.services:
        names = {n for _, n in s.drop_profiles}
        if s.queue.aqm == "red" and len(names) > 1 and any(s.name in i.services for i in device.interfaces):
            yield info("QOS143", f"service '{s.name}' has a drop profile per drop precedence, but Linux red "
                          "has one curve per queue; linux-tc uses the low-precedence profile for all",
                          s.where.at("drop-profile"), "gred would need tc_index, which dsmark set (removed "
                          "in Linux 6.3); use one drop profile, or a router target for real WRED")


def _queue_checks(policy: Policy, device: Device, iface: Interface,
                  platform: LinuxTcPlatform) -> Iterator[Diagnostic]:
    if not iface.rate:
        return
    burst = link_burst(iface, platform)
    if burst > BURST_BYTES_MAX:
        top = (BURST_BYTES_MAX - frame(iface)) * 8_000_000 // platform.htb_burst_us
        yield error("QOS147", f"{device.name}:{iface.name} runs at {iface.rate} bit/s: its HTB burst "
                    f"({platform.htb_burst_us} us at the link rate + one frame) is {burst} bytes, and tc's "
                    f"burst is a 32-bit byte count (at most {BURST_BYTES_MAX})",
                    iface.where.at("shape", "speed"),
                    f"linux-tc shapes links up to {top // 10**9} Gbit/s; check the speed: unit (T is Tbit/s)")
        return
    for s in policy.services_on(iface):
        if s.queue.strict and s.queue.uncapped and not s.policer:
            # a strict class is HTB prio 0 with rate = ceil = its cap (plan.py): HTB serves a class first only
            # while it is under its rate (tc-htb(8)), so "uncapped" would be rate = the link, a second guarantee
            # of the whole link beside every other class's rate: not what the policy means, so refused
            yield error("QOS048", f"service '{s.name}' is strict and uncapped (rate-cap: none), but linux-tc "
                        f"cannot serve it so on {device.name}:{iface.name}: HTB serves a class first only up to "
                        "its rate, and linux-tc writes a strict class as rate = ceil = its cap",
                        s.where.at("queue.rate-cap"), "give the service a queue.rate-cap (or a policer) for "
                        "Linux devices")
        floor = local_floor(s, iface, platform)
        if floor is not None and s.queue.buffer is not None and not s.queue.shared_with:
            held = queue_bytes_wanted(policy, s, iface, platform)
            if held < floor:
                yield warning("QOS148", f"service '{s.name}' on {device.name}:{iface.name} (local-senders) has a "
                              f"{held} byte queue from its buffer, less than one local TCP socket may keep in the "
                              f"qdisc (tcp_limit_output_bytes, {floor} bytes): what overflows is dropped by this "
                              "host itself, and its TCP senders in this service may be starved",
                              s.where.at("queue.buffer"), "leave the buffer out (qosc then sizes the queue for "
                              "local senders), or keep this host's bulk TCP out of the service")
        if s.queue.shared_with or queue_bytes_at_most(s, iface, platform) <= QUEUE_BYTES_MAX:
            continue
        wanted = queue_bytes_wanted(policy, s, iface, platform)
        if wanted > QUEUE_BYTES_MAX:
            yield warning("QOS144", f"service '{s.name}' on {device.name}:{iface.name} asks for a {wanted} byte "
                          f"queue; tc's fifo and red limits are 32-bit byte counts, so linux-tc queues at most "
                          f"{QUEUE_BYTES_MAX} bytes", s.where.at("queue.buffer"),
                          "give the service a smaller buffer (a time or percentage that fits in 4 GiB)")


def _edge_checks(policy: Policy, device: Device, iface: Interface) -> Iterator[Diagnostic]:
    classifier = policy.classifier_map.get(iface.classifier or "")
    used = {r.policer or policy.service_map[r.service].policer for r in (classifier.rules if classifier else ())
            if r.service in policy.service_map}
    used |= {s.policer for s in policy.services}
    for p in policy.policers:
        if p.name in used and p.color_aware:
            yield warning("QOS142", f"policer '{p.name}' is colour-aware, but tc police is colour-blind; "
                          f"{device.name}:{iface.name} polices it colour-blind", p.where.at("color-aware"),
                          "remark at the first edge only, or drop color-aware for Linux")


def _marking_checks(policy: Policy, device: Device) -> Iterator[Diagnostic]:
    """QOS149 (module doc; the sources are in marks.py)."""
    name = device.name
    for iface in device.interfaces:
        if iface.impose:
            yield error("QOS149", f"{name}:{iface.name} imposes each service's EXP on the LSPs it starts, but Linux "
                        "pushes labels by routing (ip-route(8) 'encap mpls LABEL', which writes TC 0: it has no TC "
                        "setting), and at the MPLS interface's qdisc a packet that was just labelled cannot be told "
                        "from one in transit, so tc cannot give it its service's EXP", iface.where.at("impose", "role"),
                        "impose: false (labels this device pushes carry EXP 0 until a core rewrites them), or "
                        "impose on a router")
        if Domain.PCP in iface.trust and Domain.PCP in iface.rewrite:
            yield warning("QOS149", f"{name}:{iface.name} classifies on PCP and writes it, but Linux writes 802.1p "
                          "in the VLAN device that tags a frame, from the packet priority, after that device's "
                          "qdisc (ip-link(8) egress-qos-map), and shows tc a frame's tag only on a port that "
                          "carries it tagged (a bridge or trunk port, the parent of VLAN devices), never on the "
                          "VLAN device: linux-tc writes both, the wrapper applies the batch only to a VLAN device, "
                          "and there the PCP filters match nothing",
                          iface.where.at("trust", "rewrite", "encapsulation"),
                          "for a VLAN device (eth1.100) write trust without pcp; for a bridged trunk, rewrite "
                          "without pcp")
    edges = [i for i in device.interfaces if i.role is Role.EDGE]
    if edges and any(i.mpls for i in device.interfaces) and policy.tunnel_model != "short-pipe":
        pop = ("when Linux pops the last label (net/mpls/af_mpls.c mpls_egress, or tc-mpls(8) pop) the IP packet "
               "keeps its own DSCP: only the TTL is propagated (net.mpls.ip_ttl_propagate), never the EXP")
        what = ("the egress PE must queue on the tunnel's EXP" if policy.tunnel_model == "pipe" else
                "the egress PE must find the EXP the core leaves written into the DSCP")
        yield error("QOS149", f"tunnel model {policy.tunnel_model} on {name}: {what}, but {pop}, and linux-tc "
                    "classifies it by that DSCP (short pipe)", policy.where.at("mpls.tunnel-model"),
                    "use tunnel-model: short-pipe, or a router as the egress PE")
    pcp_used = any(Domain.PCP in i.trust or Domain.PCP in i.rewrite for i in device.interfaces)
    carried = {n for i in device.interfaces for n in i.services}
    for s in policy.services if pcp_used else ():
        dei = sorted((v, p) for v, p in s.pcp.values if p > 1 and (v, 1) in s.pcp.values)
        if dei and s.name in carried:
            shown = ", ".join(f"PCP {v} at drop precedence {p}" for v, p in dei)
            yield warning("QOS149", f"service '{s.name}' carries {shown} in the drop eligible indicator, which "
                          f"Linux neither classifies nor writes (a VLAN device's egress-qos-map sets the PCP bits "
                          f"only): on {name} that traffic travels as its low-precedence PCP, without DEI",
                          s.where.at("pcp"), "give the drop precedence a PCP value of its own")
