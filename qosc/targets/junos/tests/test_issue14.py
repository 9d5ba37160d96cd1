"""Issue 14 regressions, each on the parsed statements of the output: multi-unit scheduling, names within
Juniper's limits, no silently dropped fields, router-generated traffic, IPv6 like IPv4, MX priorities."""

from __future__ import annotations

from pathlib import Path

from qosc import api
from qosc.behaviour import readback
from qosc.targets.junos.grammar import YANG
from qosc.targets.junos.plan import MAX_NAME, jname
from qosc.targets.junos.tests.statements import parse_conf, parse_set

ROOT = Path(__file__).resolve().parents[4]
GEANT = (ROOT / "policies" / "geant-lbe.yaml").read_text(encoding="utf-8")
COS = "class-of-service"

MULTI_UNIT = """\
qosc: 1
name: multi
services:
  best-effort: {kind: best-effort, default: true, queue: {share: 40%, priority: high}}
  premium: {kind: premium, dscp: [ef], queue: {share: 20%, priority: high}}
  lbe: {kind: lbe, dscp: [cs1], queue: {share: 1%, priority: low}}
  network-control: {kind: network-control, dscp: [cs6], queue: {share: 5%, priority: high}}
devices:
  r1:
    platform: PLATFORM
    interfaces:
      ge-1/1/0.100: {role: core, speed: 1G, services: [best-effort, premium, network-control]}
      ge-1/1/0.200: {role: core, speed: 1G, services: [best-effort, lbe, network-control]}
      ge-1/1/0.300: {role: core, speed: 1G, shape: 100M}
      xe-0/0/0: {role: core, speed: 10G}
"""


def compile_text(tmp_path: Path, text: str, name: str = "policy.yaml") -> tuple[api.Result, dict[str, str]]:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    result = api.validate(path)
    return result, {o.path: o.text for o in api.compile_policy(result, ["junos"])}


def test_multi_unit_interface_gets_per_unit_schedulers_on_mx(tmp_path: Path) -> None:
    result, out = compile_text(tmp_path, MULTI_UNIT.replace("PLATFORM", "junos-mx"))
    assert result.ok, [str(d) for d in result.diagnostics]
    st = parse_conf(out["junos/r1.conf"])
    assert st == parse_set(out["junos/r1.set"])
    assert ("interfaces", "ge-1/1/0", "per-unit-scheduler") in st
    maps = {s[4]: s[6] for s in st if s[:3] == (COS, "interfaces", "ge-1/1/0") and s[3] == "unit"
            and s[5] == "scheduler-map"}
    assert set(maps) == {"100", "200", "300"} and len(set(maps.values())) == 3
    assert (COS, "interfaces", "ge-1/1/0", "unit", "300", "shaping-rate", "100000000") in st
    assert not any(s[:4] == (COS, "interfaces", "ge-1/1/0", "scheduler-map") for s in st)
    # an interface with one unit keeps its map on the physical interface, without per-unit-scheduler
    assert (COS, "interfaces", "xe-0/0/0", "scheduler-map", "multi") in st
    assert not any(s[:3] == ("interfaces", "xe-0/0/0", "per-unit-scheduler") for s in st)


def test_multi_unit_interface_is_refused_on_m_series_at_the_unit(tmp_path: Path) -> None:
    text = MULTI_UNIT.replace("PLATFORM", "junos-m-series")
    result, out = compile_text(tmp_path, text)
    found = [d for d in result.diagnostics if d.code == "QOS119"]
    assert found and out == {}
    lines = {d.location.line for d in found if d.location is not None}
    assert lines == {i for i, line in enumerate(text.splitlines(), 1) if "ge-1/1/0.200" in line
                     or "ge-1/1/0.300" in line}


def test_the_old_one_leaf_per_unit_output_is_what_the_grammar_refuses() -> None:
    from qosc.tree import Document, name, stmt
    doc = Document("t", "junos", (stmt("class-of-service", children=[stmt("interfaces", children=[
        stmt(name("ge-1/1/0"), children=[stmt("scheduler-map", name("a")), stmt("scheduler-map", name("b"))])])]),))
    assert all(any("keeps the last" in v.message for v in g.check(doc)) for g in YANG)


LONG = "a" * 60 + "xyz"  # 63 characters: the longest name the schema allows


