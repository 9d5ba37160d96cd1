"""Import of Juniper's validated MPLS designs (tests/corpus, public, Apache-2.0) now that the marking domains lift EXP
(issue 21) beside issue 22's reconciliation: a PE's customer unit classified by Junos's implicit ipprec-compatibility,
EXP values classified into forwarding classes a unit does not schedule, units that lift into nothing, and a unit of
a port left out by name (port.unit)."""

from __future__ import annotations

from pathlib import Path

from qosc.behaviour.lift import lift
from qosc.behaviour.model import Device
from qosc.behaviour.readback import read
from qosc.behaviour.reconcile import _leave_out
from qosc.diagnostics import warning

ROOT = Path(__file__).resolve().parents[3]
CORPUS = ROOT / "tests" / "corpus" / "junos"
DATA = ROOT / "qosc" / "targets" / "junos" / "read" / "tests" / "data"


def junos(path: Path) -> Device:
    found = read(path.read_text(encoding="utf-8"), str(path), "junos-mx", path.stem)
    assert found.behaviour is not None, found.diagnostics
    return found.behaviour


def test_a_pe_customer_unit_classified_by_ipprec_compatibility_trusts_and_keeps_its_dscp() -> None:
    """The MX304 access router of the Enterprise WAN for Finance design: its customer ports bind no classifier (Junos
    classifies IPv4 by the implicit ipprec-compatibility) and no DSCP rewrite rule, and impose EXP through the core's
    rewrite rule: an edge that trusts the packet's DSCP and leaves it as it came (it was an edge trusting nothing
    whose every packet qosc's compile remarked to best effort)."""
    lifted = lift([junos(CORPUS / "jvd-ewan-fin-ap1-mx304.conf")], "ap1")
    interfaces = lifted.policy["devices"]["jvd-ewan-fin-ap1-mx304"]["interfaces"]
    for port in ("et-0/0/6", "et-0/0/11"):
        assert interfaces[port] == {"role": "edge", "speed": "100G", "trust": "dscp", "rewrite": []}, interfaces[port]
    assert interfaces["et-0/0/3"]["rewrite"] == ["exp"]  # the core unit rewrites EXP alone


def test_the_default_map_schedules_every_queue_of_a_forwarding_class() -> None:
    """The PTX10003 core of the ACE design classifies eight EXP values on units without a scheduler map: Junos's
    default map gives queues 0 to 7 95, 0, 0, 5, 0, 0, 0 and 0 % (it was read as queueing the four classes of queues
    0 to 3 alone, and EXP 4-7 were named as going to classes the unit does not schedule): every class lifts.  The
    units are lifted with `egress-queueing: device-default` (QOS208): the default map is the device's, not a queue
    plan of the policy (it was lifted as the services' shares, 95% and 5%, which a compile then wrote as a
    scheduler map of its own)."""
    lifted = lift([junos(CORPUS / "jvd-ewan-ace-p1-ptx10003.conf")], "p1")
    assert not [d.message for d in lifted.diagnostics if d.code == "QOS172"]
    services = lifted.policy["services"]
    assert set(services) == {"BEST-EFFORT", "LOW", "MEDIUM", "SIG-OAM", "BUSINESS", "REALTIME", "NETWORK", "CONTROL"}
    assert not [name for name, body in services.items() if "queue" in body]
    interfaces = lifted.policy["devices"]["jvd-ewan-ace-p1-ptx10003"]["interfaces"]
    assert {body.get("egress-queueing") for body in interfaces.values()} == {"device-default"}
    assert len([d for d in lifted.diagnostics if d.code == "QOS208"]) == len(interfaces) == 4
    assert services["BUSINESS"]["exp"] == {"high": [4]} and services["CONTROL"]["exp"] == [7]


UNSCHEDULED = """\
set class-of-service forwarding-classes class be queue-num 0
set class-of-service forwarding-classes class gold queue-num 4
set class-of-service classifiers exp CX forwarding-class be loss-priority low code-points 000
set class-of-service classifiers exp CX forwarding-class gold loss-priority low code-points 101
set class-of-service schedulers s-be transmit-rate percent 100
set class-of-service scheduler-maps m forwarding-class be scheduler s-be
set class-of-service interfaces xe-1/0/0 scheduler-map m
set class-of-service interfaces xe-1/0/0 unit 0 classifiers exp CX
"""


