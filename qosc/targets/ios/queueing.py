"""Queue sizes and WRED of ios-mqc classes: queue-limit from a buffer, the queue WRED thresholds are fill % of,
and `random-detect` lines (precedence- or DSCP-based) per class.

Thresholds in packets = drop-profile fill level x the class's queue: its queue-limit where the service has a
buffer, or (IOS XE, default_bdp) the queue-limit qosc writes for a bandwidth class without one, one BDP at its
guarantee (classic IOS writes that only in classes without WRED); else, where the platform has a default
queue time (ios-gsr: 50 ms), that time at the link rate in interface-MTU packets; else the IOS default
queue-limit of 64 packets.  Mark-probability denominator = 100 / drop % at max.
"""

from __future__ import annotations

import math

from qosc import dscp as dscp_mod
from qosc import sizing
from qosc.model import Device, Interface, Policy, Service
from qosc.targets.ios.common import Command, Findings, at, ios_dscp, members, ramp_differs
from qosc.targets.ios.platform import IosPlatform, MqcPlatform
from qosc.units import format_rate


class Queueing:
    """What MqcLowering needs for queue-limit and WRED (mixed in: it has these attributes)."""

    policy: Policy
    device: Device
    d: MqcPlatform
    platform: IosPlatform
    found: Findings
    by_precedence: bool

    def queue_limit(self, s: Service, iface: Interface) -> int | None:
        q, buf = self.d.queue, s.queue.buffer
        if buf is None:
            return None
        if buf.percent is not None:
            packets = max(1, round(buf.percent.value * q.port_buffer_packets / 100))
        elif buf.time_us is not None and iface.rate:
            packets = max(1, math.ceil(buf.time_us * iface.rate / 8_000_000 / iface.mtu))
        else:
            self.found.error("QOS121", f"service '{s.name}' buffer is a time, but {self.device.name}:{iface.name} "
                             "has no speed to turn it into a queue-limit", s.where.at("queue.buffer"),
                             "set the interface speed, or give the buffer as a percentage")
            return None
        if packets > q.limit_max:
            self.found.error("QOS121", f"service '{s.name}' buffer needs a queue-limit of {packets} packets on "
                             f"{iface.name}, above {self.platform.name}'s {q.limit_max}", s.where.at("queue.buffer"),
                             "give the service a smaller buffer")
            return None
        return packets

    def queue_commands(self, s: Service, iface: Interface, pct: float | None, default: bool,
                       visible: set[int]) -> tuple[list[Command], list[str]]:
        """The queue-limit and WRED lines of a bandwidth class, and their notes.  A class without a buffer gets
        default_queue's BDP as queue-limit where the dialect takes one: on IOS XE always (the WRED thresholds are
        fill % of it), on classic IOS only without WRED (beside WRED it takes none, and the thresholds keep
        the platform's default queue as reference)."""
        q = self.d.queue
        cmds: list[Command] = []
        notes: list[str] = []
        limit = self.queue_limit(s, iface)
        implied = self.default_queue(s, iface, pct) if limit is None else None
        if implied is not None and q.limit_with_wred:
            limit = implied[0]
            notes.append(implied[1])
        if limit is not None and pct is None and not default and q.limit_needs_rate:
            self.found.error("QOS134", f"service '{s.name}' has a buffer but no share; {self.platform.name} takes "
                             "a queue-limit only in a class with bandwidth, shape or priority",
                             s.where.at("queue.buffer"), "give the service a share, or remove its buffer")
            limit = None
        size, why = self.queue_size(iface, limit)
        if implied is not None and limit == implied[0]:
            why = f"WRED thresholds are fill % of the class's {limit}-packet queue-limit"
        wred = self.wred(s, iface, visible, size)
        if implied is not None and not q.limit_with_wred and not wred:
            limit = implied[0]
            notes.append(implied[1])
        if limit is not None and (not wred or q.limit_with_wred):
            cmds.append(at(["queue-limit", limit], s.where, "queue.buffer"))
        if wred and not (limit is not None and q.limit_with_wred):
            notes.append(why + ("" if q.limit_with_wred else "; no queue-limit with WRED here"))
        if wred and not q.limit_with_wred:
            self.queue_unstated(s, limit, size, why)
        cmds += wred
        if not wred:
            self.ecn_without_wred(s, iface)
        return cmds, notes

    def queue_unstated(self, s: Service, limit: int | None, size: int, why: str) -> None:
        """QOS181: classic IOS takes no queue-limit beside random-detect, so the queue the WRED thresholds are
        fill % of is not in the configuration: a reader (and verify) can only infer it."""
        what = (f"service '{s.name}' buffer ({limit} packets) is not configured on {self.device.name}" if limit
                is not None else f"the {size}-packet queue service '{s.name}' WRED thresholds are fill % of is an "
                f"assumption ({why.split('(', 1)[-1].rstrip(')')}), not configured on {self.device.name}")
        self.found.info("QOS181", f"{self.platform.name} takes no queue-limit beside random-detect, so {what}: "
                           "only the WRED thresholds are, in packets; read back, they are a fill level of the "
                           "queue the reader infers",
                           s.where.at("queue.buffer" if limit is not None else "drop-profile"),
                           "leave the buffer out, or give it equal to the share (the queue read back then is the "
                           "share of the packet pool)" if limit is not None else
                           "give the service a buffer whose queue makes the thresholds the packets you want "
                           "(examples/datagrid-gsr-seed.yaml), or accept that verify compares fill levels of an "
                           "inferred queue")

    def default_queue(self, s: Service, iface: Interface, pct: float | None) -> tuple[int, str] | None:
        """The queue-limit of a bandwidth class without a buffer where the platform sizes one (default_bdp; see
        queue_commands for where it is written): one BDP at its guarantee (qosc.sizing), at most the port pool
        and limit_max, and its note; None elsewhere (the box's default queue stays)."""
        q = self.d.queue
        if not q.default_bdp or s.queue.buffer is not None or not iface.rate or not pct:
            return None
        guarantee = max(1, round(iface.rate * pct / 100))
        size = sizing.queue_size(guarantee, iface.rate, iface.mtu,
                                 rtt_us=s.rtt_us if s.rtt_us is not None else self.policy.rtt_us)
        packets = min(size.packets, q.port_buffer_packets, q.limit_max)
        formula = size.formula + (f", at most the {packets}-packet pool" if packets < size.packets else "")
        return packets, f"queue-limit {packets} packets: {formula}"

    def queue_size(self, iface: Interface, limit: int | None) -> tuple[int, str]:
        """The queue the WRED thresholds of a class are fill % of, and a note saying where it comes from.

        The class's queue-limit where it has a buffer; else, where the platform gives a default queue time
        (ios-gsr: 50 ms), that time at the link rate in interface-MTU packets (at most the largest threshold);
        else the IOS default queue-limit (64 packets)."""
        q = self.d.queue
        if limit is not None:
            return limit, f"WRED thresholds are fill % of the {limit}-packet queue of the service's buffer"
        if q.default_delay_us is None or not iface.rate:
            return q.default_limit, f"WRED thresholds are fill % of the default {q.default_limit}-packet queue"
        packets = max(1, math.ceil(q.default_delay_us * iface.rate / 8_000_000 / iface.mtu))
        ms = f"{q.default_delay_us / 1000:g} ms at {format_rate(iface.rate)} in {iface.mtu}-byte packets"
        if packets > q.threshold_max:
            return q.threshold_max, (f"WRED thresholds are fill % of a {q.threshold_max}-packet queue (the largest "
                                     f"threshold; {ms} would be {packets} packets)")
        return packets, f"WRED thresholds are fill % of a {packets}-packet queue ({ms})"

    def thresholds(self, profile: str | None, limit: int, s: Service) -> list[int]:
        if profile is None or profile not in self.policy.drop_profile_map:
            return [limit, limit, 1]
        lo, hi, prob = self.policy.drop_profile_map[profile].thresholds()
        low = max(1, round(lo * limit / 100))
        high = max(low, round(hi * limit / 100))
        if high > self.d.queue.threshold_max:
            self.found.error("QOS121", f"drop profile '{profile}' of service '{s.name}' needs a WRED threshold of "
                             f"{high} packets, above {self.platform.name}'s {self.d.queue.threshold_max}",
                             s.where.at("queue.buffer", "drop-profile"), "give the service a smaller buffer")
        denominator = 65535 if prob <= 0 else max(1, min(65535, round(100 / prob)))
        ramp_differs(self.found, self.platform.name, self.policy.drop_profile_map[profile],
                     (lo, hi, 100 / denominator), "write the profile as min/max/max-probability (one ramp; the "
                     "mark probability is 1/denominator) to get what the box runs")
        return [low, high, denominator]

    def wred(self, owner: Service, iface: Interface, visible: set[int], limit: int) -> list[Command]:
        carried = members(self.policy, owner, iface)
        claim = {x: m for m in carried for x in m.dscp}
        profile = {}
        for x in sorted(visible):
            m = claim.get(x, owner)
            # aqm: none is tail drop even with a drop profile (only red runs WRED)
            profile[x] = (m.drop_profile_for(dscp_mod.drop_precedence(x)) or m.drop_profile_for(1)) \
                if m.queue.aqm == "red" else None
        if not any(profile.values()):
            return []
        by_prec: dict[int, list[int]] = {}
        for x in sorted(visible, key=lambda c: (dscp_mod.drop_precedence(c), c)):
            by_prec.setdefault(x >> 3, []).append(x)
        mixed = [p for p, xs in by_prec.items() if len({profile[x] for x in xs}) > 1]
        cmds: list[Command]
        if mixed and not self.by_precedence:
            cmds = [["random-detect", "dscp-based"]]
            cmds += [at(["random-detect", "dscp", ios_dscp(x), *self.thresholds(profile[x], limit,
                                                                                 claim.get(x, owner))],
                        claim.get(x, owner).where, "drop-profile") for x in sorted(visible)]
        else:
            for p in mixed:
                s = claim.get(by_prec[p][0], owner)
                self.found.info("QOS122", f"{self.platform.name} schedules by IP precedence, so service "
                                   f"'{s.name}' cannot drop its AF drop precedences differently; precedence {p} uses "
                                   f"drop profile '{profile[by_prec[p][0]]}'", s.where.at("drop-profile"),
                                   "use one drop profile for the service on this platform")
            # bare `random-detect` is precedence-based WRED on every IOS: classic 12.0S spells the keyword
            # prec-based, IOS XE precedence-based and prints it back bare, so only the bare form converges on push
            cmds = [["random-detect"]]
            for p, xs in sorted(by_prec.items()):
                levels = self.thresholds(profile[xs[0]], limit, claim.get(xs[0], owner))
                cmds.append(at(["random-detect", "precedence", p, *levels], claim.get(xs[0], owner).where,
                               "drop-profile"))
        if any(m.queue.ecn for m in carried) and self.d.ecn:
            cmds.append(at(["random-detect", "ecn"], owner.where, "queue.ecn"))
        return cmds

    def ecn_without_wred(self, owner: Service, iface: Interface) -> None:
        for m in members(self.policy, owner, iface):
            if m.queue.ecn and self.d.ecn:
                self.found.warning("QOS123", f"service '{m.name}' asks for ECN, but IOS marks ECN only where WRED "
                                   "runs and its class has no drop profile", m.where.at("queue.ecn"),
                                   "give the service a drop profile, or remove queue.ecn")
