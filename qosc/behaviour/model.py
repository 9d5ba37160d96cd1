"""What a device does with packets, in vendor-neutral terms: the common ground of verify, equiv and import.

A policy says what every interface should do (qosc.behaviour.intent); a
configuration read back says what it does (each target's interpreter, from
the statement tree its parser builds).  Both become the same frozen data:

- per interface: the classes (queues) with the code points classified into
  each, for IPv4 and IPv6 separately and for all 64 code points, and for
  the eight MPLS EXP and eight 802.1p PCP values with their drop precedence
  where the interface classifies on them; what each class leaves with in
  those domains (rewrite) and the EXP an edge imposes; guaranteed
  share, strictness, priority rank, cap, ceiling, buffer, drop curves per
  drop precedence, ECN; how each declared code point leaves the interface
  (rewrite); and at edges, the classification rules with their marks and
  policer envelopes;
- rates in bit/s, shares and caps in percent of the interface rate (None
  when the configuration gives no way to know them), curves as (fill %,
  drop %) points.

Every part keeps where it came from: a policy location for intent, a
configuration file:line for what was read back.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from qosc.diagnostics import Location

FAMILIES = ("inet", "inet6")
DOMAINS3 = ("exp", "pcp")
"""The 3-bit marking domains: MPLS EXP/TC and 802.1p PCP."""


@dataclass(frozen=True)
class Curve:
    """A drop curve: (fill %, drop %) points in ascending fill; linear between points, or a step curve.

    Below the first point nothing is dropped early; past the last point the
    drop probability is `beyond` (RED drops everything above its maximum
    threshold: 100), else the last point's.
    """

    points: tuple[tuple[float, float], ...]
    interpolate: bool = True
    beyond: float | None = None

    def at(self, fill: float) -> float:
        """Drop probability (%) at a queue fill level (%)."""
        if not self.points or fill < self.points[0][0]:
            return 0.0
        if fill > self.points[-1][0]:
            return self.points[-1][1] if self.beyond is None else self.beyond
        for (f0, p0), (f1, p1) in zip(self.points, self.points[1:], strict=False):
            if f0 <= fill < f1:
                return p0 + (p1 - p0) * (fill - f0) / (f1 - f0) if self.interpolate else p0
        return self.points[-1][1]

    def samples(self, step: float = 5.0) -> tuple[float, ...]:
        return tuple(self.at(i * step) for i in range(int(100 / step) + 1))


@dataclass(frozen=True)
class Envelope:
    """A policer: committed (and peak or excess) rate and bursts, and what happens to each colour."""

    cir: int
    cbs: int
    pir: int | None = None
    pbs: int | None = None
    ebs: int | None = None
    conform: str = "transmit"
    """'transmit', 'drop', or 'dscp N' (re-mark and transmit)."""
    exceed: str = "drop"
    violate: str | None = None
    shared: str | None = None
    """The policer several rules of the interface share (one instance polices their traffic together), by a
    name that is the same for those rules and no other; None: the rule's own policer."""


@dataclass(frozen=True)
class Rule:
    """An edge classification rule: what it matches, the code point it marks, the policer it applies, and the class
    it puts packets in where it marks no code point (`fc`)."""

    name: str
    sources: tuple[str, ...] = ()
    destinations: tuple[str, ...] = ()
    protocols: tuple[str, ...] = ()
    source_ports: tuple[tuple[int, int], ...] = ()
    destination_ports: tuple[tuple[int, int], ...] = ()
    match_dscp: tuple[int, ...] = ()
    mark: int | None = None
    policer: Envelope | None = None
    families: tuple[str, ...] = FAMILIES
    origin: Location | None = field(default=None, compare=False)
    fc: str | None = None
    """The class (queue) a rule that marks nothing puts its packets in: they keep the code point they came with and
    the class picks their queue and the EXP or PCP written for them (JUNOS `then forwarding-class` on a unit that
    rewrites no DSCP; a policy rule into a service without DSCP).  None where the rule marks (its class is its
    mark's) or the configuration does not say."""
    pcp: tuple[int, ...] = ()
    """802.1p priority values of the frame's VLAN tag it matches (a rule on the Ethernet header)."""
    source_macs: tuple[str, ...] = ()
    """Source MAC addresses it matches, canonical (qosc.classifier.mac_address)."""
    destination_macs: tuple[str, ...] = ()
    implicit: bool = field(default=False, compare=False)
    """It is the device's implicit classification, not a term of the configuration (qosc.behaviour.liftimplicit):
    its packets leave as the device's egress rewrite of their class writes them, so it is lifted marking."""
    drop: bool = False
    """It discards what it matches (JUNOS `then discard` or `reject`: Junos OS Routing Policies, Firewall Filters and
    Traffic Policers User Guide, "Firewall Filter Terminating Actions")."""


