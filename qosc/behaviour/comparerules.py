"""Edge rules compared (qosc.behaviour.compare): the rules of an edge in order, by what they match (IP header:
prefixes, protocols, ports, DSCP; Ethernet header: 802.1p priority, MAC addresses), what they mark or the class
they put packets in or whether they discard it, their policer envelopes within rounding and which rules share one
policer; the mark of unmatched traffic (not where an interface carries Ethernet frames only: no DSCP is written
there), and whether it is discarded.

Leading rules that match the DSCP alone and put packets in a class (no mark, policer or discard) are the
interface's classification of those code points, whatever says it (`folded`): JUNOS's implicit
ipprec-compatibility on one side and the filter terms qosc writes for it (`from dscp`, then `unclassified`) on the
other classify alike."""

from __future__ import annotations

from dataclasses import replace

from qosc.behaviour.model import FAMILIES, Envelope, Interface, Rule
from qosc.diagnostics import Location

_MATCHES = (("sources", "source"), ("destinations", "destination"), ("protocols", "protocol"),
            ("source_ports", "source-port"), ("destination_ports", "destination-port"), ("match_dscp", "dscp"),
            ("pcp", "pcp"), ("source_macs", "source-mac"), ("destination_macs", "destination-mac"))
"""(Rule field, the policy's match key)."""


class EdgeRules:
    """The rule comparisons of a pair of interfaces (qosc.behaviour.compare._Pair)."""

    a: Interface
    b: Interface
    match: dict[str, str | None]

    @property
    def frames(self) -> bool:
        """One side carries Ethernet frames only: its DSCP behaviour is compared with nothing (Interface.ethernet)."""
        return self.a.ethernet or self.b.ethernet

    def add(self, subject: str, what: str, expected: object, found: object, a_at: Location | None = None,
            b_at: Location | None = None) -> None:
        raise NotImplementedError

    def label(self, b_class: str | None) -> str:
        raise NotImplementedError

    @property
    def rate_tolerance(self) -> float:
        raise NotImplementedError

    def edge(self) -> None:
        if self.a.unmatched_mark != self.b.unmatched_mark and None not in (self.a.trust, self.b.trust) and \
                not self.frames:
            self.add("unmatched traffic", "marked", self.a.unmatched_mark, self.b.unmatched_mark, self.a.origin,
                     self.b.origin)
        if self.a.unmatched_drop != self.b.unmatched_drop:
            self.add("unmatched traffic", "discarded", self.a.unmatched_drop, self.b.unmatched_drop, self.a.origin,
                     self.b.origin)
        for i, want in enumerate(self.a.rules):
            got = self.b.rules[i] if i < len(self.b.rules) else None
            if got is None:
                self.add(self.rule(want, self.a), "rule", "present", "missing", want.origin, self.b.origin)
                continue
            self._rule(want, got)
        for got in self.b.rules[len(self.a.rules):]:
            self.add(self.rule(got, self.b), "rule", "absent", "present", self.a.origin, got.origin)
        self._sharing()

    def _sharing(self) -> None:
        """Rules that share one policer (an aggregate) on one side must share it on the other: by position."""
        def partners(rules: tuple[Rule, ...]) -> list[set[int]]:
            keys = [r.policer.shared if r.policer is not None else None for r in rules]
            return [{j for j, other in enumerate(keys) if key is not None and other == key and j != i}
                    for i, key in enumerate(keys)]

        a, b = partners(self.a.rules), partners(self.b.rules)
        for i, (want, got) in enumerate(zip(self.a.rules, self.b.rules, strict=False)):
            if a[i] != b[i]:
                def names(idx: set[int]) -> list[str]:
                    return [self.a.rules[j].name if j < len(self.a.rules) else self.b.rules[j].name
                            for j in sorted(idx)]
                self.add(f"{self.rule(want, self.a)} policer", "shared with", names(a[i]) or "no rule",
                         names(b[i]) or "no rule", want.origin, got.origin)

    @staticmethod
    def rule(r: Rule, iface: Interface) -> str:
        """A rule, with the class (service) its mark, or the rule itself where it marks nothing, puts packets in."""
        cls = iface.classify[0][r.mark] if r.mark is not None else r.fc
        return f"rule {r.name} ({cls})" if cls else f"rule {r.name}"

    def _rule(self, want: Rule, got: Rule) -> None:
        for what, key in _MATCHES:
            a, b = getattr(want, what), getattr(got, what)
            if sorted(a) != sorted(b):
                self.add(self.rule(want, self.a), f"match {key}", list(a), list(b), want.origin, got.origin)
        if want.drop != got.drop:
            self.add(self.rule(want, self.a), "discards", want.drop, got.drop, want.origin, got.origin)
        elif want.mark != got.mark:
            self.add(self.rule(want, self.a), "marks", want.mark, got.mark, want.origin, got.origin)
        elif None not in (want.fc, got.fc) and (self.match.get(want.fc or "") or want.fc) != got.fc:  # by class
            self.add(self.rule(want, self.a), "classifies into", want.fc, self.label(got.fc), want.origin, got.origin)
        self._envelope(want, want.policer, got.policer, got)

    def _envelope(self, want_rule: Rule, a: Envelope | None, b: Envelope | None, got_rule: Rule) -> None:
        subject = f"{self.rule(want_rule, self.a)} policer"
        if a is None or b is None:
            if a is not b:
                self.add(subject, "policer", "present" if a else "none", "present" if b else "none",
                         want_rule.origin, got_rule.origin)
            return
        a, b = _one_rate(a), _one_rate(b)
        for what in ("cir", "cbs", "pir", "pbs", "ebs"):
            x, y = getattr(a, what), getattr(b, what)
            if x is None and y is None:
                continue
            if x is None or y is None or abs(x - y) > self.rate_tolerance * max(x, y):
                self.add(subject, what, x, y, want_rule.origin, got_rule.origin)
        for what in ("conform", "exceed", "violate"):
            # re-marking to the code point the rule marks anyway is transmitting (IOS writes one, JUNOS the other)
            x = "transmit" if getattr(a, what) == f"dscp {want_rule.mark}" else getattr(a, what)
            y = "transmit" if getattr(b, what) == f"dscp {got_rule.mark}" else getattr(b, what)
            if x != y and not (what == "violate" and None in (x, y)):
                self.add(subject, f"{what} action", x, y, want_rule.origin, got_rule.origin)


