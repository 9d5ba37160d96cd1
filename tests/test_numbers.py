"""Issue 18: numbers pass only in ASCII digits, finite and inside their documented ranges; prefixes carry no zone id.

Python's int() and float() accept Unicode digits (Arabic-Indic 17 is 17, a superscript two passes
str.isdigit()), 'nan', 'Infinity' and 1e308; each of those reached a target before (an IOS ACL with
Arabic-Indic digits, a traceback in the ios-gsr WRED thresholds, a zone id written verbatim to JUNOS).
Each is now a located diagnostic with a hint.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import codes

from qosc import api
from qosc.diagnostics import Diagnostic

EDGE = """\
qosc: 1
name: n
services:
  best-effort: {kind: best-effort, default: true, queue: {share: 40%, buffer: 40%, priority: high}, drop-profile: be}
  assured: {kind: assured, dscp: [af21], queue: {share: 40%, buffer: 40%, priority: high}, drop-profile: red}
drop-profiles:
  be: {points: [[50, 10], [90, 100]]}
  red: {min: 20, max: 60, max-probability: 20%}
classifiers:
  site-in:
    rules:
      - {name: r1, match: {source: [198.18.20.0/24], protocol: [udp], destination-port: [5004]}, service: assured}
profiles:
  edge-1g: {role: edge, speed: 1G, classifier: site-in, port-type: 1p7q8t}
devices:
  mx1: {platform: junos-mx, interfaces: {xe-0/0/0: {profile: edge-1g}}}
  gsr1: {platform: ios-gsr, interfaces: {POS0/0: {role: core, speed: 10G}}}
  xe1: {platform: ios-xe, interfaces: {GigabitEthernet0/0/0: {profile: edge-1g}}}
  cat1: {platform: catalyst6500, interfaces: {GigabitEthernet3/1: {profile: edge-1g}}}
  lx1: {platform: linux, interfaces: {eth0: {profile: edge-1g}}}
"""


def run(tmp_path: Path, text: str) -> list[Diagnostic]:
    path = tmp_path / "p.yaml"
    path.write_text(text, encoding="utf-8")
    result = api.validate(path)
    if result.ok:
        api.compile_policy(result)
    assert not [d for d in result.diagnostics if d.code == "QOS199"], result.diagnostics
    return result.diagnostics


def test_base_policy_compiles(tmp_path: Path) -> None:
    assert not [d for d in run(tmp_path, EDGE) if d.is_error]


@pytest.mark.parametrize("value", ['"\u00b2"', '"\u0661\u0667"', '"\uff11\uff17"', '" 17"', '"+17"', '"1_7"', "256",
                                   "-1"])
def test_protocol_numbers_only_in_ascii_digits(tmp_path: Path, value: str) -> None:
    diags = run(tmp_path, EDGE.replace("protocol: [udp]", f"protocol: [{value}]"))
    [d] = [d for d in diags if d.is_error]
    assert d.code == "QOS015" and d.location is not None and d.location.line == 12
    assert "ASCII digits" in (d.hint or "")


def test_ascii_protocol_number_still_compiles(tmp_path: Path) -> None:
    text = EDGE.replace("protocol: [udp], destination-port: [5004]", 'protocol: ["047"]')
    assert not [d for d in run(tmp_path, text) if d.is_error]


@pytest.mark.parametrize("value", ['"\u0665\u0660\u0660\u0664"', '"5004-\u0665\u0660\u0660\u0666"',
                                   '"\uff15\uff10\uff10\uff14"', '" 5004"', '"+5004"', '"5_004"', "65536"])
def test_ports_only_in_ascii_digits(tmp_path: Path, value: str) -> None:
    diags = run(tmp_path, EDGE.replace("destination-port: [5004]", f"destination-port: [{value}]"))
    [d] = [d for d in diags if d.is_error]
    assert d.code == "QOS015" and d.location is not None and d.location.line == 12
    assert "ASCII digits" in (d.hint or "")


@pytest.mark.parametrize("prefix", ["fe80::1%eth0/128", "fe80::%1/64", "fd00::1%25x/128"])
def test_ipv6_zone_id_refused(tmp_path: Path, prefix: str) -> None:
    diags = run(tmp_path, EDGE.replace("source: [198.18.20.0/24]", f'source: ["{prefix}"]'))
    [d] = [d for d in diags if d.is_error]
    assert d.code == "QOS015" and "zone id" in d.message and d.location is not None and d.location.line == 12


@pytest.mark.parametrize(("old", "new"), [
    ("[[50, 10], [90, 100]]", "[[1e308, 10], [90, 100]]"),
    ("[[50, 10], [90, 100]]", "[[50, 10], [90, -1e308]]"),
    ("[[50, 10], [90, 100]]", "[[50, 10], [1000, 100]]"),
    ("min: 20,", "min: Infinity,"),
    ("min: 20,", "min: .inf,"),
    ("max: 60,", 'max: "nan",'),
    ("max: 60,", "max: .nan,"),
    ("max-probability: 20%", "max-probability: 1e308"),
    ("max-probability: 20%", 'max-probability: "\u0662\u0660%"'),
    ("max-probability: 20%", 'max-probability: "-5%"'),
])
def test_non_finite_or_huge_drop_profile_values_refused_before_any_target(tmp_path: Path, old: str, new: str) -> None:
    text = EDGE.replace(old, new)
    diags = run(tmp_path, text)
    errors = [d for d in diags if d.is_error]
    assert errors and {d.code for d in errors} <= {"QOS009", "QOS013"}, codes(diags)
    line = next(i for i, row in enumerate(text.splitlines(), 1) if new in row)
    assert all(d.location is not None and d.location.line == line for d in errors)
    assert all("percentage" in (d.hint or "") or d.code == "QOS009" for d in errors)


def test_percent_above_100_is_still_the_drop_profile_check(tmp_path: Path) -> None:
    diags = run(tmp_path, EDGE.replace("max-probability: 20%", 'max-probability: "150%"'))
    assert "QOS070" in codes(diags)
