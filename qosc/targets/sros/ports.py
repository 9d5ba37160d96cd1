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
  must start with a letter (nokia-types-sros interface-name);
- edge (access side, a SAP of a service):
  `vpls:SERVICE:SAP`, `vprn:SERVICE:IF:SAP` or `ies:SERVICE:IF:SAP`, where SAP
  is `PORT` or `PORT:VLAN` (or `PORT:OUTER.INNER`): sap-ingress and
  sap-egress policies on that SAP.

A name that fits none of these is QOS231 at the interface.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from qosc.model import Interface, Role

_PORT = r"(?:\d+/\d+(?:/c?\d+)*|lag-\d+|esat-\d+/\d+/\d+|pxc-\d+\.[ab])"
PORT = re.compile(_PORT)
_SAP = rf"{_PORT}(?::(?:\d+|\*)(?:\.(?:\d+|\*))?)?"
_IF = r"[A-Za-z][A-Za-z0-9_.-]{0,31}"
_CORE = re.compile(rf"(?:(?P<ifname>{_IF}):)?(?P<port>{_PORT})")
_EDGE = re.compile(rf"(?P<kind>vpls):(?P<service>[A-Za-z0-9_.-]+):(?P<sap>{_SAP})|"
                   rf"(?P<kind3>vprn|ies):(?P<service3>[A-Za-z0-9_.-]+):(?P<ifname>{_IF}):(?P<sap3>{_SAP})")
FORMS = {"core": "PORT (1/1/1, lag-3) or IF:PORT (to-fra:1/1/c2/1, IF a Base router interface)",
         "edge": "vpls:SERVICE:SAP, vprn:SERVICE:IF:SAP or ies:SERVICE:IF:SAP (SAP = PORT or PORT:VLAN)"}


@dataclass(frozen=True)
class Binding:
    """Where one policy interface is applied."""

    port: str
    router_interface: str | None = None
    service_kind: str | None = None  # vpls | vprn | ies (edge)
    service: str | None = None
    sap: str | None = None

    @property
    def edge(self) -> bool:
        return self.sap is not None


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
    return Binding(m.group("port"), m.group("ifname"))


def form(iface: Interface) -> str:
    return FORMS["edge" if iface.role is Role.EDGE else "core"]
