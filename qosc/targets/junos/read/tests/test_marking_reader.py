"""JUNOS reader, the 3-bit families: EXP and 802.1p classifiers, rewrite rules and aliases of every family, the
EXP a PE imposes; issue 22's reproducers exp.set and alias6.set."""

from __future__ import annotations

from pathlib import Path

import pytest

from qosc.behaviour.model import Device
from qosc.behaviour.readback import read
from qosc.targets.junos import read as junos
from qosc.targets.junos.read.config import collect
from qosc.targets.registry import platform

DATA = Path(__file__).resolve().parent / "data"


def device(text: str, source: str = "r.set", name: str = "junos-mx") -> tuple[Device, list[str]]:
    found = read(text, source, name)
    assert found.behaviour is not None, found.diagnostics
    return found.behaviour, [f"{d.code} {d.message}" for d in found.diagnostics]


EXP_SET = """\
set class-of-service classifiers exp EXP forwarding-class best-effort loss-priority low code-points 111
set class-of-service interfaces xe-0/0/0 unit 0 classifiers exp EXP
"""
ALIAS6_SET = """\
set class-of-service code-point-aliases dscp-ipv6 ALIAS2 000000
set class-of-service classifiers dscp-ipv6 C6 forwarding-class best-effort loss-priority low code-points ALIAS2
"""


def test_issue22_exp_set_is_read_as_exp_not_dscp() -> None:
    """Issue 22's exp.set: `code-points 111` of an EXP classifier is EXP 7 (it was DscpError: DSCP 111)."""
    dev, diags = device(EXP_SET, "exp.set")
    (unit,) = dev.interfaces
    assert unit.classify_exp[7] == ("best-effort", 1)
    assert unit.classify_exp[:7] == (None,) * 7
    assert unit.classify == ((None,) * 64, (None,) * 64)
    assert not [d for d in diags if d.startswith("QOS172")]


def test_a_3_bit_value_that_is_also_a_dscp_is_not_taken_as_dscp() -> None:
    dev, _ = device(EXP_SET.replace("code-points 111", "code-points 010"))
    (unit,) = dev.interfaces
    assert unit.classify_exp[2] == ("best-effort", 1)
    assert unit.classify[0][2] is None


def test_issue22_alias6_set_reads_the_dscp_ipv6_alias() -> None:
    """Issue 22's alias6.set: a dscp-ipv6 code-point alias used in a dscp-ipv6 classifier (it was `unknown DSCP
    'ALIAS2'`)."""
    document = junos.parse(ALIAS6_SET, "alias6.set", None)
    config = collect(document)
    assert config.classifiers[("dscp-ipv6", "C6")] == {0: ("best-effort", "low")}
    assert config.diagnostics == []
    dev, diags = device(ALIAS6_SET + "set class-of-service interfaces ge-0/0/0 unit 0 classifiers dscp-ipv6 C6\n")
    assert dev.interfaces[0].classify[1][0] == "best-effort" and diags == []


def test_an_unknown_3_bit_alias_is_named_at_its_line() -> None:
    dev, diags = device(EXP_SET.replace("code-points 111", "code-points NOPE"))
    assert any(d.startswith("QOS172") and "unknown exp code point NOPE" in d for d in diags), diags
    assert dev.interfaces[0].classify_exp == (None,) * 8


def test_standard_3_bit_aliases_and_aliases_of_each_family() -> None:
    text = """\
set class-of-service code-point-aliases exp gold 101
set class-of-service code-point-aliases ieee-802.1 silver 011
set class-of-service code-point-aliases ieee-802.1ad dei2 0101
set class-of-service classifiers exp E forwarding-class af loss-priority low code-points [ gold af11 ]
set class-of-service classifiers exp E forwarding-class be loss-priority high code-points be1
set class-of-service classifiers ieee-802.1 P forwarding-class af loss-priority low code-points silver
set class-of-service classifiers ieee-802.1ad D forwarding-class af loss-priority high code-points dei2
set class-of-service classifiers ieee-802.1ad D forwarding-class af loss-priority low code-points ef
set class-of-service interfaces ge-0/0/0 unit 0 classifiers exp E
set class-of-service interfaces ge-0/0/0 unit 0 classifiers ieee-802.1 P
set class-of-service interfaces ge-0/0/1 unit 0 classifiers ieee-802.1ad D
"""
    dev, diags = device(text)
    a, b = dev.interfaces
    assert a.classify_exp[5] == ("af", 1) and a.classify_exp[4] == ("af", 1) and a.classify_exp[1] == ("be", 3)
    assert a.classify_pcp[3] == ("af", 1)
    # 802.1ad: PCP 2 with the DEI clear (ef = 0100) is low; the DEI-set code (0101) is not a separate PCP value
    assert b.classify_pcp[2] == ("af", 1)
    assert not [d for d in diags if d.startswith("QOS172")], diags


