"""linux-tc lowering, egress half: the HTB tree, its leaf qdiscs and the u32 DSCP filters (with marks.py's EXP and
802.1p filters, and the 802.1p each DSCP filter sets where the interface writes it).

Plain data only: every value the batch holds is already a typed word in tc's
own spelling (qosc.targets.linux_tc.words: rates like ``10mbit``, sizes in
bytes, hex class ids), so lower.py only puts the words in order.

The mapping, documented once here and repeated per class in the wrapper:

- root qdisc ``1:`` (HTB, ``default`` = the default service's class), one root
  class ``1:1`` at the interface rate with explicit burst/cburst;
- one leaf class per service queue, ``1:10``, ``1:11``, ... (minor = 0x10 + the
  queue's index, printed in hex as tc reads it), leaf qdisc handle = the minor;
- HTB prio: strict priority 0 (rate = ceil = its cap; `rate-cap: none` is refused,
  QOS048: HTB serves a class first only up to its rate), then the policy's
  priorities high 1, medium-high 2, medium-low 3, low 4, and LBE always 7, the
  highest number, so it only ever gets what every other class leaves;
- rate = the share; ceil = queue.ceiling, default the link (borrow freely);
- a 0% share (LBE on Juniper) becomes the documented minimum rate, 0.1% of the
  link and at least 8 kbit/s, because HTB needs a rate above zero;
- burst = one frame + burst_us at the rate (cburst likewise at the ceil); a
  capped class (ceil below the link) gets qosc.sizing's burst allowance as its
  cburst (and as its burst when rate = ceil): max(10 frames, 1 ms at the cap,
  the service policer's CBS), so an in-profile burst is not queued behind its
  own cap; quantum = 1 ms of the rate clamped to [one frame, 200000]
  bytes, so tc never derives them from HZ or r2q and the output does not
  depend on the host;
- the leaf queue (bfifo, red or fq_codel limit) comes from qosc.sizing: the
  buffer at the rate the class drains at (its cap when it cannot borrow, else
  its guarantee), or one BDP at that rate when the policy gives no buffer;
  on an interface with `local-senders`, such a default queue of a class that
  is not strict priority holds at least what one local TCP socket may keep
  in the qdisc (local_floor); the wrapper's comment shows the formula and
  the numbers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

from qosc import sizing
from qosc.model import Interface, Kind, Policy, Priority, Service, resolve_rate
from qosc.targets.linux_tc.marks import (
    EgressFilter,
    dscp_actions,
    layout,
    marking_filters,
    summary,
    written_pcp,
)
from qosc.targets.linux_tc.platform import LinuxTcPlatform
from qosc.targets.linux_tc.words import Words, bitrate, kws, mask, nbytes, tc_rate, text_of, tos
from qosc.tree import decimal, integer

ROOT_HANDLE = "1:"
ROOT_CLASS = "1:1"
FIRST_MINOR = 0x10
ETHERNET_HEADER = 14
QUANTUM_MAX = 200_000
GSO_MAX = 65_536
"""Bytes of the largest GSO/GRO aggregate Linux queues as one skb (the floor of a default queue)."""
PRIO_STRICT = 0
PRIO_LBE = 7
PRIO = {Priority.HIGH: 1, Priority.MEDIUM_HIGH: 2, Priority.MEDIUM_LOW: 3, Priority.LOW: 4}



at_rate = sizing.at_rate


@dataclass(frozen=True)
class Leaf:
    """One HTB leaf class and the qdisc under it."""

    service: str
    members: tuple[str, ...]
    dscp: tuple[int, ...]
    minor: int
    rate: int
    ceil: int
    prio: int
    burst: int
    cburst: int
    quantum: int
    qdisc_words: Words
    qdisc_kind: str
    why: str

    @property
    def classid(self) -> str:
        return f"1:{self.minor:x}"

    @property
    def handle(self) -> str:
        return f"{self.minor:x}:"

    @property
    def qdisc(self) -> str:
        """The leaf qdisc after its handle, as the batch writes it."""
        return text_of(self.qdisc_words)

    @property
    def tc_rate(self) -> str:
        return tc_rate(self.rate)

    @property
    def tc_ceil(self) -> str:
        return tc_rate(self.ceil)


@dataclass
class Egress:
    rate: int
    burst: int
    frame: int
    default_minor: str
    default_service: str
    leaves: list[Leaf] = field(default_factory=list)
    filters: list[EgressFilter] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    vlan_map: tuple[int, ...] = ()
    """The PCP values the filters set as the packet priority (rewrite: pcp): the VLAN device's egress-qos-map must
    map each to itself (marks.py; the wrapper checks it)."""
    dscp_prios: tuple[int, int] = (1, 2)
    marking: list[str] = field(default_factory=list)
    """The wrapper's lines about the EXP and PCP filters (marks.summary)."""

    @property
    def vlan_pairs(self) -> str:
        """The egress-qos-map entries the VLAN device needs (priority 0 needs none: unmapped is PCP 0)."""
        return " ".join(f"{v}:{v}" for v in self.vlan_map if v)

    @property
    def tc_rate(self) -> str:
        return tc_rate(self.rate)

    @property
    def quantum(self) -> int:
        return _quantum(self.rate, self.frame)