@dataclass(frozen=True)
class Class:
    """One class (queue) of an interface."""

    name: str
    """The name on the device (forwarding class, class-map, HTB class), or the policy's service name."""
    share: float | None = None
    """Guaranteed share, percent of the interface rate."""
    strict: bool = False
    priority: int | None = None
    """Rank for excess bandwidth, higher is served first (policy: low 0 .. high 3)."""
    strict_rank: int | None = None
    """Among an interface's strict classes, the order they are served in, higher first, where the configuration
    says one (JUNOS: low-latency above strict-high; the policy: its order); None where it says none."""
    cap: float | None = None
    """Hard cap, percent of the interface rate."""
    cap_rate: int | None = None
    """Hard cap in bit/s where the configuration gives it as a rate and the interface rate is unknown."""
    ceiling: float | None = None
    """How far it may borrow, percent of the interface rate (None: the whole link)."""
    buffer: tuple[str, float] | None = None
    """('percent', value) or ('us', microseconds) or ('bytes', n) or ('packets', n)."""
    drop: tuple[tuple[int, Curve], ...] = ()
    """(drop precedence 1..3, curve); one entry with precedence 0 for every precedence."""
    ecn: bool = False
    queue: int | None = None
    origin: Location | None = field(default=None, compare=False)

    def curve(self, precedence: int) -> Curve | None:
        for level, curve in self.drop:
            if level in (0, precedence):
                return curve
        return None