def long_names() -> str:
    return f"""\
qosc: 1
name: {LONG}
services:
  best-effort: {{kind: best-effort, default: true, queue: {{share: 40%, priority: high}}, policer: {LONG}}}
  {LONG}: {{kind: premium, dscp: [ef], queue: {{share: 20%, priority: high}}, policer: {LONG}}}
  network-control: {{kind: network-control, dscp: [cs6], queue: {{share: 5%, priority: high}}}}
policers:
  {LONG}: {{cir: 10M, cbs: 64KB, exceed: drop}}
classifiers:
  {LONG}:
    rules:
      - {{name: {LONG}, match: {{protocol: [udp]}}, service: {LONG}}}
      - {{name: {LONG[:-1]}b, match: {{protocol: [tcp]}}, service: {LONG}}}
devices:
  r1:
    platform: junos-mx
    interfaces:
      ge-0/0/0: {{role: edge, speed: 1G, classifier: {LONG}}}
      ge-0/0/1: {{role: edge, speed: 1G, trust: dscp}}
      ge-0/0/2: {{role: core, speed: 1G, services: [best-effort, network-control]}}
      xe-0/0/0: {{role: core, speed: 10G}}
"""


def test_derived_names_stay_within_junos_limits_and_are_stable(tmp_path: Path) -> None:
    result, out = compile_text(tmp_path, long_names())
    assert result.ok, [str(d) for d in result.diagnostics if d.is_error]
    st = parse_conf(out["junos/r1.conf"])
    named = {s[3] for s in st if s[:2] in ((COS, "classifiers"), (COS, "rewrite-rules"))}
    named |= {s[2] for s in st if s[:2] == (COS, "scheduler-maps")}
    named |= {s[4] for s in st if s[:2] == ("firewall", "family")}
    named |= {s[6] for s in st if s[:2] == ("firewall", "family") and len(s) > 6 and s[5] == "term"}
    assert len(named) >= 6
    assert all(len(n) <= MAX_NAME and not n.startswith("__") for n in named), sorted(named)
    assert any(n != LONG and n.startswith(LONG[:40]) and n[-9] == "-" for n in named)  # cut, hash-suffixed
    _, again = compile_text(tmp_path, long_names(), "again.yaml")
    assert again == out


def test_jname_never_starts_a_name_with_two_underscores() -> None:
    assert jname("__x") == "q__x" and jname("a.b") == "a-b"


def test_ecn_is_reported_and_aqm_rendered_or_refused(tmp_path: Path) -> None:
    """ecn: QOS090 at its line (not rendered). aqm: red is best-effort's drop-profile-map, none a scheduler without
    one (Junos' default profile: tail drop), codel QOS113 at its line; none of them is dropped silently."""
    be = "queue: {share: 5%, buffer: 5%, priority: high}\n    drop-profile: be"
    assert GEANT.count(be) == 1
    result, _ = compile_text(tmp_path, GEANT.replace(be, be.replace("high}", "high, ecn: true}")), "ecn.yaml")
    assert {d.message.split("'")[1] for d in result.diagnostics if d.code == "QOS090"} == {"ecn"}
    schedule = (COS, "schedulers", "best-effort", "drop-profile-map", "loss-priority", "any", "protocol", "any",
                "drop-profile", "be")
    for aqm, mapped in (("red", True), ("none", False)):
        result, out = compile_text(tmp_path, GEANT.replace(be, be.replace("high}", f"high, aqm: {aqm}}}")),
                                   f"{aqm}.yaml")
        assert result.ok and not [d for d in result.diagnostics if d.code == "QOS090"], result.diagnostics
        st = parse_conf(out["junos/de1.de.conf"])
        assert (schedule in st) is mapped, aqm
        assert ((COS, "drop-profiles", "be", "interpolate", "fill-level", "15") in st
                or any(x[:3] == (COS, "drop-profiles", "be") for x in st)) is mapped  # defined only where used
    result, _ = compile_text(tmp_path, GEANT.replace(be, be.replace("high}", "high, aqm: codel}")), "codel.yaml")
    (d,) = [d for d in result.diagnostics if d.code == "QOS113"]
    assert "codel" in d.message and d.location is not None and d.location.line == 18


