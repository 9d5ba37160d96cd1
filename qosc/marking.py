"""Marking domains: where a packet's class travels with it (IP DSCP, MPLS EXP/TC, 802.1p PCP).

A service has code points in each domain it is carried in: DSCP (6 bits,
with the AF drop precedence in the code point itself), and in the two
3-bit domains values with an explicit drop precedence, because three bits
cannot spell it: the MPLS traffic class of a label stack entry (EXP, RFC
3270 E-LSPs; TC since RFC 5462) and the 802.1Q priority code point (PCP,
802.1p), whose drop eligible indicator (DEI, 802.1Q-2011) can carry one bit
of precedence where the platform has it.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any

from qosc.dscp import drop_precedence


class Domain(str, Enum):
    """A marking domain: where a packet's class travels with it."""

    DSCP = "dscp"
    """IP Differentiated Services code point, 6 bits (RFC 2474)."""
    EXP = "exp"
    """MPLS traffic class of a label stack entry, 3 bits (EXP in RFC 3270, renamed TC by RFC 5462)."""
    PCP = "pcp"
    """IEEE 802.1Q priority code point of a VLAN tag (802.1p), 3 bits, with the drop eligible indicator (DEI)."""

    @property
    def label(self) -> str:
        return {"dscp": "DSCP", "exp": "EXP", "pcp": "PCP"}[self.value]


DOMAINS = (Domain.DSCP, Domain.EXP, Domain.PCP)


@dataclass(frozen=True)
class Marking:
    """A service's values in a 3-bit domain (EXP or PCP): (value 0..7, drop precedence 1..3) in policy order.

    Every value is classified into the service at its precedence; the first value of precedence 1 is what
    the service is marked (imposed, rewritten) with, and the first of a higher precedence what its traffic
    of that precedence (AFx2, AFx3) is marked with, falling back to the next lower precedence that has one.
    A service may give values of higher precedences alone (a class a device classifies at loss priority high
    only): its traffic of a lower precedence is marked with the first value given.
    """

    values: tuple[tuple[int, int], ...] = ()

    @classmethod
    def parse(cls, raw: Any) -> Marking:
        """Values as the schema allows them: one, a list (drop precedence low), or {low, medium, high}."""
        if raw is None:
            return cls()
        if not isinstance(raw, dict):
            raw = {"low": raw}
        values: list[tuple[int, int]] = []
        for precedence, key in ((1, "low"), (2, "medium"), (3, "high")):
            given = raw.get(key, [])
            values.extend((int(v), precedence) for v in (given if isinstance(given, list) else [given]))
        return cls(tuple(values))

    def __bool__(self) -> bool:
        return bool(self.values)

    @property
    def codes(self) -> tuple[int, ...]:
        seen: list[int] = []
        for value, _ in self.values:
            if value not in seen:
                seen.append(value)
        return tuple(seen)

    def mark(self, precedence: int = 1) -> int | None:
        for level in range(precedence, 0, -1):
            for value, prec in self.values:
                if prec == level:
                    return value
        return self.values[0][0] if self.values else None

    def precedence_of(self, value: int) -> int | None:
        """The (lowest) drop precedence a value is classified at."""
        found = [prec for v, prec in self.values if v == value]
        return min(found) if found else None

    def precedences(self) -> tuple[int, ...]:
        return tuple(sorted({prec for _, prec in self.values}))


NO_MARKING = Marking()


def dscp_mark(codes: tuple[int, ...], precedence: int = 1) -> int | None:
    """The DSCP of a service's code points that marks its traffic of a drop precedence (AFx2 for 2), falling
    back to the next lower precedence that has one, then to the first code point."""
    for level in range(precedence, 0, -1):
        for code in codes:
            if drop_precedence(code) == level:
                return code
    return codes[0] if codes else None


ENCAPSULATIONS = ("ip", "mpls", "vlan")


def ethernet_only(encapsulation: tuple[str, ...], trust: tuple[Domain, ...], rewrite: tuple[Domain, ...]) -> bool:
    """An interface that carries Ethernet frames only, no routed IP: `encapsulation: vlan` alone (a bridged trunk,
    or VLAN frames cross-connected into a pseudowire: an L2 circuit, EVPN-VPWS) that neither trusts nor rewrites
    DSCP (one that reads or writes the DSCP carries IP in its VLANs: a VLAN edge with `trust: [dscp, pcp]`).  Its
    classifier rules match the Ethernet header and mark no DSCP (QOS211); it classifies and rewrites 802.1p."""
    return "ip" not in encapsulation and "mpls" not in encapsulation and Domain.DSCP not in trust \
        and Domain.DSCP not in rewrite


def listed(raw: Any, order: tuple[str, ...]) -> tuple[str, ...]:
    """A word or list of enumerated words (schema-checked) in canonical order."""
    given = set(raw) if isinstance(raw, list) else {raw}
    return tuple(word for word in order if word in given)


def domains(raw: Any) -> tuple[Domain, ...]:
    """`trust` or `rewrite` as written ('none' and [] are nothing) in the order dscp, exp, pcp."""
    return tuple(Domain(d) for d in listed(raw, ("dscp", "exp", "pcp")))


def default_trust(role: str, encapsulation: tuple[str, ...]) -> tuple[Domain, ...]:
    """Nothing at an edge (re-classify); else DSCP for IP packets, EXP where labelled packets arrive, PCP on a
    VLAN interface (alone where it carries neither IP nor MPLS: a bridged trunk classifies the tag, as switches
    do)."""
    if role == "edge":
        return ()
    out = [Domain.DSCP] if "ip" in encapsulation or "mpls" in encapsulation else []
    if "mpls" in encapsulation:
        out.append(Domain.EXP)
    if "vlan" in encapsulation:
        out.append(Domain.PCP)
    return tuple(out)


def default_rewrite(role: str, encapsulation: tuple[str, ...]) -> tuple[Domain, ...]:
    """DSCP as every target always wrote it (not on a transparent interface), plus EXP on MPLS interfaces and
    PCP on VLAN interfaces, except on a transparent interface, which keeps every marking."""
    if role == "transparent":
        return ()
    out = [Domain.DSCP] if "ip" in encapsulation or "mpls" in encapsulation else []
    if "mpls" in encapsulation:
        out.append(Domain.EXP)
    if "vlan" in encapsulation:
        out.append(Domain.PCP)
    return tuple(out)


def trust_label(trust: tuple[Domain, ...]) -> str:
    """`trust` as the policy writes it: 'none', 'dscp', or the domains with spaces ('dscp exp')."""
    return " ".join(d.value for d in trust) or "none"
