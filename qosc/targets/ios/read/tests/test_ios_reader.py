"""IOS reader: compiled MQC configurations read back do what the policy says; mutations and flaws are found."""

from __future__ import annotations

import pytest

from qosc.behaviour.model import Device
from qosc.behaviour.roundtrip import drift, load, outputs
from qosc.diagnostics import Location
from qosc.errors import InputError
from qosc.targets.ios import read as ios

# What the compiled text really does differently, found by reading it back (see the reader report):
# - WRED cannot start above 0 %: the be profile's 10 % at 50 % fill is approximated from 0 %.
KNOWN = {("assured-rate.yaml", "asr-1"): {"drop probability at 50% fill"}}


def read(text: str, source: str = "r.cfg") -> Device:
    return ios.interpret(ios.parse(text, source, None), None)[0]


def _real(findings: list, allowed: set[str]) -> list:  # type: ignore[type-arg]
    return [f for f in findings if f.what not in allowed]


@pytest.mark.parametrize(("policy", "device"), [("assured-rate.yaml", "asr-1")])
def test_compiled_configuration_reads_back_as_the_policy(policy: str, device: str) -> None:
    pol = load(policy)
    text = outputs(pol, device)[0].text
    assert ios.sniff(text) == "cfg"
    found = drift(pol, device, read(text, device + ".cfg"))
    # `match dscp` (not `match ip dscp`, IPv4 only) classifies IPv6 like IPv4: nothing found but the known
    assert _real(found, KNOWN[(policy, device)]) == []


def test_changed_bandwidth_and_code_point_are_found() -> None:
    pol = load("assured-rate.yaml")
    text = outputs(pol, "asr-1")[0].text
    mutated = text.replace(" class lbe\n  bandwidth percent 1\n", " class lbe\n  bandwidth percent 3\n", 1)
    mutated = mutated.replace("match dscp cs6 cs7", "match dscp cs7")
    assert mutated.count("bandwidth percent 3") == 1
    found = _real(drift(pol, "asr-1", read(mutated)), KNOWN[("assured-rate.yaml", "asr-1")])
    assert sorted((f.interface, f.subject, f.what, f.expected, f.found) for f in found) == [
        ("GigabitEthernet0/0/0", "DSCP 48 (cs6)", "classified to", "network-control", "best-effort"),
        ("GigabitEthernet0/0/0", "DSCP 48 (cs6) (IPv6)", "classified to", "network-control", "best-effort"),
        ("GigabitEthernet0/0/0", "lbe", "share", "1%", "3%"),
        ("TenGigabitEthernet0/1/0", "DSCP 48 (cs6)", "classified to", "network-control", "best-effort"),
        ("TenGigabitEthernet0/1/0", "DSCP 48 (cs6) (IPv6)", "classified to", "network-control", "best-effort")]


HAND = """\
hostname r9
!
ip access-list extended voice-acl
 10 permit udp host 192.0.2.1 any range 16384 32767
 20 deny ip any any
class-map match-all gold
 match dscp af31
 match dscp af32
class-map match-all voice
 match access-group name voice-acl
 match dscp ef
class-map match-any rest
 match precedence 1 2
policy-map in
 class voice
  police cir 2000000 bc 62500 conform-action transmit exceed-action drop
 class class-default
  set dscp default
policy-map out
 class voice
  priority percent 20
 class gold
  bandwidth remaining percent 50
 class rest
  bandwidth 100000
  queue-limit 200 packets
  random-detect dscp-based
  random-detect dscp af11 50 150 10
  random-detect dscp af12 40 150 10
 class missing
  bandwidth percent 5
interface GigabitEthernet0/1.100
 bandwidth 500000
 service-policy input in
 service-policy output out
interface GigabitEthernet0/2
 service-policy output nowhere
 ip address 192.0.2.9 255.255.255.0
end
"""


