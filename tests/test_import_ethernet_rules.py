"""Classification on the Ethernet header of units that carry Ethernet frames only: the fronthaul units of Juniper's
Low Latency Queueing JVD ACX nodes (Juniper/jvd, tests/corpus/junos/jvd-llq-an1-acx7100-48l.conf and an3, an4,
ag1-1, ag1-2; issue 22).  About a hundred `encapsulation vlan-ccc` units per port carry Ethernet frames into an
EVPN-VPWS pseudowire and bind a `family ccc` input filter whose terms set the forwarding class by the frame's
802.1p priority (`learn-vlan-1p-priority`) or its source or destination MAC address (Junos OS Routing Policies,
Firewall Filters and Traffic Policers User Guide, "Firewall Filter Match Conditions for Layer 2 CCC Traffic").  No
IP is routed there: DSCP is neither read nor written.  Before, the reader named the terms as not lifted (QOS172),
import lifted the units as IP interfaces, and equiv of the round trip found their DSCP behaviour changed."""

from __future__ import annotations

from pathlib import Path

import pytest

from qosc.cli import main
from tests.test_import_corpus_causes import named, round_trip

# cut down from jvd-llq-an1-acx7100-48l.conf: a port with an IP unit (DSCP classifier and rewrite rule) and one
# vlan-ccc unit with the fronthaul filter (four of its six terms), the port's scheduler map
AN1 = """\
interfaces {
    et-0/0/2 {
        description To-RT2-L2-MBH-L2CKT-TO-SAG-200;
        flexible-vlan-tagging;
        encapsulation flexible-ethernet-services;
        unit 1 {
            vlan-id 1;
            family inet {
                address 10.14.7.205/30;
            }
        }
        unit 1101 {
            description FRONTHAUL-EVPN-VPWS-MH-1;
            encapsulation vlan-ccc;
            vlan-id 1101;
            family ccc {
                filter {
                    input FF-MF-EVPN-VPWS-MH;
                }
            }
        }
    }
}
class-of-service {
    classifiers {
        dscp CL-DSCP {
            forwarding-class FC-BEST-EFFORT {
                loss-priority low code-points be;
            }
            forwarding-class FC-HIGH {
                loss-priority low code-points cs3;
            }
            forwarding-class FC-LLQ {
                loss-priority low code-points cs4;
            }
            forwarding-class FC-REALTIME {
                loss-priority low code-points ef;
            }
        }
    }
    forwarding-classes {
        class FC-BEST-EFFORT queue-num 0;
        class FC-HIGH queue-num 4;
        class FC-LLQ queue-num 6;
        class FC-REALTIME queue-num 5;
    }
    interfaces {
        et-0/0/2 {
            scheduler-map SM-5G-SCHEDULER;
            unit 1 {
                classifiers {
                    dscp CL-DSCP;
                }
                rewrite-rules {
                    dscp RR-DSCP;
                }
            }
        }
    }
    rewrite-rules {
        dscp RR-DSCP {
            forwarding-class FC-BEST-EFFORT {
                loss-priority low code-point be;
            }
            forwarding-class FC-HIGH {
                loss-priority low code-point cs3;
            }
            forwarding-class FC-LLQ {
                loss-priority low code-point cs4;
            }
            forwarding-class FC-REALTIME {
                loss-priority low code-point ef;
            }
        }
    }
    scheduler-maps {
        SM-5G-SCHEDULER {
            forwarding-class FC-BEST-EFFORT scheduler SC-BEST-EFFORT;
            forwarding-class FC-HIGH scheduler SC-HIGH;
            forwarding-class FC-LLQ scheduler SC-LLQ;
            forwarding-class FC-REALTIME scheduler SC-REALTIME;
        }
    }
    schedulers {
        SC-BEST-EFFORT {
            transmit-rate {
                remainder;
            }
            priority low;
        }
        SC-HIGH {
            transmit-rate percent 20;
            priority low;
        }
        SC-LLQ {
            transmit-rate percent 20;
            buffer-size percent 10;
            priority low;
        }
        SC-REALTIME {
            shaping-rate percent 30;
            buffer-size percent 20;
            priority medium-high;
        }
    }
}
firewall {
    family ccc {
        filter FF-MF-EVPN-VPWS-MH {
            interface-specific;
            term 1 {
                from {
                    learn-vlan-1p-priority 3;
                }
                then forwarding-class FC-HIGH;
            }
            term 2 {
                from {
                    learn-vlan-1p-priority 7;
                }
                then forwarding-class FC-BEST-EFFORT;
            }
            term 3 {
                from {
                    source-mac-address {
                        00:0c:0d:00:00:01/48;
                        00:0c:0d:00:00:02/48;
                    }
                }
                then forwarding-class FC-LLQ;
            }
            term 6 {
                from {
                    destination-mac-address {
                        00:0c:22:00:00:01/48;
                        00:0c:22:00:00:02/48;
                    }
                }
                then forwarding-class FC-REALTIME;
            }
        }
    }
}
"""

ACCEPTING = AN1.replace("""                then forwarding-class FC-REALTIME;
            }
""", """                then forwarding-class FC-REALTIME;
            }
            term rest {
                then accept;
            }
""")
"""AN1 whose filter accepts what no term matches (an1's discards it: Junos's implicit discard)."""