def test_router_traffic_goes_to_network_control_or_the_default_class(tmp_path: Path) -> None:
    _, out = compile_text(tmp_path, GEANT)
    assert (COS, "host-outbound-traffic", "forwarding-class", "network-control") in parse_conf(out["junos/de1.de.conf"])
    without = GEANT.replace("  network-control:\n    kind: network-control\n    description: Routing protocols\n"
                            "    dscp: [cs6, cs7]\n    queue: {share: 5%, buffer: 5%, priority: high}\n", "")
    assert without != GEANT
    result, out = compile_text(tmp_path, without, "without.yaml")
    assert result.ok, [str(d) for d in result.diagnostics if d.is_error]
    st = parse_conf(out["junos/de1.de.conf"])
    assert (COS, "host-outbound-traffic", "forwarding-class", "best-effort") in st


def test_ipv6_is_classified_marked_and_policed_like_ipv4(tmp_path: Path) -> None:
    _, out = compile_text(tmp_path, GEANT)  # no IPv6 prefix anywhere in the policy
    st = parse_conf(out["junos/de1.de.conf"])
    unit = (COS, "interfaces", "so-1/2/0", "unit", "0")
    assert unit + ("classifiers", "dscp-ipv6", "geant-lbe-ipv6") in st
    assert unit + ("rewrite-rules", "dscp-ipv6", "geant-lbe-ipv6") in st
    assert (COS, "classifiers", "dscp-ipv6", "geant-lbe-ipv6", "forwarding-class", "ip-premium", "loss-priority",
            "low", "code-points", "ef") in st
    result = api.validate(ROOT / "policies" / "assured-rate.yaml")
    text = (ROOT / "policies" / "assured-rate.yaml").read_text(encoding="utf-8").replace(
        "ge-0/0/1: {profile: site-edge, description: customer site A}",
        "ge-0/0/1: {profile: site-edge, description: customer site A, trust: dscp}")
    result, out = compile_text(tmp_path, text, "trusted.yaml")
    assert result.ok, [str(d) for d in result.diagnostics if d.is_error]
    st = parse_conf(out["junos/edge-mx.conf"])
    v6 = ("firewall", "family", "inet6", "filter", "site-in-dscp", "term", "police-ip-premium")
    assert v6 + ("from", "traffic-class", "ef") in st and v6 + ("then", "policer", "premium-in") in st
    assert ("interfaces", "ge-0/0/1", "unit", "0", "family", "inet6", "filter", "input", "site-in-dscp") in st


def test_mx_writes_the_policy_priority_as_guaranteed_and_excess_priority(tmp_path: Path) -> None:
    _, out = compile_text(tmp_path, GEANT.replace("platform: junos-m-series", "platform: junos-mx"))
    st = parse_conf(out["junos/de1.de.conf"])
    assert (COS, "schedulers", "lbe", "priority", "low") in st
    assert (COS, "schedulers", "lbe", "excess-priority", "low") in st
    assert (COS, "schedulers", "best-effort", "excess-priority", "high") in st
    _, out = compile_text(tmp_path, GEANT, "m.yaml")
    assert not any("excess-priority" in s for s in parse_conf(out["junos/de1.de.conf"]))


def test_router_traffic_class_is_read_back_and_its_drift_found(tmp_path: Path) -> None:
    """The reader warned QOS172 ('not read') on qosc's own host-outbound-traffic; now it reads the class, and
    verify reports a box whose routing traffic went to another class (here the 0% scavenger queue)."""
    path = tmp_path / "geant.yaml"
    path.write_text(GEANT, encoding="utf-8")
    _, out = compile_text(tmp_path, GEANT, "geant.yaml")
    conf = tmp_path / "de1.de.conf"
    conf.write_text(out["junos/de1.de.conf"], encoding="utf-8")
    run = readback.verify(str(path), {"de1.de": str(conf)})
    assert not [d for d in run.diagnostics if d.code == "QOS172"], run.diagnostics
    assert not run.findings, run.findings
    drifted = out["junos/de1.de.conf"].replace("forwarding-class network-control;\n    }",
                                                 "forwarding-class lbe;\n    }", 1)
    assert drifted != out["junos/de1.de.conf"]
    conf.write_text(drifted, encoding="utf-8")
    (finding,) = readback.verify(str(path), {"de1.de": str(conf)}).findings
    assert (finding.subject, finding.expected, finding.found) == ("router-generated traffic", "network-control", "lbe")
    assert finding.found_at is not None and drifted.splitlines()[finding.found_at.line - 1].strip() == \
        "forwarding-class lbe;"
