"""IP units of the ACX nodes of Juniper's Low Latency Queueing JVD (Juniper/jvd, service_provider/
low_latency_queueing; tests/corpus/junos/jvd-llq-ag1-1-acx7509.conf and ag1-2-acx7100-32c, issue 22), each cause
of their round trip's differences as a reproducer cut down from them.  The aggregation nodes' customer-facing et
units and half their IRB units classify with CL-DSCP (`import default`) and rewrite with RR-DSCP; the other IRB
units fix every packet into FC-REALTIME (`class-of-service interfaces irb unit N forwarding-class FC-REALTIME`)
and rewrite with RR-DSCP.  (FC-SIGNALING is queued `priority high` here, not strict-high as in the JVD: the
strict-high queue beside the low-latency one is the junos-acx platform's.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from qosc.behaviour.readback import read
from tests.test_import_corpus_causes import named, round_trip

AG1 = """\
set interfaces et-0/0/1 unit 0 family inet address 10.0.0.1/30
set interfaces irb unit 101 family inet address 10.21.1.3/24
set interfaces irb unit 184 family inet address 10.21.84.3/24
set class-of-service classifiers dscp CL-DSCP import default
set class-of-service classifiers dscp CL-DSCP forwarding-class FC-BEST-EFFORT loss-priority high code-points be
set class-of-service classifiers dscp CL-DSCP forwarding-class FC-CONTROL loss-priority low code-points cs7
set class-of-service classifiers dscp CL-DSCP forwarding-class FC-HIGH loss-priority low code-points [ cs3 af31 ]
set class-of-service classifiers dscp CL-DSCP forwarding-class FC-HIGH loss-priority high code-points af33
set class-of-service classifiers dscp CL-DSCP forwarding-class FC-LOW loss-priority low code-points [ cs1 af11 ]
set class-of-service classifiers dscp CL-DSCP forwarding-class FC-MEDIUM loss-priority low code-points [ cs2 af21 ]
set class-of-service classifiers dscp CL-DSCP forwarding-class FC-REALTIME loss-priority low code-points ef
set class-of-service forwarding-classes class FC-BEST-EFFORT queue-num 0
set class-of-service forwarding-classes class FC-CONTROL queue-num 3
set class-of-service forwarding-classes class FC-HIGH queue-num 4
set class-of-service forwarding-classes class FC-LOW queue-num 1
set class-of-service forwarding-classes class FC-MEDIUM queue-num 2
set class-of-service forwarding-classes class FC-REALTIME queue-num 5
set class-of-service forwarding-classes class FC-SIGNALING queue-num 7
set class-of-service interfaces et-0/0/1 scheduler-map SM
set class-of-service interfaces et-0/0/1 unit 0 classifiers dscp CL-DSCP
set class-of-service interfaces et-0/0/1 unit 0 rewrite-rules dscp RR-DSCP
set class-of-service interfaces irb unit 184 classifiers dscp CL-DSCP
set class-of-service interfaces irb unit 101 forwarding-class FC-REALTIME
set class-of-service interfaces irb unit 101 rewrite-rules dscp RR-DSCP
set class-of-service interfaces irb unit 184 rewrite-rules dscp RR-DSCP
set class-of-service rewrite-rules dscp RR-DSCP forwarding-class FC-BEST-EFFORT loss-priority high code-point be
set class-of-service rewrite-rules dscp RR-DSCP forwarding-class FC-BEST-EFFORT loss-priority low code-point be
set class-of-service rewrite-rules dscp RR-DSCP forwarding-class FC-CONTROL loss-priority high code-point cs7
set class-of-service rewrite-rules dscp RR-DSCP forwarding-class FC-CONTROL loss-priority low code-point cs7
set class-of-service rewrite-rules dscp RR-DSCP forwarding-class FC-HIGH loss-priority high code-point af33
set class-of-service rewrite-rules dscp RR-DSCP forwarding-class FC-HIGH loss-priority low code-point af31
set class-of-service rewrite-rules dscp RR-DSCP forwarding-class FC-LOW loss-priority low code-point af11
set class-of-service rewrite-rules dscp RR-DSCP forwarding-class FC-MEDIUM loss-priority low code-point af21
set class-of-service rewrite-rules dscp RR-DSCP forwarding-class FC-REALTIME loss-priority high code-point ef
set class-of-service rewrite-rules dscp RR-DSCP forwarding-class FC-REALTIME loss-priority low code-point ef
set class-of-service scheduler-maps SM forwarding-class FC-BEST-EFFORT scheduler SC-BEST-EFFORT
set class-of-service scheduler-maps SM forwarding-class FC-CONTROL scheduler SC-CONTROL
set class-of-service scheduler-maps SM forwarding-class FC-HIGH scheduler SC-HIGH
set class-of-service scheduler-maps SM forwarding-class FC-LOW scheduler SC-LOW
set class-of-service scheduler-maps SM forwarding-class FC-MEDIUM scheduler SC-MEDIUM
set class-of-service scheduler-maps SM forwarding-class FC-REALTIME scheduler SC-REALTIME
set class-of-service schedulers SC-BEST-EFFORT transmit-rate remainder
set class-of-service schedulers SC-BEST-EFFORT priority low
set class-of-service schedulers SC-CONTROL shaping-rate percent 5
set class-of-service schedulers SC-CONTROL priority high
set class-of-service schedulers SC-HIGH transmit-rate percent 40
set class-of-service schedulers SC-HIGH priority low
set class-of-service schedulers SC-LOW transmit-rate percent 20
set class-of-service schedulers SC-LOW priority low
set class-of-service schedulers SC-MEDIUM transmit-rate percent 30
set class-of-service schedulers SC-MEDIUM priority low
set class-of-service schedulers SC-REALTIME shaping-rate percent 30
set class-of-service schedulers SC-REALTIME priority medium-high
set class-of-service classifiers dscp CL-DSCP forwarding-class FC-SIGNALING loss-priority high code-points cs5
set class-of-service classifiers dscp CL-DSCP forwarding-class FC-SIGNALING loss-priority low code-points cs6
set class-of-service rewrite-rules dscp RR-DSCP forwarding-class FC-SIGNALING loss-priority high code-point cs5
set class-of-service rewrite-rules dscp RR-DSCP forwarding-class FC-SIGNALING loss-priority low code-point cs6
set class-of-service scheduler-maps SM forwarding-class FC-SIGNALING scheduler SC-SIGNALING
set class-of-service schedulers SC-SIGNALING shaping-rate percent 5
set class-of-service schedulers SC-SIGNALING priority high
"""


def test_a_code_point_of_import_default_leaves_by_the_rewrite_of_its_queues_class() -> None:
    """`import default` gives DSCP 4 dscp-default's best-effort, which is FC-BEST-EFFORT (queue 0: "Default
    Forwarding Classes", Junos OS Class of Service User Guide) and RR-DSCP writes FC-BEST-EFFORT low as be: the
    packet leaves as DSCP 0 (before: the rewrite was looked up under the name best-effort, which RR-DSCP does not
    name, and DSCP 4 was read as leaving unchanged)."""
    unit = read(AG1, "ag1.set", "junos-mx").behaviour.interface("et-0/0/1", 0)  # type: ignore[union-attr]
    assert unit is not None
    assert unit.classify[0][4] == "FC-BEST-EFFORT"
    assert [unit.rewrite[0][c] for c in (4, 5, 6, 7, 48, 56)] == [0, 0, 0, 0, 48, 56]


def test_ag1_ip_units_round_trip_clean(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The service of a class whose code points RR-DSCP writes as one (FC-LOW: cs1 and af11 leave as af11) lists
    that code point first, so the compiled rewrite writes it for the class too (before: [cs1, af11], and cs1, af11
    left as cs1); irb unit 101, fixed to FC-REALTIME and rewriting, lifts as an untrusted edge whose one rule takes
    everything into FC-REALTIME, and the filter qosc writes for it (a first term without `from`) reads back as
    putting every packet in that class, as the fixed unit does (before: the compiled unit was read as classifying
    by the code points the rewrite writes, 24 differences); the fixed unit's unmatched traffic leaves as ef, its
    class's rewrite, as the compiled edge's does.  Equiv finds the round trip clean."""
    policy, diagnostics, status, out = round_trip(tmp_path, capsys, "junos-mx", "ag1.set", AG1)
    assert policy is not None, diagnostics
    assert not named(diagnostics), named(diagnostics)
    assert policy["services"]["FC-LOW"]["dscp"][:2] == ["af11", "cs1"], policy["services"]["FC-LOW"]
    irb = policy["devices"]["ag1"]["interfaces"]["irb.101"]
    assert irb["trust"] == "none" and policy["classifiers"][irb["classifier"]]["rules"] == [
        {"name": "fixed", "service": "FC-REALTIME"}], irb
    assert status == 0, out


