"""Bounds qosc derives from the configuration, each with the formula that produced it.

These are kept apart from the targets an operator declares in `sls:` (see
qosc.model.Sls): a declared target is a promise, a derived bound is what the
configured shares, link rates and policers can actually support.

- Minimum rate of a service at an interface: share x link rate, where the link
  rate is the egress shaper if any, else the interface speed.
- Per-hop queueing delay bound of a strict-priority service (or of the one
  queue at the highest priority on the interface, while it stays within its
  share): (b + MTU) x 8 / C, with b the burst the edge policer lets into the
  queue (its CBS for a two-colour policer that drops the excess), MTU the
  interface MTU (one packet already in transmission, no preemption) and C the
  link rate.
- On a hop whose target sizes its classes itself (Target.class_sizing:
  linux-tc, where HTB shapes a capped class at its cap, so its queue drains
  at the cap, not at the link; JUNOS MX, whose strict-high queue is shaped at
  its cap with burst-size; IOS MQC, whose priority class is policed at its
  cap), the bound comes from the numbers that target writes into the
  configuration, through qosc.sizing.delay_bound:
  min(Q / R, P / R, max(b / C, (b - B) / R)) + F / C, with Q the class's
  queue limit, R the rate it drains at, B its shaper burst, P the bucket of
  a policer capping it at its entrance (IOS), F one frame.  A target
  that cannot size a class from documented facts (sizing.Unsized) keeps the
  generic formula, and its formula string says why.
- End-to-end: the per-hop bounds summed along the declared `sls.path`.

All arithmetic is exact (integers and Fractions); only display rounds.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction

from qosc import sizing
from qosc.model import Action, Device, Interface, Kind, Policer, Policy, Service
from qosc.sizing import fmt_rate, fmt_time
from qosc.units import Percent, format_size

# -- formatting ---------------------------------------------------------------


def fmt_size(nbytes: int) -> str:
    """64000 -> '64KB', 1500 -> '1500B' (the spelling policies use)."""
    return format_size(nbytes)


def fmt_share(share: object) -> str:
    if isinstance(share, Percent):
        return str(share)
    return fmt_rate(int(share))  # type: ignore[call-overload]


# -- the burst a service's policers let into its queue -------------------------


@dataclass(frozen=True)
class Envelope:
    """The traffic envelope the edge policers enforce on a service: rate r and burst b."""

    policers: tuple[Policer, ...]
    rate: int | None
    """Sum of the committed rates (CIR) of the policers."""
    burst: int | None
    """Bytes that may enter the service's queue at once; None when unbounded or unpoliced."""
    burst_rate: int | None
    """The rate that accompanies `burst` (PIR when yellow traffic stays in the queue of a trTCM)."""
    formula: str
    note: str | None = None


def service_of_dscp(policy: Policy, dscp: int) -> Service | None:
    """The service a code point is classified into by a DSCP-trusting hop (the default service otherwise)."""
    for s in policy.services:
        if dscp in s.dscp:
            return s
    return policy.default_service


def _stays(policy: Policy, service: Service, action: Action | None) -> bool:
    """Whether traffic given `action` still enters `service`'s queue downstream."""
    if action is None or action.kind == "drop":
        return False
    if action.kind == "transmit" or action.dscp is None:
        return True
    other = service_of_dscp(policy, action.dscp)
    return other is not None and policy.queue_owner(other).name == policy.queue_owner(service).name


def policers_of(policy: Policy, service: Service) -> tuple[Policer, ...]:
    """The service's own policer, then policers of classifier rules that mark into it (distinct, in order)."""
    names: list[str] = []
    if service.policer:
        names.append(service.policer)
    for c in policy.classifiers:
        for r in c.rules:
            if r.service == service.name and r.policer and r.policer not in names:
                names.append(r.policer)
    return tuple(policy.policer_map[n] for n in names if n in policy.policer_map)


