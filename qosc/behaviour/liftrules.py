"""Edge rules read back as classifier rules of the policy (qosc import; qosc.behaviour.lift): the policy's
names, what a rule matches, and the service it classifies into.

A rule that marks a code point classifies into the service carrying it; one that marks nothing (the packets keep
their DSCP: a JUNOS filter term that sets only the forwarding class) into the service of its class, with
`mark: false` where that service has DSCP (a rule into it would mark its first code point), except a rule on the
Ethernet header (802.1p priority, MAC addresses: a JUNOS family ccc filter term), which marks no DSCP anyway.
"""

from __future__ import annotations

import re
from typing import Any

from qosc import dscp as dscp_mod
from qosc.behaviour.bodies import port_value
from qosc.behaviour.model import Interface, Rule
from qosc.diagnostics import Diagnostic, warning

_NAME = re.compile(r"[^A-Za-z0-9_.-]")


def ident(text: str, fallback: str) -> str:
    """A policy name made of a configuration's name."""
    name = _NAME.sub("-", text).strip("-._")
    if not name or not name[0].isalpha():
        name = f"{fallback}-{name}" if name else fallback
    return name[:63]


def match_body(r: Rule) -> dict[str, Any]:
    """The policy's `match` of a rule (empty: it matches everything)."""
    return {key: value for key, value in (
        ("source", list(r.sources)), ("destination", list(r.destinations)), ("protocol", list(r.protocols)),
        ("source-port", [port_value(p) for p in r.source_ports]),
        ("destination-port", [port_value(p) for p in r.destination_ports]),
        ("dscp", [dscp_mod.name(c) for c in r.match_dscp]), ("pcp", list(r.pcp)),
        ("source-mac", list(r.source_macs)), ("destination-mac", list(r.destination_macs))) if value}


def ethernet(r: Rule) -> bool:
    """A rule on the Ethernet header (802.1p priority, MAC addresses): it marks no DSCP in the policy either
    (qosc.rulemarks), so it needs no `mark: false`."""
    return bool(r.pcp or r.source_macs or r.destination_macs)


def rule_service(r: Rule, service_of: dict[int, str], by_class: dict[tuple[int, str], str],
                 device: int) -> tuple[str | None, str]:
    """The service a rule classifies into: its mark's (`service_of`), or, for a rule that marks nothing, its
    class's (`by_class`: (device index, class) -> service); else None and why the rule is left out."""
    if r.drop:
        return None, "discards what it matches (a policy rule classifies into a service; none discards)"
    if r.mark is not None:
        return service_of.get(r.mark), f"marks {dscp_mod.name(r.mark)}, which no imported service carries"
    service = by_class.get((device, r.fc)) if r.fc is not None else None
    return service, (f"puts packets in class {r.fc}, which no imported service is made of" if r.fc else
                     "marks nothing, which no imported service carries")


def unmatched_dropped(iface: Interface) -> list[Diagnostic]:
    """QOS172 where what no rule of an interface that trusts a marking matches is discarded (Interface.unmatched_drop):
    the policy's `unmatched: drop` would discard the trusted traffic there (QOS213), so the policy gives it the
    interface's trusted classification."""
    if not iface.unmatched_drop:
        return []
    return [warning("QOS172", f"interface {iface.name} unit {iface.unit}: what no rule of its input filter matches "
                    "is discarded (the implicit discard at the end of a JUNOS filter, or a final term that discards), "
                    "but the interface trusts a marking: not lifted (unmatched: drop would discard the trusted "
                    "traffic, QOS213), the policy classifies it by its marking",
                    iface.rules[-1].origin if iface.rules else iface.origin,  # where the filter ends
                    "end the filter with a catch-all term that accepts, or trust nothing there")]


__all__ = ["ethernet", "ident", "match_body", "rule_service", "unmatched_dropped"]