def test_exp_values_of_a_class_the_unit_does_not_schedule_are_named() -> None:
    """A scheduler map that leaves out a forwarding class an EXP value is classified into: the value is named at the
    unit (it was left to the default service without a word)."""
    found = read(UNSCHEDULED, "u.set", "junos-mx", "u")
    assert found.behaviour is not None
    named = [d.message for d in lift([found.behaviour], "u").diagnostics if "does not schedule" in d.message]
    assert named == ["interface xe-1/0/0 unit 0: EXP 5 go to class gold, which the interface does not schedule "
                     "(Junos gives its queue the minimal buffer and credit of a class without a scheduler, which a "
                     "policy cannot say): not lifted (the imported policy gives them the default service)"]


def test_a_unit_whose_classes_and_rules_lift_into_nothing_is_named_not_lifted() -> None:
    """The WAN edge of the Finance design binds input filters on IRB units that only send some destinations to a
    forwarding class (FC-LLQ, a strict queue without a rate) and schedule nothing there.  Such a unit was written
    as an edge with `services: []` and no classifier, which qosc's compile writes as an empty unit; its rules now
    lift (they classify into their class's service without marking, tests/test_import_classify_only.py), so each
    IRB unit has its classifier; a unit whose rule puts packets in a class no service is made of has the rule
    named, and lifts what it still does: the filter's catch-all term accepts without a class, so Junos's implicit
    ipprec-compatibility classifies the rest (the unit trusts DSCP by it, queued by the device's defaults; before,
    it was read as classifying nothing and named not lifted)."""
    text = (CORPUS / "jvd-ewan-fin-wanedge1-mx304.conf").read_text(encoding="utf-8")
    lifted = lift([junos(CORPUS / "jvd-ewan-fin-wanedge1-mx304.conf")], "we1")
    interfaces = lifted.policy["devices"]["jvd-ewan-fin-wanedge1-mx304"]["interfaces"]
    irb = {name: body for name, body in interfaces.items() if name.startswith("irb")}
    assert len(irb) == 13 and all("classifier" in body for body in irb.values()), irb
    nowhere = text.replace("forwarding-class FC-LLQ;\n", "forwarding-class FC-NOWHERE;\n")
    found = read(nowhere, "we1.conf", "junos-mx", "we1")
    assert found.behaviour is not None
    lifted = lift([found.behaviour], "we1")
    interfaces = lifted.policy["devices"]["we1"]["interfaces"]
    assert interfaces["irb.1"] == {"role": "edge", "trust": "dscp", "rewrite": [], "egress-queueing": "device-default"}
    assert "classifier" in interfaces["irb.21"]
    assert any(d.message == "rule stock_exch puts packets in class FC-NOWHERE, which no imported service is made of: "
               "the rule is left out" for d in lifted.diagnostics)


def test_leaving_out_a_unit_of_a_port_leaves_out_what_was_lifted_of_that_unit_alone() -> None:
    """Units of one port are interfaces named port.unit (issue 21); leaving one out (issue 22's settle) takes its
    interface, classes and rules out of what the reconciliation counts as lifted, and no other unit's."""
    device = junos(DATA / "jvd-mebs-an1_mx204.conf")
    lifted = lift([device], "an1")
    assert {"ae11.700", "ae11.701"} <= set(lifted.policy["devices"][device.name]["interfaces"])
    units = {e[3] for e in lifted.elements if e[1:3] == (device.name, "ae11")}
    assert {"700", "701"} <= units
    _leave_out(lifted, ("devices", device.name, "interfaces", "ae11.700"), warning("QOS040", "test", None))
    assert "ae11.700" not in lifted.policy["devices"][device.name]["interfaces"]
    left = {e[3] for e in lifted.elements if e[1:3] == (device.name, "ae11")}
    assert "700" not in left and "701" in left
