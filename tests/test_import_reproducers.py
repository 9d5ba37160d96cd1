"""The reproducers of issue 22, each with the diagnostics import must give (they ended in a traceback, or in a
policy qosc's own validate refuses, before).

exp.set: an EXP classifier read as DSCP (`DSCP 111 is out of range`, a traceback); alias6.set: a dscp-ipv6 alias
(`unknown DSCP 'ALIAS2'`, a traceback); prec2.ios: a `match ip precedence 2 3 4 5` class of 50 % taken as the
default and clashing with class-default (QOS031, an invalid policy written); c6500-wrr.ios: a trust-only
Port-channel beside a WRR port (`services: []`, then an IndexError in the PFC lowering while the written policy
was validated).  Plus the import's own promises: nothing to lift writes nothing (exit 3), and the reconciliation
(QOS202) counts every object seen as lifted or named.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from qosc.cli import main

EXP = """\
set class-of-service classifiers exp EXP forwarding-class best-effort loss-priority low code-points 111
set class-of-service interfaces xe-0/0/0 unit 0 classifiers exp EXP
"""
ALIAS6 = """\
set class-of-service code-point-aliases dscp-ipv6 ALIAS2 000000
set class-of-service classifiers dscp-ipv6 C6 forwarding-class best-effort loss-priority low code-points ALIAS2
"""
PREC2 = """\
class-map match-all IP_PREC_MEDIUM
 match ip precedence 2  3  4  5
class-map match-all IP_PREC_HIGH
 match ip precedence 6  7
policy-map P
 class IP_PREC_HIGH
  priority percent 10
 class IP_PREC_MEDIUM
  bandwidth percent 50
  queue-limit 100
 class class-default
  bandwidth percent 40
interface GigabitEthernet0/0
 bandwidth 10000
 service-policy output P
"""
C6500 = """\
mls qos
interface Port-channel51
 switchport
 mls qos trust cos
interface GigabitEthernet1/7
 switchport
 mls qos trust cos
 wrr-queue bandwidth 20 30 50
 wrr-queue cos-map 1 1 0 1
 wrr-queue cos-map 1 2 2
 wrr-queue cos-map 2 1 3
 wrr-queue cos-map 2 2 6 7
 priority-queue cos-map 1 4 5
