"""End to end through the command line: qosc verify --config, qosc equiv and qosc import, with exit codes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from qosc.behaviour.roundtrip import ROOT, load, outputs

POLICY = str(ROOT / "policies" / "assured-rate.yaml")


def qosc(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "qosc", *args], capture_output=True, text=True, env=env,
                          check=False, cwd=ROOT)


def write(tmp: Path, device: str, suffix: str) -> Path:
    text = next(o.text for o in outputs(load("assured-rate.yaml"), device) if o.path.endswith(suffix))
    path = tmp / f"{device}{suffix}"
    path.write_text(text)
    return path


def test_verify_passes_on_the_compiled_config_and_fails_on_drift(tmp_path: Path) -> None:
    conf = write(tmp_path, "edge-mx", ".conf")
    ok = qosc("verify", POLICY, "--config", f"edge-mx={conf}")
    assert ok.returncode == 0, ok.stdout + ok.stderr
    conf.write_text(conf.read_text().replace("lbe {\n            transmit-rate percent 1;",
                                             "lbe {\n            transmit-rate percent 4;"))
    bad = qosc("verify", POLICY, "--config", f"edge-mx={conf}")
    assert bad.returncode == 1
    assert "edge-mx:ge-0/0/1: lbe: share 1% expected, 4% found" in bad.stdout + bad.stderr
    assert f"{conf}:" in bad.stdout + bad.stderr  # located at the configuration line too


def test_equiv_same_vendor_both_formats_and_across_vendors(tmp_path: Path) -> None:
    conf, set_ = write(tmp_path, "edge-mx", ".conf"), write(tmp_path, "edge-mx", ".set")
    same = qosc("equiv", f"junos-mx:{conf}", f"junos-mx:{set_}")
    assert same.returncode == 0, same.stdout + same.stderr
    cfg = write(tmp_path, "asr-1", ".cfg")
    cross = qosc("equiv", f"junos-mx:{conf}", f"ios-xe:{cfg}", "--map", "ge-0/0/1=GigabitEthernet0/0/0",
                 "--map", "xe-0/1/0=TenGigabitEthernet0/1/0")
    assert cross.returncode == 1
    out = cross.stdout + cross.stderr
    # both classify IPv6 like IPv4 (IOS `match dscp`, JUNOS dscp-ipv6 tables) ...
    assert "classified to" not in out
    # ... but JUNOS rewrites every best-effort packet to `be` where IOS leaves undeclared code points alone,
    # and IOS WRED cannot start dropping above 0 % (the policy says neither which is wanted)
    assert "DSCP 13: leaves marked DSCP 0 (default) expected, DSCP 13 found" in out
    assert "best-effort [the rest]: drop probability at 50% fill 10% expected, 0% found" in out
    assert "ge-0/0/1: assured: share" not in out  # the shares agree


def test_import_writes_a_policy_that_validates(tmp_path: Path) -> None:
    conf = write(tmp_path, "edge-mx", ".conf")
    out = tmp_path / "imported.yaml"
    run = qosc("import", f"junos-mx:{conf}@edge-mx", "-o", str(out))
    assert run.returncode == 0, run.stdout + run.stderr
    text = out.read_text()
    assert "assured:" in text and "af21" in text and "edge-mx:" in text
    check = qosc("validate", str(out))
    assert check.returncode == 0, check.stdout + check.stderr
    broken = tmp_path / "broken.conf"
    broken.write_text("class-of-service {\n    schedulers {\n")
    bad = qosc("import", f"junos-mx:{broken}", "-o", str(tmp_path / "x.yaml"))
    assert bad.returncode != 0 and "QOS179" in bad.stdout + bad.stderr


def test_verify_reports_a_stale_qosc_object(tmp_path: Path) -> None:
    conf = write(tmp_path, "edge-mx", ".conf")
    conf.write_text(conf.read_text().replace("    schedulers {\n", "    schedulers {\n        old-one {\n"
                                             "            priority low;\n        }\n", 1))
    run = qosc("verify", POLICY, "--config", f"edge-mx={conf}")
    out = run.stdout + run.stderr
    # stale objects are a warning (QOS178): reported, the exit code stays 0
    assert run.returncode == 0 and "warning[QOS178]" in out and "scheduler old-one: stale object" in out
    assert "edge-mx: matches the policy (1 finding(s), 1 of them stale object(s))" in out  # not "drift found"
    assert f"{conf}:" in out


OPERATOR = """\
firewall {
    policer customer-x-10m {
        if-exceeding {
            bandwidth-limit 10m;
            burst-size-limit 100k;
        }
        then discard;
    }
    family inet {
        filter customer-x-in {
            term all {
                then {
                    policer customer-x-10m;
                    accept;
                }
            }
        }
    }
}
interfaces {
    ge-9/9/9 {
        unit 0 {
            family inet {
                filter {
                    input customer-x-in;
                }
            }
        }
    }
}
"""


def test_verify_leaves_operator_firewall_objects_alone(tmp_path: Path) -> None:
    """JUNOS firewall filters and policers are qosc's only where it binds them (a unit of a port it schedules) or
    uses them from such a filter: an operator's filter and policer on another port were reported stale; a policer
    qosc's own filter still uses, and the policy no longer has, is."""
    conf = write(tmp_path, "edge-mx", ".conf")
    conf.write_text(conf.read_text() + OPERATOR)
    run = qosc("verify", POLICY, "--config", f"edge-mx={conf}")
    out = run.stdout + run.stderr
    assert run.returncode == 0 and "customer-x" not in out and "edge-mx: matches the policy (0 finding(s))" in out
    text = conf.read_text()
    used = "                    policer premium-in;\n"
    assert used in text
    old = ("    policer old-premium {\n        if-exceeding {\n            bandwidth-limit 10m;\n            "
           "burst-size-limit 64k;\n        }\n        then discard;\n    }\n")
    conf.write_text(text.replace(used, "                    policer old-premium;\n", 1).replace(
        "    policer premium-in {", old + "    policer premium-in {", 1))
    run = qosc("verify", POLICY, "--config", f"edge-mx={conf}")
    out = run.stdout + run.stderr
    assert "policer old-premium: stale object" in out and "customer-x" not in out


def test_verify_reports_the_verified_devices_diagnostics_only(tmp_path: Path) -> None:
    """verify printed every device's target warnings (gsr-2's precedence matching, the PFC's drop curves) when
    one JUNOS box was verified: now the policy's own checks and the verified device's target's only."""
    conf = write(tmp_path, "edge-mx", ".conf")
    run = qosc("verify", POLICY, "--config", f"edge-mx={conf}")
    out = run.stdout + run.stderr
    assert run.returncode == 0, out
    assert "info[QOS190]" in out and "edge-mx" in out  # edge-mx's own (JUNOS per-family policers)
    assert not any(code in out for code in ("QOS180", "QOS181", "QOS183", "QOS184", "QOS137", "QOS143")), out


def test_verify_reports_a_buffer_another_hand_changed(tmp_path: Path) -> None:
    """Buffers were not compared at all; JUNOS gives them in the policy's units (percent), compared as shares."""
    conf = write(tmp_path, "edge-mx", ".conf")
    text = conf.read_text()
    assert text.count("buffer-size percent 40;") >= 1
    conf.write_text(text.replace("buffer-size percent 40;", "buffer-size percent 30;", 1))
    run = qosc("verify", POLICY, "--config", f"edge-mx={conf}")
    out = run.stdout + run.stderr
    assert run.returncode == 1 and "buffer 40% expected, 30% found" in out, out
