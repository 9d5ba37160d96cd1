"""Mutation tests, end to end through the command line: one changed weight, DSCP, drop point or policer rate in
a rendered configuration makes `qosc verify` and `qosc equiv` fail (exit 1) with a message naming the device,
the interface and the service, for JUNOS, Cisco IOS MQC and the Catalyst 6500.

Each mutation is one textual edit of the compiled configuration of policies/assured-rate.yaml, applied once (to
the first occurrence: the first interface where it is per interface), and checked to have applied.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from qosc.behaviour.tests.test_cli import POLICY, qosc, write

# (device, platform, suffix, mutation, old, new, interface, service, what verify says)
MUTATIONS = [
    ("edge-mx", "junos-mx", ".conf", "weight", "lbe {\n            transmit-rate percent 1;",
     "lbe {\n            transmit-rate percent 3;", "ge-0/0/1", "lbe", "share 1% expected, 3% found"),
    ("edge-mx", "junos-mx", ".conf", "dscp",
     "forwarding-class lbe {\n                loss-priority low code-points cs1;",
     "forwarding-class lbe {\n                loss-priority low code-points cs2;", "xe-0/1/0", "lbe",
     "DSCP 8 (cs1): classified to lbe expected, best-effort found"),
    ("edge-mx", "junos-mx", ".conf", "drop point", "fill-level [ 60 95 ];", "fill-level [ 30 95 ];", "ge-0/0/1",
     "assured", "drop probability at"),
    ("edge-mx", "junos-mx", ".conf", "policer rate", "committed-information-rate 50000000;",
     "committed-information-rate 40000000;", "ge-0/0/1", "assured", "cir 50000000 expected, 40000000 found"),
    ("asr-1", "ios-xe", ".cfg", "weight", "class lbe\n  bandwidth percent 1", "class lbe\n  bandwidth percent 3",
     "GigabitEthernet0/0/0", "lbe", "share 1% expected, 3% found"),
    ("asr-1", "ios-xe", ".cfg", "dscp", "match dscp cs1", "match dscp cs2", "GigabitEthernet0/0/0", "lbe",
     "DSCP 8 (cs1): classified to lbe expected, best-effort found"),
    ("asr-1", "ios-xe", ".cfg", "drop point", "random-detect dscp af21 983 1556 20",
     "random-detect dscp af21 491 1556 20", "GigabitEthernet0/0/0", "assured", "drop probability at"),
    ("asr-1", "ios-xe", ".cfg", "policer rate", "police cir 50000000 bc 2500000 pir",
     "police cir 40000000 bc 2500000 pir", "GigabitEthernet0/0/0", "assured", "cir 50000000 expected, 40000000 found"),
    ("cat6500-2", "catalyst6500", ".cfg", "weight", "wrr-queue bandwidth 1 40 40 5 1 1 1",
     "wrr-queue bandwidth 1 40 30 5 1 1 1", "GigabitEthernet1/1", "assured", "share 40% expected, 30% found"),
    ("cat6500-2", "catalyst6500", ".cfg", "dscp", "mls qos map dscp-cos 8 to 1", "mls qos map dscp-cos 8 to 0",
     "GigabitEthernet1/1", "lbe", "DSCP 8 (cs1): classified to lbe expected, best-effort found"),
    ("cat6500-2", "catalyst6500", ".cfg", "drop point",
     "wrr-queue random-detect min-threshold 3 60 60 60 60 60 60 60 60",
     "wrr-queue random-detect min-threshold 3 30 30 30 30 30 30 30 30", "GigabitEthernet1/1", "assured",
     "drop probability at"),
    ("cat6500-2", "catalyst6500", ".cfg", "policer rate", "police 50000000 2500000",
     "police 40000000 2500000", "GigabitEthernet1/1", "assured", "cir 50000000 expected, 40000000 found"),
]


CODES = {"lbe": ("cs1",), "assured": ("af21", "af22", "af23")}


@pytest.mark.parametrize(("device", "platform", "suffix", "mutation", "old", "new", "interface", "service", "says"),
                         MUTATIONS, ids=[f"{m[0]}-{m[3].replace(' ', '-')}" for m in MUTATIONS])
def test_one_changed_value_fails_verify_and_equiv_naming_device_interface_and_service(
        tmp_path: Path, device: str, platform: str, suffix: str, mutation: str, old: str, new: str, interface: str,
        service: str, says: str) -> None:
    original = write(tmp_path, device, suffix)
    text = original.read_text()
    assert old in text, f"{mutation}: {old!r} is not in the compiled {device}{suffix}"
    changed = tmp_path / f"changed-{device}{suffix}"
    changed.write_text(text.replace(old, new, 1))

    clean = qosc("verify", POLICY, "--config", f"{device}={original}")
    assert clean.returncode == 0, clean.stdout + clean.stderr
    verify = qosc("verify", POLICY, "--config", f"{device}={changed}")
    out = verify.stdout + verify.stderr
    assert verify.returncode == 1, out
    lines = [line for line in out.splitlines() if "[QOS176]" in line and says in line]
    assert lines, out
    assert any(f"{device}:{interface}: " in line and service in line for line in lines), lines
    assert any(f"{changed}:" in line for line in lines), lines  # located at the changed configuration's line

    same = qosc("equiv", f"{platform}:{original}", f"{platform}:{original}")
    assert same.returncode == 0, same.stdout + same.stderr
    equiv = qosc("equiv", f"{platform}:{original}", f"{platform}:{changed}")
    out = equiv.stdout + equiv.stderr
    assert equiv.returncode == 1, out
    found = [line for line in out.splitlines() if "[QOS177]" in line and f"{device}{suffix}:{interface}: " in line]
    # equiv knows no policy: a class is named as the configuration names it, with the code points it carries
    assert found and any(service in line or any(f"{c}]" in line or f"{c} " in line for c in CODES[service])
                         for line in found), out
