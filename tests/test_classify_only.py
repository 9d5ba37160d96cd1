"""`mark: false` on a classifier rule: classify the matched traffic into a service without marking it (the packets
keep their DSCP; the service picks their queue and the EXP or PCP written for them).  What each target writes or
refuses, and the checks (QOS037, QOS038).  Found on the WAN edge of Juniper's Enterprise WAN JVD (issue 22: IRB
filters set a forwarding class and mark nothing; tests/test_import_classify_only.py)."""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

import yaml

from qosc import pipeline
from tests.test_fields import BASE, compile_units, write


def _policy(rewrite: dict[tuple[str, str], list[str]]) -> dict[str, Any]:
    """The fields test's policy (a device of every platform), its rule `bulk` (into assured, af21) classify-only;
    the JUNOS interfaces named in `rewrite` (device, interface) rewrite what it says."""
    policy = copy.deepcopy(BASE)
    policy["classifiers"]["cust"]["rules"][1]["mark"] = False
    for (device, name), domains in rewrite.items():
        policy["devices"][device]["interfaces"][name]["rewrite"] = domains
    return policy


NO_DSCP_REWRITE = {("mx1", "xe-0/0/0"): [], ("mx1", "ge-0/1/0"): [], ("m1", "so-1/0/0"): [], ("m1", "ge-1/1/0"): []}


def _mark_line(path: Path) -> int:
    return next(n for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
                if line.strip() == "mark: false")


def _term(text: str, name: str) -> str:
    """The body of a JUNOS filter term (curly)."""
    start = text.index(f"term {name} {{")
    return text[start:text.index("\n            }", start)]


def test_each_target_writes_a_classify_only_rule_or_refuses_it_at_its_line(tmp_path: Path) -> None:
    """JUNOS (mx1 and m1, no interface rewriting DSCP) writes the term with the forwarding class and no DSCP
    action (JUNOS marks by rewrite rules, none here); every other target refuses the field at its line (QOS090):
    IOS MQC, Catalyst, IOS XR, SR OS and tc do not declare the field (their input policies mark; a rendering that
    keeps the DSCP, e.g. an IOS qos-group, is not built), so they refuse it rather than drop it."""
    path = write(tmp_path, "p", _policy(NO_DSCP_REWRITE))
    line = _mark_line(path)
    diags, files = compile_units(path)
    junos = files[("junos", "mx1")]
    conf = next(text for name, text in junos.items() if name.endswith(".conf"))
    bulk = _term(conf, "bulk")
    assert "forwarding-class assured;" in bulk and "dscp" not in bulk.split("then", 1)[1], bulk
    refused = {m.group(1) for d in diags if d.code == "QOS090" and "classifiers.*.rules.*.mark" in d.message
               and d.location is not None and d.location.line == line
               for m in [re.search(r"target (\S+) ", d.message)] if m}
    assert refused == {"ios-mqc", "catalyst6500", "iosxr", "sros", "linux-tc"}, \
        [d.message for d in diags if d.code == "QOS090"]
    assert not [d for d in diags if d.code == "QOS114"], [d.message for d in diags if d.code == "QOS114"]


def test_junos_refuses_mark_false_where_the_device_rewrites_the_service_dscp(tmp_path: Path) -> None:
    """mx1's core rewrites DSCP: the packets the rule leaves unmarked would leave it marked af21 (the rewrite rule
    of the forwarding class): QOS114 at the rule's `mark`, naming the interface, once (not per family)."""
    policy = _policy({**NO_DSCP_REWRITE, ("mx1", "xe-0/0/0"): ["dscp"]})
    policy["classifiers"]["cust"]["rules"][1]["match"]["destination"].append("fd00:2::/64")  # a term per family
    path = write(tmp_path, "p", policy)
    line = _mark_line(path)
    diags, _ = compile_units(path)
    found = [d for d in diags if d.code == "QOS114" and "mark: false" in d.message]
    assert len(found) == 1 and " on mx1 " in found[0].message, [d.message for d in found]
    assert found and all(d.location is not None and d.location.line == line for d in found), \
        [d.message for d in diags if d.code == "QOS114"]
    assert "xe-0/0/0" in found[0].message and "af21" in found[0].message, found[0].message


