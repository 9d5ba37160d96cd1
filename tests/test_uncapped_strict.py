"""`queue: {strict: true, rate-cap: none}`: a strict-priority queue left uncapped on purpose (issue 22: Juniper's
validated designs run one), across every target: each either writes it faithfully (and reads it back as strict
and uncapped, so verify finds no drift, and a capped configuration is drift) or refuses it at the policy's line."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

from qosc import api
from qosc.cli import main

POLICY = """\
qosc: 1
name: t
services:
  best-effort:
    kind: best-effort
    default: true
    queue: {share: 40%, priority: high}
  ip-premium:
    kind: premium
    queue: {share: 10%, strict: true, rate-cap: none}
  lbe:
    kind: lbe
    queue: {share: 1%, priority: low}
devices:
  d1:
    platform: PLATFORM
    interfaces:
      IFACE: {role: core, speed: 1G PORT}
"""
RATE_CAP = (10, 49)
"""Line and column of `rate-cap: none` in POLICY."""

# platform, interface, (file suffix, lines the uncapped strict class is written as) or the refusal's code
TABLE = [
    ("junos-mx", "xe-0/0/0", (".set", [r"set class-of-service schedulers ip-premium transmit-rate percent 10",
                                       r"set class-of-service schedulers ip-premium priority strict-high"])),
    ("ios-xe", "GigabitEthernet0/0", (".cfg", [r" class ip-premium\n  ! strict priority, uncapped \(rate-cap: none\)"
                                               r"[^\n]*\n  priority\n class "])),
    ("ios-gsr", "POS0/0", (".cfg", [r" class ip-premium\n  ! strict priority, uncapped[^\n]*\n  priority\n class "])),
    ("catalyst6500", "GigabitEthernet1/1", (".cfg", [r"priority-queue cos-map 1 5"])),
    ("sros-7750", "1/1/1", (".flat", [r'queue 6 queue-type expedited\n.*queue 6 rate pir 100\n'
                                      r'.*queue 6 rate cir 100\n'])),
    ("sros-7250-ixr", "1/1/1", (".flat", [r'queue 6 queue-type expedited\n.*queue 6 rate pir 100\n'
                                          r'.*queue 6 rate cir 100\n'])),
    ("linux", "eth0", "QOS048"),
    ("iosxr-asr9k", "HundredGigE0/0/0/0", "QOS048"),
    ("iosxr-8000", "HundredGigE0/0/0/0", "QOS048"),
    ("junos-m-series", "so-1/2/0", "QOS110"),  # no strict-high queue at all there
    ("junos-acx", "et-0/0/4", "QOS113"),  # Junos OS Evolved ACX: no transmit-rate on a strict queue (the share)
]


def policy_for(tmp_path: Path, platform: str, iface: str, cap: str = "none") -> Path:
    port = ", port-type: 1p2q2t" if platform == "catalyst6500" else ""
    text = POLICY.replace("PLATFORM", platform).replace("IFACE", iface).replace(" PORT", port)
    path = tmp_path / f"{cap.strip('%')}.yaml"
    path.write_text(textwrap.dedent(text.replace("rate-cap: none", f"rate-cap: {cap}")), encoding="utf-8")
    return path


@pytest.mark.parametrize(("platform", "iface", "expected"), TABLE, ids=[row[0] for row in TABLE])
def test_each_target_writes_an_uncapped_strict_queue_or_refuses_it_at_its_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], platform: str, iface: str,
        expected: tuple[str, list[str]] | str) -> None:
    path = policy_for(tmp_path, platform, iface)
    diagnostics = api.validate(path).diagnostics
    warned = [d for d in diagnostics if d.code == "QOS046"]
    assert [(d.location.line, d.location.column) for d in warned] == [RATE_CAP]
    assert "QOS042" not in {d.code for d in diagnostics}
    if isinstance(expected, str):  # refused: an error at the policy's own line, nothing written
        [refused] = [d for d in diagnostics if d.code == expected]
        assert refused.severity.value == "error" and refused.location.line == RATE_CAP[0], refused
        assert main(["compile", str(path), "-o", str(tmp_path / "out"), "-q", "--no-cache"]) == 1
        return
    assert not [d for d in diagnostics if d.severity.value == "error"], diagnostics
    out = tmp_path / "out"
    assert main(["compile", str(path), "-o", str(out), "-q", "--no-cache"]) == 0, capsys.readouterr()
    suffix, patterns = expected
    [written] = [p for p in out.rglob(f"*{suffix}") if ".qosc" not in p.parts]
    text = written.read_text(encoding="utf-8")
    for pattern in patterns:
        assert re.search(pattern, text), (pattern, text)
    assert not re.search(r"shaping-rate|^\s*police\b", text, re.MULTILINE)  # nothing caps it
    # read back: strict and uncapped on both sides, so the policy matches what it compiled to ...
    config = next(p for p in out.rglob("*") if p.suffix in (".conf", ".cfg") and ".qosc" not in p.parts)
    capsys.readouterr()
    assert main(["verify", str(path), "--config", f"d1={config}"]) == 0, capsys.readouterr().out
    # ... and a configuration that caps the queue is drift from it (JUNOS shaping-rate, IOS police, SR OS PIR;
    # the Catalyst priority queue has no rate of its own: there only an edge policer caps it)
    if platform == "catalyst6500":
        return
    capped = tmp_path / "capped"
    assert main(["compile", str(policy_for(tmp_path, platform, iface, "10%")), "-o", str(capped), "-q",
                 "--no-cache"]) == 0
    other = next(p for p in capped.rglob(f"*{config.suffix}") if ".qosc" not in p.parts)
    capsys.readouterr()
    assert main(["equiv", f"{platform}:{config}", f"{platform}:{other}"]) == 1
    found = capsys.readouterr()
    assert re.search(r"rate cap (\(bit/s\) )?none expected, (10%|100000000) found", found.out + found.err), found


def test_a_rate_cap_the_catalyst_priority_queue_cannot_hold_is_said_not_dropped_silently(tmp_path: Path) -> None:
    """The PFC's egress queues have weights, not rates: a strict service's own rate-cap was dropped without a word
    (the priority queue ran uncapped); now the field is told so (QOS195, a warning like QOS127's WRR-served strict
    service: the port does what it can), and `rate-cap: none` says what the port does."""
    path = policy_for(tmp_path, "catalyst6500", "GigabitEthernet1/1", "10%")
    [told] = [d for d in api.validate(path).diagnostics if d.code == "QOS195"]
    assert (told.location.line, told.severity.value) == (RATE_CAP[0], "warning")
    assert "the cap is not written" in told.message
    assert told.hint == "police the service at the edge (policer:), or say rate-cap: none"