"""


def imported(tmp: Path, capsys: pytest.CaptureFixture[str], platform: str, name: str, text: str
             ) -> tuple[int, list[dict[str, Any]], dict[str, Any] | None, str]:
    """qosc import of one reproducer: exit status, diagnostics, the written policy (None: nothing written), stderr."""
    source, out = tmp / name, tmp / "policy.yaml"
    source.write_text(text, encoding="utf-8")
    status = main(["import", f"{platform}:{source}", "-o", str(out), "--format", "json"])
    captured = capsys.readouterr()
    diagnostics = [json.loads(line) for line in captured.out.splitlines() if line.startswith("{")]
    policy = yaml.safe_load(out.read_text(encoding="utf-8")) if out.exists() else None
    if policy is not None:
        assert main(["validate", str(out)]) == 0, capsys.readouterr()  # never an invalid policy written
        capsys.readouterr()
    return status, diagnostics, policy, captured.err


def at(diagnostics: list[dict[str, Any]], code: str) -> list[tuple[int | None, str]]:
    return [(d.get("line"), d["message"]) for d in diagnostics if d["code"] == code]


def tally(diagnostics: list[dict[str, Any]]) -> str:
    return next(d["message"] for d in diagnostics if d["code"] == "QOS202")


def test_an_exp_classifier_is_read_as_exp_never_as_dscp(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, diagnostics, policy, _ = imported(tmp_path, capsys, "junos-mx", "exp.set", EXP)
    named = at(diagnostics, "QOS172")
    assert not any("111" in m and "DSCP" in m for _, m in named)  # 111 is an EXP value, never a DSCP
    # the marking domains (issue 21) lift it: EXP 7 into best effort, on an MPLS interface of the default map
    assert status == 0 and policy is not None
    assert set(policy["services"]) == {"best-effort"}
    assert policy["services"]["best-effort"]["exp"] == [7] and policy["services"]["best-effort"]["default"] is True
    assert policy["devices"]["exp"]["interfaces"]["xe-0/0/0"]["encapsulation"] == "mpls"
    # the default map's classes nothing is classified into are named at the unit
    assert {m.split("class ")[1].split(" ")[0] for line, m in named if line == 2 and "not lifted: no IP" in m} == \
        {"assured-forwarding", "expedited-forwarding", "network-control"}
    # the unit and the EXP classifier: both lifted, nothing dropped without a word
    assert "2 QoS object(s) seen = 2 lifted + 0 named as not lifted" in tally(diagnostics)


def test_a_dscp_ipv6_alias_is_resolved_and_an_unapplied_classifier_is_nothing_to_lift(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, diagnostics, policy, err = imported(tmp_path, capsys, "junos-mx", "alias6.set", ALIAS6)
    assert status == 3 and policy is None  # nothing to lift: no `services: {}` written
    assert "nothing to lift" in err
    assert at(diagnostics, "QOS201")
    assert at(diagnostics, "QOS172") == [(2, "classifier dscp-ipv6 C6 not lifted: applied to no interface: it does "
                                            "nothing")]
    assert "1 QoS object(s) seen = 0 lifted + 1 named as not lifted (QOS172), 1 of them applied to no interface" \
        in tally(diagnostics)


def test_a_precedence_class_beside_a_priority_class_keeps_its_match(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, diagnostics, policy, _ = imported(tmp_path, capsys, "ios-xe", "prec2.ios", PREC2)
    assert status == 0 and policy is not None
    assert not at(diagnostics, "QOS031")
    s = policy["services"]
    assert s["class-default"]["default"] is True and s["class-default"]["queue"]["share"] == "40%"
    assert s["IP_PREC_MEDIUM"]["queue"]["share"] == "50%" and len(s["IP_PREC_MEDIUM"]["dscp"]) == 32
    assert {"cs2", "cs5", "ef"} <= set(s["IP_PREC_MEDIUM"]["dscp"])
    assert s["IP_PREC_HIGH"]["queue"] == {"share": "10%", "strict": True, "rate-cap": "10%"}
    # `match ip precedence` is IPv4 only: what IPv6 does is named at the interface, the IPv4 classification lifted
    ipv6 = [(line, m) for line, m in at(diagnostics, "QOS172") if "IPv6" in m]
    assert [line for line, _ in ipv6] == [13, 13], ipv6
    assert "6 QoS object(s) seen = 6 lifted + 0 named" in tally(diagnostics)


def test_a_trust_only_port_channel_beside_a_wrr_port(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, diagnostics, policy, _ = imported(tmp_path, capsys, "catalyst6500", "c6500-wrr.ios", C6500)
    assert status == 0 and policy is not None
    ports = policy["devices"]["c6500-wrr"]["interfaces"]
    assert set(ports) == {"GigabitEthernet1/7"}  # the Port-channel has no queues of its own: named, not `[]`
    named = at(diagnostics, "QOS172")
    assert any(line == 4 and "Port-channel51" in m and "mls qos trust cos" in m for line, m in named), named
    # the priority queue has no rate on a Catalyst and no edge policer marks into it: it runs uncapped, and the
    # policy says so on purpose (rate-cap: none, QOS046 at its line; before, QOS172 left it out)
    assert not any("priority-queue" in m for _, m in named), named
    assert [d["line"] for d in diagnostics if d["code"] == "QOS046" and d["file"].endswith(".ios")] == [5]
    uncapped = [s for s in policy["services"].values() if s["queue"].get("strict")]
    assert len(policy["services"]) == 3 and [s["queue"] for s in uncapped] == [{"strict": True, "rate-cap": "none"}]
    assert "3 QoS object(s) seen" in tally(diagnostics)


HQOS = """\
class-map match-any VOICE
 match dscp ef
class-map match-any DATA
 match dscp af21 af22 af23
policy-map CHILD
 class VOICE
  priority percent 20
 class DATA
  bandwidth remaining percent 60
 class class-default
  bandwidth remaining percent 40
policy-map PARENT
 class class-default
  shape average 50000000
  service-policy CHILD
interface GigabitEthernet0/1
 service-policy output PARENT
