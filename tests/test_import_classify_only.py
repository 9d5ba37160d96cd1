"""Edge rules that classify without marking: the WAN edge of Juniper's Enterprise WAN JVD (Juniper/jvd,
enterprise_wan/finance, wanedge1 mx304; tests/corpus/junos/jvd-ewan-fin-wanedge1-mx304.conf, issue 22).  Its IRB
units bind input filters whose first term sets `forwarding-class FC-LLQ` (or FC-HIGH, CONTROL, BEST-EFFORT) and
loss priority for some destinations and marks no code point (the units have no DSCP rewrite rule): the packets
keep their DSCP, the class picks their queue and the EXP the core units write.  The device classifies elsewhere only
by EXP, so FC-LLQ and FC-HIGH carry no DSCP at all, and a qosc classifier rule into such a service marks nothing
either.  Before, the behaviour read back said only what a rule marks, not the class it puts packets in: import left
the rules out (QOS172 "marks nothing, which no imported service carries"), the IRB units were not lifted and equiv
found them without a partner (QOS171); and equiv took two rules into different classes that mark nothing for
equal."""

from __future__ import annotations

from pathlib import Path

import pytest

from qosc.cli import main
from tests.test_import_corpus_causes import named, round_trip

# cut down from jvd-ewan-fin-wanedge1-mx304.conf: the EXP classifier, forwarding classes, a core unit that
# classifies and rewrites EXP under the scheduler map, and one IRB unit with mfc-filter
WANEDGE = """\
interfaces {
    et-0/0/1 {
        unit 0 {
            family inet {
                address 10.101.25.1/24;
            }
            family mpls;
        }
    }
    irb {
        unit 1 {
            family inet {
                filter {
                    input mfc-filter;
                }
                address 172.16.1.1/24;
            }
        }
    }
}
class-of-service {
    classifiers {
        exp EXP {
            forwarding-class FC-HIGH {
                loss-priority low code-points 001;
            }
            forwarding-class BEST-EFFORT {
                loss-priority low code-points 000;
            }
            forwarding-class FC-LLQ {
                loss-priority low code-points 010;
            }
        }
    }
    forwarding-classes {
        class FC-HIGH queue-num 1;
        class BEST-EFFORT queue-num 0;
        class FC-LLQ queue-num 2;
    }
    interfaces {
        et-0/0/1 {
            scheduler-map sched-map;
            unit 0 {
                classifiers {
                    exp EXP;
                }
                rewrite-rules {
                    exp EXP_REWRITE;
                }
            }
        }
    }
    rewrite-rules {
        exp EXP_REWRITE {
            forwarding-class FC-HIGH {
                loss-priority low code-point 001;
            }
            forwarding-class BEST-EFFORT {
                loss-priority low code-point 000;
            }
            forwarding-class FC-LLQ {
                loss-priority low code-point 010;
            }
        }
    }
    scheduler-maps {
        sched-map {
            forwarding-class BEST-EFFORT scheduler s0;
            forwarding-class FC-HIGH scheduler s1;
            forwarding-class FC-LLQ scheduler s2;
        }
    }
    schedulers {
        s0 {
            transmit-rate {
                remainder;
            }
            priority low;
        }
        s1 {
            transmit-rate percent 20;
            shaping-rate percent 20;
            priority low;
        }
        s2 {
            transmit-rate percent 40;
            shaping-rate percent 40;
            priority strict-high;
        }
    }
}
firewall {
    family inet {
        filter mfc-filter {
            interface-specific;
            term stock_exch {
                from {
                    destination-address {
                        225.0.0.0/16;
                    }
                }
                then {
                    count c1;
                    loss-priority low;
                    forwarding-class FC-LLQ;
                }
            }
            term accept-all-else {
                then accept;
            }
        }
    }
}
"""


