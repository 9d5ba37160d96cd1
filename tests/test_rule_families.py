"""Issue 26: a rule's IP families come from its prefixes AND its protocols.

`protocol: [icmp6]` is ICMPv6 (IPv6 next header 58, RFC 4443); `icmp` is ICMPv4 (IPv4 protocol 1, RFC 792) and
`igmp` IPv4 only (RFC 3376 section 1; IPv6 has MLD, inside ICMPv6, RFC 2710).  Such a rule written into the IPv4
filter or ACL is a dead term that only misleads the reader (JUNOS `family inet` filter, IOS `ip access-list
extended`, tc `protocol ip` u32): every target that renders edge rules writes a rule only into the families it can
match, each with the protocols of that family, and a rule whose families end up empty (icmp6 with an IPv4 prefix,
an IPv4 source with an IPv6 destination) is a located error from the checks (QOS036), not silently nothing.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from qosc import api
from qosc.model import Rule

POLICY = """\
qosc: 1
name: fam
services:
  best-effort: {kind: best-effort, default: true, queue: {share: 80%, priority: high}}
  lbe: {kind: lbe, dscp: [cs1], queue: {share: 1%, priority: low}}
classifiers:
  site:
    rules:
$rules
devices:
  mx: {platform: junos-mx, interfaces: {ge-0/0/1: {role: edge, speed: 1G, classifier: site}}}
  asr: {platform: ios-xe, interfaces: {GigabitEthernet0/0/0: {role: edge, speed: 1G, classifier: site}}}
  cat: {platform: catalyst6500, interfaces: {GigabitEthernet1/1: {role: edge, speed: 1G, classifier: site,
                                                                  port-type: 1p7q8t}}}
  gw: {platform: linux, interfaces: {eth0: {role: edge, speed: 1G, classifier: site}}}
"""

RULES = """\
      - {name: ping6, service: lbe, match: {protocol: [icmp6]}}
      - {name: pingboth, service: lbe, match: {protocol: [icmp, icmp6]}}
      - {name: ping4, service: lbe, match: {protocol: [1]}}