"""


def test_a_parent_shaper_with_a_child_policy_lifts_and_round_trips(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """Hierarchical IOS XE QoS: the parent's class-default shapes to 50 Mbit/s and runs the child's classes,
    whose shares are of the shaped rate (before: only the parent's class-default was read)."""
    status, diagnostics, policy, _ = imported(tmp_path, capsys, "ios-xe", "hqos.ios", HQOS)
    assert status == 0 and policy is not None
    assert policy["devices"]["hqos"]["interfaces"]["GigabitEthernet0/1"]["shape"] == "50M"
    s = policy["services"]
    assert s["VOICE"]["queue"] == {"share": "20%", "strict": True, "rate-cap": "20%"}
    assert (s["DATA"]["queue"]["share"], s["class-default"]["queue"]["share"]) == ("48%", "32%")
    assert "7 QoS object(s) seen = 7 lifted + 0 named" in tally(diagnostics)
    out = tmp_path / "out"
    assert main(["compile", str(tmp_path / "policy.yaml"), "-o", str(out), "-q"]) == 0
    capsys.readouterr()
    compiled = next(out.rglob("*.cfg"))
    assert main(["equiv", f"ios-xe:{tmp_path / 'hqos.ios'}", f"ios-xe:{compiled}"]) == 0, capsys.readouterr()


HTB_HOWTO = """\
## dev eth0
[{"kind":"htb","handle":"1:","root":true,"options":{"r2q":10,"default":"0x30"}}]
[{"class":"htb","handle":"1:1","root":true,"rate":1250000,"ceil":1250000,"prio":0},
 {"class":"htb","handle":"1:10","parent":"1:1","rate":375000,"ceil":1250000,"prio":1},
 {"class":"htb","handle":"1:20","parent":"1:1","rate":250000,"ceil":1250000,"prio":2},
 {"class":"htb","handle":"1:30","parent":"1:1","rate":625000,"ceil":1250000,"prio":3}]
[{"parent":"1:","protocol":"ip","pref":1,"kind":"u32","options":{"fh":"800::800","flowid":"1:10",
  "match":{"value":"b80000","mask":"fc0000","off":0}}},
 {"parent":"1:","protocol":"ip","pref":2,"kind":"u32","options":{"fh":"801::800","flowid":"1:20",
  "match":{"value":"10000","mask":"ff0000","off":8}}},
 {"parent":"1:","protocol":"ip","pref":3,"kind":"u32","options":{"fh":"802::800","flowid":"1:20",
  "match":{"value":"0","mask":"ff80","off":0}}}]
"""

FOUR_CLASSES = """\
set class-of-service forwarding-classes class be queue-num 0
set class-of-service forwarding-classes class voice queue-num 1
set class-of-service forwarding-classes class video queue-num 2
set class-of-service forwarding-classes class nc queue-num 3
set class-of-service classifiers dscp in forwarding-class be loss-priority low code-points be
set class-of-service classifiers dscp in forwarding-class voice loss-priority low code-points ef
set class-of-service schedulers s-be transmit-rate remainder
set class-of-service schedulers s-voice transmit-rate percent 20
set class-of-service schedulers s-video transmit-rate percent 30
set class-of-service schedulers s-nc transmit-rate percent 5
set class-of-service scheduler-maps m forwarding-class be scheduler s-be
set class-of-service scheduler-maps m forwarding-class voice scheduler s-voice
set class-of-service scheduler-maps m forwarding-class video scheduler s-video
set class-of-service scheduler-maps m forwarding-class nc scheduler s-nc
set class-of-service interfaces ge-0/0/1 scheduler-map m
set class-of-service interfaces ge-0/0/1 unit 0 classifiers dscp in
"""


def test_a_classic_htb_scripts_non_dscp_filters_and_ipv4_only_match_are_named(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The HOWTO's EF u32 filter is IPv4 only (protocol ip): what IPv6 does is said; its ICMP and small-packet
    filters match on the protocol and the total length, not the DSCP: named with what they match (before: they
    vanished, and the EF class was imported for both families without a word)."""
    status, diagnostics, policy, _ = imported(tmp_path, capsys, "linux", "eth0.json", HTB_HOWTO)
    assert status == 0 and policy is not None
    named = [m for _, m in at(diagnostics, "QOS172")]
    assert any("pref 2" in m and "protocol icmp" in m for m in named), named
    assert any("pref 3" in m and "total length" in m for m in named), named
    assert any("IPv6 packets of DSCP ef go to class 1:30, IPv4 packets to class 1:10" in m for m in named), named
    assert "ef" in policy["services"]["service-1-10"]["dscp"]


def test_four_forwarding_classes_with_schedulers_are_each_lifted_or_named(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Four JUNOS forwarding classes with schedulers, two of them fed by the classifier: the two lifted, the
    other two named at their map entries (before: two services, and the other two dropped without a word)."""
    status, diagnostics, policy, _ = imported(tmp_path, capsys, "junos-mx", "four.set", FOUR_CLASSES)
    assert status == 0 and policy is not None and set(policy["services"]) == {"be", "voice"}
    named = at(diagnostics, "QOS172")
    for fc, line in (("video", 13), ("nc", 14)):
        assert any(ln == line and f"class {fc}" in m and "no IP code point" in m for ln, m in named), named
    assert "named as not lifted" in tally(diagnostics)
