"""Behaviour in the 3-bit marking domains: what a policy asks of EXP and PCP, and compare finding each change."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from qosc import api
from qosc.behaviour import intent
from qosc.behaviour.compare import compare
from qosc.model import Policy

POLICY = """\
qosc: 1
name: m
services:
  best-effort: {kind: best-effort, default: true, queue: {share: 40%, priority: high}}
  premium: {kind: premium, exp: [5], pcp: [5], queue: {share: 10%, priority: high, strict: true, rate-cap: 10%}}
  assured:
    kind: assured
    dscp: [af21, af22, af23]
    exp: {low: [2], high: [1]}
    queue: {share: 30%, priority: high}
  lbe: {kind: lbe, exp: [3], pcp: [1], queue: {share: 1%, priority: low}}
devices:
  pe1:
    platform: junos-mx
    interfaces:
      ge-0/0/1: {role: edge, speed: 1G, trust: dscp}
      xe-0/0/0: {role: core, speed: 10G, encapsulation: [mpls, vlan]}
"""


@pytest.fixture(scope="module")
def policy(tmp_path_factory: pytest.TempPathFactory) -> Policy:
    path = tmp_path_factory.mktemp("m") / "m.yaml"
    path.write_text(POLICY)
    found = api.validate(path).policy
    assert found is not None
    return found


def test_intent_classifies_each_exp_and_pcp_value(policy: Policy) -> None:
    edge, core = intent.device(policy, policy.device_map["pe1"]).interfaces
    assert core.classify_exp == (("best-effort", 1), ("assured", 3), ("assured", 1), ("lbe", 1),
                                 ("best-effort", 1), ("premium", 1), ("best-effort", 1), ("best-effort", 1))
    assert core.classify_pcp[1] == ("lbe", 1) and core.classify_pcp[5] == ("premium", 1)
    assert core.classify_pcp[2] == ("best-effort", 1)  # assured has no PCP: its tagged frames are best effort
    assert edge.classify_exp == (None,) * 8  # an IP edge does not classify on EXP
    assert core.marked("exp") == {("assured", 1): 2, ("assured", 2): 2, ("assured", 3): 1,
                                  ("best-effort", 1): 0, ("best-effort", 2): 0, ("best-effort", 3): 0,
                                  ("lbe", 1): 3, ("lbe", 2): 3, ("lbe", 3): 3,
                                  ("premium", 1): 5, ("premium", 2): 5, ("premium", 3): 5}
    assert ("assured", 1) not in core.marked("pcp")
    assert edge.marked("impose")[("premium", 1)] == 5 and not edge.marked("exp")


def test_compare_names_each_change_in_the_3_bit_domains(policy: Policy) -> None:
    want = intent.device(policy, policy.device_map["pe1"])
    edge, core = want.interfaces
    moved = list(core.classify_exp)
    moved[5] = ("lbe", 1)
    marks = tuple((d, c, p, 6 if (d, c) == ("pcp", "premium") else v) for d, c, p, v in core.marks)
    got = dataclasses.replace(want, interfaces=(
        dataclasses.replace(edge, marks=tuple(m for m in edge.marks if m[0] != "impose")),
        dataclasses.replace(core, classify_exp=tuple(moved), marks=marks)))
    found = {(f.interface, f.subject, f.what, f.expected, f.found) for f in compare(want, got)}
    assert ("xe-0/0/0", "EXP 5", "classified to", "premium", "lbe") in found
    assert ("xe-0/0/0", "premium (drop precedence 1)", "PCP rewrite to", "5", "6") in found
    assert ("ge-0/0/1", "EXP imposition", "is", "present", "absent") in found
    assert compare(want, want) == []


def test_an_exp_only_class_is_matched_by_its_values(policy: Policy, tmp_path: Path) -> None:
    """An MPLS core that classifies on EXP alone (no DSCP classifier) still pairs its classes by EXP values."""
    want = intent.device(policy, policy.device_map["pe1"])
    core = want.interfaces[1]
    renamed = {"premium": "ef-fc", "lbe": "scavenger", "assured": "af-fc", "best-effort": "be-fc"}
    got_core = dataclasses.replace(
        core, classify=((None,) * 64, (None,) * 64), rewrite=((None,) * 64, (None,) * 64),
        classes=tuple(dataclasses.replace(c, name=renamed[c.name]) for c in core.classes),
        classify_exp=tuple((renamed[c], p) if c else None for c, p in (x or (None, 0) for x in core.classify_exp)),
        classify_pcp=tuple((renamed[c], p) if c else None for c, p in (x or (None, 0) for x in core.classify_pcp)),
        marks=tuple((d, renamed[c], p, v) for d, c, p, v in core.marks))
    found = compare(dataclasses.replace(want, interfaces=(core,)),
                    dataclasses.replace(want, interfaces=(got_core,), host_class="be-fc"))
    assert found == []
