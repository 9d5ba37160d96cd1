"""Issue 26 on JUNOS: QOS114 and QOS115 hints that say what is true of the class the code point lands in."""

from __future__ import annotations

from pathlib import Path

from qosc import api

SHARED = """\
qosc: 1
name: q114
services:
  be: {kind: best-effort, default: true, queue: {share: 50%, buffer: 50%, priority: high}}
  gold: {kind: assured, dscp: [af21], queue: {share: 40%, buffer: 40%, priority: high}}
  silver: {kind: assured, dscp: [cs2], queue: {shared-with: gold}}
  nc: {kind: network-control, queue: {share: 5%, buffer: 5%, priority: high}}
classifiers:
  in:
    rules:
      - name: s
        match: {source: [198.18.0.0/24]}
        service: silver
devices:
  mx:
    platform: PLATFORM
    interfaces:
      ge-0/0/0: {role: edge, speed: 1G, classifier: in}
      xe-0/0/1: {role: core, speed: 10G}
"""


def _diagnostics(tmp_path: Path, platform: str) -> dict[str, list]:
    path = tmp_path / f"{platform}.yaml"
    path.write_text(SHARED.replace("PLATFORM", platform), encoding="utf-8")
    result = api.validate(path)
    found: dict[str, list] = {}
    for d in result.diagnostics:
        found.setdefault(d.code, []).append(d)
    return found


def test_qos114_hint_when_the_service_already_marks_its_first_code_point(tmp_path: Path) -> None:
    """The hint said "mark the service's first code point" to a rule that does, and "loss priorities ... only"
    while three of MX's four are unused in the class."""
    found = _diagnostics(tmp_path, "junos-mx")
    [q114] = found["QOS114"]
    assert q114.message == ("service 'silver' marks cs2 on mx, but JUNOS cannot carry that code point to the "
                            "rewrite rule intact")
    assert q114.hint == (
        "'silver' marks its first code point already: cs2 gets loss priority low in forwarding class gold, where the "
        "rewrite rule writes af21; medium-low, medium-high, high are free there, but a class that holds AF code "
        "points takes each code point's loss priority from its drop precedence (cs2 counts as 1); give 'silver' a "
        "queue of its own (no shared-with), or classify into 'gold'")
    [q115] = found["QOS115"]
    assert q115.hint == (
        "medium-low, medium-high, high are free in forwarding class gold, but a class that holds AF code points "
        "takes each code point's loss priority from its drop precedence (cs2 counts as 1); give the code point its "
        "own service, or make those interfaces transparent")


def test_qos114_hint_on_m_series_names_the_loss_priority_left_free(tmp_path: Path) -> None:
    found = _diagnostics(tmp_path, "junos-m-series")
    [q114] = found["QOS114"]
    assert q114.hint == (
        "'silver' marks its first code point already: cs2 gets loss priority low in forwarding class gold, where the "
        "rewrite rule writes af21; high is free there, but a class that holds AF code points takes each code point's "
        "loss priority from its drop precedence (cs2 counts as 1); give 'silver' a queue of its own (no "
        "shared-with), or classify into 'gold'")
