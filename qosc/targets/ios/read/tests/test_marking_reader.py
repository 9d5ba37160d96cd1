"""Issue 21, read back on Cisco: EXP and 802.1p CoS classification, rewrite and imposition of IOS MQC (IOS XE,
12.0S) and Catalyst 6500 configurations as the behaviour verify, equiv and import compare.

The reference backbone's Cisco devices read back as the policy asks in every domain, except exactly what the
lowering says it cannot render (QOS193/QOS194: 12.0S carries no drop precedence and keeps EXP; one `set cos` a
class); hand-written configurations as IOS XE shows them (the police block) read the same; one moved EXP match or
one changed imposition value is found, by verify and by equiv, naming the interface, the value and the class.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from qosc import api
from qosc.behaviour import intent, readback
from qosc.behaviour.compare import Finding, compare
from qosc.behaviour.model import Device
from qosc.behaviour.roundtrip import outputs
from qosc.behaviour.tests.test_cli import qosc
from qosc.model import Policy
from qosc.targets.ios.tests.support import CISCO_BACKBONE, cisco_backbone

MARKING = ("EXP", "PCP")
"""Findings in the 3-bit domains name EXP or PCP (a value, a rewrite, the imposition)."""
WARNED = {
    ("p-gsr", "POS0/0", "EXP 3: drop precedence 2 expected, 1 found"),  # QOS193: no discard-class in 12.0S
    ("p-gsr", "POS0/0", "EXP rewrite: is present expected, absent found"),  # QOS194: 12.0S keeps EXP
    ("p-gsr", "POS1/0", "EXP 3: drop precedence 2 expected, 1 found"),
    ("p-gsr", "POS1/0", "EXP rewrite: is present expected, absent found"),
    ("pe-asr", "GigabitEthernet0/0/1", "assured (drop precedence 2): PCP rewrite to 3 expected, 2 found"),  # QOS194
    ("pe-asr", "GigabitEthernet0/0/1", "assured (drop precedence 3): PCP rewrite to 3 expected, 2 found"),
}


@pytest.fixture(scope="module")
def backbone(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Policy, dict[str, str]]:
    path = cisco_backbone(tmp_path_factory.mktemp("bb"))
    policy = api.validate(path).policy
    assert policy is not None
    return path, policy, {name: outputs(policy, name)[0].text for name in CISCO_BACKBONE}


def read(policy: Policy, device: str, text: str) -> Device:
    got = readback.read(text, f"{device}.cfg", policy.device_map[device].platform, device)
    assert got.behaviour is not None, got.diagnostics
    assert not [d for d in got.diagnostics if d.is_error]
    return got.behaviour


def marking(findings: list[Finding]) -> set[tuple[str, str, str]]:
    return {(f.device, f.interface, f.message.split(": ", 1)[1]) for f in findings
            if any(word in f.subject or word in f.what for word in MARKING)}


def test_the_backbone_reads_back_in_every_domain_as_the_policy_asks(
        backbone: tuple[Path, Policy, dict[str, str]]) -> None:
    _, policy, texts = backbone
    found: set[tuple[str, str, str]] = set()
    behaviours = {}
    for name in CISCO_BACKBONE:
        behaviours[name] = read(policy, name, texts[name])
        found |= marking(compare(intent.device(policy, policy.device_map[name]), behaviours[name]))
    assert found == WARNED
    pe = behaviours["pe-asr"]
    ip, dot1p, uplink = (pe.interface(n, u) for n, u in (("GigabitEthernet0/0/0", 0),
                                                          ("GigabitEthernet0/0/1", 200),
                                                          ("TenGigabitEthernet0/1/0", 0)))
    assert ip is not None and dot1p is not None and uplink is not None
    assert ip.marked("impose") == {("ip-premium", 1): 5, ("assured", 1): 2, ("assured", 2): 3, ("assured", 3): 3,
                                   ("lbe", 1): 1, ("class-default", 1): 0}
    assert ip.classify_exp == (None,) * 8 and ip.classify_pcp == (None,) * 8
    assert uplink.classify_exp == (("class-default", 1), ("lbe-exp", 1), ("assured-exp", 1), ("assured-exp", 2),
                                   ("class-default", 1), ("ip-premium-exp", 1), ("network-control-exp", 1),
                                   ("network-control-exp", 1))
    assert uplink.marked("exp")[("network-control-exp", 1)] == 6 and uplink.marked("exp")[("assured-exp", 2)] == 3
    assert dot1p.classify_pcp[3] == ("assured-pcp", 2) and dot1p.classify_pcp[4] == ("class-default", 1)
    assert dot1p.marked("impose")[("assured-pcp", 2)] == 3 and dot1p.marked("pcp")[("ip-premium-pcp", 1)] == 5
    assert dot1p.role == "edge" and uplink.role == "core"  # the uplink's input policy only gives precedences
    trunk = behaviours["sw-cat"].interface("TenGigabitEthernet4/1")
    assert trunk is not None
    assert [slot[1] if slot else None for slot in trunk.classify_pcp] == [1, 1, 1, 2, 1, 1, 1, 1]
    assert trunk.marked("pcp")[(trunk.classify_pcp[7][0] if trunk.classify_pcp[7] else "", 1)] == 6


XE = """\
class-map match-any VOICE
 match mpls experimental topmost 5
 match dscp ef