"""


def write(tmp_path: Path, rules: str) -> Path:
    path = tmp_path / "p.yaml"
    path.write_text(POLICY.replace("$rules", textwrap.indent(textwrap.dedent(rules), "      ").rstrip()),
                    encoding="utf-8")
    return path


def compiled(tmp_path: Path, rules: str = RULES) -> dict[str, str]:
    result = api.validate(write(tmp_path, rules))
    outputs = api.compile_policy(result)
    assert result.ok and outputs, [d.message for d in result.diagnostics if d.is_error]
    return {o.path: o.text for o in outputs}


@pytest.mark.parametrize(("protocols", "prefixes", "families"), [
    ((), (), ("inet", "inet6")),
    (("icmp6",), (), ("inet6",)),
    (("58",), (), ("inet6",)),
    (("icmp",), (), ("inet",)),
    (("1",), (), ("inet",)),
    (("igmp",), (), ("inet",)),
    (("icmp", "icmp6"), (), ("inet", "inet6")),
    (("tcp",), ("198.18.0.0/24",), ("inet",)),
    (("icmp6",), ("198.18.0.0/24", "fd00::/64"), ("inet6",)),
    (("icmp6",), ("198.18.0.0/24",), ()),
    (("icmp",), ("fd00::/64",), ()),
])
def test_families_come_from_prefixes_and_protocols(protocols: tuple[str, ...], prefixes: tuple[str, ...],
                                                   families: tuple[str, ...]) -> None:
    assert Rule("r", "s", sources=prefixes, protocols=protocols).families == families


def test_source_and_destination_of_different_families_match_nothing() -> None:
    assert Rule("r", "s", sources=("198.18.0.0/24",), destinations=("fd00::/64",)).families == ()
    assert Rule("r", "s", sources=("198.18.0.0/24", "fd00::/64"), destinations=("fd00::/64",)).families == ("inet6",)


def test_protocols_of_a_family() -> None:
    rule = Rule("r", "s", protocols=("icmp", "icmp6", "tcp", "58", "2"))
    assert rule.protocols_in("inet") == ("icmp", "tcp", "2")
    assert rule.protocols_in("inet6") == ("icmp6", "tcp", "58")


def test_junos_writes_an_icmp6_rule_only_into_the_inet6_filter(tmp_path: Path) -> None:
    text = compiled(tmp_path)["junos/mx.set"]
    inet = [ln for ln in text.splitlines() if "family inet filter" in ln]
    inet6 = [ln for ln in text.splitlines() if "family inet6 filter" in ln]
    assert not [ln for ln in inet if " term ping6 " in ln]
    assert not [ln for ln in inet if "icmp6" in ln or " 58" in ln]
    assert [ln for ln in inet if "term pingboth from protocol" in ln] == [
        "set firewall family inet filter site term pingboth from protocol icmp"]
    assert [ln for ln in inet6 if "term pingboth from next-header" in ln] == [
        "set firewall family inet6 filter site term pingboth from next-header icmp6"]
    assert [ln for ln in inet6 if "term ping6 from" in ln] == [
        "set firewall family inet6 filter site term ping6 from next-header icmp6"]
    assert not [ln for ln in inet6 if " term ping4 " in ln]


@pytest.mark.parametrize("path", ["ios-mqc/asr.cfg", "catalyst6500/cat.cfg"])
def test_ios_writes_an_icmp6_rule_only_into_the_ipv6_acl(tmp_path: Path, path: str) -> None:
    text = compiled(tmp_path)[path]
    acls: dict[str, list[str]] = {}
    current = ""
    for ln in text.splitlines():
        if ln.startswith(("ip access-list extended ", "ipv6 access-list ")):
            current = ln
            acls[current] = []
        elif ln.startswith(" permit ") and current:
            acls[current].append(ln.strip())
        elif not ln.startswith(" "):
            current = ""
    assert "ip access-list extended site-ping6" not in acls
    assert acls["ipv6 access-list site-ping6-v6"] == ["permit icmp any any"]
    assert acls["ip access-list extended site-pingboth"] == ["permit icmp any any"]
    assert acls["ipv6 access-list site-pingboth-v6"] == ["permit icmp any any"]
    assert acls["ip access-list extended site-ping4"] == ["permit 1 any any"]
    assert "ipv6 access-list site-ping4-v6" not in acls
    # the class-map matches only the ACLs written
    assert "match access-group name site-ping6\n" not in text + "\n"


def test_linux_writes_an_icmp6_rule_only_as_an_ipv6_filter(tmp_path: Path) -> None:
    text = compiled(tmp_path)["linux-tc/gw/eth0.tc"]
    filters = [ln for ln in text.splitlines() if ln.startswith("filter add") and " u32 " in ln]
    assert not [ln for ln in filters if " protocol ip " in ln and "match ip protocol 58 " in ln]
    assert not [ln for ln in filters if " protocol ipv6 " in ln and "match ip6 protocol 1 " in ln]
    assert [ln for ln in filters if " protocol ipv6 " in ln and "match ip6 protocol 58 " in ln]
    assert [ln for ln in filters if " protocol ip " in ln and "match ip protocol 1 " in ln]


@pytest.mark.parametrize(("match", "key"), [
    ("{protocol: [icmp6], source: [198.18.1.0/24]}", "protocol"),
    ("{protocol: [icmp], destination: ['fd00:1::/64']}", "protocol"),
    ("{source: [198.18.1.0/24], destination: ['fd00:1::/64']}", "destination"),
])
def test_a_rule_that_matches_no_family_is_a_located_error(tmp_path: Path, match: str, key: str) -> None:
    rules = f"""\
    - {{name: ok, service: lbe, match: {{protocol: [tcp]}}}}
    - {{name: dead, service: lbe, match: {match}}}
    """
    result = api.validate(write(tmp_path, rules))
    (diag,) = [d for d in result.diagnostics if d.code == "QOS036"]
    assert diag.is_error and "'dead'" in diag.message and "no IP family" in diag.message
    assert diag.location is not None and diag.location.line == 10
    line = write(tmp_path, rules).read_text(encoding="utf-8").splitlines()[9]
    assert line[diag.location.column - 1:].startswith("[")  # the value of the key that leaves no family
    assert line[:diag.location.column - 1].rstrip(": ").endswith(key)
    assert diag.hint
    assert not [d for d in result.diagnostics if d.code == "QOS036" and "'ok'" in d.message]


@pytest.mark.parametrize(("device", "suffix"), [("mx", ".set"), ("mx", ".conf"), ("asr", ".cfg"), ("cat", ".cfg")])
def test_rules_of_one_family_read_back_as_the_policy_says(tmp_path: Path, device: str, suffix: str) -> None:
    """verify: each rule read back matches the families and protocols the policy gives it (an IPv6 ACL's `icmp`
    is ICMPv6), and import(compile(P)) compiles to the same behaviour."""
    from qosc.behaviour import readback
    from qosc.behaviour.roundtrip import drift, outputs, round_trip

    result = api.validate(write(tmp_path, RULES))
    assert result.policy is not None
    policy = result.policy
    output = next(o for o in outputs(policy, device) if o.path.endswith(suffix))
    found = readback.read(output.text, output.path, policy.device_map[device].platform, device).behaviour
    assert found is not None
    rules = {r.name.removeprefix("site-"): r for i in found.interfaces for r in i.rules}  # IOS: class-map names
    assert rules["ping6"].families == ("inet6",) and rules["ping4"].families == ("inet",)
    assert sorted(rules["ping6"].protocols) == ["icmp6"]
    assert drift(policy, device, found) == []
    trip = round_trip(policy, device, suffix, tmp_path)
    assert trip.ok, (trip.stage, trip.findings, trip.problems, [d.message for d in trip.diagnostics])