def test_a_ccc_unit_with_an_ethernet_filter_lifts_and_round_trips(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """et-0/0/2 unit 1101 is lifted as an interface of Ethernet frames (`encapsulation: vlan`) whose classifier holds
    the filter's terms as rules on the Ethernet header (into the services of their forwarding classes, no mark), no
    term is named as not lifted, and equiv finds the round trip clean.  (Here the filter accepts what no term
    matches; an1's own discards it: tests/test_import_discard.py.)"""
    policy, diagnostics, status, out = round_trip(tmp_path, capsys, "junos-mx", "an1.conf", ACCEPTING)
    assert policy is not None, diagnostics
    assert not named(diagnostics), named(diagnostics)
    unit = policy["devices"]["an1"]["interfaces"]["et-0/0/2.1101"]
    assert unit["encapsulation"] == "vlan" and unit["role"] == "edge", unit
    rules = policy["classifiers"][unit["classifier"]]["rules"]
    assert rules == [
        {"name": "rule-1", "match": {"pcp": [3]}, "service": "FC-HIGH"},
        {"name": "rule-2", "match": {"pcp": [7]}, "service": "FC-BEST-EFFORT"},
        {"name": "rule-3", "match": {"source-mac": ["00:0c:0d:00:00:01", "00:0c:0d:00:00:02"]}, "service": "FC-LLQ"},
        {"name": "rule-6", "match": {"destination-mac": ["00:0c:22:00:00:01", "00:0c:22:00:00:02"]},
         "service": "FC-REALTIME"}], rules
    assert status == 0, out


@pytest.mark.parametrize(("old", "new", "said"), [
    ("00:0c:0d:00:00:02/48;", "00:0c:0d:00:00:03/48;", "match source-mac"),
    ("00:0c:22:00:00:01/48;", "00:0c:22:00:00:09/48;", "match destination-mac"),
    ("learn-vlan-1p-priority 3;", "learn-vlan-1p-priority 2;", "match pcp"),
])
def test_equiv_sees_a_changed_mac_or_priority(tmp_path: Path, capsys: pytest.CaptureFixture[str], old: str, new: str,
                                              said: str) -> None:
    """Two filters that differ in one MAC address or one 802.1p value are a difference, named by the key."""
    original, other = tmp_path / "a.conf", tmp_path / "b.conf"
    original.write_text(AN1, encoding="utf-8")
    assert old in AN1
    other.write_text(AN1.replace(old, new, 1), encoding="utf-8")
    assert main(["equiv", f"junos-mx:{original}", f"junos-mx:{other}"]) == 1
    captured = capsys.readouterr()
    assert said in captured.out + captured.err, captured.out + captured.err
    assert main(["equiv", f"junos-mx:{original}", f"junos-mx:{original}"]) == 0


def _bind_on_ccc_unit(rewrite: str) -> str:
    """AN1 with the DSCP classifier and rewrite rule `rewrite` bound to the ccc unit too (RR-DSCP2 writes cs5 for
    FC-HIGH)."""
    bound = """            unit 1 {
                classifiers {"""
    return AN1.replace(bound, f"""            unit 1101 {{
                classifiers {{
                    dscp CL-DSCP;
                }}
                rewrite-rules {{
                    dscp {rewrite};
                }}
            }}
""" + bound).replace("""    scheduler-maps {""", """    rewrite-rules {
        dscp RR-DSCP2 {
            forwarding-class FC-BEST-EFFORT {
                loss-priority low code-point be;
            }
            forwarding-class FC-HIGH {
                loss-priority low code-point cs5;
            }
            forwarding-class FC-LLQ {
                loss-priority low code-point cs4;
            }
            forwarding-class FC-REALTIME {
                loss-priority low code-point ef;
            }
        }
    }
    scheduler-maps {""")


def test_equiv_compares_no_dscp_on_a_unit_of_frames(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A different DSCP rewrite rule bound to the ccc unit is no difference (no IP leaves it: before, "DSCP 24 (cs3):
    leaves marked DSCP 24 (cs3) expected, DSCP 40 (cs5) found"), while the same change on the IP unit is one."""
    first, second, ip = tmp_path / "a.conf", tmp_path / "b.conf", tmp_path / "c.conf"
    first.write_text(_bind_on_ccc_unit("RR-DSCP"), encoding="utf-8")
    second.write_text(_bind_on_ccc_unit("RR-DSCP2"), encoding="utf-8")
    assert "RR-DSCP2;" in second.read_text(encoding="utf-8")
    assert main(["equiv", f"junos-mx:{first}", f"junos-mx:{second}"]) == 0, capsys.readouterr()
    capsys.readouterr()
    ip.write_text(AN1.replace("loss-priority low code-point cs3;", "loss-priority low code-point cs5;"),
                  encoding="utf-8")
    first.with_name("d.conf").write_text(AN1, encoding="utf-8")
    assert main(["equiv", f"junos-mx:{first.with_name('d.conf')}", f"junos-mx:{ip}"]) == 1
    captured = capsys.readouterr()
    assert "leaves marked" in captured.out + captured.err, captured


def test_a_class_written_with_another_of_its_code_points_lifts_that_one_first(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The IP units of an1 classify cs3 and af31 into FC-HIGH at loss priority low, and its rewrite rule writes af31
    for both: the service lists af31 first (a policy marks a service's first code point of each drop precedence),
    so the compiled rewrite writes af31 too (before: cs3 first, "DSCP 26 (af31): leaves marked DSCP 26 (af31)
    expected, DSCP 24 (cs3) found" on each of an1's hundred L3VPN units)."""
    text = ACCEPTING.replace("loss-priority low code-points cs3;",
                             "loss-priority low code-points [ cs3 af31 ];").replace(
        "loss-priority low code-point cs3;", "loss-priority low code-point af31;")
    assert "[ cs3 af31 ]" in text and "code-point af31;" in text
    policy, diagnostics, status, out = round_trip(tmp_path, capsys, "junos-mx", "an1.conf", text)
    assert policy is not None, diagnostics
    assert policy["services"]["FC-HIGH"]["dscp"] == ["af31", "cs3"], policy["services"]["FC-HIGH"]
    assert status == 0, out