def test_hand_written_constructs_qosc_does_not_emit() -> None:
    doc = ios.parse(HAND, "hand.cfg", None)
    assert doc.statements[0].texts() == ("hostname", "r9")
    device, diagnostics = ios.interpret(doc, None)
    iface = device.interface("GigabitEthernet0/1", 100)
    assert iface is not None and iface.rate == 500_000_000
    voice, gold, rest = (iface.class_named(n) for n in ("voice", "gold", "rest"))
    assert voice and gold and rest
    assert (voice.strict, voice.share) == (True, 20.0)
    # remaining percent 50 of what priority 20 %, 100 Mbit/s of 500 (20 %) and percent 5 leave
    assert gold.share == 27.5
    assert rest.share == 20.0 and rest.buffer == ("packets", 200.0)
    assert [lvl for lvl, _ in rest.drop] == [1, 2, 3] and rest.curve(2) and rest.curve(2).at(20) == 0.0  # type: ignore[union-attr]
    v4, v6 = iface.classify
    assert v4[26] == "class-default"  # match-all af31 and af32: nothing matches both
    assert v4[8] == v6[9] == "rest" and v4[46] == "class-default"  # voice needs the ACL too: not a DSCP class
    rule = iface.rules[0]
    assert (rule.sources, rule.protocols, rule.destination_ports) == (("192.0.2.1/32",), ("udp",),
                                                                      ((16384, 32767),))
    assert rule.match_dscp == (46,) and rule.policer and rule.policer.cir == 2_000_000
    assert iface.unmatched_mark == 0
    got = sorted((d.code, d.location.line if d.location else 0) for d in diagnostics)
    assert got == [("QOS172", 9), ("QOS174", 30), ("QOS174", 36), ("QOS175", 6)]


def test_indentation_errors_are_located() -> None:
    with pytest.raises(InputError) as caught:
        ios.parse("   class-map x\n", "bad.cfg", None)
    assert [(d.code, d.location) for d in caught.value.diagnostics] == [("QOS179", Location("bad.cfg", 1, 4))]


def test_catalyst_pfc_queueing_reads_back_and_a_weight_change_is_found() -> None:
    pol = load("datagrid-catalyst.yaml")
    text = outputs(pol, "cat6500-1")[0].text
    found = read(text, "cat6500-1.cfg")
    assert drift(pol, "cat6500-1", found) == []
    iface = found.interface("GigabitEthernet1/1")
    assert iface is not None and iface.class_of(46) is not None and iface.class_of(46).name == "queue-2"  # type: ignore[union-attr]
    assert iface.unmatched_mark == 0 and iface.rules[0].mark == 46
    mutated = text.replace("wrr-queue bandwidth 9 91", "wrr-queue bandwidth 20 80", 1)
    assert [(f.interface, f.what, f.expected, f.found) for f in drift(pol, "cat6500-1", read(mutated))] == [
        ("GigabitEthernet1/1", "share", "9%", "20%"), ("GigabitEthernet1/1", "share", "91%", "80%")]


def test_catalyst_reads_what_the_platform_really_does() -> None:
    """assured-rate on a 1p7q8t port: WRR weights are relative (40 of 89 is 44.9 %), the priority queue has no
    rate cap, WRED is one min/max pair per queue threshold (QOS122 at compile time)."""
    pol = load("assured-rate.yaml")
    found = drift(pol, "cat6500-2", read(outputs(pol, "cat6500-2")[0].text))
    shares = {(f.subject, f.found) for f in found if f.what == "share"}
    assert shares == {("best-effort", "44.9438%"), ("assured", "44.9438%"), ("network-control", "5.61798%"),
                      ("ip-premium", "none")}
    assert {f.subject for f in found if f.what == "rate cap"} == {"ip-premium"}
    assert not [f for f in found if f.what == "classified to"]


@pytest.mark.parametrize(("policy", "device"), [("datagrid-gsr.yaml", "gsr-1"), ("assured-rate.yaml", "gsr-2")])
def test_gsr_classifies_by_precedence(policy: str, device: str) -> None:
    """ios-gsr schedules by IP precedence (QOS122): every code point of a precedence shares its class, so the
    only classification differences are undeclared code points of a service's precedence (and IPv6)."""
    pol = load(policy)
    found = read(outputs(pol, device)[0].text)
    assert found.interfaces and all(len(i.classes) >= 4 for i in found.interfaces)
    wrong = [f for f in drift(pol, device, found) if f.what == "classified to" and not f.subject.endswith("(IPv6)")]
    assert wrong and all(f.expected == "best-effort" for f in wrong)
    declared = {c for s in pol.services for c in s.dscp}
    assert not [f for f in wrong if int(f.subject.split()[1]) in declared]