def test_a_fixed_unit_reads_as_the_edge_qosc_writes_for_it() -> None:
    """irb unit 101 (fixed, rewriting) and a unit whose filter's first term sets FC-REALTIME with no `from` are
    read alike: every code point in FC-REALTIME, trusting none, unmatched traffic leaving as ef."""
    device = read(AG1 + """\
set interfaces irb unit 102 family inet filter input ALL
set interfaces irb unit 102 family inet6 filter input ALL6
set class-of-service interfaces irb unit 102 rewrite-rules dscp RR-DSCP
set firewall family inet filter ALL term all then forwarding-class FC-REALTIME
set firewall family inet filter ALL term all then loss-priority low
set firewall family inet6 filter ALL6 term all then forwarding-class FC-REALTIME
set firewall family inet6 filter ALL6 term all then loss-priority low
""", "ag1.set", "junos-mx").behaviour
    assert device is not None
    fixed, filtered = device.interface("irb", 101), device.interface("irb", 102)
    assert fixed is not None and filtered is not None
    for unit in (fixed, filtered):
        assert set(unit.classify[0]) == set(unit.classify[1]) == {"FC-REALTIME"}
        assert (unit.role, unit.trust, unit.unmatched_mark, unit.fixed) == ("edge", False, 46, "FC-REALTIME")