@dataclass(frozen=True)
class Interface:
    name: str
    unit: int = 0
    role: str | None = None
    """'edge', 'core', 'transparent', or None when the configuration does not say."""
    rate: int | None = None
    """The egress rate the shares are of (the shaper if any, else the link speed), when known."""
    shape: int | None = None
    classes: tuple[Class, ...] = ()
    classify: tuple[tuple[str | None, ...], tuple[str | None, ...]] = ((None,) * 64, (None,) * 64)
    """Class name per code point 0..63, for IPv4 and for IPv6 (None: not known, e.g. no classifier)."""
    rewrite: tuple[tuple[int | None, ...], tuple[int | None, ...]] = ((None,) * 64, (None,) * 64)
    """Code point each code point leaves with (None: not specified, e.g. undeclared code points)."""
    trust: bool | None = None
    rules: tuple[Rule, ...] = ()
    unmatched_mark: int | None = None
    """At an untrusted edge: the code point unclassified traffic is marked with."""
    options: tuple[tuple[str, str], ...] = ()
    """Target-specific interface settings of the policy language (e.g. ('port-type', '1p7q8t'))."""
    classify_exp: tuple[tuple[str, int] | None, ...] = (None,) * 8
    """(class, drop precedence) of labelled packets per EXP value 0..7 (all None: not classified on EXP)."""
    classify_pcp: tuple[tuple[str, int] | None, ...] = (None,) * 8
    """(class, drop precedence) of tagged frames per 802.1p PCP value 0..7 (all None: not classified on PCP)."""
    marks: tuple[tuple[str, str, int, int], ...] = ()
    """(domain, class, drop precedence 1..3, value) in the 3-bit domains: 'exp' and 'pcp', the value written
    on egress (rewrite); 'impose', the EXP of the label imposed on traffic entering an LSP through this
    interface (edge).  Sorted; a domain without entries is not written."""
    default_queueing: bool = False
    """Egress queued by the device's own defaults, not by a policy of its configuration (JUNOS: no scheduler
    map; IOS: no output service-policy): its classes are the device's default queues where the reader knows them,
    and they are compared with nothing but another default (policy egress-queueing: device-default)."""
    origin: Location | None = field(default=None, compare=False)
    default_class: str | None = field(default=None, compare=False)
    """The class that takes what no classifier entry names, where the configuration says which (IOS
    class-default, the HTB `default` class); None where the configuration has no such class (JUNOS: every code
    point is in a classifier or an implicit one).  What import makes the default service."""
    fixed: str | None = field(default=None, compare=False)
    """The class every packet the interface receives is put in whatever its markings (JUNOS fixed classification,
    `forwarding-class` on a unit or port), where it classifies by nothing else; classify then holds it for every
    code point.  What import lifts as an untrusted edge whose one rule takes everything there."""
    ethernet: bool = field(default=False, compare=False)
    """Carries Ethernet frames only, no routed IP (a policy interface of encapsulation vlan alone; JUNOS: a unit that
    binds a family ccc or bridge input filter): its DSCP behaviour (classification, rewrite, the mark of unmatched
    traffic) means nothing and is compared with nothing; its classes, queues, 802.1p and EXP are."""
    implicit: bool = field(default=False, compare=False)
    """Whether its IPv4 classification is the device's implicit default, not a classifier of the configuration
    (JUNOS ipprec-compatibility on a unit that binds no classifier or rewrite, and no filter or one whose catch-all
    term accepts without a forwarding class).  Import lets the device's
    own classifiers say a code point's service where they differ, and lifts what the implicit one does
    otherwise as classifier rules (qosc.behaviour.liftimplicit)."""

    unmatched_drop: bool = False
    """What no edge rule matches is discarded, not left to the default class or the trusted marking (JUNOS: an input
    filter without a final catch-all term, whose end discards every packet no term matched, or whose final term
    without `from` discards: Junos OS Routing Policies, Firewall Filters and Traffic Policers User Guide, release
    21.4, "How Firewall Filters Evaluate Packets"; a policy classifier's `unmatched: drop`)."""

    def class_named(self, name: str | None) -> Class | None:
        return next((c for c in self.classes if c.name == name), None)

    def class_of(self, dscp: int, family: str = "inet") -> Class | None:
        return self.class_named(self.classify[FAMILIES.index(family)][dscp])

    def classified(self, domain: str) -> tuple[tuple[str, int] | None, ...]:
        """The EXP ('exp') or PCP ('pcp') classification table."""
        return self.classify_exp if domain == "exp" else self.classify_pcp

    def marked(self, domain: str) -> dict[tuple[str, int], int]:
        """(class, drop precedence) -> value written in a 3-bit domain ('exp', 'pcp', 'impose')."""
        return {(cls, prec): value for d, cls, prec, value in self.marks if d == domain}


@dataclass(frozen=True)
class Device:
    name: str
    platform: str | None = None
    interfaces: tuple[Interface, ...] = ()
    owned: tuple[tuple[str, str, Location | None], ...] = ()
    """(kind, name, where) of every qosc-owned object found (for stale-object reports)."""
    origin: Location | None = field(default=None, compare=False)
    host_class: str | None = None
    """The class router-generated traffic (routing protocols) is queued in, where the configuration names one
    (JUNOS host-outbound-traffic); None where the box classifies it like transit traffic, or does not say."""

    device_classes: bool = field(default=False, compare=False)
    """Whether a class name is the device's, whatever interface it is met on (JUNOS forwarding classes are per
    device: "Understanding How Forwarding Classes Assign Classes to Output Queues", Junos OS CoS User Guide), so
    import makes the classes of one name on all its interfaces one service."""
    seen: tuple[tuple[str, str, Location | None], ...] = field(default=(), compare=False)
    """Every QoS object of the configuration, (kind, name, where it is defined), applied or not: what import
    reconciles (each is lifted or named as not lifted)."""
    uses: tuple[tuple[tuple[str, ...], tuple[str, str]], ...] = field(default=(), compare=False)
    """(element, (kind, name)): the objects each element read back is made of; an element is ("interface", port,
    unit), ("class", port, unit, class) or ("rule", port, unit, rule).  An object no element uses is applied to
    no interface: it does nothing."""

    def interface(self, name: str, unit: int = 0) -> Interface | None:
        return next((i for i in self.interfaces if i.name == name and i.unit == unit), None)