def test_an_irb_filter_that_classifies_into_an_exp_only_class_lifts_and_round_trips(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """irb unit 1 is lifted (the policy's `irb` with `unit: 1`) with a classifier whose rule puts 225.0.0.0/16
    into FC-LLQ (a service with no DSCP: the rule marks nothing, as on the device), and equiv finds the round trip
    clean."""
    policy, diagnostics, status, out = round_trip(tmp_path, capsys, "junos-mx", "we1.conf", WANEDGE)
    assert policy is not None, diagnostics
    assert not [m for m in named(diagnostics) if "stock_exch" in m or "irb" in m], named(diagnostics)
    irb = policy["devices"]["we1"]["interfaces"]["irb"]
    rules = policy["classifiers"][irb["classifier"]]["rules"]
    assert rules == [{"name": "stock_exch", "match": {"destination": ["225.0.0.0/16"]}, "service": "FC-LLQ"}]
    assert "dscp" not in policy["services"]["FC-LLQ"]
    assert status == 0, out


def test_equiv_tells_rules_that_mark_nothing_apart_by_their_class(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """The same filter into FC-HIGH instead of FC-LLQ is a difference (before: both rules read as marking nothing,
    and equiv said equivalent)."""
    original, other = tmp_path / "a.conf", tmp_path / "b.conf"
    original.write_text(WANEDGE, encoding="utf-8")
    other.write_text(WANEDGE.replace("forwarding-class FC-LLQ;\n                }",
                                     "forwarding-class FC-HIGH;\n                }"), encoding="utf-8")
    assert main(["equiv", f"junos-mx:{original}", f"junos-mx:{other}"]) == 1
    captured = capsys.readouterr()
    out = captured.out + captured.err
    assert "stock_exch" in out and "classifies into" in out and "FC-HIGH" in out, out
    assert main(["equiv", f"junos-mx:{original}", f"junos-mx:{original}"]) == 0


# a second IRB unit whose filter (mfc-filter2 of wanedge1) classifies into BEST-EFFORT, the default service (which
# has DSCP: a rule into it marks `default` unless it says mark: false)
TWO_UNITS = WANEDGE.replace("""        }
    }
}
class-of-service {""", """        }
        unit 23 {
            family inet {
                filter {
                    input mfc-filter2;
                }
                address 172.16.23.1/24;
            }
        }
    }
}
class-of-service {""", 1).replace("""            term accept-all-else {
                then accept;
            }
        }
    }
}""", """            term accept-all-else {
                then accept;
            }
        }
        filter mfc-filter2 {
            interface-specific;
            term stock_exch {
                from {
                    destination-address {
                        10.8.22.2/32;
                        10.9.22.2/32;
                    }
                }
                then {
                    loss-priority low;
                    forwarding-class BEST-EFFORT;
                }
            }
            term accept-all-else {
                then accept;
            }
        }
    }
}""", 1)


def test_a_filter_that_classifies_into_a_service_with_dscp_lifts_as_mark_false(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """irb unit 23 classifies into BEST-EFFORT and marks nothing: the rule is lifted with `mark: false` (the
    packets keep their DSCP, as on the device; a rule without it would mark BEST-EFFORT's `default`), irb unit 1's
    rule into FC-LLQ (no DSCP) needs no such key, and the round trip is clean."""
    assert "unit 23" in TWO_UNITS and "filter mfc-filter2" in TWO_UNITS
    policy, diagnostics, status, out = round_trip(tmp_path, capsys, "junos-mx", "we1.conf", TWO_UNITS)
    assert policy is not None, diagnostics
    assert not [m for m in named(diagnostics) if "stock_exch" in m or "irb" in m], named(diagnostics)
    interfaces = policy["devices"]["we1"]["interfaces"]
    rules = {n: policy["classifiers"][interfaces[n]["classifier"]]["rules"] for n in ("irb.1", "irb.23")}
    assert rules["irb.23"] == [{"name": "stock_exch", "match": {"destination": ["10.8.22.2/32", "10.9.22.2/32"]},
                                "service": "BEST-EFFORT", "mark": False}], rules
    assert "mark" not in rules["irb.1"][0], rules
    assert status == 0, out


def test_equiv_sees_where_a_catch_all_without_a_class_leaves_unmatched_traffic(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """wanedge1's `term accept-all-else { then accept; }` leaves unmatched IPv4 to the implicit ipprec-compatibility
    classifier (precedence 6 and 7 to network-control; Junos OS Class of Service User Guide, "Default IP Precedence
    Classifier"), while the compiled round trip's catch-all term puts it in BEST-EFFORT: a difference equiv
    reports (before: the reader took the unclassified rest of a filtered unit for unknown; now a catch-all that
    accepts without a class leaves it to the unit's classifier, the implicit one where it binds none, and the
    wanedge1 IRB units lift as trusting DSCP by it)."""
    original, forced = tmp_path / "a.conf", tmp_path / "b.conf"
    original.write_text(WANEDGE, encoding="utf-8")
    forced.write_text(WANEDGE.replace("""            term accept-all-else {
                then accept;""", """            term accept-all-else {
                then {
                    forwarding-class BEST-EFFORT;
                    loss-priority low;
                    accept;
                }"""), encoding="utf-8")
    assert "forwarding-class BEST-EFFORT;\n                    loss-priority low;\n                    accept" in \
        forced.read_text(encoding="utf-8")
    assert main(["equiv", f"junos-mx:{original}", f"junos-mx:{forced}"]) == 1, capsys.readouterr()
