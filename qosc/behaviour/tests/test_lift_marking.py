"""Import in the marking domains: services get their EXP and PCP values from classifiers and marks, classes carried
in EXP alone become services without DSCP, and classes of different devices that share a code point in any domain
(the EXP an edge imposes and a core classifies) are one service."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from qosc import pipeline
from qosc.behaviour.lift import lift
from qosc.behaviour.model import Device
from qosc.behaviour.readback import read
from qosc.behaviour.roundtrip import load, outputs
from qosc.diagnostics import has_errors

DATA = Path(__file__).resolve().parents[2] / "targets" / "junos" / "read" / "tests" / "data"
BACKBONE = "examples/mpls-backbone.yaml"


def junos(path: Path) -> Device:
    found = read(path.read_text(encoding="utf-8"), str(path), "junos-mx", path.stem)
    assert found.behaviour is not None, found.diagnostics
    return found.behaviour


def compiled(device: str) -> Device:
    policy = load(BACKBONE)
    text = next(o.text for o in outputs(policy, device) if o.path.endswith(".conf"))
    found = read(text, f"{device}.conf", policy.device_map[device].platform, device)
    assert found.behaviour is not None
    return found.behaviour


def validated(policy: dict[str, Any], tmp_path: Path) -> pipeline.Result:
    path = tmp_path / "imported.yaml"
    path.write_text(yaml.safe_dump(policy, sort_keys=False), encoding="utf-8")
    return pipeline.validate(str(path))


def test_an_exp_only_core_becomes_services_without_dscp() -> None:
    """Juniper's validated design for 5G low-latency queueing, aggregation MX204 (public, Apache-2.0): its core
    interfaces classify and rewrite EXP only."""
    lifted = lift([junos(DATA / "jvd-llq-ag2_1_mx204.conf")], "llq")
    services = lifted.policy["services"]
    assert services["FC-REALTIME"] == {"kind": "other", "queue": services["FC-REALTIME"]["queue"], "exp": [5]}
    assert services["FC-LLQ"]["exp"] == [4] and services["FC-CONTROL"]["exp"] == [7]
    assert services["FC-BEST-EFFORT"]["default"] is True and services["FC-BEST-EFFORT"]["exp"] == [0]
    assert all("dscp" not in body for name, body in services.items() if name != "FC-BEST-EFFORT")
    (device,) = lifted.policy["devices"].values()
    for body in device["interfaces"].values():
        assert body["encapsulation"] == "mpls" and body["trust"] == "exp" and body["rewrite"] == ["exp"]


def test_a_metro_access_node_joins_its_802_1p_customers_and_its_exp_uplinks() -> None:
    """Juniper's validated design for metro Ethernet business services, access node MX204 (public, Apache-2.0):
    customer units classify and rewrite 802.1p, the MPLS uplinks EXP, and the uplinks' EXP rewrite imposes."""
    dev = junos(DATA / "jvd-mebs-an1_mx204.conf")
    cust = dev.interface("ae11", 700)
    assert cust is not None and cust.role == "edge" and cust.marked("impose")[("REALTIME", 1)] == 5
    lifted = lift([dev], "an1")
    services = lifted.policy["services"]
    assert services["REALTIME"]["exp"] == [5] and services["REALTIME"]["pcp"] == [5]
    assert services["BUSINESS"]["exp"] == [4] and services["BUSINESS"]["pcp"] == [4]
    assert services["BEST-EFFORT"]["pcp"] == {"low": [1], "high": [0]}  # as the design writes it
    interfaces = next(iter(lifted.policy["devices"].values()))["interfaces"]
    assert set(interfaces) == {"ae11.700", "ae11.701", "ae11.702", "ae71", "ae72"}
    assert interfaces["ae11.700"] == {"role": "edge", "encapsulation": "vlan", "trust": "pcp"}
    assert interfaces["ae71"]["trust"] == "exp"
    # MEDIUM is classified at loss priority high only: it keeps that drop precedence (issue 22; it was imported as
    # low, and said)
    assert services["MEDIUM"]["exp"] == {"high": [2]}
    assert not any(d.code == "QOS172" and "MEDIUM" in d.message for d in lifted.diagnostics)


