"""ACL lines IOS accepts (issue 15): port operators in an IPv4 ACL only after tcp or udp."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from qosc import api
from qosc.targets.registry import targets


def compile_rule(tmp_path: Path, match: dict, platform: str = "ios-xe") -> tuple[list, str]:
    policy = {"qosc": 1, "name": "t",
              "services": {"best-effort": {"kind": "best-effort", "default": True, "queue": {"share": "60%"}},
                           "sig": {"kind": "other", "dscp": ["cs5"], "queue": {"share": "10%"}}},
              "classifiers": {"c1": {"rules": [{"name": "r1", "match": match, "service": "sig"}]}},
              "devices": {"r1": {"platform": platform, "interfaces": {
                  "Gi0/0": {"role": "edge", "classifier": "c1", "speed": "1G"}}}}}
    path = tmp_path / "p.yaml"
    path.write_text(yaml.safe_dump(policy, sort_keys=False), encoding="utf-8")
    result = api.validate(path)
    if not result.ok or result.policy is None:
        return result.diagnostics, ""
    target = targets()["ios-mqc"]
    unit = result.policy.device_map["r1"]
    (out,) = target.render(target.lower(result.policy, unit, target.platform_data[platform]))
    return result.diagnostics, out.text


def permits(text: str) -> list[str]:
    return [ln.strip() for ln in text.splitlines() if ln.strip().startswith("permit ")]


def test_sctp_ports_in_ipv4_are_refused_at_the_rule(tmp_path: Path) -> None:
    diags, text = compile_rule(tmp_path, {"protocol": ["sctp"], "destination-port": [2905],
                                          "source": ["198.18.1.0/24"]})
    found = [d for d in diags if d.code == "QOS121" and "SCTP ports in IPv4" in d.message]
    assert found and found[0].location is not None and not text


def test_sctp_ports_in_ipv6_keep_the_sctp_keyword(tmp_path: Path) -> None:
    diags, text = compile_rule(tmp_path, {"protocol": ["sctp"], "destination-port": [2905],
                                          "source": ["2001:db8::/48"]})
    assert not [d for d in diags if d.is_error]
    assert permits(text) == ["permit sctp 2001:db8::/48 any eq 2905"]


def test_every_ipv4_port_operator_follows_tcp_or_udp(tmp_path: Path) -> None:
    _, text = compile_rule(tmp_path, {"destination-port": [2905, "5060-5061"], "source": ["198.18.1.0/24"]})
    lines = permits(text)
    assert lines and all(re.match(r"permit (tcp|udp) ", ln) for ln in lines if re.search(r" (eq|range) ", ln))
