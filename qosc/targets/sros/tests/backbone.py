"""The reference MPLS backbone (examples/mpls-backbone.yaml) with its JUNOS MX devices moved to SR OS: the
provider edge pe-mx and the P router p-mx on sros-7750, their interfaces named as the sros target names
where a policy applies (ports.py), every other part of the policy as the example has it.

tests/policies/mpls-backbone-sros.yaml is this policy, committed so that the conformance suite, the
three-form read-back and the round trips take it like every other sros policy; test_marking.py proves the
committed file is still what the example gives.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[4]
EXAMPLE = ROOT / "examples" / "mpls-backbone.yaml"
COMMITTED = Path(__file__).resolve().parent / "policies" / "mpls-backbone-sros.yaml"
NAMES = {
    "pe-mx": {"ge-0/0/1": "vprn:cust-a:to-a:1/1/1", "ge-0/0/2": "vpls:cust-b:1/1/2:100",
              "xe-0/1/0": "to-p-mx:1/1/c1/1"},
    "p-mx": {"xe-0/0/0": "to-pe-mx:1/1/c1/1", "xe-0/0/1": "to-p-m:1/1/c2/1"},
}
"""JUNOS interface (unit 100 of ge-0/0/2 is the SAP's VLAN) -> SR OS name: the IP customer a VPRN SAP, the
802.1p customer a VPLS SAP on VLAN 100, the MPLS links Base router interfaces."""


def sros_backbone() -> dict[str, Any]:
    policy = yaml.safe_load(EXAMPLE.read_text(encoding="utf-8"))
    devices = {}
    for device, names in NAMES.items():
        body = copy.deepcopy(policy["devices"][device])
        body["platform"] = "sros-7750"
        interfaces = {}
        for junos, iface in body["interfaces"].items():
            iface.pop("unit", None)  # the VLAN is in the SAP's name
            interfaces[names[junos]] = iface
        body["interfaces"] = interfaces
        devices[device] = body
    policy["devices"] = devices
    return policy


HEADER = """\
# examples/mpls-backbone.yaml with pe-mx and p-mx on a Nokia 7750 SR (qosc/targets/sros/tests/backbone.py writes
# this file: `python3 -m qosc.targets.sros.tests.backbone`): the IP customer a VPRN SAP, the 802.1p customer a
# VPLS SAP on VLAN 100, the MPLS links Base router interfaces.  Every other part is the example's.
"""


def write() -> None:
    COMMITTED.write_text(HEADER + yaml.safe_dump(sros_backbone(), sort_keys=False, allow_unicode=True),
                         encoding="utf-8")


if __name__ == "__main__":
    write()
