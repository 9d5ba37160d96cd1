"""Where an SR OS interface of the policy is applied: its name says the port, router interface or SAP.

The policy names an interface once; on SR OS the QoS of one link is written
at up to three places (the port's network queues, the router interface's
network policy, a service SAP's ingress and egress policies).  The name of a
policy interface on an `sros-*` device says which, and qosc writes the
policies there and nowhere else:

- core and transparent (network side):
  `PORT` (`1/1/1`, `1/1/c2/1`, `lag-3`): the port's network queue policy and
  egress rate only; `IF:PORT` (`to-fra:1/1/c2/1`): also the network QoS policy
  (classification, marking) of router interface IF of the Base router, which
  must start with a letter (nokia-types-sros interface-name); `IF:PORT:VLAN`
  (`to-sw:1/1/3:100`): the same, the router interface on VLAN VLAN of a
  dot1q port (where 802.1p is classified and written);
- edge (access side, a SAP of a service):
  `vpls:SERVICE:SAP`, `vprn:SERVICE:IF:SAP` or `ies:SERVICE:IF:SAP`, where SAP
  is `PORT` or `PORT:VLAN` (or `PORT:OUTER.INNER`): sap-ingress and
  sap-egress policies on that SAP.

A name that fits none of these is QOS231 at the interface.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from qosc.model import Device, Domain, Interface, Policy, Role

_PORT = r"(?:\d+/\d+(?:/c?\d+)*|lag-\d+|esat-\d+/\d+/\d+|pxc-\d+\.[ab])"
PORT = re.compile(_PORT)
_SAP = rf"{_PORT}(?::(?:\d+|\*)(?:\.(?:\d+|\*))?)?"
_IF = r"[A-Za-z][A-Za-z0-9_.-]{0,31}"
_CORE = re.compile(rf"(?P<ifname>{_IF}):(?P<port>{_PORT})(?::(?P<vlan>\d+))?|(?P<bare>{_PORT})")
_EDGE = re.compile(rf"(?P<kind>vpls):(?P<service>[A-Za-z0-9_.-]+):(?P<sap>{_SAP})|"
                   rf"(?P<kind3>vprn|ies):(?P<service3>[A-Za-z0-9_.-]+):(?P<ifname>{_IF}):(?P<sap3>{_SAP})")
FORMS = {"core": "PORT (1/1/1, lag-3), IF:PORT (to-fra:1/1/c2/1, IF a Base router interface) or IF:PORT:VLAN",
         "edge": "vpls:SERVICE:SAP, vprn:SERVICE:IF:SAP or ies:SERVICE:IF:SAP (SAP = PORT or PORT:VLAN)"}


@dataclass(frozen=True)
class Binding:
    """Where one policy interface is applied."""

    port: str
    router_interface: str | None = None
    service_kind: str | None = None  # vpls | vprn | ies (edge)
    service: str | None = None
    sap: str | None = None
    vlan: int | None = None
    """The VLAN of a router interface on a dot1q port (`IF:PORT:VLAN`)."""

    @property
    def edge(self) -> bool:
        return self.sap is not None

    @property
    def router_port(self) -> str:
        """The port (and VLAN) the router interface is on, as its `port` leaf names it."""
        return self.port if self.vlan is None else f"{self.port}:{self.vlan}"


def binding(iface: Interface) -> Binding | None:
    """The binding an interface's name states for its role, or None when the name fits no form of that role."""
    if iface.role is Role.EDGE:
        m = _EDGE.fullmatch(iface.name)
        if m is None:
            return None
        if m.group("kind"):
            sap = m.group("sap")
            return Binding(sap.split(":")[0], None, "vpls", m.group("service"), sap)
        sap = m.group("sap3")
        return Binding(sap.split(":")[0], m.group("ifname"), m.group("kind3"), m.group("service3"), sap)
    m = _CORE.fullmatch(iface.name)
    if m is None:
        return None
    if m.group("bare"):
        return Binding(m.group("bare"))
    vlan = m.group("vlan")
    return Binding(m.group("port"), m.group("ifname"), vlan=int(vlan) if vlan is not None else None)


def form(iface: Interface) -> str:
    return FORMS["edge" if iface.role is Role.EDGE else "core"]


def sap_marks(policy: Policy, device: Device, iface: Interface) -> tuple[str, ...]:
    """What a SAP's sap-egress writes beside its queues: 'dscp' (re-mark a class with one code point, as
    before tunnel models), 'dscp-class' (re-mark every class from its profile: uniform), 'pcp' (dot1p).
    A device is a PE when one of its router interfaces carries MPLS (marking_rules.router_interfaces)."""
    out = []
    pe = any(i.mpls for i in device.interfaces if (b := binding(i)) is not None and not b.edge and b.router_interface)
    model = policy.tunnel_model
    if Domain.DSCP in iface.rewrite and not (pe and model == "pipe"):
        out.append("dscp-class" if pe and model == "uniform" else "dscp")
    if Domain.PCP in iface.rewrite:
        out.append("pcp")
    return tuple(out)