CORE = """\
set class-of-service forwarding-classes queue 0 core-be
set class-of-service forwarding-classes queue 5 core-gold
set class-of-service classifiers exp CX forwarding-class core-be loss-priority low code-points [ 000 001 010 011 ]
set class-of-service classifiers exp CX forwarding-class core-be loss-priority low code-points [ 100 110 111 ]
set class-of-service classifiers exp CX forwarding-class core-gold loss-priority low code-points 101
set class-of-service rewrite-rules exp CX forwarding-class core-be loss-priority low code-point 000
set class-of-service rewrite-rules exp CX forwarding-class core-gold loss-priority low code-point 101
set class-of-service schedulers be transmit-rate percent 80
set class-of-service schedulers gold transmit-rate percent 20
set class-of-service scheduler-maps m forwarding-class core-be scheduler be
set class-of-service scheduler-maps m forwarding-class core-gold scheduler gold
set class-of-service interfaces xe-1/0/0 scheduler-map m
set class-of-service interfaces xe-1/0/0 unit 0 classifiers exp CX
set class-of-service interfaces xe-1/0/0 unit 0 rewrite-rules exp CX
"""


def test_an_edges_dscp_class_and_a_cores_exp_class_are_one_service_by_the_imposed_exp(tmp_path: Path) -> None:
    core_path = tmp_path / "core.set"
    core_path.write_text(CORE)
    core = junos(core_path)
    assert core.interfaces[0].classify[0] == (None,) * 64  # no DSCP at all: joined by EXP alone
    lifted = lift([compiled("pe-mx"), core], "joined")
    services = lifted.policy["services"]
    assert "core-gold" not in services and services["ip-premium"]["exp"] == [5]
    core_body = lifted.policy["devices"]["core"]["interfaces"]["xe-1/0/0"]
    assert set(core_body["services"]) == {"best-effort", "ip-premium"}
    assert core_body["trust"] == "exp" and core_body["rewrite"] == ["exp"]


def test_the_backbones_junos_devices_import_into_one_valid_policy(tmp_path: Path) -> None:
    devices = [compiled(d) for d in ("pe-mx", "p-mx", "p-m")]
    lifted = lift(devices, "backbone")
    result = validated(lifted.policy, tmp_path)
    assert not has_errors(result.diagnostics), [str(d) for d in result.diagnostics if d.is_error]
    services = lifted.policy["services"]
    assert set(services) == {"best-effort", "ip-premium", "assured", "lbe", "network-control"}
    assert services["assured"]["exp"] == {"low": [2], "medium": [3]}
    assert services["assured"]["pcp"] == {"low": [2], "medium": [3]}
    assert services["best-effort"]["exp"] == [0]  # p-m keeps Premium's EXP 5 in best effort's queue: not its value
    assert lifted.policy["devices"]["p-m"]["interfaces"]["so-1/2/0"] == {
        "role": "transparent", "encapsulation": "mpls",
        "services": ["best-effort", "assured", "lbe", "network-control"]}
    assert lifted.policy["devices"]["pe-mx"]["interfaces"]["ge-0/0/2"]["trust"] == "pcp"


@pytest.mark.parametrize("name", ["jvd-llq-ag2_1_mx204.conf", "jvd-mebs-an1_mx204.conf"])
def test_no_marking_is_written_that_the_policy_language_refuses(name: str, tmp_path: Path) -> None:
    """Whatever else a public configuration breaks (its own overbooked shares), the exp, pcp, encapsulation,
    trust, rewrite and impose the import writes are what the schema takes."""
    lifted = lift([junos(DATA / name)], "x")
    result = validated(lifted.policy, tmp_path)
    assert not [d for d in result.diagnostics if d.code in ("QOS010", "QOS011", "QOS013")], \
        [str(d) for d in result.diagnostics]
