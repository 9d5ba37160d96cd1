"""verify and equiv say what they did (issue 22): no line that can be read as success after an error, and on a
device qosc has not configured (a takeover) the operator's objects are someone else's, not qosc's stale ones.

Before: `equiv` printed "0 difference(s)" after a parse error; `verify` of a policy that does not validate
printed "no device: matches the policy (0 finding(s))"; the operator's own objects on a device never pushed to
were reported as qosc-owned stale objects (QOS178).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from qosc.behaviour.roundtrip import ROOT, load, outputs
from qosc.cli import main
from qosc.targets.linux_tc.read import kernel

POLICY = str(ROOT / "policies" / "assured-rate.yaml")
LINUX = str(ROOT / "policies" / "four-service-linux.yaml")
DUMP = ROOT / "qosc" / "targets" / "linux_tc" / "read" / "tests" / "data" / "four-service-eth0.dump"

OPERATOR_COS = """\
class-of-service {
    forwarding-classes {
        class silver queue-num 0;
        class gold queue-num 1;
    }
    classifiers {
        dscp ops-in {
            forwarding-class gold {
                loss-priority low code-points ef;
            }
            forwarding-class silver {
                loss-priority low code-points be;
            }
        }
    }
    schedulers {
        ops-gold {
            transmit-rate percent 30;
            priority high;
        }
        ops-silver {
            transmit-rate remainder;
        }
    }
    scheduler-maps {
        ops-map {
            forwarding-class gold scheduler ops-gold;
            forwarding-class silver scheduler ops-silver;
        }
    }
    interfaces {
        xe-0/1/0 {
            scheduler-map ops-map;
            unit 0 {
                classifiers {
                    dscp ops-in;
                }
            }
        }
    }
}
"""

HOWTO = """\
## dev eth0
[{"kind":"htb","handle":"1:","root":true,"options":{"r2q":10,"default":"0x30"}}]
[{"class":"htb","handle":"1:1","root":true,"rate":12500000,"ceil":12500000,"prio":0},
 {"class":"htb","handle":"1:20","parent":"1:1","rate":3750000,"ceil":12500000,"prio":1},
 {"class":"htb","handle":"1:30","parent":"1:1","rate":8750000,"ceil":12500000,"prio":2}]
[{"parent":"1:","protocol":"ip","pref":1,"kind":"u32","options":{"flowid":"1:20",
  "match":{"value":"b80000","mask":"fc0000","off":0}}}]
"""


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(list(args))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_equiv_after_a_parse_error_says_it_did_not_compare(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    good = tmp_path / "good.conf"
    good.write_text(next(o.text for o in outputs(load("assured-rate.yaml"), "edge-mx") if o.path.endswith(".conf")))
    broken = tmp_path / "broken.conf"
    broken.write_text("class-of-service {\n    schedulers {\n")
    status, _, err = run(capsys, "equiv", f"junos-mx:{good}", f"junos-mx:{broken}")
    assert status == 1 and "0 difference(s)" not in err
    assert f"not compared: junos-mx:{broken} could not be read" in err, err
    status, out, _ = run(capsys, "equiv", f"junos-mx:{good}", f"junos-mx:{broken}", "--format", "json")
    verdict = json.loads(out)
    assert status == 1 and verdict["compared"] is False and verdict["equivalent"] is False
    status, _, err = run(capsys, "equiv", f"junos-mx:{good}", f"junos-mx:{good}")
    assert status == 0 and err.strip().endswith(": equivalent")


def test_verify_of_a_policy_that_does_not_validate_says_nothing_was_verified(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(Path(POLICY).read_text().replace("share: 40%", "share: 140%", 1))
    conf = tmp_path / "edge-mx.conf"
    conf.write_text("class-of-service {\n}\n")
    status, _, err = run(capsys, "verify", str(bad), "--config", f"edge-mx={conf}")
    assert status == 1 and "matches the policy" not in err
    assert "qosc verify: not verified: the policy does not validate" in err, err
    status, out, _ = run(capsys, "verify", str(bad), "--config", f"edge-mx={conf}", "--format", "json")
    assert json.loads(out)["verified"] is False


def test_verify_of_an_unreadable_configuration_says_it_was_not_verified(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = tmp_path / "edge-mx.conf"
    broken.write_text("class-of-service {\n    schedulers {\n")
    status, _, err = run(capsys, "verify", POLICY, "--config", f"edge-mx={broken}")
    assert status == 1 and "matches the policy" not in err
    assert "not verified: no device's configuration could be read" in err, err


def test_a_takeover_names_the_operators_objects_as_someone_elses_not_stale(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A JUNOS router qosc has never pushed to: its own class-of-service (other names) differs from the policy
    (drift, an error) and is someone else's (QOS205, information), never qosc's stale objects (QOS178)."""
    conf = tmp_path / "edge-mx.conf"
    conf.write_text(OPERATOR_COS)
    status, out, err = run(capsys, "verify", POLICY, "--config", f"edge-mx={conf}")
    text = out + err
    assert status == 1 and "drift found" in err  # it does not do what the policy says
    assert "QOS178" not in text and "stale object" not in text, text
    assert "info[QOS205]" in text and "scheduler-map ops-map: someone else's object" in text, text
    assert "someone else's (takeover: qosc has not configured the device)" in err, err
    status, out, _ = run(capsys, "verify", POLICY, "--config", f"edge-mx={conf}", "--format", "json")
    assert json.loads(out)["ownership"] == {"edge-mx": "takeover"}


@pytest.mark.skipif(kernel.available() is not None, reason=f"scratch network namespace: {kernel.available()}")
def test_an_operators_htb_script_is_not_called_qosc_stale(tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    """A classic HOWTO HTB tree on a Linux host: its classes share only the conventional ids 1:1 with qosc's, so
    qosc cannot tell whose they are and says so; it never calls them its own stale classes."""
    dump = tmp_path / "eth0.json"
    dump.write_text(HOWTO)
    status, out, err = run(capsys, "verify", LINUX, "--config", f"lab-router={dump}")
    text = out + err
    assert "stale object:" not in text, text
    assert "htb class eth0 1:20: stale or someone else's object" in text and "qosc cannot tell" in text, text
    assert status == 1 and "drift found" in err