def _bucket(policy: Policy, service: Service, p: Policer) -> tuple[int | None, int, str]:
    """(bytes, rate, explanation) of the burst one policer lets into the queue."""
    conform = _stays(policy, service, p.conform)
    exceed = _stays(policy, service, p.exceed)
    violate = _stays(policy, service, p.violate)
    if p.algorithm == "trtcm":
        if violate:
            return None, p.pir or p.cir, f"{p.name}: red traffic stays in the queue, so no bucket bounds it"
        if exceed:
            pbs = p.pbs if p.pbs is not None else p.cbs
            return pbs, p.pir or p.cir, f"PBS of {p.name} (yellow traffic stays in the queue) = {fmt_size(pbs)}"
        return (p.cbs if conform else 0), p.cir, f"CBS of {p.name} = {fmt_size(p.cbs)}"
    if p.algorithm == "srtcm":
        if violate:
            return None, p.cir, f"{p.name}: red traffic stays in the queue, so no bucket bounds it"
        if exceed:
            total = p.cbs + (p.ebs or 0)
            return (total, p.cir,
                    f"CBS + EBS of {p.name} = {fmt_size(p.cbs)} + {fmt_size(p.ebs or 0)} = {fmt_size(total)}")
        return (p.cbs if conform else 0), p.cir, f"CBS of {p.name} = {fmt_size(p.cbs)}"
    if exceed:
        return None, p.cir, f"{p.name}: excess traffic stays in the queue, so no bucket bounds it"
    return (p.cbs if conform else 0), p.cir, f"CBS of {p.name} = {fmt_size(p.cbs)}"


def envelope(policy: Policy, service: Service) -> Envelope:
    pols = policers_of(policy, service)
    if not pols:
        return Envelope((), None, None, None, "", "no edge policer bounds the rate or burst of this service")
    bursts = [_bucket(policy, service, p) for p in pols]
    rate = sum(p.cir for p in pols)
    if any(b is None for b, _, _ in bursts):
        why = "; ".join(text for b, _, text in bursts if b is None)
        return Envelope(pols, rate, None, None, "", why)
    total = sum(b for b, _, _ in bursts if b is not None)
    burst_rate = sum(r for _, r, _ in bursts)
    if len(bursts) == 1:
        formula = bursts[0][2]
    else:
        formula = " + ".join(f"({text})" for _, _, text in bursts) + f" = {fmt_size(total)}"
    return Envelope(pols, rate, total, burst_rate, formula)


# -- per-hop bounds -------------------------------------------------------------


@dataclass(frozen=True)
class Hop:
    """One egress interface the service crosses, and what the configuration guarantees there."""

    label: str
    """device:interface as written (or as named by the policy)."""
    device: str | None
    interface: str | None
    found: bool
    scheduled: bool = False
    queue: str | None = None
    """The service whose queue carries the traffic (itself unless shared-with)."""
    link_rate: int | None = None
    shaped: bool = False
    mtu: int | None = None
    share: str | None = None
    min_rate: int | None = None
    rate_formula: str | None = None
    rate_note: str | None = None
    scheduling: str | None = None
    """'strict priority', 'highest priority (high)' or 'WRR' and why."""
    delay_us: Fraction | None = None
    delay_formula: str | None = None
    delay_note: str | None = None
    sized_by: str | None = None
    """The target whose configured queue, drain rate and burst give the delay bound (None: the generic
    (b + MTU) x 8 / C of a queue served at the link rate)."""


def target_sizing(policy: Policy, device: Device, iface: Interface,
                  service: Service) -> tuple[str, sizing.ClassSizing | sizing.Unsized] | None:
    """(target name, class sizing) from the device's target (Target.class_sizing), or None where it does not
    size its classes."""
    from qosc.targets.registry import for_platform

    for target in for_platform(device.platform):
        found = target.class_sizing(policy, device, iface, service)
        if found is not None:
            return target.name, found
    return None


def find_hop(policy: Policy, label: str) -> tuple[Device | None, Interface | None]:
    """Resolve 'device:interface' (the device name is the longest match, so interface names may hold ':')."""
    best: Device | None = None
    for d in policy.devices:
        if label.startswith(d.name + ":") and (best is None or len(d.name) > len(best.name)):
            best = d
    if best is None:
        return None, None
    name = label[len(best.name) + 1:]
    for i in best.interfaces:
        if i.name == name:
            return best, i
    return best, None