PE = """\
class-of-service {
    classifiers {
        exp core-exp {
            forwarding-class be { loss-priority low code-points [ 000 001 ]; }
            forwarding-class voice { loss-priority low code-points 101; }
        }
        ieee-802.1 cust-pcp {
            import default;
            forwarding-class voice { loss-priority low code-points 101; }
        }
    }
    forwarding-classes { queue 0 be; queue 1 voice; }
    rewrite-rules {
        exp core-exp {
            forwarding-class be { loss-priority low code-point 000; loss-priority high code-point 001; }
            forwarding-class voice { loss-priority low code-point 101; }
        }
    }
    schedulers { be { transmit-rate percent 80; } voice { transmit-rate percent 20; priority high; } }
    scheduler-maps { m { forwarding-class be scheduler be; forwarding-class voice scheduler voice; } }
    interfaces {
        ge-0/0/0 { scheduler-map m; unit 10 { classifiers { ieee-802.1 cust-pcp; } } }
        xe-0/0/0 { scheduler-map m; unit 0 { classifiers { exp core-exp; } rewrite-rules { exp core-exp PROTOCOL; } } }
    }
}
"""


@pytest.mark.parametrize("protocol", ["", "protocol mpls-any", "protocol mpls-inet-both"])
def test_a_pe_imposes_with_its_uplinks_exp_rewrite(protocol: str) -> None:
    dev, diags = device(PE.replace("PROTOCOL", protocol), "pe.conf")
    cust = dev.interface("ge-0/0/0", 10)
    core = dev.interface("xe-0/0/0", 0)
    assert cust is not None and core is not None
    assert cust.role == "edge" and core.role == "core"
    assert cust.marked("impose") == {("be", 1): 0, ("be", 3): 1, ("voice", 1): 5}
    assert not core.marked("impose") and core.marked("exp")[("voice", 1)] == 5
    assert core.classify_exp[:2] == (("be", 1), ("be", 1)) and core.classify_exp[5] == ("voice", 1)
    # import default: the default 802.1p table (be 000 and 001, expedited-forwarding 010...) under the listed 101
    assert cust.classify_pcp[5] == ("voice", 1) and cust.classify_pcp[1] == ("be", 3)
    warned = [d for d in diags if "IPv4 precedence" in d]
    assert bool(warned) == ("inet-both" in protocol)


def test_an_undefined_3_bit_table_is_qos174() -> None:
    _, diags = device(EXP_SET.replace("classifiers exp EXP forwarding", "classifiers exp OTHER forwarding"))
    assert any(d.startswith("QOS174") and "exp classifier EXP" in d for d in diags), diags


