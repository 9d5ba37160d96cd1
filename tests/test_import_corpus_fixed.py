"""Causes that kept Batfish's class-of-service grammar tests (tests/corpus/junos/batfish-class-of-service-
builtin-forwarding-classes.set and -comprehensive.set) from a clean round trip (issue 22), each as a reproducer cut
down from them: fixed classification on a port (`class-of-service interfaces ae1 forwarding-class FC`), router
traffic (`host-outbound-traffic forwarding-class`) in the reconciliation."""

from __future__ import annotations

from pathlib import Path

import pytest

from qosc.cli import main
from tests.test_import_corpus_causes import named, round_trip

CLASSIFYING = """\
set class-of-service forwarding-classes class BE queue-num 0
set class-of-service forwarding-classes class EF queue-num 1
set class-of-service forwarding-classes class NC queue-num 3
set class-of-service classifiers dscp CL forwarding-class BE loss-priority low code-points 000000
set class-of-service classifiers dscp CL forwarding-class EF loss-priority low code-points 101110
set class-of-service classifiers dscp CL forwarding-class NC loss-priority low code-points 110000
set class-of-service scheduler-maps SM forwarding-class BE scheduler S-BE
set class-of-service scheduler-maps SM forwarding-class EF scheduler S-EF
set class-of-service scheduler-maps SM forwarding-class NC scheduler S-NC
set class-of-service schedulers S-BE transmit-rate percent 50
set class-of-service schedulers S-EF transmit-rate percent 40
set class-of-service schedulers S-NC transmit-rate percent 10
set class-of-service interfaces xe-0/0/0 scheduler-map SM
set class-of-service interfaces xe-0/0/0 unit 0 classifiers dscp CL
"""
"""Three classes, their map, and xe-0/0/0 classifying DSCP into them (both reproducers below start so)."""

# builtin-forwarding-classes.set: ae1 fixes every packet it receives into expedited-forwarding, its unit 0 into
# assured-forwarding; cut down to a port whose unit binds nothing of its own but a rewrite rule beside a port
# that classifies
PORT_FIXED = CLASSIFYING + """\
set class-of-service interfaces xe-0/0/1 scheduler-map SM
set class-of-service interfaces xe-0/0/1 forwarding-class EF
"""