def folded(iface: Interface) -> Interface:
    """The interface with its leading DSCP-only rules into a class (module doc) folded into its classification
    tables, the first rule matching a code point winning (a multifield classifier overrides the class the DSCP
    classifier gives: "Multifield Classifier Overview", Junos OS Class of Service User Guide)."""
    tables = [list(t) for t in iface.classify]
    taken: list[set[int]] = [set(), set()]
    n = 0
    for r in iface.rules:
        if not _classifies(r):
            break
        n += 1
        for fam, family in enumerate(FAMILIES):
            for code in (c for c in r.match_dscp if family in r.families and c not in taken[fam]):
                tables[fam][code] = r.fc
                taken[fam].add(code)
    if not n:
        return iface
    return replace(iface, classify=(tuple(tables[0]), tuple(tables[1])), rules=iface.rules[n:])


def _classifies(r: Rule) -> bool:
    return bool(r.match_dscp) and r.fc is not None and r.mark is None and r.policer is None and not r.drop and \
        not any(getattr(r, what) for what, _ in _MATCHES if what != "match_dscp")


def _one_rate(env: Envelope) -> Envelope:
    """A policer that drops what exceeds CIR is one-rate whatever its second bucket: nothing above the committed
    bucket is transmitted (the Catalyst renders such a policer without PIR, 12.2SX refusing drop with one)."""
    if env.exceed != "drop":
        return env
    return replace(env, pir=None, pbs=None, ebs=None, violate=None)


__all__ = ["EdgeRules", "folded"]