def _min_rate(service: Service, owner: Service,
              iface: Interface) -> tuple[str | None, int | None, str | None, str | None]:
    """(share text, minimum rate, formula, note) of the owner's queue on an interface."""
    q = owner.queue
    link = iface.rate
    link_text = f"{fmt_rate(link)}{' (shaped)' if iface.shape is not None else ''}" if link else None
    share, what = q.share, "share"
    if share is None and q.strict and q.rate_cap is not None:
        share, what = q.rate_cap, "rate-cap"
    if share is None:
        return None, 0, "no share configured: 0 bit/s guaranteed", None
    text = fmt_share(share)
    if isinstance(share, Percent):
        if link is None:
            return text, None, None, "the interface has no speed, so the share cannot be turned into a rate"
        rate = share.of(link)
        formula = f"{text} × {link_text} = {fmt_rate(rate)}"
    else:
        rate = int(share)
        formula = f"{what} {fmt_rate(rate)} (absolute)"
        if link is not None and rate > link:
            rate = link
            formula += f", limited by the link: {fmt_rate(link)}"
    note = None
    if owner is not service:
        note = f"carried in the queue of '{owner.name}' (shared-with), whose traffic takes from the same rate"
    if what == "rate-cap":
        formula = f"rate-cap {formula}"
    return text, rate, formula, note


def _scheduling(policy: Policy, owner: Service, iface: Interface) -> tuple[str, str | None]:
    """How the queue is served: ('strict priority' | 'highest priority ...' , None) or ('WRR', reason no bound)."""
    others = {policy.queue_owner(s).name: policy.queue_owner(s) for s in policy.services_on(iface)}
    others.pop(owner.name, None)
    strict = sorted(n for n, o in others.items() if o.queue.strict)
    if owner.queue.strict:
        if strict:
            return ("strict priority",
                    f"shares strict priority with {', '.join(strict)}, whose bursts are not bounded here")
        return "strict priority", None
    if strict:
        return "WRR", f"the strict-priority queue of {', '.join(strict)} is served first"
    level = owner.queue.priority
    peers = sorted(n for n, o in others.items() if o.queue.priority >= level)
    if peers:
        return "WRR", (f"weighted round robin at priority '{level.label}' together with {', '.join(peers)}; "
                       "the delay depends on their load")
    return f"highest priority ('{level.label}', above every other queue)", None


def hop(policy: Policy, service: Service, label: str, env: Envelope | None = None) -> Hop:
    device, iface = find_hop(policy, label)
    if device is None or iface is None:
        return Hop(label, device.name if device else None, None, False)
    if service.name not in iface.services:
        default = policy.default_service
        where = f"the default service '{default.name}'" if default else "no queue"
        return Hop(label, device.name, iface.name, True, False, link_rate=iface.rate, shaped=iface.shape is not None,
                   mtu=iface.mtu, rate_note=f"not scheduled here: its traffic is treated as {where}, so nothing is "
                   "guaranteed to it at this hop",
                   delay_note="not scheduled on this interface")
    if iface.default_queueing:
        return Hop(label, device.name, iface.name, True, False, link_rate=iface.rate, shaped=iface.shape is not None,
                   mtu=iface.mtu, rate_note="not scheduled here: the interface leaves egress queueing to the "
                   "device's defaults (egress-queueing: device-default), so the policy guarantees nothing at this hop",
                   delay_note="queued by the device's defaults, not by the policy")
    env = env if env is not None else envelope(policy, service)
    owner = policy.queue_owner(service)
    share, rate, rformula, rnote = _min_rate(service, owner, iface)
    scheduling, why_not = _scheduling(policy, owner, iface)
    delay = dformula = sized_by = None
    link = iface.rate
    sized = target_sizing(policy, device, iface, service) if why_not is None else None
    unsized = None
    if sized is not None and isinstance(sized[1], sizing.Unsized):
        unsized, sized = f"{sized[0]}: {sized[1].reason}", None
    if sized is not None:
        sized_by, size = sized
        assert isinstance(size, sizing.ClassSizing)
        sigma = env.burst
        if sigma is not None and env.burst_rate is not None and env.burst_rate > size.drain.rate:
            sigma = None  # beyond the drain rate the burst does not bound the queue: its limit still does
        bound = sizing.delay_bound(size, sigma)
        if bound is None:
            why_not = env.note or "no policer bounds the burst"
        else:
            delay, dformula = bound.us, f"{sized_by}: {bound.formula} ({size.drain.why})"
    elif why_not is None:
        if env.burst is None:
            why_not = env.note or "no policer bounds the burst"
        elif link is None:
            why_not = "the interface has no speed"
        else:
            limit = link if owner.queue.strict else rate
            limit_name = "link rate" if owner.queue.strict else "queue's minimum rate"
            if owner.queue.strict and owner.queue.rate_cap is not None:
                cap = owner.queue.rate_cap
                limit = cap.of(link) if isinstance(cap, Percent) else int(cap)
                limit_name = "rate-cap"
            if env.burst_rate is not None and limit is not None and env.burst_rate > limit:
                why_not = (f"the policed rate {fmt_rate(env.burst_rate)} exceeds the {limit_name} "
                           f"{fmt_rate(limit)} here, so the queue can grow without bound")
            else:
                delay = Fraction((env.burst + iface.mtu) * 8 * 1_000_000, link)
                dformula = (f"({fmt_size(env.burst)} + {fmt_size(iface.mtu)}) × 8 / {fmt_rate(link)} = "
                            f"{fmt_time(delay)}" + (f" (generic formula; {unsized})" if unsized else ""))
    return Hop(label, device.name, iface.name, True, True, owner.name, link, iface.shape is not None, iface.mtu,
               share, rate, rformula, rnote, scheduling, delay, dformula, why_not, sized_by)


