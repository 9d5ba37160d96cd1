"""Compare two behaviours in the policy's own terms: what verify reports as drift and equiv as difference.

Classes are matched by the code points they carry, never by their names
(forwarding class, class-map and HTB class names differ between vendors):
the class the expected side gives a service is matched to the class the
other side classifies most of that service's code points into.  Then:

- every one of the 64 code points, IPv4 and IPv6: classified into the matched class (not where an interface carries
  Ethernet frames only: no DSCP is read or written there, nor compared); likewise the eight
  MPLS EXP and eight 802.1p PCP values (and their drop precedence) where the interface classifies on them;
- per class: guaranteed share (within rounding), strictness, cap, ceiling, the order of priorities among
  the interface's classes, and of its strict classes where both sides say one (only the order counts), drop curves per
  drop precedence (sampled every 5 % of fill), ECN, buffer (where both sides give it in one unit);
- how declared code points leave (rewrite), and what each class leaves with in EXP and PCP (rewrite, and the
  EXP imposed at an MPLS edge) per drop precedence; at edges: the rules in order (matches on the IP header and on
  the Ethernet header: 802.1p priority, MAC addresses; marks, the class of a
  rule that marks nothing where both sides say it, policer envelopes within rounding, which rules share one
  policer) and the mark of unmatched traffic;
- (verify) qosc-owned objects the policy no longer produces: stale.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from qosc import dscp as dscp_mod
from qosc.behaviour.comparerules import EdgeRules, folded
from qosc.behaviour.model import DOMAINS3, FAMILIES, Class, Device, Interface
from qosc.diagnostics import Location


@dataclass(frozen=True)
class Tolerance:
    share: float = 0.5
    """Percentage points a share, cap or ceiling may differ by (vendors round to whole percent or kbit/s)."""
    rate: float = 0.01
    """Relative difference allowed in policer rates and bursts."""
    curve: float = 2.0
    """Percentage points a drop curve may differ by at any sampled fill level."""
    fill: float = 1.5
    """Percentage points of fill a drop curve's corners may move by (thresholds are whole packets: 0.5 of a
    64-packet queue is 0.8 %, so a 85 % maximum becomes 84.4 % and drops everything at 85 %)."""


@dataclass(frozen=True)
class Finding:
    device: str
    interface: str
    subject: str
    """The service (or class, or 'DSCP 8') the finding is about."""
    what: str
    expected: str
    found: str
    expected_at: Location | None = None
    found_at: Location | None = None

    @property
    def message(self) -> str:
        where = f"{self.device}:{self.interface}" if self.interface else self.device
        return f"{where}: {self.subject}: {self.what} {self.expected} expected, {self.found} found"


def _name(code: int) -> str:
    label = dscp_mod.name(code)
    return f"DSCP {code}" + (f" ({label})" if not label.isdigit() else "")


def _fmt(value: object) -> str:
    return "none" if value is None else f"{value:g}%" if isinstance(value, float) else str(value)


POLICY_UNITS = frozenset({"percent", "us"})
"""The units a policy gives buffers in; a box's own (bytes, packets) are compared only when asked (verify
against the policy's own compile: the same box's units on both sides)."""
ALL_UNITS = frozenset({"percent", "us", "bytes", "packets"})


def _size(buffer: tuple[str, float]) -> str:
    unit, value = buffer
    return {"percent": f"{value:g}%", "us": f"{value:g} us", "bytes": f"{value:.0f} B"}.get(
        unit, f"{value:.0f} {unit}")


def _same_size(unit: str, a: float, b: float, tol: Tolerance) -> bool:
    """Buffers of one unit within rounding: percent points like shares, else a relative difference (or one
    unit: whole packets, bytes, microseconds).  Buffers in different units are not compared: a queue in packets
    or bytes says nothing of a percentage without the box's buffer pool."""
    if unit == "percent":
        return abs(a - b) <= tol.share
    return abs(a - b) <= max(1.0, tol.rate * max(abs(a), abs(b)))


def _off(want: float, around: list[float]) -> float:
    """How far a drop probability lies outside what the other curve reaches within the fill tolerance."""
    return max(0.0, min(around) - want, want - max(around))