def _checked(tmp_path: Path, rule: dict[str, Any], trust: list[str]) -> list[Any]:
    policy = {
        "qosc": 1, "name": "c",
        "services": {"be": {"kind": "best-effort", "default": True, "queue": {"share": "50%"}},
                     "ctl": {"kind": "network-control", "exp": [3], "queue": {"share": "10%"}},
                     "llq": {"kind": "other", "exp": [2], "queue": {"share": "20%"}}},
        "classifiers": {"c": {"rules": [{"name": "r", "match": {"destination": ["198.18.0.0/16"]}, **rule}]}},
        "devices": {"d": {"platform": "junos-mx", "interfaces": {
            "xe-0/0/0": {"role": "core", "speed": "10G", "encapsulation": "mpls", "rewrite": ["exp"]},
            "ge-0/0/1": {"role": "edge", "speed": "1G", "classifier": "c", "trust": trust, "rewrite": []}}}},
    }
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(policy, sort_keys=False), encoding="utf-8")
    return pipeline.validate(path).diagnostics


def test_checks_of_classify_only_rules(tmp_path: Path) -> None:
    """QOS037: mark: false with set-dscp; QOS038: into a service with DSCP where an interface trusts DSCP (it
    classifies the packets by the DSCP they keep); nothing where the service has no DSCP (llq: EXP only) or no
    interface trusts DSCP."""
    codes = {d.code for d in _checked(tmp_path, {"service": "ctl", "mark": False, "set-dscp": "cs6"}, ["dscp"])}
    assert "QOS037" in codes, codes
    found = [d for d in _checked(tmp_path, {"service": "ctl", "mark": False}, ["dscp"]) if d.code == "QOS038"]
    assert len(found) == 1 and "d:ge-0/0/1" in found[0].message and "cs6" in found[0].message, found
    for rule, trust in (({"service": "llq", "mark": False}, ["dscp"]), ({"service": "ctl", "mark": False}, [])):
        codes = {d.code for d in _checked(tmp_path, rule, trust)}
        assert not codes & {"QOS037", "QOS038"}, (rule, trust, codes)


def _no_code_point(tmp_path: Path, mark: bool, platform: str = "junos-mx") -> Path:
    """A service without code points (`fixed`: kind other, no DSCP, EXP or PCP) that the one rule of an edge
    classifies everything into, with `mark` (what import lifts from a JUNOS unit with a fixed forwarding class)."""
    rule: dict[str, Any] = {"name": "fixed", "service": "fixed", **({} if mark else {"mark": False})}
    policy = {
        "qosc": 1, "name": "n",
        "services": {"be": {"kind": "best-effort", "default": True}, "fixed": {"kind": "other"}},
        "classifiers": {"c": {"rules": [rule]}},
        "devices": {"d": {"platform": platform, "interfaces": {
            "ge-0/0/1": {"role": "edge", "speed": "1G", "classifier": "c", "trust": "none", "rewrite": [],
                         "egress-queueing": "device-default"}}}},
    }
    path = tmp_path / "n.yaml"
    path.write_text(yaml.safe_dump(policy, sort_keys=False), encoding="utf-8")
    return path


def test_a_service_reached_only_by_classify_only_rules_needs_no_code_point(tmp_path: Path) -> None:
    """A rule with mark: false classifies without marking, so its service needs no code point (no QOS034): JUNOS
    writes the term's forwarding class and no class of the service in a classifier or rewrite rule; a service that
    a marking rule reaches still needs one (QOS034: there is nothing to mark), and another target refuses the
    rule's mark: false as before (QOS090)."""
    diags, files = compile_units(_no_code_point(tmp_path, mark=False))
    assert not [d for d in diags if d.is_error or d.code == "QOS034"], [d.message for d in diags]
    conf = next(text for name, text in files[("junos", "d")].items() if name.endswith(".conf"))
    term = _term(conf, "fixed")
    assert "forwarding-class fixed;" in term and "dscp" not in term.split("then", 1)[1], term
    assert "forwarding-class fixed {" not in conf, conf  # no code point: in no classifier nor rewrite rule
    codes = {d.code for d in pipeline.validate(_no_code_point(tmp_path, mark=True)).diagnostics}
    assert "QOS034" in codes, codes
    diags, _ = compile_units(_no_code_point(tmp_path, mark=False, platform="ios-xe"))
    assert any(d.code == "QOS090" and "classifiers.*.rules.*.mark" in d.message for d in diags), \
        [d.message for d in diags]
