"""What import writes after settle left an interface out (issue 22): the policy is the lift of the interfaces
that stay, so no service keeps the queue of an interface the policy does not hold."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import yaml

from qosc.behaviour.roundtrip import ROOT

# ae1 schedules BE alone (10%) but classifies EF and rewrites its EXP: left out (QOS087); ae2 schedules both
TWO_MAPS = """\
set class-of-service forwarding-classes class BE queue-num 0
set class-of-service forwarding-classes class EF queue-num 1
set class-of-service classifiers dscp C forwarding-class BE loss-priority low code-points 000000
set class-of-service classifiers dscp C forwarding-class EF loss-priority low code-points 101110
set class-of-service rewrite-rules exp X forwarding-class BE loss-priority low code-point 000
set class-of-service rewrite-rules exp X forwarding-class EF loss-priority low code-point 101
set class-of-service schedulers S1 transmit-rate percent 10
set class-of-service schedulers S2 transmit-rate percent 40
set class-of-service schedulers S3 transmit-rate percent 60
set class-of-service scheduler-maps M1 forwarding-class BE scheduler S1
set class-of-service scheduler-maps M2 forwarding-class BE scheduler S2
set class-of-service scheduler-maps M2 forwarding-class EF scheduler S3
set class-of-service interfaces ae1 scheduler-map M1
set class-of-service interfaces ae1 unit 0 classifiers dscp C
set class-of-service interfaces ae1 unit 0 rewrite-rules exp X
set class-of-service interfaces ae2 scheduler-map M2
set class-of-service interfaces ae2 unit 0 classifiers dscp C
set class-of-service interfaces ae2 unit 0 rewrite-rules exp X
"""


def qosc(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "qosc", *args], capture_output=True, text=True, env=env,
                          check=False, cwd=ROOT)


def _import(tmp: Path, text: str) -> tuple[dict, str]:
    (tmp / "r.set").write_text(text)
    done = qosc("import", f"junos-mx:{tmp / 'r.set'}@r", "-o", str(tmp / "p.yaml"))
    assert done.returncode == 0, done.stderr
    return yaml.safe_load((tmp / "p.yaml").read_text()), done.stderr


def test_a_service_keeps_the_queue_of_an_interface_the_policy_holds(tmp_path: Path) -> None:
    """BE was first met on ae1 (10%), which settle leaves out: its queue is ae2's (40%), and no QOS173 says the
    policy keeps ae1's share."""
    policy, said = _import(tmp_path, TWO_MAPS)
    assert list(policy["devices"]["r"]["interfaces"]) == ["ae2"]
    assert "interface ae1 of r not lifted" in said
    assert policy["services"]["BE"]["queue"]["share"] == "40%"
    assert policy["services"]["EF"]["queue"]["share"] == "60%"
    assert "QOS173" not in said, said


def test_a_service_no_interface_left_queues_has_no_queue(tmp_path: Path) -> None:
    """With ae2 queued by Junos's defaults (no scheduler map), no interface the policy holds gives BE a queue: the
    service has none (not ae1's 10%)."""
    text = TWO_MAPS.replace("set class-of-service interfaces ae2 scheduler-map M2\n", "")
    policy, _ = _import(tmp_path, text)
    assert list(policy["devices"]["r"]["interfaces"]) == ["ae2"]
    assert "queue" not in policy["services"]["BE"], policy["services"]["BE"]


# BE (the default service: DSCP 0) and AF leave ae2 with EXP 1 alike
SHARED_EXP = """\
set class-of-service forwarding-classes class BE queue-num 0
set class-of-service forwarding-classes class AF queue-num 1
set class-of-service classifiers dscp C forwarding-class BE loss-priority low code-points 000000
set class-of-service classifiers dscp C forwarding-class AF loss-priority low code-points 001010
set class-of-service rewrite-rules exp X forwarding-class BE loss-priority low code-point 001
set class-of-service rewrite-rules exp X forwarding-class AF loss-priority low code-point 001
set class-of-service schedulers S1 transmit-rate percent 40
set class-of-service schedulers S2 transmit-rate percent 60
set class-of-service scheduler-maps M forwarding-class BE scheduler S1
set class-of-service scheduler-maps M forwarding-class AF scheduler S2
set class-of-service interfaces ae2 scheduler-map M
set class-of-service interfaces ae2 unit 0 classifiers dscp C
set class-of-service interfaces ae2 unit 0 rewrite-rules exp X
"""


def test_an_exp_value_the_default_class_leaves_with_and_another_service_holds_is_named(tmp_path: Path) -> None:
    """A value is one service in the policy (QOS083: two services of one EXP value must share a queue); the
    default class, never joined to another by code points, loses EXP 1 to AF, which holds it: named at the
    class's line (its scheduler-map entry), QOS172, not dropped in silence (BE leaves with the default's EXP 0)."""
    policy, said = _import(tmp_path, SHARED_EXP)
    assert policy["services"]["AF"]["exp"] == [1]
    assert "exp" not in policy["services"]["BE"]
    lost = [line for line in said.splitlines() if "QOS172" in line and "EXP 1" in line]
    assert len(lost) == 1 and ":9:1:" in lost[0] and "service AF" in lost[0], said