class _Pair(EdgeRules):
    """One interface on both sides, with the class matching."""

    def __init__(self, device: str, a: Interface, b: Interface, tol: Tolerance,
                 buffer_units: frozenset[str] = POLICY_UNITS) -> None:
        self.device, self.a, self.b, self.tol = device, a, b, tol
        self.buffer_units = buffer_units
        self.found: list[Finding] = []
        self.match = self._matching()
        self.back = {v: k for k, v in self.match.items() if v is not None}

    def _matching(self) -> dict[str, str | None]:
        """Each class of `a` -> the class of `b` carrying most of its code points (both families), one to one
        where the overlaps allow: the largest overlaps are paired first."""
        overlap: Counter[tuple[str, str]] = Counter()
        for fam in range(len(FAMILIES)):
            for code in range(64):
                x, y = self.a.classify[fam][code], self.b.classify[fam][code]
                if x is not None and y is not None:
                    overlap[(x, y)] += 1
        for domain in DOMAINS3:  # an MPLS core may classify on EXP alone: its classes match by their values
            for u, v in zip(self.a.classified(domain), self.b.classified(domain), strict=True):
                if u is not None and v is not None:
                    overlap[(u[0], v[0])] += 1
        match: dict[str, str | None] = {}
        taken: set[str] = set()
        for (x, y), _ in sorted(overlap.items(), key=lambda kv: (-kv[1], kv[0])):
            if x not in match and y not in taken:
                match[x] = y
                taken.add(y)
        # a class whose code points all moved elsewhere keeps its partner of the same name (same vendor), or the
        # one class left over on each side: its code points are then reported as moved, not its share as wrong
        left = [c.name for c in self.a.classes if c.name not in match]
        spare = [c.name for c in self.b.classes if c.name not in taken]
        for name in left:
            if name in spare:
                match[name] = name
                spare.remove(name)
        left = [n for n in left if n not in match]
        if len(left) == 1 and len(spare) == 1:
            match[left[0]] = spare[0]
        for cls in self.a.classes:  # no class of its own left: the one that carries most of its code points
            if cls.name not in match:
                best = [(n, y) for (x, y), n in overlap.items() if x == cls.name]
                match[cls.name] = max(best)[1] if best else None
        return match

    def add(self, subject: str, what: str, expected: object, found: object, a_at: Location | None = None,
            b_at: Location | None = None) -> None:
        self.found.append(Finding(self.device, self.a.name, subject, what, _fmt(expected), _fmt(found), a_at, b_at))

    def label(self, b_class: str | None) -> str:
        """A class of the other side, named as this side knows it."""
        if b_class is None:
            return "no class"
        return self.back.get(b_class, b_class)

    @property
    def rate_tolerance(self) -> float:
        return self.tol.rate

    def classification(self) -> None:
        if self.frames:
            return
        for fam, family in enumerate(FAMILIES):
            for code in range(64):
                want, got = self.a.classify[fam][code], self.b.classify[fam][code]
                if want is None or got is None:
                    continue
                if self.match.get(want) != got:
                    suffix = " (IPv6)" if family == "inet6" else ""
                    self.add(_name(code) + suffix, "classified to", want, self.label(got),
                             self._at(self.a, want), self._at(self.b, got))

    @staticmethod
    def _at(iface: Interface, name: str | None) -> Location | None:
        cls = iface.class_named(name)
        return cls.origin if cls is not None else iface.origin

    def classes(self, only: set[str] | None = None) -> None:
        """Each class of `a` (those in `only`, when given) against its match: a queue of its own, its attributes,
        and the order of priorities."""
        pairs: list[tuple[Class, Class]] = []
        for cls in self.a.classes:
            if only is not None and cls.name not in only:
                continue
            other = self.b.class_named(self.match.get(cls.name))
            if other is None:
                self.add(cls.name, "class", "a queue of its own", "none", cls.origin, self.b.origin)
                continue
            pairs.append((cls, other))
            self._attributes(cls, other)
        self._order([p for p in pairs if not p[0].strict], "priority", "priority", "higher", "not higher")
        self._order(pairs, "strict_rank", "strict priority", "served first", "not first")  # (strict classes only)

    def _order(self, pairs: list[tuple[Class, Class]], attr: str, what: str, higher: str, lower: str) -> None:
        """The classes' order by `attr` where both sides give it (strict_rank: JUNOS low-latency first)."""
        ranked = [(x, y, getattr(x, attr), getattr(y, attr)) for x, y in pairs]
        for x1, y1, a1, b1 in ranked:
            for x2, _, a2, b2 in ranked:
                if None not in (a1, a2, b1, b2) and a1 > a2 and not b1 > b2:
                    self.add(x1.name, f"{what} relative to {x2.name}:", higher, lower, x1.origin, y1.origin)

    def _cap(self, cls: Class) -> float | None:
        """A cap in percent; one known only as a rate is taken of whichever side knows the interface rate."""
        rate = self.a.rate or self.b.rate
        if cls.cap is None and cls.cap_rate is not None and rate:
            return round(cls.cap_rate * 100.0 / rate, 6)
        return cls.cap

    def _share(self, cls: Class) -> float | None:
        """A strict class that says no share is guaranteed its cap (it is served before every other class up to it:
        what the policy reserves for it, QOS040), in percent or known only by its rate."""
        return cls.share if cls.share is not None or not cls.strict else self._cap(cls)

    def _attributes(self, x: Class, y: Class) -> None:
        tol = self.tol
        for what, want, got in (("share", self._share(x), self._share(y)), ("rate cap", self._cap(x), self._cap(y)),
                                ("ceiling", x.ceiling, y.ceiling)):
            if want is None and got is None:
                continue
            if want is None or got is None or abs(want - got) > tol.share:
                self.add(x.name, what, want, got, x.origin, y.origin)
        if self._cap(x) is None and self._cap(y) is None and x.cap_rate != y.cap_rate and (
                None in (x.cap_rate, y.cap_rate) or abs((x.cap_rate or 0) - (y.cap_rate or 0)) >
                tol.rate * max(x.cap_rate or 0, y.cap_rate or 0)):
            self.add(x.name, "rate cap (bit/s)", x.cap_rate, y.cap_rate, x.origin, y.origin)
        bx, by = x.buffer, y.buffer
        if (bx is not None and by is not None and bx[0] == by[0] and bx[0] in self.buffer_units
                and not _same_size(bx[0], bx[1], by[1], tol)):
            self.add(x.name, "buffer", _size(bx), _size(by), x.origin, y.origin)
        if x.strict != y.strict:
            self.add(x.name, "strict priority", x.strict, y.strict, x.origin, y.origin)
        if x.ecn != y.ecn:
            self.add(x.name, "ECN", x.ecn, y.ecn, x.origin, y.origin)
        single = {level for level, _ in x.drop} <= {0} and {level for level, _ in y.drop} <= {0}
        for precedence in (1,) if single else (1, 2, 3):
            which = "" if single else f" (precedence {precedence})"
            cx, cy = x.curve(precedence), y.curve(precedence)
            if cx is None and cy is None:
                continue
            if cx is None or cy is None:
                self.add(x.name, f"drop curve{which}", "a curve" if cx else "tail drop",
                         "a curve" if cy else "tail drop", x.origin, y.origin)
                continue
            gaps = [_off(cx.at(f), [cy.at(f + d) for d in (-tol.fill, 0.0, tol.fill)])
                    for f in (i * 5.0 for i in range(21))]
            worst = gaps.index(max(gaps))
            if gaps[worst] > tol.curve:
                self.add(x.name, f"drop probability at {worst * 5}% fill{which}", cx.samples()[worst],
                         cy.samples()[worst], x.origin, y.origin)

    def rewrite(self) -> None:
        if self.frames:
            return
        for fam, family in enumerate(FAMILIES):
            for code in range(64):
                want, got = self.a.rewrite[fam][code], self.b.rewrite[fam][code]
                if want is not None and got is not None and want != got:
                    suffix = " (IPv6)" if family == "inet6" else ""
                    self.add(_name(code) + suffix, "leaves marked", _name(want), _name(got), self.a.origin,
                             self.b.origin)

    def marking(self) -> None:
        """The eight EXP and eight PCP values (class and drop precedence), and what each class leaves with in
        those domains (rewrite, and the EXP an edge imposes), per drop precedence both sides give."""
        for domain in DOMAINS3:
            label = domain.upper()
            want_all, got_all = self.a.classified(domain), self.b.classified(domain)
            if any(want_all) and not any(got_all):
                self.add(f"{label} classification", "is", "present", "absent", self.a.origin, self.b.origin)
                continue
            for value, (want, got) in enumerate(zip(want_all, got_all, strict=True)):
                if want is None or got is None:
                    continue
                if self.match.get(want[0]) != got[0]:
                    self.add(f"{label} {value}", "classified to", want[0], self.label(got[0]),
                             self._at(self.a, want[0]), self._at(self.b, got[0]))
                elif want[1] != got[1]:
                    self.add(f"{label} {value}", "drop precedence", want[1], got[1], self._at(self.a, want[0]),
                             self._at(self.b, got[0]))
        for domain, what in (("exp", "EXP rewrite"), ("pcp", "PCP rewrite"), ("impose", "EXP imposition")):
            want_marks, got_marks = self.a.marked(domain), self.b.marked(domain)
            if bool(want_marks) != bool(got_marks):
                self.add(what, "is", "present" if want_marks else "absent", "present" if got_marks else "absent",
                         self.a.origin, self.b.origin)
                continue
            for (cls, precedence), value in sorted(want_marks.items()):
                other = got_marks.get((self.match.get(cls) or cls, precedence))
                if other is not None and other != value:
                    self.add(f"{cls} (drop precedence {precedence})", f"{what} to", value, other,
                             self._at(self.a, cls), self.b.origin)

