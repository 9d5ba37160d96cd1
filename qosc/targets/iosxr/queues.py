"""The egress queuing classes of one interface: priority, shares, queue-limit, WRED, caps and egress marking.

- a strict service: `priority level 1` (the next one level 2, ...), capped by `police rate` (ASR 9000) or
  `shape average` (Cisco 8000: no egress policer) at queue.rate-cap, else its policer's CIR;
- a share: `bandwidth percent N` where the box takes a minimum and the share is a whole percentage, else
  `bandwidth <rate> kbps`; on the Cisco 8000 (no minimum) `bandwidth remaining ratio` in proportion to the
  shares (a 0% share is ratio 1), with QOS245 saying what that guarantees;
- `queue-limit` always, with its unit: the buffer as a time (a percentage is that share of the platform's
  port_buffer_us), else the platform's default written out;
- WRED: one `random-detect` profile per drop profile, thresholds the profile's fill levels of the queue-limit,
  keyed by the field the platform has (dscp per drop precedence on the ASR 9000; discard-class, set by the
  ingress policy, on the Cisco 8000: 0 for the first profile, 1 for the next); one profile for every precedence
  is an unkeyed `random-detect`; a class takes at most `wred_per_class` profiles, so the highest drop
  precedences of a service with more share the profile of the lowest of them (QOS251);
- a ceiling: `shape average` at it; rewrite: `set mpls experimental topmost` / `set cos` where the interface
  rewrites EXP or PCP and the platform marks in the egress queuing policy.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from qosc import dscp as dscp_mod
from qosc.diagnostics import Diagnostic, error, info, warning
from qosc.model import Domain, Interface, Policy, Service, resolve_rate
from qosc.sizing import burst_allowance
from qosc.targets.iosxr.platform import IosxrPlatform
from qosc.targets.iosxr.words import dscp_list, kbps_words, number, size_words, time_words
from qosc.tree import At, Statement, kw, stmt
from qosc.units import Percent


@dataclass
class Queues:
    """Lowers the egress classes of interfaces of one device (one instance per device)."""

    policy: Policy
    platform: IosxrPlatform
    device: str
    found: list[Diagnostic] = field(default_factory=list)
    tc: dict[str, int] = field(default_factory=dict)
    """Queue owner -> traffic-class (Cisco 8000), set by the device lowering."""
    assumed: set[str] = field(default_factory=set)
    """The platform's unverified facts the output relies on (QOS250)."""

    def assume(self, *facts: str) -> None:
        self.assumed.update(f for f in facts if f in self.platform.unverified)

    def say(self, make: Callable[..., Diagnostic], code: str, message: str, where: Any, hint: str | None = None
            ) -> None:
        diag = make(code, message, where, hint)
        if diag not in self.found:
            self.found.append(diag)

    def owners(self, iface: Interface) -> list[Service]:
        out: list[Service] = []
        for s in self.policy.services_on(iface):
            owner = self.policy.queue_owner(s)
            if owner not in out:
                out.append(owner)
        default = self.policy.default_service
        return sorted(out, key=lambda s: s is default)

    def members(self, owner: Service, iface: Interface) -> list[Service]:
        return [s for s in self.policy.services_on(iface) if self.policy.queue_owner(s) is owner]

    # -- one class -----------------------------------------------------------------------------------------

    def strict(self, s: Service, iface: Interface, level: int) -> list[Statement]:
        out = [stmt("priority", "level", number(level), origin=At(s.where, "queue.strict"))]
        if s.queue.uncapped and s.policer not in self.policy.policer_map:
            self.say(error, "QOS048", f"strict-priority service '{s.name}' is uncapped (rate-cap: none), but "
                     f"qosc writes every IOS XR priority class with its cap ({self.platform.name}: "
                     f"{'shape average' if self.platform.strict_cap == 'shape' else 'police rate'} in the class, "
                     "platform data strict_cap), and no Cisco text read says the box serves one without",
                     s.where.at("queue.rate-cap"), "give the service a queue.rate-cap (or a policer) for IOS XR "
                     "devices")
            return out
        cap = resolve_rate(s.queue.rate_cap, iface.rate)
        if cap is None and s.queue.rate_cap is None and s.policer in self.policy.policer_map:
            cap = self.policy.policer_map[s.policer or ""].cir
        where = At(s.where, "queue.rate-cap")
        pct = s.queue.rate_cap.value if isinstance(s.queue.rate_cap, Percent) else None
        if pct is not None and (not float(pct).is_integer() or pct < 1):
            pct = None
        if cap is None and pct is None:
            self.say(error, "QOS241", f"strict-priority service '{s.name}' on {self.device}:{iface.name} has no "
                     "cap IOS XR can write: a priority class must be capped (rate-cap needs the interface speed)",
                     s.where.at("queue.rate-cap") or s.where.at("queue.strict"),
                     "give queue.rate-cap as a rate, or set the interface speed")
            return out
        rate_words = ("percent", number(int(pct))) if pct is not None else kbps_words(cap or 0)
        self.assume("strict_cap")
        if self.platform.strict_cap == "shape":
            out.append(stmt("shape", "average", *rate_words, origin=where))
            return out
        policer = self.policy.policer_map.get(s.policer or "")
        burst = burst_allowance(cap or 0, iface.mtu, policer.cbs if policer is not None else None)
        out.append(stmt("police", "rate", *rate_words, "burst", *size_words(burst.bytes), origin=where,
                        comment=f"strict priority capped at {cap or f'{pct:g}%'}; burst {burst.formula}",
                        children=[stmt("conform-action", "transmit"), stmt("exceed-action", "drop")]))
        return out

    def share(self, s: Service, iface: Interface, shares: dict[str, float]) -> list[Statement]:
        pct = shares.get(s.name)
        where = At(s.where, "queue.share")
        self.assume("min_bandwidth")
        if not self.platform.min_bandwidth:
            self.assume("remaining_ratio")
            top = max(shares.values(), default=0.0) or 1.0
            high = self.platform.remaining_ratio.high
            ratio = max(self.platform.remaining_ratio.low, round((pct or 0.0) / top * high))
            if pct is not None and abs(ratio / high * top - pct) > 0.05:
                self.say(info, "QOS245", f"service '{s.name}' share {pct:g}% is bandwidth remaining ratio {ratio} "
                         f"(of {high} for the largest share) on {self.platform.name}: a share of what priority "
                         "traffic leaves, in proportion to the others", s.where.at("queue.share"))
            return [stmt("bandwidth", "remaining", "ratio", number(ratio), origin=where)]
        if pct is None or pct <= 0:
            return []
        if float(pct).is_integer():
            return [stmt("bandwidth", "percent", number(int(pct)), origin=where)]
        if not iface.rate:
            self.say(error, "QOS243", f"service '{s.name}' share {pct:g}% is not a whole percentage and "
                     f"{self.device}:{iface.name} has no speed to write it as a rate", s.where.at("queue.share"),
                     "use whole percentages, or set the speed")
            return []
        return [stmt("bandwidth", *kbps_words(round(iface.rate * pct / 100)), origin=where)]

    def queue_us(self, s: Service) -> int:
        b = s.queue.buffer
        if b is not None and b.time_us is not None:
            return max(1, b.time_us)
        if b is not None and b.percent is not None:
            self.assume("port_buffer_us")
            return max(1, round(self.platform.port_buffer_us * b.percent.value / 100))
        self.assume("default_queue_us")
        return self.platform.default_queue_us

    def drop_groups(self, owner: Service) -> list[tuple[tuple[int, ...], str]]:
        """The WRED profiles of a queue owner's class: (drop precedences, drop profile), lowest precedence first.
        More than the platform's `wred_per_class`: the highest precedences share the profile of the lowest of
        them (QOS251)."""
        if owner.queue.aqm != "red":
            return []
        profiles = {p: n for p, n in owner.drop_profiles if n in self.policy.drop_profile_map}  # dangling: QOS0xx
        groups = [(tuple(sorted(p for p, m in profiles.items() if m == name)), name)
                  for name in sorted(set(profiles.values()), key=lambda n: min(p for p, m in profiles.items()
                                                                                if m == n))]
        if len(groups) > 1:
            self.assume("wred_per_class", "wred_fields")
        limit = max(1, self.platform.wred_per_class)
        if len(groups) > limit:
            rest = groups[limit - 1:]
            merged = (tuple(sorted(p for precs, _ in rest for p in precs)), rest[0][1])
            self.say(info, "QOS251", f"service '{owner.name}' has {len(groups)} drop profiles; an IOS XR class on "
                     f"{self.platform.name} takes {limit} random-detect profiles, so its drop precedences "
                     f"{', '.join(str(p) for p in merged[0])} share '{merged[1]}'", owner.where.at("drop-profile"),
                     f"give it at most {limit} drop profiles to choose which precedences share one")
            groups = [*groups[:limit - 1], merged]
        return groups

    def discard_class(self, service: Service, precedence: int) -> int:
        """The discard-class an ingress class sets for traffic of a service at a drop precedence (Cisco 8000): the
        index of its WRED profile in its queue's class (0: the first, or no profile)."""
        groups = self.drop_groups(self.policy.queue_owner(service))
        return next((i for i, (precs, _) in enumerate(groups) if precedence in precs), 0) if len(groups) > 1 else 0

    def wred(self, owner: Service, iface: Interface, limit_us: int) -> list[Statement]:
        if owner.queue.aqm == "codel":
            self.say(error, "QOS244", f"service '{owner.name}' asks for CoDel, which IOS XR does not have",
                     owner.where.at("queue.aqm"), "use aqm: red with a drop profile, or none")
        groups = self.drop_groups(owner)
        where = At(owner.where, "drop-profile")
        if len(groups) == 1:
            return [self.profile(groups[0][1], limit_us, None, None, where)]
        out: list[Statement] = []
        field_ = "discard-class" if "dscp" not in self.platform.wred_fields else "dscp"
        for index, (precs, name) in enumerate(groups):
            if field_ == "discard-class":
                values = str(index)
            else:
                codes = [c for s in self.members(owner, iface) for c in s.dscp
                         if dscp_mod.drop_precedence(c) in precs]
                if not codes:
                    continue
                values = dscp_list(codes).text
            out.append(self.profile(name, limit_us, field_, values, where))
        return out

    def profile(self, name: str, limit_us: int, field_: str | None, values: str | None, where: At) -> Statement:
        dp = self.policy.drop_profile_map[name]
        low, high, prob = dp.thresholds()
        lo_us = max(1, round(limit_us * low / 100))
        hi_us = max(lo_us + 1, round(limit_us * high / 100))  # a step (min = max) is a one-microsecond ramp
        if prob < 100:
            self.say(info, "QOS245", f"drop profile '{name}' drops {prob:g}% at {high:g}% fill; IOS XR's "
                     f"random-detect rises to 100% at its maximum threshold, so the curve is steeper",
                     dp.where.at("max-probability") or dp.where.at("points"))
        head = ("random-detect", field_, kw(values or "")) if field_ else ("random-detect",)
        return stmt(*head, *time_words(lo_us), *time_words(hi_us), origin=where,
                    comment=f"drop profile {name}: {low:g}%..{high:g}% of the {limit_us} us queue-limit"
                            + (f" ({dp.description})" if dp.description else ""))

    def rewrite(self, owner: Service, iface: Interface) -> list[Statement]:
        out = []
        for domain, words in ((Domain.EXP, ("set", "mpls", "experimental", "topmost")), (Domain.PCP, ("set", "cos"))):
            if domain not in iface.rewrite:
                continue
            value = owner.mark_in(domain, 1)
            value = 0 if value is None and owner.default else value
            if value is None:
                continue
            if self.platform.split:
                self.say(warning, "QOS246", f"{self.platform.name} marks in its egress queuing policy nothing but "
                         f"what the ingress policy set: {domain.label} leaves {self.device}:{iface.name} as it "
                         "arrived (a label swap keeps its EXP)",
                         iface.where.at("rewrite"), "rewrite on the ingress side, or drop rewrite here")
                continue
            if len({owner.mark_in(domain, p) for p in (1, 2, 3)} - {None}) > 1:
                self.say(warning, "QOS246", f"service '{owner.name}' has {domain.label} values per drop precedence; "
                         "an egress class marks one: its low-precedence value", owner.where.at(domain.value))
            out.append(stmt(*words, number(value), origin=At(iface.where, "rewrite")))
        return out

    def body(self, owner: Service, iface: Interface, level: int, shares: dict[str, float]) -> list[Statement]:
        if owner.queue.strict:
            return self.strict(owner, iface, level) + self.rewrite(owner, iface)
        limit = self.queue_us(owner)
        out = self.share(owner, iface, shares)
        out.append(stmt("queue-limit", *time_words(limit), origin=At(owner.where, "queue.buffer")))
        out += self.wred(owner, iface, limit)
        if owner.queue.ecn and out[-1].keyword == "random-detect":
            out.append(stmt("random-detect", "ecn", origin=At(owner.where, "queue.ecn")))
        ceiling = resolve_rate(owner.queue.ceiling, iface.rate)
        if ceiling is not None and iface.rate and ceiling < iface.rate:
            out.append(stmt("shape", "average", *kbps_words(ceiling), origin=At(owner.where, "queue.ceiling")))
        return out + self.rewrite(owner, iface)
