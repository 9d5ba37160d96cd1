"""EXP imposition by the uplinks' egress EXP: where a box writes the EXP of the labels a PE pushes from the
egress marking of the MPLS interface a packet leaves by, for the traffic of every edge alike (JUNOS rewrite
rules with protocol mpls-any, SR OS network egress lsp-exp), three policies cannot be rendered: edges that
disagree on impose, an edge that leaves EXP to the box beside an uplink that rewrites EXP anyway, and an
uplink that does not rewrite EXP on a PE whose edges impose it.  Each such target reports them with its code."""

from __future__ import annotations

from collections.abc import Callable

from qosc.diagnostics import Location
from qosc.model import Domain, Interface

Report = Callable[[str, Location | None, str], None]
"""(message, location, hint): the target's error with its code."""


def uplink_imposition(device: str, platform: str, mpls: list[Interface], edges: list[Interface], why: str,
                      box_exp: str, report: Report) -> None:
    """mpls: the PE's MPLS uplinks; edges: its IP/VLAN edges; why: how the box writes imposed EXP; box_exp: whose
    EXP labels get where no rewrite writes it."""
    imposing = [e for e in edges if e.impose]
    leaving = [e for e in edges if not e.impose]
    rewriting = [i for i in mpls if Domain.EXP in i.rewrite]
    if imposing and leaving:
        report(f"{leaving[0].name} leaves EXP to the box (impose: false) but {imposing[0].name} of {device} imposes "
               f"each service's EXP: {why}", leaving[0].where.at("impose"),
               f"give the edge interfaces of one {platform} device the same impose")
    elif leaving and rewriting:
        report(f"{leaving[0].name} leaves EXP to the box (impose: false), but {rewriting[0].name} rewrites EXP: "
               f"{why}, so its traffic gets each service's EXP anyway", leaving[0].where.at("impose"),
               "remove impose: false, or a rewrite without exp on the MPLS interfaces")
    if imposing:
        for i in mpls:
            if Domain.EXP not in i.rewrite:
                report(f"{imposing[0].name} of {device} imposes each service's EXP, but {i.name} does not rewrite "
                       f"EXP: {why}, so labels pushed on traffic leaving by {i.name} get {box_exp}",
                       i.where.at("rewrite", "role"),
                       "rewrite exp on every MPLS interface of a PE (the default of a core), or impose: false")