# jvd-llq-an3-acx7100-48l.conf: et-0/0/50 (to AN4) queues by the scheduler map and binds no classifier: Junos's
# implicit ipprec-compatibility classifies its IPv4, cs6 (precedence 6) into network-control's queue 3 class,
# FC-CONTROL, while CL-DSCP puts cs6 in FC-SIGNALING
AN3 = AG1 + """\
set interfaces et-0/0/50 unit 0 family inet address 10.10.0.6/30
set class-of-service interfaces et-0/0/50 scheduler-map SM
"""


def test_a_port_classified_by_the_implicit_classifier_does_not_join_services(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The device's classifiers say a code point's service: cs6 stays FC-SIGNALING's and FC-CONTROL keeps cs7
    alone (before: et-0/0/50's implicit cs6 joined FC-SIGNALING to FC-CONTROL, QOS173, and every CL-DSCP unit
    differed on cs5, cs6 and precedence 6 and 7).  et-0/0/50's implicit classification, which differs from those
    services, is lifted as an untrusted edge whose rule takes precedence 6 and 7 (DSCP 48-63) into FC-CONTROL's
    service, the rest into the default service (before: named, QOS172, and equiv found 32 code points elsewhere);
    the filter qosc writes for it reads back as the same classification: the round trip is clean."""
    unit = read(AN3, "an3.set", "junos-mx").behaviour.interface("et-0/0/50", 0)  # type: ignore[union-attr]
    assert unit is not None and unit.implicit and unit.classify[0][48] == "FC-CONTROL"
    policy, diagnostics, status, out = round_trip(tmp_path, capsys, "junos-mx", "an3.set", AN3)
    assert policy is not None, diagnostics
    services = policy["services"]
    assert "cs6" in services["FC-SIGNALING"]["dscp"] and services["FC-CONTROL"]["dscp"] == ["cs7"], services
    assert not [d for d in diagnostics if d["code"] == "QOS173"], diagnostics
    assert not [m for m in named(diagnostics) if "et-0/0/50" in m], named(diagnostics)
    port = policy["devices"]["an3"]["interfaces"]["et-0/0/50"]
    assert port["trust"] == "none", port
    rules = policy["classifiers"][port["classifier"]]["rules"]
    assert [(len(r["match"]["dscp"]), r["service"], "mark" in r) for r in rules] == [(16, "FC-CONTROL", False)], rules
    assert status == 0, out


# ag1's other IRB units (267-350 and 517-600) bind no class-of-service statement at all, only an input filter
# that moves cs1..cs4 into other classes and accepts the rest (FF-MFC-IPV4-L3VPN-EVPN-IRB)
FILTERED = AG1 + """\
set interfaces irb unit 267 family inet filter input FF-MFC-IPV4
set interfaces irb unit 267 family inet address 10.21.167.3/24
set firewall family inet filter FF-MFC-IPV4 interface-specific
set firewall family inet filter FF-MFC-IPV4 term fc-realtime from dscp cs1
set firewall family inet filter FF-MFC-IPV4 term fc-realtime then forwarding-class FC-REALTIME
set firewall family inet filter FF-MFC-IPV4 term fc-high from dscp cs2
set firewall family inet filter FF-MFC-IPV4 term fc-high then forwarding-class FC-HIGH
set firewall family inet filter FF-MFC-IPV4 term fc-medium from dscp cs3
set firewall family inet filter FF-MFC-IPV4 term fc-medium then forwarding-class FC-MEDIUM
set firewall family inet filter FF-MFC-IPV4 term fc-low from dscp cs4
set firewall family inet filter FF-MFC-IPV4 term fc-low then forwarding-class FC-LOW
set firewall family inet filter FF-MFC-IPV4 term default then accept
"""


def test_filter_terms_into_classes_the_device_rewrites_lift_as_marking_rules(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """irb unit 267 rewrites nothing itself, but the device rewrites those classes' DSCP on the units the packets
    leave by (JUNOS marks by the egress rewrite rule of the forwarding class), so `mark: false` is refused there
    (QOS114): the rule is lifted marking its service's code point, the `mark: false` named at the unit's line
    (before: each rule was left out and the unit lifted with no classifier), and the unit with `rewrite: []` (it
    writes no DSCP itself: the compiled unit binds no DSCP rewrite, as the original).  The filter's last term
    accepts without a class, so what it does not match is classified by the unit's classifier: Junos's implicit
    ipprec-compatibility, as it binds none ("Default IP Precedence Classifier", "Multifield Classifier Overview",
    Junos OS Class of Service User Guide).  Where it puts code points in other classes than CL-DSCP (af11 in
    best effort, precedence 6 and 7 in FC-CONTROL), the unit is lifted as an untrusted edge: the filter's terms,
    then a rule taking precedence 6 and 7 into FC-CONTROL's service, the rest into the default service (before:
    named, QOS172, and equiv found them elsewhere): the round trip is clean."""
    policy, diagnostics, status, out = round_trip(tmp_path, capsys, "junos-mx", "ag1.set", FILTERED)
    assert policy is not None, diagnostics
    irb = policy["devices"]["ag1"]["interfaces"]["irb.267"]
    assert irb["rewrite"] == [] and irb["trust"] == "none", irb
    rules = policy["classifiers"][irb["classifier"]]["rules"]
    assert [(r["name"], r["service"], "mark" in r) for r in rules] == [
        ("fc-realtime", "FC-REALTIME", False), ("fc-high", "FC-HIGH", False), ("fc-medium", "FC-MEDIUM", False),
        ("fc-low", "FC-LOW", False), ("ipprec-compatibility-FC-CONTROL", "FC-CONTROL", False)], rules
    assert rules[-1]["match"]["dscp"][0] == "cs6" and len(rules[-1]["match"]["dscp"]) == 16, rules[-1]
    assert sorted(m.split(" of rule ")[1].split()[0] for m in named(diagnostics) if m.startswith("`mark: false`")) \
        == ["fc-high", "fc-low", "fc-medium", "fc-realtime"], named(diagnostics)
    assert not [m for m in named(diagnostics) if m.startswith("interface irb unit 267: its implicit default")], \
        named(diagnostics)
    assert status == 0, out


# jvd-llq-an3: the device imposes EXP (its MPLS unit ae20 rewrites EXP with RR-MPLS), so et-0/0/50's traffic
# entering LSPs gets the EXP of its class: the port marks EXP, and still writes no DSCP
AN3_MPLS = AN3 + "".join(f"""\
set class-of-service classifiers exp CL-MPLS forwarding-class {fc} loss-priority low code-points {bits}
set class-of-service rewrite-rules exp RR-MPLS forwarding-class {fc} loss-priority low code-point {bits}
""" for fc, bits in (("FC-BEST-EFFORT", "000"), ("FC-LOW", "001"), ("FC-MEDIUM", "010"), ("FC-HIGH", "011"),
                     ("FC-REALTIME", "101"), ("FC-SIGNALING", "110"), ("FC-CONTROL", "111"))) + """\
set interfaces ae20 unit 0 family mpls
set class-of-service interfaces ae20 scheduler-map SM
set class-of-service interfaces ae20 unit 0 classifiers exp CL-MPLS
set class-of-service interfaces ae20 unit 0 rewrite-rules exp RR-MPLS
"""


def test_an_implicit_port_that_imposes_exp_lifts_writing_no_dscp(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """et-0/0/50 imposes EXP by its class (the device's RR-MPLS) and writes no DSCP: lifted with its rules, its
    rewrite without dscp (before: the untrusted edge was lifted rewriting DSCP, and equiv found its unmatched traffic
    marked be and precedence 6 and 7 elsewhere)."""
    unit = read(AN3_MPLS, "an3.set", "junos-mx").behaviour.interface("et-0/0/50", 0)  # type: ignore[union-attr]
    assert unit is not None and unit.implicit and unit.marked("impose"), unit
    policy, diagnostics, status, out = round_trip(tmp_path, capsys, "junos-mx", "an3.set", AN3_MPLS)
    assert policy is not None, diagnostics
    port = policy["devices"]["an3"]["interfaces"]["et-0/0/50"]
    assert "dscp" not in port.get("rewrite", ["dscp"]) and port["classifier"], port
    assert status == 0, out