# -- everything derived for one service ------------------------------------------


@dataclass(frozen=True)
class Derived:
    service: str
    envelope: Envelope
    interfaces: tuple[Hop, ...]
    """Every interface of the policy that schedules the service."""
    path: tuple[Hop, ...]
    """The declared sls.path hops, in order (empty when none is declared)."""

    @property
    def rate_hops(self) -> tuple[Hop, ...]:
        """Where a declared rate must hold: the path when declared, else every interface carrying the service."""
        return self.path or self.interfaces

    @property
    def min_rate(self) -> tuple[int | None, Hop | None]:
        """The smallest derived minimum rate over `rate_hops` (the bottleneck) and its hop."""
        known = [h for h in self.rate_hops if h.min_rate is not None]
        if not known:
            return None, None
        worst = min(known, key=lambda h: h.min_rate or 0)
        return worst.min_rate, worst

    @property
    def delay_hops(self) -> tuple[Hop, ...]:
        return tuple(h for h in self.path if h.delay_us is not None)

    @property
    def path_delay_us(self) -> Fraction | None:
        """Sum of the per-hop queueing bounds along the path (over the hops that have one)."""
        hops = self.delay_hops
        return sum((h.delay_us for h in hops if h.delay_us is not None), Fraction(0)) if hops else None

    @property
    def path_delay_complete(self) -> bool:
        return bool(self.path) and len(self.delay_hops) == len(self.path)

    @property
    def path_delay_formula(self) -> str | None:
        hops = self.delay_hops
        if not hops:
            return None
        total = self.path_delay_us or Fraction(0)
        terms = " + ".join(fmt_time(h.delay_us or 0) for h in hops)
        return f"{terms} = {fmt_time(total)}" if len(hops) > 1 else fmt_time(total)


def carrying(policy: Policy, service: Service) -> Iterator[tuple[Device, Interface]]:
    for d in policy.devices:
        for i in d.interfaces:
            if service.name in i.services and not i.default_queueing:
                yield d, i


def derive(policy: Policy, service: Service) -> Derived:
    """Every bound qosc can derive for a service from the configuration."""
    env = envelope(policy, service)
    path = service.sls.path if service.sls else ()
    return Derived(
        service.name, env,
        tuple(hop(policy, service, f"{d.name}:{i.name}", env) for d, i in carrying(policy, service)),
        tuple(hop(policy, service, label, env) for label in path),
    )


def is_parameterised(service: Service) -> bool:
    """LBE guarantees nothing end to end (domain.md 5)."""
    return service.kind is not Kind.LBE