class-map match-any BULK
 match dscp af11 af12
 match mpls experimental topmost 1 2
 match cos 1 2
class-map match-any CUST-DATA
 match access-group name CUST-DATA
ip access-list extended CUST-DATA
 permit tcp any 198.18.1.0 0.0.0.255
class-map match-any EXP2-OUT
 match mpls experimental topmost 2
policy-map CORE-IN
 class EXP2-OUT
  set discard-class 3
policy-map CORE-OUT
 class VOICE
  priority percent 10
 class BULK
  bandwidth percent 30
  set mpls experimental topmost 1
  set cos 1
 class class-default
  bandwidth percent 20
policy-map EDGE-IN
 class CUST-DATA
  police cir 10000000 bc 312500 pir 20000000 be 625000
   conform-action set-dscp-transmit af11
   conform-action set-mpls-exp-imposition-transmit 1
   exceed-action set-dscp-transmit af12
   exceed-action set-mpls-exp-imposition-transmit 2
   violate-action drop
 class class-default
  set dscp default
  set mpls experimental imposition 0
policy-map EDGE-OUT
 class BULK
  bandwidth percent 30
 class class-default
  bandwidth percent 20
interface TenGigabitEthernet0/0/0
 service-policy input CORE-IN
 service-policy output CORE-OUT
interface GigabitEthernet0/1/0
 service-policy input EDGE-IN
 service-policy output EDGE-OUT
"""


def test_hand_written_ios_xe_marking_reads_as_ios_xe_shows_it() -> None:
    """The police block (one action a line, two for a colour), `match mpls experimental topmost`, `match cos`,
    `set discard-class` in an input class, `set mpls experimental topmost` and `set cos` in output classes."""
    got = readback.read(XE, "xe.cfg", "ios-xe", "xe")
    assert got.behaviour is not None and not [d for d in got.diagnostics if d.is_error]
    core = got.behaviour.interface("TenGigabitEthernet0/0/0")
    edge = got.behaviour.interface("GigabitEthernet0/1/0")
    assert core is not None and edge is not None
    assert core.classify_exp[:3] == (("class-default", 1), ("BULK", 1), ("BULK", 3))
    assert core.classify_exp[5] == ("VOICE", 1)
    assert core.classify_pcp[1] == ("BULK", 1) and core.classify_pcp[5] == ("class-default", 1)
    # BULK writes 1; VOICE keeps its one value; class-default keeps several (0, 3, 4, 6, 7): none is its mark
    assert core.marked("exp") == {("BULK", 1): 1, ("BULK", 2): 1, ("BULK", 3): 1, ("VOICE", 1): 5}
    assert core.marked("pcp") == {("BULK", p): 1 for p in (1, 2, 3)}
    assert core.role == "core" and edge.role == "edge"
    (rule,) = edge.rules
    assert rule.policer is not None and rule.mark == 10  # af11: the colour's DSCP action, not its EXP one
    assert (rule.policer.conform, rule.policer.exceed, rule.policer.violate) == ("transmit", "dscp 12", "drop")
    assert edge.marked("impose") == {("BULK", 1): 1, ("BULK", 2): 2, ("class-default", 1): 0}
    assert edge.unmatched_mark == 0


GSR = """\
class-map match-any PREMIUM
 match ip precedence 5
 match mpls experimental 5