def test_fixed_forwarding_class_of_a_port_is_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`class-of-service interfaces PORT forwarding-class FC` classifies every packet the port receives into FC,
    whatever its code points ("forwarding-class": "Interfaces—Assign the specified forwarding class to the interface
    to use as a fixed classifier (all incoming traffic on the interface is classified into that forwarding
    class)", Junos OS Class of Service User Guide; Juniper's YANG, junos-conf-class-of-service 17.4R1, has it on
    the port beside the unit's, refusing it with BA classifiers on the same port).  Before, it was named as not
    read and the port read as classifying nothing, so equiv saw no difference when the class changed."""
    original, changed = tmp_path / "fixed.set", tmp_path / "changed.set"
    original.write_text(PORT_FIXED, encoding="utf-8")
    changed.write_text(PORT_FIXED.replace("xe-0/0/1 forwarding-class EF", "xe-0/0/1 forwarding-class NC"),
                       encoding="utf-8")
    assert main(["equiv", f"junos-mx:{original}", f"junos-mx:{changed}"]) == 1
    err = capsys.readouterr().err
    # classes are matched by the code points they carry: all of them in EF on one side, in NC on the other
    assert "xe-0/0/1: EF [the rest]: share 40% expected, 10% found" in err, err
    assert "not read" not in err, err
    assert main(["equiv", f"junos-mx:{original}", f"junos-mx:{original}"]) == 0


def test_a_units_own_fixed_class_overrides_the_ports(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A unit's own binding overrides the port's ("Classifiers and Rewrite Rules at the Global and Physical
    Interface Levels"): builtin-forwarding-classes.set fixes ae1 into expedited-forwarding and its unit 0 into
    assured-forwarding, so unit 0 receives into assured-forwarding."""
    text = PORT_FIXED + "set class-of-service interfaces xe-0/0/1 unit 0 forwarding-class NC\n"
    original, changed = tmp_path / "unit.set", tmp_path / "changed.set"
    original.write_text(text, encoding="utf-8")
    changed.write_text(text.replace("unit 0 forwarding-class NC", "unit 0 forwarding-class BE"), encoding="utf-8")
    assert main(["equiv", f"junos-mx:{original}", f"junos-mx:{changed}"]) == 1
    err = capsys.readouterr().err
    assert "xe-0/0/1: NC [the rest]: share 10% expected, 50% found" in err, err


# builtin-forwarding-classes.set: `host-outbound-traffic forwarding-class best-effort`; cut down to a port that
# classifies DSCP into three classes, router traffic in one of them
HOST = CLASSIFYING + """\
set class-of-service host-outbound-traffic forwarding-class NC
"""


def _count(diagnostics: list[dict[str, object]]) -> str:
    return next(str(d["message"]) for d in diagnostics if d["code"] == "QOS202")


def test_router_traffic_in_the_network_control_service_is_lifted(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """The policy puts router-generated traffic in its network-control service (qosc.behaviour.intent.device; the
    JUNOS target writes `host-outbound-traffic` from it): a configuration whose host-outbound-traffic names the
    class lifted as that service is reproduced by the policy, and the reconciliation says it is lifted.  Before,
    it was always named "applied, but nothing made of it is in the imported policy"."""
    policy, diagnostics, status, out = round_trip(tmp_path, capsys, "junos-mx", "host.set", HOST)
    assert policy is not None, named(diagnostics)
    assert policy["services"]["NC"]["kind"] == "network-control", policy["services"]
    assert not [m for m in named(diagnostics) if "host-outbound-traffic" in m], named(diagnostics)
    assert "= 10 lifted + 0 named" in _count(diagnostics), _count(diagnostics)
    assert status == 0, out


def test_router_traffic_in_the_default_class_is_not_moved_to_the_cs6_class(tmp_path: Path,
                                                                           capsys: pytest.CaptureFixture[str]) -> None:
    """comprehensive.set sends router traffic to FC-CLASS1, the class DSCP 0 goes to (the default service), beside
    FC-CLASS3 of cs6 and cs7.  The policy puts router traffic in its network-control service where it has one, so
    the cs6 class is lifted as kind other where the device names another class for router traffic (a kind the
    configuration never says; where its traffic is queued, it does).  Before, it was network-control, and the
    compiled router sent its routing protocols to queue 3 instead of queue 0."""
    text = HOST.replace("host-outbound-traffic forwarding-class NC", "host-outbound-traffic forwarding-class BE")
    policy, diagnostics, status, out = round_trip(tmp_path, capsys, "junos-mx", "host.set", text)
    assert policy is not None, named(diagnostics)
    assert policy["services"]["NC"]["kind"] == "other", policy["services"]
    assert policy["services"]["NC"]["dscp"] == ["cs6"], policy["services"]
    assert not [m for m in named(diagnostics) if "host-outbound-traffic" in m], named(diagnostics)
    assert status == 0, out


def test_router_traffic_elsewhere_than_the_policy_puts_it_stays_named(tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """Router traffic in the class lifted as the premium service: the policy puts it in its network-control
    service, else in the default one (here: the cs6 class is lifted as other, router traffic being elsewhere), so
    the host-outbound-traffic statement is not what the policy says (named), and equiv says where it goes."""
    text = HOST.replace("host-outbound-traffic forwarding-class NC", "host-outbound-traffic forwarding-class EF")
    policy, diagnostics, status, out = round_trip(tmp_path, capsys, "junos-mx", "host.set", text)
    assert policy is not None, named(diagnostics)
    assert [m for m in named(diagnostics) if m.startswith("host-outbound-traffic EF not lifted")], named(diagnostics)
    assert status == 1 and "router-generated traffic: queued in EF expected, BE found" in out, out


def test_a_fixed_port_is_lifted_as_an_edge_that_classifies_everything_into_its_class(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A port that fixes every packet into EF is the policy's untrusted edge whose one rule, matching everything,
    classifies into EF's service (compiled for JUNOS: a filter whose first term sets EF, no BA classifier, no DSCP
    rewrite where the port had none), beside a port that classifies by DSCP into the same forwarding classes.
    Before, the fixed port was lifted as a transparent interface of the default service (its class merged into
    it, QOS173): compiled, it trusted DSCP, so ef, cs6 and cs7 went to other classes than EF."""
    policy, diagnostics, status, out = round_trip(tmp_path, capsys, "junos-mx", "fixed.set", PORT_FIXED)
    assert policy is not None, named(diagnostics)
    fixed = policy["devices"]["fixed"]["interfaces"]["xe-0/0/1"]
    assert fixed["role"] == "edge" and fixed["trust"] == "none" and fixed["rewrite"] == [], fixed
    assert policy["classifiers"][fixed["classifier"]]["rules"] == [{"name": "fixed", "service": "EF"}], policy
    assert not [d for d in diagnostics if d["code"] == "QOS173"], diagnostics
    assert status == 0, out


def test_a_fixed_unit_with_an_exp_rewrite_alone_leaves_dscp_as_it_came(tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """comprehensive.set's ae2: fixed into FC-CLASS2 with an EXP rewrite rule and no DSCP one.  The edge it is
    lifted as rewrites EXP, not DSCP (an edge's default rewrite is DSCP): compiled with a DSCP rewrite rule, the
    unit would re-mark every packet, and the reader would take the rule's code points as classified by it."""
    text = PORT_FIXED + (
        "set class-of-service rewrite-rules exp RW forwarding-class BE loss-priority low code-point 000\n"
        "set class-of-service rewrite-rules exp RW forwarding-class EF loss-priority low code-point 101\n"
        "set class-of-service rewrite-rules exp RW forwarding-class NC loss-priority low code-point 110\n"
        "set class-of-service interfaces xe-0/0/1 unit 0 rewrite-rules exp RW\n")
    policy, diagnostics, status, out = round_trip(tmp_path, capsys, "junos-mx", "fixed.set", text)
    assert policy is not None, named(diagnostics)
    fixed = policy["devices"]["fixed"]["interfaces"]["xe-0/0/1"]
    assert fixed["rewrite"] == ["exp"] and fixed["trust"] == "none", fixed
    assert not [d for d in diagnostics if d["code"] == "QOS115"], diagnostics
    assert status == 0, out


def test_a_port_fixed_into_a_class_no_code_point_reaches_classifies_into_it_without_marking(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A port fixed into a forwarding class that no interface of the device classifies a code point into: the
    class is a service without code points, which the port's fixed rule classifies into without marking (`mark:
    false`: no code point needed, QOS034), queued as the port's scheduler map queues it.  Before, the port was left
    out, named (a service was its code points)."""
    text = PORT_FIXED + (
        "set class-of-service forwarding-classes class AF queue-num 2\n"
        "set class-of-service scheduler-maps SM2 forwarding-class AF scheduler S-EF\n"
        "set class-of-service scheduler-maps SM2 forwarding-class BE scheduler S-BE\n"
        "set class-of-service interfaces xe-0/0/2 scheduler-map SM2\n"
        "set class-of-service interfaces xe-0/0/2 forwarding-class AF\n")
    policy, diagnostics, status, out = round_trip(tmp_path, capsys, "junos-mx", "fixed.set", text)
    assert policy is not None, named(diagnostics)
    port = policy["devices"]["fixed"]["interfaces"]["xe-0/0/2"]
    assert policy["classifiers"][port["classifier"]]["rules"] == [{"name": "fixed", "service": "AF", "mark": False}]
    assert "dscp" not in policy["services"]["AF"] and policy["services"]["AF"]["queue"]["share"] == "40%", policy
    assert not [m for m in named(diagnostics) if m.startswith("interface xe-0/0/2")], named(diagnostics)
    assert status == 0, out


# what import lifts of builtin-forwarding-classes.set names router traffic's class `best-effort` (network-control
# kind, on queue 3) beside a default service of another name; cut down to a trusting core
NAMED_BEST_EFFORT = """\
qosc: 1
name: p
services:
  best-effort:
    kind: network-control
    queue: {share: 10%, priority: high}
  data:
    kind: best-effort
    default: true
    dscp: [be]
    queue: {share: 90%, priority: low}
devices:
  r:
    platform: junos-mx
    interfaces:
      xe-0/0/0: {role: core, speed: 10G}
"""


def test_a_service_named_best_effort_does_not_take_what_the_default_classifier_leaves(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The JUNOS classifier imports Junos's dscp-default, which sends the code points it lists nowhere else
    (cs1, af21 ... : most of them) to the forwarding class named best-effort.  The policy sends them to its default
    service; where a service that is not the default is called best-effort (its forwarding class is), they
    must be pinned to the default's class, as af11-af13, ef, cs6 and cs7 are.  Before, cs1 was queued in the
    network-control service `best-effort` on queue 3."""
    from qosc.targets.junos.read import interpret, parse

    policy, out = tmp_path / "p.yaml", tmp_path / "out"
    policy.write_text(NAMED_BEST_EFFORT, encoding="utf-8")
    assert main(["compile", str(policy), "-o", str(out), "-q", "--no-cache"]) == 0, capsys.readouterr()
    compiled = out / "junos" / "r.set"
    device, _ = interpret(parse(compiled.read_text(encoding="utf-8"), str(compiled)))
    core = device.interfaces[0]
    for family in (0, 1):
        wrong = [c for c in range(64) if core.classify[family][c] == "best-effort" and c not in (48, 56)]
        assert not wrong, wrong
        assert core.classify[family][8] == "data"


def test_two_ports_fixed_into_different_classes_are_not_one_service(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """builtin-forwarding-classes.set with a second port fixed into another class and no port that classifies by
    code point: every code point is in queue 0's class (BE, the class Junos sends unclassified traffic to: the
    default service), and the other port's class EF is a service without code points, classified into without
    marking (before: both classes were lifted as one default service, the second port's traffic compiled into the
    first's queue, QOS173; then the second port was left out, named)."""
    text = """\
set class-of-service forwarding-classes class BE queue-num 0
set class-of-service forwarding-classes class EF queue-num 1
set class-of-service scheduler-maps SM forwarding-class BE scheduler S-BE
set class-of-service scheduler-maps SM forwarding-class EF scheduler S-EF
set class-of-service schedulers S-BE transmit-rate percent 60
set class-of-service schedulers S-EF transmit-rate percent 40
set class-of-service interfaces xe-0/0/0 scheduler-map SM
set class-of-service interfaces xe-0/0/0 forwarding-class BE
set class-of-service interfaces xe-0/0/1 scheduler-map SM
set class-of-service interfaces xe-0/0/1 forwarding-class EF
"""
    policy, diagnostics, status, out = round_trip(tmp_path, capsys, "junos-mx", "two.set", text)
    assert policy is not None, named(diagnostics)
    interfaces = policy["devices"]["two"]["interfaces"]
    assert list(interfaces) == ["xe-0/0/0", "xe-0/0/1"], policy
    assert policy["services"]["BE"]["default"] is True and "dscp" not in policy["services"]["EF"], policy["services"]
    rules = {name: policy["classifiers"][body["classifier"]]["rules"] for name, body in interfaces.items()}
    assert rules == {"xe-0/0/0": [{"name": "fixed", "service": "BE"}],
                     "xe-0/0/1": [{"name": "fixed", "service": "EF", "mark": False}]}, rules
    assert not [d for d in diagnostics if d["code"] == "QOS173"], diagnostics
    assert status == 0, out


def test_a_unit_fixed_into_a_class_no_code_point_reaches_keeps_the_default_queueing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """builtin-forwarding-classes.set itself: ae1 unit 0 fixed into assured-forwarding (queue 2), no scheduler map,
    router traffic in best-effort (queue 0), nothing classified by code point.  Under Junos's default scheduler map
    best-effort (queue 0) has 95% and assured-forwarding none.  The default service is the class Junos sends
    unclassified traffic to (best-effort, queue 0: "Default Forwarding Classes", Junos OS Class of Service User
    Guide), the fixed class a service without code points that the fixed rule classifies into without marking.
    Before, the fixed class was the default service (dscp [default], queue 0 when compiled: 95%) and router traffic
    a network-control service (queue 3: 5%)."""
    from qosc.targets.junos.read import interpret, parse

    source = Path(__file__).parent / "corpus" / "junos" / "batfish-class-of-service-builtin-forwarding-classes.set"
    policy, diagnostics, status, out = round_trip(tmp_path, capsys, "junos-mx", "builtin.set",
                                                  source.read_text(encoding="utf-8"))
    assert policy is not None, named(diagnostics)
    services = policy["services"]
    assert services["best-effort"] == {"kind": "best-effort", "default": True, "dscp": ["default"]}, services
    assert services["assured-forwarding"] == {"kind": "other"}, services
    ae1 = policy["devices"]["builtin"]["interfaces"]["ae1"]
    assert policy["classifiers"][ae1["classifier"]]["rules"] == [
        {"name": "fixed", "service": "assured-forwarding", "mark": False}], policy["classifiers"]
    # the compiled configuration read back: what equiv compares, looked at directly
    compiled = tmp_path / "out" / "junos" / "builtin.set"
    device, _ = interpret(parse(compiled.read_text(encoding="utf-8"), str(compiled)))
    [iface] = device.interfaces
    assert iface.fixed == "assured-forwarding" and device.host_class == "best-effort", (iface.fixed, device.host_class)
    fixed, host = iface.class_named("assured-forwarding"), iface.class_named("best-effort")
    assert fixed is not None and host is not None and (fixed.share, host.share) == (0, 95), (fixed, host)
    assert status == 0, out
