"""Units that classify and rewrite but queue by the device's defaults, beside units a scheduler map queues: the
aggregation router of Juniper's Low Latency Queueing JVD (Juniper/jvd, service_provider/low_latency_queueing,
ag3_1_mx480; tests/corpus/junos/jvd-llq-ag3-1-mx480.set, issue 22).  Its ae8, ae11 and ae12 carry
`scheduler-map SM-5G-SCHEDULER`; ae9, ae13 and ae14 bind the same EXP classifier and rewrite rule and no scheduler
map, so they queue by Junos's default map.  The policy language says that with `egress-queueing: device-default`."""

from __future__ import annotations

from pathlib import Path

import pytest

from qosc.cli import main
from tests.test_import_corpus_causes import round_trip

# cut down from jvd-llq-ag3-1-mx480.set: four of its eight forwarding classes, their schedulers, the EXP classifier
# and rewrite rule, ae8 (5G map) and ae9 (no map)
AG3 = """\
set class-of-service forwarding-classes class FC-BEST-EFFORT queue-num 0
set class-of-service forwarding-classes class FC-CONTROL queue-num 3
set class-of-service forwarding-classes class FC-HIGH queue-num 4
set class-of-service forwarding-classes class FC-LLQ queue-num 6
set class-of-service classifiers exp CL-MPLS forwarding-class FC-BEST-EFFORT loss-priority low code-points 000
set class-of-service classifiers exp CL-MPLS forwarding-class FC-CONTROL loss-priority low code-points 111
set class-of-service classifiers exp CL-MPLS forwarding-class FC-HIGH loss-priority low code-points 011
set class-of-service classifiers exp CL-MPLS forwarding-class FC-LLQ loss-priority low code-points 100
set class-of-service rewrite-rules exp RR-MPLS forwarding-class FC-BEST-EFFORT loss-priority low code-point 000
set class-of-service rewrite-rules exp RR-MPLS forwarding-class FC-CONTROL loss-priority low code-point 111
set class-of-service rewrite-rules exp RR-MPLS forwarding-class FC-HIGH loss-priority low code-point 011
set class-of-service rewrite-rules exp RR-MPLS forwarding-class FC-LLQ loss-priority low code-point 100
set class-of-service scheduler-maps SM-5G-SCHEDULER forwarding-class FC-BEST-EFFORT scheduler SC-BEST-EFFORT
set class-of-service scheduler-maps SM-5G-SCHEDULER forwarding-class FC-CONTROL scheduler SC-CONTROL
set class-of-service scheduler-maps SM-5G-SCHEDULER forwarding-class FC-HIGH scheduler SC-HIGH
set class-of-service scheduler-maps SM-5G-SCHEDULER forwarding-class FC-LLQ scheduler SC-LLQ
set class-of-service schedulers SC-BEST-EFFORT transmit-rate remainder
set class-of-service schedulers SC-BEST-EFFORT priority low
set class-of-service schedulers SC-CONTROL shaping-rate percent 5
set class-of-service schedulers SC-CONTROL buffer-size percent 5
set class-of-service schedulers SC-CONTROL priority high
set class-of-service schedulers SC-HIGH transmit-rate percent 40
set class-of-service schedulers SC-HIGH buffer-size percent 30
set class-of-service schedulers SC-HIGH priority low
set class-of-service schedulers SC-LLQ shaping-rate percent 40
set class-of-service schedulers SC-LLQ buffer-size percent 10
set class-of-service schedulers SC-LLQ priority strict-high
set class-of-service interfaces ae8 scheduler-map SM-5G-SCHEDULER
set class-of-service interfaces ae8 unit 0 classifiers exp CL-MPLS
set class-of-service interfaces ae8 unit 0 rewrite-rules exp RR-MPLS
set class-of-service interfaces ae9 unit 0 classifiers exp CL-MPLS
set class-of-service interfaces ae9 unit 0 rewrite-rules exp RR-MPLS
"""
AE9_LINE = AG3.splitlines().index("set class-of-service interfaces ae9 unit 0 classifiers exp CL-MPLS") + 1


# the same classes numbered densely (FC-HIGH in queue 1, FC-LLQ in queue 2): what a compile numbers alike
DENSE = AG3.replace("FC-HIGH queue-num 4", "FC-HIGH queue-num 1").replace("FC-LLQ queue-num 6", "FC-LLQ queue-num 2")