def frame(iface: Interface) -> int:
    return iface.mtu + ETHERNET_HEADER


def minimum_rate(link: int, platform: LinuxTcPlatform) -> int:
    return max(platform.minimum_rate, link * platform.minimum_rate_permille // 1000)


def htb_prio(service: Service) -> int:
    if service.queue.strict:
        return PRIO_STRICT
    if service.kind is Kind.LBE:
        return PRIO_LBE
    return PRIO[service.queue.priority]


def _rates(policy: Policy, s: Service, link: int, platform: LinuxTcPlatform) -> tuple[int, int, str]:
    """(rate, ceil, why) of a service's class on a link of `link` bit/s."""
    q = s.queue
    if q.strict:
        cap = resolve_rate(q.rate_cap, link)
        why = "strict priority, rate = ceil = its rate-cap"
        if cap is None:
            policer = policy.policer_map.get(s.policer or "")
            cap = policer.cir if policer else resolve_rate(q.share, link)
            why = "strict priority, rate = ceil = its policer's CIR"
        cap = min(cap or minimum_rate(link, platform), link)
        return cap, cap, why
    share = resolve_rate(q.share, link)
    floor = minimum_rate(link, platform)
    if not share:
        rate = floor
        why = (f"share {'0%' if share == 0 else 'not set'}: HTB needs a rate above zero, so the documented minimum "
               f"{tc_rate(floor)} (0.1% of the link, at least 8kbit)")
    else:
        rate = min(share, link)
        why = f"rate = its share {_show(q.share)}"
    ceiling = resolve_rate(q.ceiling, link)
    ceil = min(max(ceiling if ceiling is not None else link, rate), link)
    if q.ceiling is None:
        why += ", ceil = the link (borrows freely)"
    else:
        why += f", ceil = its ceiling {_show(q.ceiling)}"
    return rate, ceil, why


def _show(value: object) -> str:
    return tc_rate(value) if isinstance(value, int) else str(value)


QUEUE_BYTES_MAX = 4095 * 2**20
"""The largest byte queue linux-tc writes: bfifo's and red's limit/min/max are u32 byte counts (tc-bfifo(8),
tc-red(8); iproute2 6.1 q_fifo.c/q_red.c get_size into __u32, larger is 'Illegal "limit"'); 4095 MiB leaves
room below 2**32 for red's limit of max + 2 frames."""


def local_floor(s: Service, iface: Interface, platform: LinuxTcPlatform) -> int | None:
    """The floor of a class's default queue that its own host's TCP sockets need, or None.

    Where the device's own sockets send (`local-senders`), TCP Small Queues lets each socket keep up to
    net.ipv4.tcp_limit_output_bytes in the qdisc (platform data, with its source), and a packet the qdisc
    drops is a local drop the socket takes as congestion: with the 64 KiB floor, one BBR flow of LBE alone on
    an idle 100 Mbit/s link got 0.36 Mbit/s.  Forwarded traffic has no such backpressure: it fills a queue to
    its limit, so the floor applies only where the policy says the box originates traffic.  Strict priority
    keeps its queue: it is the class's delay promise (the SLS bound Q / R), and its excess is meant to be
    dropped there.  A buffer the policy gives is kept (QOS148 says when it is below this floor).
    """
    if not iface.local_senders or s.queue.strict:
        return None
    return platform.tcp_limit_output_bytes


def class_sizing(policy: Policy, s: Service, iface: Interface, platform: LinuxTcPlatform) -> sizing.ClassSizing:
    """Drain rate, queue limit and shaper burst of a service's class: what the batch writes and the SLS bounds use."""
    link = iface.rate or 0
    fr = frame(iface)
    rate, ceil, _ = _rates(policy, s, link, platform)
    drain = sizing.drain_rate(link, rate, ceil)
    buf = s.queue.buffer
    local = local_floor(s, iface, platform)
    queue = sizing.queue_size(
        drain.rate, link, fr, time_us=buf.time_us if buf is not None else None,
        percent=Fraction(str(buf.percent.value)) if buf is not None and buf.percent is not None else None,
        rtt_us=s.rtt_us if s.rtt_us is not None else policy.rtt_us,
        port_buffer_us=platform.port_buffer_us, default_floor=max(GSO_MAX, local or 0),
        floor_why="what one local TCP socket may keep in the qdisc (tcp_limit_output_bytes)" if local else None)
    burst = None
    if ceil < link:
        policer = policy.policer_map.get(s.policer or "")
        burst = sizing.burst_allowance(ceil, fr, policer.cbs if policer is not None else None)
    return sizing.ClassSizing(link, fr, drain, queue, burst)


def queue_bytes_at_most(s: Service, iface: Interface, platform: LinuxTcPlatform) -> int:
    """A cheap upper bound of class_sizing's queue (the drain rate is at most the link, the BDP at most the port
    buffer), so checks size only the classes that could reach tc's limit."""
    link = iface.rate or 0
    buf = s.queue.buffer
    port = at_rate(link, platform.port_buffer_us)
    timed = at_rate(link, buf.time_us) if buf is not None and buf.time_us is not None else 0
    shared = math.ceil(port * max(1.0, buf.percent.value / 100)) if buf is not None and buf.percent else port
    return max(shared, timed, 10 * frame(iface), GSO_MAX, local_floor(s, iface, platform) or 0)


def queue_bytes_wanted(policy: Policy, s: Service, iface: Interface, platform: LinuxTcPlatform) -> int:
    """The byte queue the class is sized to, before tc's u32 limit."""
    queue = class_sizing(policy, s, iface, platform).queue
    assert queue is not None
    return queue.bytes


def _leaf_qdisc(policy: Policy, s: Service, size: sizing.ClassSizing, link: int,
                platform: LinuxTcPlatform) -> tuple[Words, str, str]:
    """(qdisc words after the handle, kind, note) for a service's leaf."""
    fr = size.frame
    assert size.queue is not None
    qbytes = min(size.queue.bytes, QUEUE_BYTES_MAX)  # QOS144 says so
    why = f"{size.drain.why}; queue {size.queue.formula}"
    if qbytes != size.queue.bytes:
        why += f", clamped to tc's {QUEUE_BYTES_MAX} B"
    if s.queue.aqm == "codel":
        packets = max(2, math.ceil(qbytes / fr))
        return ((*kws("fq_codel limit"), integer(packets), *kws("ecn" if s.queue.ecn else "noecn")), "fq_codel",
                f"fq_codel (aqm: codel) limit {packets} packets: {why}")
    if s.queue.aqm == "red" and s.drop_profiles:
        names = [n for _, n in sorted(s.drop_profiles)]
        profile = policy.drop_profile_map.get(names[0])
        if profile is not None and profile.points:
            text, kind, note = _red(s, profile.thresholds(), qbytes, fr, link, platform, len(set(names)) > 1,
                                    profile.name)
            return text, kind, f"{note}: {why}"
    return (*kws("bfifo limit"), nbytes(qbytes)), "bfifo", f"bfifo limit {qbytes}: {why}"


RED_BANDWIDTH_MAX = (2**32 - 1) * 8 // 1_000_000_000 * 1_000_000_000
"""The largest whole-Gbit/s rate tc's red `bandwidth` (a u32 of bytes per second) can hold: 34 Gbit/s."""


def _red(s: Service, thresholds: tuple[float, float, float], limit: int, fr: int, link: int,
         platform: LinuxTcPlatform, several: bool, name: str) -> tuple[Words, str, str]:
    lo_pct, hi_pct, prob_pct = thresholds
    lo = max(fr, round(limit * lo_pct / 100))
    hi = round(limit * hi_pct / 100)
    if hi <= lo:
        # a step curve ("drop everything above x%") is a tail drop at x% of the queue
        return ((*kws("bfifo limit"), nbytes(max(lo, 2 * fr))), "bfifo",
                f"drop profile {name} is a step at {lo_pct:g}%: bfifo")
    avpkt = platform.red_avpkt
    burst = max(1, (2 * lo + hi) // (3 * avpkt))
    limit = max(limit, hi + 2 * fr)
    prob = min(prob_pct, 100.0) / 100
    # tc keeps red's bandwidth (used only to age the average over idle time) in 32 bits of bytes/s
    words = (*kws("red limit"), nbytes(limit), *kws("min"), nbytes(lo), *kws("max"), nbytes(hi), *kws("avpkt"),
             nbytes(avpkt), *kws("burst"), integer(burst), *kws("probability"), decimal(prob, f"{prob:g}"),
             *kws("bandwidth"), bitrate(min(link, RED_BANDWIDTH_MAX)), *kws("ecn" if s.queue.ecn else ""))
    note = f"red from drop profile {name} ({lo_pct:g}%..{hi_pct:g}% of {limit} bytes, p {prob_pct:g}%)"
    if several:
        note += ("; Linux red has one curve per queue (gred needs tc_index, set by dsmark, removed in 6.3), "
                 "so the low-precedence profile serves every drop precedence")
    return words, "red", note


def _quantum(rate: int, fr: int) -> int:
    return min(QUANTUM_MAX, max(fr, rate // 8000))


def link_burst(iface: Interface, platform: LinuxTcPlatform) -> int:
    """The root HTB class's burst: one frame + htb_burst_us at the link rate (the largest burst of the tree)."""
    return frame(iface) + at_rate(iface.rate or 0, platform.htb_burst_us)


def lower_egress(policy: Policy, iface: Interface, platform: LinuxTcPlatform) -> Egress:
    link = iface.rate or 0
    fr = frame(iface)
    burst_us = platform.htb_burst_us
    queues = [s for s in policy.services_on(iface) if not s.queue.shared_with]
    members: dict[str, list[Service]] = {s.name: [] for s in queues}
    for s in policy.services_on(iface):
        owner = policy.queue_owner(s)
        if owner.name in members:
            members[owner.name].append(s)
    default = policy.default_service
    default_owner = policy.queue_owner(default).name if default is not None else None
    if default_owner not in members and queues:
        default_owner = queues[0].name
    egress = Egress(rate=link, burst=link_burst(iface, platform), frame=fr, default_minor="0",
                    default_service=default_owner or "")
    at = layout(iface)
    for index, s in enumerate(queues):
        minor = FIRST_MINOR + index
        rate, ceil, why = _rates(policy, s, link, platform)
        size = class_sizing(policy, s, iface, platform)
        qdisc, kind, note = _leaf_qdisc(policy, s, size, link, platform)
        burst, cburst = fr + at_rate(rate, burst_us), fr + at_rate(ceil, burst_us)
        if size.burst is not None:
            cburst = size.burst.bytes
            burst = cburst if rate >= ceil else burst
            note += f"; {'burst = ' if rate >= ceil else ''}cburst {size.burst.formula}"
        mine = members[s.name]
        codes = tuple(c for m in mine for c in m.dscp)
        prio = htb_prio(s)
        why = f"prio {prio}{' (LBE: the highest number)' if prio == PRIO_LBE else ''}; {why}; leaf {note}"
        leaf = Leaf(service=s.name, members=tuple(m.name for m in mine), dscp=codes, minor=minor,
                    rate=rate, ceil=ceil, prio=prio, burst=burst,
                    cburst=cburst, quantum=_quantum(rate, fr), qdisc_words=qdisc, qdisc_kind=kind,
                    why=why)
        egress.leaves.append(leaf)
        if s.name == default_owner:
            egress.default_minor = f"{minor:x}"
        for m in mine:
            for code in m.dscp:
                egress.filters.append(EgressFilter("ip", at.dscp[0], (*kws("match ip dsfield"), tos(code), mask(0xfc)),
                                                   leaf.minor, m.name, "dscp", code,
                                                   actions=dscp_actions(iface, s, code)))
    for leaf in egress.leaves:
        owner = policy.service_map[leaf.service]
        for member in leaf.members:
            for code in policy.service_map[member].dscp:
                egress.filters.append(EgressFilter("ipv6", at.dscp[1], (*kws("match ip6 priority"), tos(code),
                                                                         mask(0xfc)), leaf.minor, member, "dscp",
                                                   code, actions=dscp_actions(iface, owner, code)))
    marking = marking_filters(policy, iface, {leaf.service: leaf.minor for leaf in egress.leaves},
                              egress.default_service)
    egress.filters = sorted(egress.filters + marking, key=lambda f: f.prio)
    egress.vlan_map = written_pcp(egress.filters)
    egress.dscp_prios = at.dscp
    egress.marking = summary(egress.filters, egress.default_service, egress.vlan_map)
    return egress