_QUEUEING = {False: "the policy's queues", True: "the device's default"}


def compare(expected: Device, found: Device, tolerance: Tolerance | None = None,
            buffer_units: frozenset[str] = POLICY_UNITS, default_queues: bool = False) -> list[Finding]:
    """Every way `found` behaves differently from `expected` (empty when they are equivalent).  `default_queues`:
    two interfaces both queued by their device's defaults are compared by the classes traffic reaches (equiv: both
    sides are configurations read back, each reader knowing its default map; verify's expected side is the
    policy, whose service queues a device-default interface does not use)."""
    tol = tolerance or Tolerance()
    findings: list[Finding] = []
    for a in expected.interfaces:
        b = found.interface(a.name, a.unit)
        if b is None:
            findings.append(Finding(expected.name, a.name, "interface", "QoS", "configured", "none", a.origin,
                                    found.origin))
            continue
        pair = _Pair(expected.name, folded(a), folded(b), tol, buffer_units)
        pair.classification()
        if a.default_queueing != b.default_queueing:  # one side queued by the device's own defaults
            pair.add("egress queueing", "by", _QUEUEING[a.default_queueing], _QUEUEING[b.default_queueing],
                     a.origin, b.origin)
        elif not a.default_queueing:  # both by a policy
            pair.classes()
        elif default_queues:  # both by the device's defaults, as each side's reader knows them: the classes reached
            pair.classes(_reached(a, expected.host_class))
        pair.rewrite()
        pair.marking()
        pair.edge()
        findings.extend(pair.found)
    findings.extend(_host(expected, found, tol))
    return findings


