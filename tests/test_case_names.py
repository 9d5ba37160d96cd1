"""Issue 18: names that differ only by case collide as file names and vendor object names (QOS026)."""

from __future__ import annotations

from pathlib import Path

from helpers import BASE, validate_text

from qosc.diagnostics import Severity

CLASSIFIED = BASE.replace("      eth0: {role: core, speed: 1G}\n", "      eth0: {role: core, speed: 1G}\n"
                          "      eth1: {role: edge, speed: 1G, classifier: site}\n") + """\
classifiers:
  site:
    rules:
      - {name: voice, match: {protocol: [udp]}, service: ip-premium}
      - {name: rest, service: best-effort}
"""


def qos026(tmp_path: Path, text: str) -> list:
    found = [d for d in validate_text(tmp_path, text) if d.code == "QOS026"]
    assert all(d.severity is Severity.ERROR and d.location is not None for d in found)
    return found


def test_clean_policy_has_no_case_collision(tmp_path: Path) -> None:
    assert qos026(tmp_path, CLASSIFIED) == []


def test_devices_differing_by_case(tmp_path: Path) -> None:
    text = CLASSIFIED.replace("classifiers:", "  R1:\n    platform: linux\n    interfaces:\n"
                              "      eth0: {role: core, speed: 1G}\nclassifiers:")
    [d] = qos026(tmp_path, text)
    assert d.message.startswith("device 'R1' differs only by case from 'r1' at ")
    assert "same file on a case-insensitive file system" in d.message
    assert d.location is not None and (d.location.line, d.location.column) == (20, 3)  # the key R1


def test_services_differing_by_case(tmp_path: Path) -> None:
    text = CLASSIFIED.replace("  lbe:\n", "  IP-Premium:\n    dscp: [cs4]\n    queue: {share: 1%, priority: high}\n"
                              "  lbe:\n")
    [d] = qos026(tmp_path, text)
    assert d.message.startswith("service 'IP-Premium' differs only by case from 'ip-premium'")
    assert d.hint is not None and "rename one of them" in d.hint


def test_classifiers_and_rules_differing_by_case(tmp_path: Path) -> None:
    text = CLASSIFIED.replace("{name: rest,", "{name: VOICE,") + "  Site:\n    rules: [{name: x, service: lbe}]\n"
    found = qos026(tmp_path, text)
    assert sorted(d.message.split(" differs")[0] for d in found) == ["classifier 'Site'",
                                                                     "rule 'VOICE' of classifier 'site'"]


def test_hosts_differing_by_case(tmp_path: Path) -> None:
    hosts = "".join(f"  {n}:\n    platform: linux\n    interfaces: {{eth0: {{speed: 1G}}}}\n"
                    "    paths: [{peer: x, rtt: 10ms}]\n" for n in ("se1", "SE1"))
    [d] = qos026(tmp_path, CLASSIFIED + "hosts:\n" + hosts)
    assert d.message.startswith("host 'SE1' differs only by case from 'se1'")