policy-map EDGE-IN
 class class-default
  set ip dscp ef
  set mpls experimental 5
policy-map OUT
 class PREMIUM
  bandwidth percent 20
interface POS0/0
 service-policy output OUT
interface POS1/0
 service-policy input EDGE-IN
 service-policy output OUT
"""


def test_12_0s_forms_read_back() -> None:
    got = readback.read(GSR, "gsr.cfg", "ios-gsr", "gsr")
    assert got.behaviour is not None and not [d for d in got.diagnostics if d.is_error]
    core, edge = got.behaviour.interface("POS0/0"), got.behaviour.interface("POS1/0")
    assert core is not None and edge is not None
    assert core.classify_exp[5] == ("PREMIUM", 1) and core.classify_exp[4] == ("class-default", 1)
    assert not core.marked("exp")  # IOS keeps EXP unless a class sets it
    assert edge.marked("impose") == {("PREMIUM", 1): 5}


# (device, interface, old, new, what compare says)
MUTATIONS = [
    ("pe-asr", "TenGigabitEthernet0/1/0",
     ("class-map match-any ip-premium-exp\n match dscp ef\n match mpls experimental topmost 5\n"
      "!\nclass-map match-any assured-exp\n match dscp af21 af22 af23\n match mpls experimental topmost 2 3\n"
      "!\nclass-map match-any lbe-exp\n match dscp cs1\n match mpls experimental topmost 1\n"),
     ("class-map match-any ip-premium-exp\n match dscp ef\n"
      "!\nclass-map match-any assured-exp\n match dscp af21 af22 af23\n match mpls experimental topmost 2 3\n"
      "!\nclass-map match-any lbe-exp\n match dscp cs1\n match mpls experimental topmost 1 5\n"),
     "EXP 5: classified to ip-premium expected, lbe found"),
    ("pe-asr", "GigabitEthernet0/0/0", ("  ! rule premium-video\n  set mpls experimental imposition 5\n"),
     ("  ! rule premium-video\n  set mpls experimental imposition 4\n"),
     "ip-premium (drop precedence 1): EXP imposition to 5 expected, 4 found"),
    ("pe-asr", "GigabitEthernet0/0/0", "   exceed-action set-mpls-exp-imposition-transmit 3\n",
     "   exceed-action set-mpls-exp-imposition-transmit 2\n",
     "assured (drop precedence 2): EXP imposition to 3 expected, 2 found"),
    ("sw-cat", "TenGigabitEthernet4/1", "mls qos map cos-dscp 0 8 18 20 0 46 48 48",
     "mls qos map cos-dscp 0 8 18 20 0 0 48 48", "PCP 5: classified to ip-premium expected, "),
]


@pytest.mark.parametrize(("device", "interface", "old", "new", "says"), MUTATIONS,
                         ids=["exp-match-moved", "imposed-exp", "imposed-exp-exceed", "pcp-map"])
def test_a_moved_exp_match_or_a_changed_imposition_is_found(backbone: tuple[Path, Policy, dict[str, str]],
                                                           tmp_path: Path, device: str, interface: str, old: str,
                                                           new: str, says: str) -> None:
    path, policy, texts = backbone
    text = texts[device]
    assert text.count(old) == 1, old
    changed = text.replace(old, new)
    want = intent.device(policy, policy.device_map[device])
    before = {f.message for f in compare(want, read(policy, device, text))}
    after = {f.message for f in compare(want, read(policy, device, changed))}
    new_findings = after - before
    assert any(f"{device}:{interface}: {says}" in m for m in new_findings), new_findings
    first = readback.read(text, f"{device}.cfg", policy.device_map[device].platform, device)
    second = readback.read(changed, f"changed-{device}.cfg", policy.device_map[device].platform, device)
    found, _ = readback.equiv(first, second)
    assert any(f.interface == interface and ("EXP" in f.message or "PCP" in f.message) for f in found), found
    assert readback.equiv(first, first)[0] == []
    # and through the command line: verify names the device, interface and value at the changed file
    config = tmp_path / f"{device}.cfg"
    config.write_text(changed)
    verify = qosc("verify", str(path), "--config", f"{device}={config}")
    out = verify.stdout + verify.stderr
    assert verify.returncode == 1 and any("[QOS176]" in ln and f"{device}:{interface}: " in ln and says in ln
                                          for ln in out.splitlines()), out


def _lift_has_marking() -> bool:
    """Whether `qosc import` lifts EXP and PCP values into services (qosc.behaviour.lift: the generic lifting of
    the marking domains, issue 21, developed beside this on the JUNOS branch)."""
    from qosc.behaviour.lift import lift
    from qosc.behaviour.model import Class, Interface
    iface = Interface("x", classes=(Class("ef", share=10.0), Class("class-default", share=50.0)),
                      classify=(tuple("ef" if c == 46 else "class-default" for c in range(64)),) * 2,
                      classify_exp=tuple(("ef" if v == 5 else "class-default", 1) for v in range(8)))
    services = lift([Device("d", interfaces=(iface,))], "probe").policy.get("services", {})
    return any("exp" in body for body in services.values())


@pytest.mark.xfail(not _lift_has_marking(), strict=True,
                   reason="qosc import does not lift EXP/PCP yet (the marking lift of qosc.behaviour.lift)")
@pytest.mark.parametrize("device", CISCO_BACKBONE)
def test_import_of_the_compiled_backbone_compiles_to_the_same_behaviour_per_domain(
        backbone: tuple[Path, Policy, dict[str, str]], device: str, tmp_path: Path) -> None:
    """import(compile(P)) compiles to what compile(P) does, in every domain, value by value."""
    from qosc.behaviour.roundtrip import round_trip
    _, policy, _ = backbone
    rt = round_trip(policy, device, ".cfg", tmp_path)
    if device == "p-gsr":  # as assured-rate's gsr-2 (test_round_trip KNOWN): 12.0S shows no POS speed (QOS041)
        assert rt.stage == "validate" and {d.code for d in rt.diagnostics if d.is_error} == {"QOS041"}
        assert rt.lifted is not None
        lifted = {name: body.get("exp") for name, body in rt.lifted.policy["services"].items()}
        assert sorted(map(str, lifted.values()))[1:] == ["[1]", "[2, 3]", "[5]", "[6, 7]"], lifted  # and BE's
        return
    assert rt.stage == "equiv", [d.message for d in rt.diagnostics + rt.first.diagnostics]
    assert [f.message for f in rt.findings] == [] and rt.problems == []
    assert rt.second is not None and rt.second.behaviour is not None and rt.first.behaviour is not None
    first, second = (sorted((i.name, i.unit, i.classify_exp, i.classify_pcp, i.marks) for i in b.interfaces)
                     for b in (rt.first.behaviour, rt.second.behaviour))
    assert first == second
    assert any(any(i[2]) or any(i[3]) for i in first) and any(i[4] for i in first)
