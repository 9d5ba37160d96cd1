"""How MQC class-maps match a service's code points on one IOS dialect (qosc.targets.ios.mqc): `match dscp`
(IOS XE: IPv4 and IPv6) or, where the platform's `match` is `precedence` (IOS 12.0S on the GSR), `match ip
precedence`, which catches whole precedences on IPv4 only, said with QOS180."""

from __future__ import annotations

from qosc import dscp as dscp_mod
from qosc.model import Policy, Service
from qosc.targets.ios.common import Command, Findings, chunks, ios_dscp
from qosc.targets.ios.platform import IosPlatform


class ClassMatching:
    """What MqcLowering needs to match code points (mixed in: it has these attributes)."""

    policy: Policy
    platform: IosPlatform
    found: Findings
    by_precedence: bool

    def class_dscps(self, owner: Service) -> list[int]:
        sharers = [s for s in self.policy.services if s.queue.shared_with and s is not owner
                   and self.policy.queue_owner(s) is owner]
        out: list[int] = []
        for s in [owner, *sharers]:
            out += [x for x in s.dscp if x not in out]
        return out

    def dscp_lines(self, codes: list[int]) -> list[Command]:
        if self.by_precedence:
            return [["match", "ip", "precedence", *c] for c in chunks(sorted({x >> 3 for x in codes}), 4)]
        # `match dscp` matches IPv4 and IPv6 (the edge marks both with `set dscp`); `match ip dscp` only IPv4
        # (Cisco IOS QoS Command Reference, match dscp).  Platforms that classify by DSCP are IOS XE.
        return [["match", "dscp", *[ios_dscp(x) for x in c]] for c in chunks(codes, 8)]

    def covered(self, codes: list[int]) -> set[int]:
        """The DSCPs a class matching `codes` catches (whole precedences where matching is by precedence)."""
        if self.by_precedence:
            precs = {x >> 3 for x in codes}
            return {x for x in range(64) if x >> 3 in precs}
        return set(codes)

    def precedence_reach(self, services: tuple[Service, ...]) -> None:
        """`match ip precedence` catches every code point of the precedence, and IPv4 only: say what the class
        of each non-default service takes beyond the policy (read back, verify finds exactly that)."""
        declared = {x for s in services for x in s.dscp}
        default = self.policy.default_service
        for s in services:
            if s is default or s.queue.shared_with or not s.dscp:
                continue
            extra = sorted(self.covered(self.class_dscps(s)) - declared)
            precs = ", ".join(str(p) for p in sorted({x >> 3 for x in self.class_dscps(s)}))
            taken = f"code points of no service ({', '.join(dscp_mod.name(x) for x in extra)}) go to it too, and " \
                if extra else ""
            self.found.info("QOS180", f"{self.platform.name} matches service '{s.name}' by IP precedence "
                               f"{precs}, on IPv4 only: {taken}its IPv6 packets go to class-default",
                               s.where.at("dscp"), "on IOS XE platforms qosc matches DSCP on IPv4 and IPv6")