def test_batfish_class_of_service_comprehensive_reads_every_family() -> None:
    """batfish's test configuration of every classifier family (public, Apache-2.0; in the corpus): its EXP and
    802.1p tables are read as such, its aliases of each family resolve (inet-precedence's too, read as the IPv4
    precedence: issue 22; the unit's DSCP classifier takes IPv4 here)."""
    path = DATA / "batfish-class-of-service-comprehensive.set"
    dev, diags = device(path.read_text(), str(path))
    ae1 = dev.interface("ae1", 0)
    assert ae1 is not None
    assert ae1.classify_pcp[2] == ("FC-CLASS2", 1)  # ALIAS-8021P 010
    assert ae1.marked("exp") == {("FC-CLASS1", 3): 1, ("FC-CLASS2", 1): 0, ("FC-CLASS3", 1): 1}
    assert ae1.marked("pcp")[("FC-CLASS1", 3)] == 2 and ae1.marked("pcp")[("FC-CLASS3", 3)] == 0
    config = collect(junos.parse(path.read_text(), str(path), None))
    # ALIAS-IPPREC 010 (its own family's alias), af11 the standard inet-precedence alias of 001
    assert config.classifiers[("inet-precedence", "IPPREC-BA")] == {
        0: ("FC-CLASS1", "high"), 2: ("FC-CLASS2", "low"), 1: ("FC-CLASS3", "high")}
    assert ae1.classify[0][8] == "FC-CLASS2" and not any("IPPREC" in d for d in diags), diags
    assert not any("DSCP" in d and ("ALIAS3" in d or "ALIAS-8021P" in d) for d in diags)


def test_the_curly_set_and_xml_forms_read_the_same_marking(tmp_path: Path) -> None:
    pytest.importorskip("lxml")
    from lxml import etree

    from qosc.targets.junos.push.xml import to_xml
    text = PE.replace("PROTOCOL", "protocol mpls-any")
    xml = etree.tostring(to_xml(text, replace_owned=False), encoding="unicode")
    curly, _ = device(text, "pe.conf")
    from_xml, _ = device(xml, "pe.xml")
    assert [(i.name, i.classify_exp, i.classify_pcp, i.marks) for i in curly.interfaces] == \
        [(i.name, i.classify_exp, i.classify_pcp, i.marks) for i in from_xml.interfaces]


def test_m_series_reads_high_as_both_drop_precedences_it_carries() -> None:
    text = """\
set class-of-service classifiers exp E forwarding-class af loss-priority high code-points 011
set class-of-service rewrite-rules exp E forwarding-class af loss-priority high code-point 011
set class-of-service interfaces so-0/0/0 unit 0 classifiers dscp default
set class-of-service interfaces so-0/0/0 unit 0 classifiers exp E
set class-of-service interfaces so-0/0/0 unit 0 rewrite-rules dscp default
set class-of-service interfaces so-0/0/0 unit 0 rewrite-rules exp E
"""
    m, _ = device(text, name="junos-m-series")
    assert m.interfaces[0].classify_exp[3] == ("af", 2)
    assert m.interfaces[0].marked("exp") == {("af", 2): 3, ("af", 3): 3}
    mx, _ = device(text)
    assert mx.interfaces[0].classify_exp[3] == ("af", 3)
    assert platform("junos-m-series") is not None


# p-m (M-series) keeps every EXP on its transparent interfaces: Premium's 5 (not scheduled there) and network
# control's 7 go to the high loss priority of their class (M-series rewrites EXP by class and loss priority)
BACKBONE_KNOWN = {"p-m": {(i, f"EXP {v}", "drop precedence", "1", "2") for i in ("so-1/2/0", "so-1/2/1")
                          for v in (5, 7)}}


@pytest.mark.parametrize("name", ["pe-mx", "p-mx", "p-m"])
@pytest.mark.parametrize("suffix", [".conf", ".set"])
def test_the_backbones_junos_configurations_read_back_as_the_policy(name: str, suffix: str) -> None:
    """Every EXP and PCP value, rewrite and imposition of the reference backbone's JUNOS devices, read back,
    is what the policy asks (qosc.behaviour.intent), except what M-series cannot do."""
    from qosc.behaviour.roundtrip import drift, load, outputs
    policy = load("examples/mpls-backbone.yaml")
    text = next(o.text for o in outputs(policy, name) if o.path.endswith(suffix))
    found = read(text, name + suffix, policy.device_map[name].platform, name)
    assert found.behaviour is not None and found.diagnostics == []
    got = {(f.interface, f.subject, f.what, f.expected, f.found) for f in drift(policy, name, found.behaviour)}
    assert got == BACKBONE_KNOWN.get(name, set())
    assert any(any(i.classify_exp) for i in found.behaviour.interfaces)