def test_a_unit_without_a_scheduler_map_lifts_as_device_default_queueing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """ae9 is lifted with `egress-queueing: device-default` (said at its line, QOS208), the services keep the 5G
    map's queues (ae8's), and the round trip is clean: the compiled ae9 has no scheduler map either, and each class
    keeps its queue number (the services in the order of the device's queues), so the default map gives the same
    class its 5% (queue 3: FC-CONTROL).  Before, ae9's default-map classes disagreed with ae8's (QOS173 per
    service) and ae9 was compiled with the 5G map: equiv found the differences."""
    policy, diagnostics, status, out = round_trip(tmp_path, capsys, "junos-mx", "ag3.set", DENSE)
    assert policy is not None, diagnostics
    interfaces = policy["devices"]["ag3"]["interfaces"]
    assert interfaces["ae9"].get("egress-queueing") == "device-default", interfaces["ae9"]
    assert "egress-queueing" not in interfaces["ae8"], interfaces["ae8"]
    assert not [d for d in diagnostics if d["code"] == "QOS173"], [d["message"] for d in diagnostics]
    said = [d for d in diagnostics if d["code"] == "QOS208"]
    assert len(said) == 1 and said[0]["line"] == AE9_LINE and "ae9" in said[0]["message"], said
    services = policy["services"]
    assert list(services) == ["FC-BEST-EFFORT", "FC-HIGH", "FC-LLQ", "FC-CONTROL"]  # queues 0, 1, 2, 3
    # ae8's 5G map, not the default map's 0% (its 40% transmit rate is guaranteed of what the 40% strict-high cap
    # leaves: QOS206)
    assert services["FC-HIGH"]["queue"]["share"] == "24%" and services["FC-LLQ"]["queue"]["strict"] is True
    assert status == 0, out


def test_equiv_sees_the_default_map_give_another_class_its_share_where_queue_numbers_move(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Junos's default map shares by queue number (queue 0 95%, queue 3 5%), and the policy language has no queue
    numbers: with the original's queues 0, 3, 4, 6 the compile numbers the four services 0 to 3, and the class in
    queue 3 on the default-queued ae9 is another one.  equiv compares the classes traffic reaches on two
    default-queued units, so it says so (before, two default-queued units were not compared queue by queue: the
    round trip was reported clean)."""
    policy, diagnostics, status, out = round_trip(tmp_path, capsys, "junos-mx", "ag3.set", AG3)
    assert policy is not None, diagnostics
    assert status != 0, out
    assert "ae9: FC-CONTROL [no code point]: share 5% expected, 0% found" in out, out


def test_equiv_reports_a_unit_queued_by_the_policy_against_one_left_at_the_default(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Both sides at the device's default: equivalent; one side given the scheduler map: a difference (before,
    the default map was compared share by share with the 5G map's, and two default-map units compared alike)."""
    original, scheduled = tmp_path / "ag3.set", tmp_path / "scheduled.set"
    original.write_text(AG3, encoding="utf-8")
    scheduled.write_text(AG3 + "set class-of-service interfaces ae9 scheduler-map SM-5G-SCHEDULER\n",
                         encoding="utf-8")
    assert main(["equiv", f"junos-mx:{original}", f"junos-mx:{original}"]) == 0
    capsys.readouterr()
    assert main(["equiv", f"junos-mx:{original}", f"junos-mx:{scheduled}"]) == 1
    err = capsys.readouterr().err
    assert "ae9: egress queueing: by the device's default expected, the policy's queues found" in err, err
    assert "ae8" not in err, err


# IOS: a customer edge marks by an input policy and has no output policy of its own, beside a port an output
# policy queues
IOS_INPUT_ONLY = """\
ip access-list extended VOICE
 permit udp 198.18.1.0 0.0.0.255 any
class-map match-any EF
 match dscp ef
class-map match-any AF2
 match dscp af21
class-map match-all VOICE-IN
 match access-group name VOICE
policy-map OUT
 class EF
  priority
  police cir 100000000 bc 1250000 conform-action transmit exceed-action drop
 class AF2
  bandwidth percent 30
 class class-default
  bandwidth percent 40
policy-map IN
 class VOICE-IN
  set dscp ef
interface GigabitEthernet0/0
 bandwidth 1000000
 service-policy output OUT
interface GigabitEthernet0/1
 bandwidth 1000000
 service-policy input IN
"""


def test_an_ios_interface_with_an_input_policy_and_no_output_policy_lifts_as_device_default(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """GigabitEthernet0/1 marks voice EF on input and queues by IOS's defaults: it lifts with its classifier (into
    the EF service GigabitEthernet0/0 queues) and `egress-queueing: device-default`, the compiled interface has
    the input policy and no output policy, and equiv is clean.  Before, its rule was named as marking into no
    imported service and the interface was not lifted."""
    policy, diagnostics, status, out = round_trip(tmp_path, capsys, "ios-xe", "r1.cfg", IOS_INPUT_ONLY)
    assert policy is not None, diagnostics
    edge = policy["devices"]["r1"]["interfaces"]["GigabitEthernet0/1"]
    assert edge.get("egress-queueing") == "device-default" and edge["role"] == "edge", edge
    assert policy["classifiers"][edge["classifier"]]["rules"][0]["service"] == "EF"
    assert not [d["message"] for d in diagnostics if d["code"] == "QOS172"]
    assert [d for d in diagnostics if d["code"] == "QOS208" and "GigabitEthernet0/1" in d["message"]]
    assert status == 0, out