def _reached(iface: Interface, host: str | None) -> set[str]:
    """The classes traffic reaches on an interface: by a code point or value classified into it, an edge rule,
    the interface's fixed class, or router traffic (the device's host class).  A class nothing reaches has no
    behaviour but the share and buffer it leaves unused (equiv of two interfaces queued by device defaults)."""
    found = {c for table in iface.classify for c in table if c is not None}
    for domain in DOMAINS3:
        found |= {v[0] for v in iface.classified(domain) if v is not None}
    found |= {r.fc for r in iface.rules if r.fc is not None}
    return found | {c for c in (iface.fixed, host) if c is not None}


def _host(expected: Device, found: Device, tol: Tolerance) -> list[Finding]:
    """Router-generated traffic in the class matched (by code points, on an interface with both) to the one
    expected; only where both sides say (JUNOS host-outbound-traffic)."""
    want, got = expected.host_class, found.host_class
    if want is None or got is None:
        return []
    for a in expected.interfaces:
        b = found.interface(a.name, a.unit)
        if b is None or a.class_named(want) is None:
            continue
        pair = _Pair(expected.name, a, b, tol)
        if pair.match.get(want) == got:
            return []
        where = next((w for kind, _, w in found.owned if kind == "host-outbound-traffic"), found.origin)
        return [Finding(expected.name, "", "router-generated traffic", "queued in", want, pair.label(got),
                        expected.origin, where)]
    return []
