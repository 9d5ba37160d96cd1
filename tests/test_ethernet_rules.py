"""Classifier rules on the Ethernet header (match pcp, source-mac, destination-mac) and interfaces that carry
Ethernet frames only (encapsulation vlan alone): the schema and checks (QOS015, QOS210-QOS212), what JUNOS writes (a
family ccc filter bound at the unit) and what every other target refuses at the key (QOS090).  Found on the
fronthaul units of Juniper's LLQ JVD ACX nodes (issue 22; tests/test_import_ethernet_rules.py)."""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from qosc import pipeline
from qosc.classifier import mac_address
from tests.test_fields import BASE, compile_units, ethernet_rule, write

POLICY: dict[str, Any] = {
    "qosc": 1, "name": "fronthaul",
    "services": {"be": {"kind": "best-effort", "default": True, "pcp": [0], "queue": {"share": "40%"}},
                 "llq": {"kind": "other", "dscp": ["af41"], "pcp": [4], "queue": {"share": "30%"}},
                 "high": {"kind": "other", "dscp": ["cs3"], "pcp": [3], "queue": {"share": "30%"}}},
    "classifiers": {"fh": {"rules": [
        {"name": "prio3", "match": {"pcp": [3, 2]}, "service": "high"},
        {"name": "ru", "match": {"source-mac": ["00:0C:0D:00:00:01", "00:0c:0d:00:00:02/48"]}, "service": "llq"},
        {"name": "du", "match": {"destination-mac": ["00:0c:22:00:00:00/24"]}, "service": "llq"}]}},
    "devices": {"an1": {"platform": "junos-mx", "interfaces": {
        "et-0/0/2": {"unit": 1101, "role": "edge", "speed": "100G", "encapsulation": "vlan", "classifier": "fh",
                     "rewrite": []}}}},
}


def _diagnostics(tmp_path: Path, policy: dict[str, Any]) -> tuple[Path, list[Any]]:
    path = tmp_path / "p.yaml"
    path.write_text(yaml.safe_dump(policy, sort_keys=False), encoding="utf-8")
    return path, pipeline.validate(path).diagnostics


def _line(path: Path, text: str, last: bool = False) -> int:
    """The line of the first (or last) `text` in the classifiers (a located list value is on the line after its
    key, block style)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    start = next(n for n, line in enumerate(lines) if line.startswith("classifiers:"))
    found = [n for n, line in enumerate(lines[start:], start + 1) if text in line]
    return found[-1] if last else found[0]


def test_mac_addresses_are_canonical() -> None:
    assert mac_address("00:0C:0D:00:00:01/48") == "00:0c:0d:00:00:01"
    assert mac_address("00-0c-0d-00-00-01") == "00:0c:0d:00:00:01"
    assert mac_address("00:0c:22:00:00:00/24") == "00:0c:22:00:00:00/24"
    for bad in ("00:0c:0d:00:00", "00:0c:0d:00:00:01:02", "00:0c:0d:00:00:0g", "00:0c:22:00:00:01/24",
                "00:0c:0d:00:00:01/49", "00:0c:0d:00:00:01/0", "000c.0d00.0001", "00:0c-0d:00:00:01",
                "\u0660\u0660:0c:0d:00:00:01"):  # Arabic-Indic digits
        with pytest.raises(ValueError):
            mac_address(bad)


def test_the_fronthaul_policy_is_valid(tmp_path: Path) -> None:
    _, diagnostics = _diagnostics(tmp_path, POLICY)
    assert not [d for d in diagnostics if d.is_error], [d.message for d in diagnostics]


def test_a_malformed_mac_address_is_qos015_at_its_line(tmp_path: Path) -> None:
    policy = copy.deepcopy(POLICY)
    policy["classifiers"]["fh"]["rules"][1]["match"]["source-mac"] = ["00:0c:0d:00:00:zz"]
    path, diagnostics = _diagnostics(tmp_path, policy)
    found = [d for d in diagnostics if d.code == "QOS015"]
    assert len(found) == 1 and "00:0c:0d:00:00:zz" in found[0].message, [d.message for d in diagnostics]
    assert found[0].location is not None and found[0].location.line == _line(path, "source-mac:") + 1  # its value


def test_an_802_1p_value_past_7_is_refused_by_the_schema(tmp_path: Path) -> None:
    policy = copy.deepcopy(POLICY)
    policy["classifiers"]["fh"]["rules"][0]["match"]["pcp"] = [8]
    _, diagnostics = _diagnostics(tmp_path, policy)
    assert [d for d in diagnostics if d.is_error and "8" in d.message], [d.message for d in diagnostics]


@pytest.mark.parametrize(("change", "code", "where"), [
    # both headers in one rule; an Ethernet rule that marks a DSCP
    (lambda p: p["classifiers"]["fh"]["rules"][0]["match"].update({"destination": ["198.18.0.0/16"]}), "QOS210",
     "pcp:"),
    (lambda p: p["classifiers"]["fh"]["rules"][0].update({"set-dscp": "cs3"}), "QOS210", "set-dscp:"),
    # an IP rule, or a rule that marks DSCP, on an interface of Ethernet frames
    (lambda p: p["classifiers"]["fh"]["rules"].append({"name": "ip", "match": {"protocol": ["udp"]},
                                                       "service": "high"}), "QOS211", "protocol:"),
    (lambda p: p["classifiers"]["fh"]["rules"].append({"name": "all", "service": "high"}), "QOS211",
     "service: high"),
    # an Ethernet rule on an interface that carries IP
    (lambda p: p["devices"]["an1"]["interfaces"]["et-0/0/2"].update({"encapsulation": ["ip", "vlan"]}), "QOS212",
     "pcp:"),
])
def test_checks_of_ethernet_rules(tmp_path: Path, change: Any, code: str, where: str) -> None:
    policy = copy.deepcopy(POLICY)
    change(policy)
    path, diagnostics = _diagnostics(tmp_path, policy)
    found = [d for d in diagnostics if d.code == code]
    assert found, [f"{d.code} {d.message}" for d in diagnostics]
    line = _line(path, where, code == "QOS211")
    assert found[0].location is not None and found[0].location.line in (line, line + 1), \
        (found[0].location, path.read_text(encoding="utf-8"))


def test_a_classify_only_rule_without_ethernet_keys_is_allowed_on_an_ethernet_interface(tmp_path: Path) -> None:
    policy = copy.deepcopy(POLICY)
    policy["classifiers"]["fh"]["rules"].append({"name": "all", "service": "high", "mark": False})
    _, diagnostics = _diagnostics(tmp_path, policy)
    assert not [d for d in diagnostics if d.is_error], [d.message for d in diagnostics]


def test_junos_writes_a_ccc_filter_bound_at_the_unit(tmp_path: Path) -> None:
    """The rules become terms of a family ccc filter (learn-vlan-1p-priority, source-mac-address,
    destination-mac-address, then the forwarding class) bound under interfaces et-0/0/2 unit 1101 family ccc; no
    family inet filter, no DSCP classifier or rewrite bound to the unit."""
    path = write(tmp_path, "p", POLICY)
    diagnostics, files = compile_units(path)
    assert not [d for d in diagnostics if d.is_error], [d.message for d in diagnostics]
    conf = next(text for name, text in files[("junos", "an1")].items() if name.endswith(".conf"))
    firewall = conf[conf.index("\nfirewall {"):]
    assert "family inet" not in firewall, firewall
    expected = """\
    family ccc {
        filter fh {
            interface-specific;
            term prio3 {
                from {
                    learn-vlan-1p-priority [ 2 3 ];
                }
                then {
                    forwarding-class high;
                    loss-priority low;
                    accept;
                }
            }
            term ru {
                from {
                    source-mac-address {
                        00:0c:0d:00:00:01;
                        00:0c:0d:00:00:02;
                    }
                }
"""
    assert expected in firewall, firewall
    assert "destination-mac-address {\n                        00:0c:22:00:00:00/24;" in firewall, firewall
    assert re.search(r"et-0/0/2 \{\n\s+unit 1101 \{\n\s+family ccc \{\n\s+filter \{\n\s+input fh;", firewall), \
        firewall
    cos_unit = conf[conf.index("unit 1101 {"):conf.index("}", conf.index("unit 1101 {"))]
    assert "classifiers" not in cos_unit and "rewrite-rules" not in cos_unit, cos_unit


@pytest.mark.parametrize("key", ["pcp", "source-mac", "destination-mac"])
def test_every_other_target_refuses_the_ethernet_keys_at_their_line(tmp_path: Path, key: str) -> None:
    """The fields test's policy (a device of every platform) with Ethernet edges and rules: JUNOS renders them,
    IOS MQC, Catalyst, IOS XR, SR OS and tc refuse the key at its line (QOS090)."""
    policy = copy.deepcopy(BASE)
    value = {"pcp": [5], "source-mac": ["00:0c:0d:00:00:01"], "destination-mac": ["00:0c:22:00:00:00/24"]}[key]
    ethernet_rule(key, value)(policy)
    path = write(tmp_path, "p", policy)
    line = _line(path, f"{key}:")
    diagnostics, files = compile_units(path)
    refused = {m.group(1) for d in diagnostics if d.code == "QOS090" and f"match.{key})" in d.message
               and d.location is not None and d.location.line == line
               for m in [re.search(r"target (\S+) ", d.message)] if m}
    assert refused == {"ios-mqc", "catalyst6500", "iosxr", "sros", "linux-tc"}, \
        [d.message for d in diagnostics if d.code == "QOS090"]
    assert ("junos", "mx1") in files and "family ccc" in next(
        t for n, t in files[("junos", "mx1")].items() if n.endswith(".conf"))


def test_a_vlan_edge_that_trusts_dscp_carries_ip(tmp_path: Path) -> None:
    """`encapsulation: vlan` with DSCP trusted (or rewritten) reads IP headers, so it carries IP in its VLANs: JUNOS
    conditions it with family inet/inet6 filters.  Before, every vlan-alone interface was taken for one of Ethernet
    frames only, and JUNOS wrote a family ccc filter matching traffic-class, which its grammar refused (QOS199: the
    network of tests/test_scale.py)."""
    policy = copy.deepcopy(POLICY)
    del policy["classifiers"]
    policy["devices"]["an1"]["interfaces"]["et-0/0/2"] = {
        "unit": 100, "role": "edge", "speed": "10G", "encapsulation": "vlan", "trust": ["dscp", "pcp"]}
    policy["services"]["high"]["policer"] = "p"
    policy["policers"] = {"p": {"cir": "1G", "cbs": "100k"}}
    path, _ = _diagnostics(tmp_path, policy)
    diagnostics, files = compile_units(path)
    assert not [d for d in diagnostics if d.is_error], diagnostics
    text = "".join(files[("junos", "an1")].values())
    assert "family inet" in text and "family ccc" not in text, text
    ethernet = copy.deepcopy(POLICY)  # the same unit trusting 802.1p alone: frames only, a family ccc filter
    path, _ = _diagnostics(tmp_path, ethernet)
    diagnostics, files = compile_units(path)
    assert "family ccc" in "".join(files[("junos", "an1")].values()), diagnostics
