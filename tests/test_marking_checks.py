"""The MPLS EXP and 802.1p PCP checks (qosc/checks/marking.py): one test each, with the located diagnostic."""

from __future__ import annotations

from pathlib import Path

from helpers import codes, texts, validate_text

from qosc import api
from qosc.model import Domain

MPLS = """\
qosc: 1
name: m
services:
  best-effort:
    kind: best-effort
    default: true
    exp: [0]
    pcp: [0]
    queue: {share: 40%, priority: high}
  ip-premium:
    kind: premium
    exp: [5]
    pcp: [5]
    queue: {share: 10%, priority: high, strict: true, rate-cap: 10%}
  assured:
    kind: assured
    dscp: [af21, af22, af23]
    exp: {low: [2], medium: [1], high: [1]}
    pcp: {low: [2], medium: [2], high: [2]}
    queue: {share: 30%, priority: high}
  lbe:
    kind: lbe
    exp: [3]
    pcp: [1]
    queue: {share: 1%, priority: low}
  network-control:
    kind: network-control
    exp: [6, 7]
    pcp: [6, 7]
    queue: {share: 5%, priority: high}
devices:
  pe1:
    platform: junos-mx
    interfaces:
      ge-0/0/1: {role: edge, speed: 1G, trust: dscp}
      xe-0/0/0: {role: core, speed: 10G, encapsulation: mpls}
  p1:
    platform: junos-mx
    interfaces:
      xe-0/0/0: {role: core, speed: 10G, encapsulation: mpls}
      xe-0/0/1: {role: core, speed: 10G, encapsulation: [mpls, vlan]}
"""

MARKING = {"QOS083", "QOS084", "QOS085", "QOS086", "QOS087", "QOS088", "QOS089", "QOS096", "QOS097"}


def marking(diags):
    return [d for d in diags if d.code in MARKING]


def only(diags, code):
    found = [d for d in diags if d.code == code]
    assert found, f"expected {code}, got {codes(diags)}"
    return found


def test_the_mpls_policy_is_clean_of_marking_findings(tmp_path: Path) -> None:
    assert marking(validate_text(tmp_path, MPLS)) == []


def test_the_model_has_each_domain(tmp_path: Path) -> None:
    (tmp_path / "m.yaml").write_text(MPLS)
    policy = api.validate(tmp_path / "m.yaml").policy
    assert policy is not None
    af = policy.service_map["assured"]
    assert af.codes(Domain.EXP) == (2, 1)
    assert [af.mark_in(Domain.EXP, p) for p in (1, 2, 3)] == [2, 1, 1]
    assert [af.mark_in(Domain.DSCP, p) for p in (1, 2, 3)] == [18, 20, 22]
    assert af.pcp.precedences() == (1, 2, 3)
    pe = policy.device_map["pe1"]
    edge, core = pe.interfaces
    assert (edge.trust, edge.rewrite, edge.impose) == ((Domain.DSCP,), (Domain.DSCP,), True)
    assert (core.trust, core.rewrite, core.impose) == ((Domain.DSCP, Domain.EXP), (Domain.DSCP, Domain.EXP), False)
    trunk = policy.device_map["p1"].interfaces[1]
    assert trunk.encapsulation == ("mpls", "vlan")
    assert trunk.trust == (Domain.DSCP, Domain.EXP, Domain.PCP)


def test_qos036_two_services_on_one_exp_value(tmp_path: Path) -> None:
    text = MPLS.replace("    exp: [6, 7]\n", "    exp: [5, 7]\n")
    [d] = only(validate_text(tmp_path, text), "QOS083")
    assert texts([d], tmp_path) == [
        "T/p.yaml:28:10: error[QOS083]: EXP 5 is claimed by services 'ip-premium' and 'network-control', which do "
        "not share a queue\n  hint: give one of them another EXP value, or carry 'network-control' in "
        "'ip-premium''s queue (queue.shared-with) if it may share it"]


def test_qos036_not_for_services_sharing_a_queue(tmp_path: Path) -> None:
    text = MPLS.replace("    exp: [6, 7]\n    pcp: [6, 7]\n    queue: {share: 5%, priority: high}\n",
                        "    exp: [5]\n    pcp: [5]\n    queue: {shared-with: ip-premium}\n")
    assert "QOS083" not in codes(validate_text(tmp_path, text))


def test_qos037_more_queues_than_eight_values(tmp_path: Path) -> None:
    extra = "".join(f"  s{i}:\n    dscp: [cs{i % 6 + 2}]\n    exp: [{i % 8}]\n"
                    "    queue: {share: 1%, priority: medium-low}\n" for i in range(5))
    text = MPLS.replace("devices:\n", extra + "devices:\n")
    found = only(validate_text(tmp_path, text), "QOS084")
    assert found[0].message == "pe1:xe-0/0/0 classifies on EXP and schedules 10 queues, but EXP has eight values"
    assert "s0 and s1 and s2 and s3 and s4 (priority medium-low)" in (found[0].hint or "")


def test_qos038_lbe_on_best_efforts_value(tmp_path: Path) -> None:
    text = MPLS.replace("    exp: [3]\n", "    exp: [0]\n")
    [d] = only(validate_text(tmp_path, text), "QOS085")
    assert d.message.startswith("LBE service 'lbe' is carried as EXP 0, the value of best effort 'best-effort'")
    assert (d.location.line, d.location.column) == (23, 10)


def test_qos038_lbe_without_exp_over_mpls(tmp_path: Path) -> None:
    text = MPLS.replace("    exp: [3]\n", "")
    [d] = only(validate_text(tmp_path, text), "QOS085")
    assert d.message == ("LBE service 'lbe' has no EXP value but is carried over MPLS interfaces: there it falls "
                         "into best effort's class and is rewritten to best effort's EXP")


def test_qos039_af_precedences_collapse_in_exp(tmp_path: Path) -> None:
    text = MPLS.replace("    exp: {low: [2], medium: [1], high: [1]}\n", "    exp: [2]\n")
    [d] = only(validate_text(tmp_path, text), "QOS086")
    assert d.message == ("service 'assured': af22, af23 travel as EXP 2 with drop precedence low, like its "
                         "in-contract traffic: in the MPLS core WRED cannot drop them first")
    assert d.severity.value == "warning"


def test_qos039_pcp_with_dei_keeps_the_precedence(tmp_path: Path) -> None:
    diags = validate_text(tmp_path, MPLS)
    assert not [d for d in diags if d.code == "QOS086" and "PCP" in d.message]
    text = MPLS.replace("    pcp: {low: [2], medium: [2], high: [2]}\n", "    pcp: [2]\n")
    assert [d for d in validate_text(tmp_path, text) if d.code == "QOS086" and "PCP" in d.message]


def test_qos083_core_rewrite_bleaches_a_service(tmp_path: Path) -> None:
    text = MPLS.replace("    exp: [5]\n", "")
    found = only(validate_text(tmp_path, text), "QOS087")
    assert found[0].message == ("service 'ip-premium' has no EXP value, so pe1:xe-0/0/0 rewrites its EXP to the "
                                "default's (0): the next hop queues it as best effort")


def test_qos083_core_rewrite_of_a_service_it_does_not_schedule(tmp_path: Path) -> None:
    text = MPLS.replace("xe-0/0/1: {role: core, speed: 10G, encapsulation: [mpls, vlan]}",
                        "xe-0/0/1: {role: core, speed: 10G, encapsulation: mpls, "
                        "services: [best-effort, assured, lbe, network-control]}")
    [d] = only(validate_text(tmp_path, text), "QOS087")
    assert d.message == ("p1:xe-0/0/1 does not schedule 'ip-premium' but rewrites EXP: its EXP 5 leaves as the "
                         "default's (0), and the next hop queues it as best effort")
    kept = text.replace("encapsulation: mpls, services:", "encapsulation: mpls, role: transparent, services:")
    kept = kept.replace("xe-0/0/1: {role: core, ", "xe-0/0/1: {")
    assert "QOS087" not in codes(validate_text(tmp_path, kept))


def test_qos087_classified_as_default_where_not_rewritten(tmp_path: Path) -> None:
    text = MPLS.replace("    exp: [5]\n", "").replace("encapsulation: mpls}", "encapsulation: mpls, rewrite: [dscp]}")
    text = text.replace("encapsulation: [mpls, vlan]}", "encapsulation: [mpls, vlan], rewrite: [pcp]}")
    diags = validate_text(tmp_path, text)
    assert "QOS087" not in codes(diags)
    assert only(diags, "QOS097")[0].message == ("service 'ip-premium' has no EXP value: pe1:xe-0/0/0 classifies "
                                                "its MPLS traffic into the default service")


def test_qos084_edge_imposes_what_the_core_does_not_schedule(tmp_path: Path) -> None:
    four = "services: [best-effort, ip-premium, lbe, network-control]}"
    text = MPLS.replace("encapsulation: mpls}", f"encapsulation: mpls, {four}").replace(
        "encapsulation: [mpls, vlan]}", f"encapsulation: [mpls, vlan], {four}")
    [d] = only(validate_text(tmp_path, text), "QOS088")
    assert d.message == ("pe1:ge-0/0/1 imposes EXP 2 for 'assured', which no MPLS core interface schedules "
                         "(pe1:xe-0/0/0, p1:xe-0/0/0, p1:xe-0/0/1): in the core it is queued as the default service")
    partly = MPLS.replace("      xe-0/0/0: {role: core, speed: 10G, encapsulation: mpls}\n      xe-0/0/1",
                          f"      xe-0/0/0: {{role: core, speed: 10G, encapsulation: mpls, {four}\n      xe-0/0/1")
    assert "QOS088" not in codes(validate_text(tmp_path, partly))


def test_qos085_box_default_copies_precedence(tmp_path: Path) -> None:
    text = MPLS.replace("  pe1:\n    platform: junos-mx\n", "  pe1:\n    platform: ios-xe\n").replace(
        "ge-0/0/1: {role: edge, speed: 1G, trust: dscp}", "ge-0/0/1: {role: edge, speed: 1G, trust: dscp, "
        "impose: false}").replace("kind: lbe\n", "kind: lbe\n    dscp: [cs1]\n").replace(
        "dscp: [af21, af22, af23]", "dscp: [af11, af12, af13]")
    [d] = only(validate_text(tmp_path, text), "QOS089")
    assert d.message == ("pe1:ge-0/0/1 leaves EXP to ios-xe's default, which copies IP precedence: 'assured' and "
                         "'lbe' all enter the MPLS network as EXP 1 and share one class in the core")


def test_qos086_domain_on_an_interface_that_does_not_carry_it(tmp_path: Path) -> None:
    text = MPLS.replace("ge-0/0/1: {role: edge, speed: 1G, trust: dscp}",
                        "ge-0/0/1: {role: edge, speed: 1G, trust: [dscp, pcp]}")
    [d] = only(validate_text(tmp_path, text), "QOS096")
    assert d.message == "pe1:ge-0/0/1 trusts PCP but carries no vlan"
    assert d.hint == "add encapsulation: vlan, or remove pcp from trust"
    text = MPLS.replace("xe-0/0/1: {role: core, speed: 10G, encapsulation: [mpls, vlan]}",
                        "xe-0/0/1: {role: core, speed: 10G, impose: true}")
    assert "imposes EXP but is a core interface" in only(validate_text(tmp_path, text), "QOS096")[0].message


def test_a_service_with_exp_and_no_dscp_is_valid(tmp_path: Path) -> None:
    text = MPLS.replace("  lbe:\n", "  l2vpn:\n    kind: other\n    exp: [4]\n    queue: {share: 5%}\n  lbe:\n")
    diags = validate_text(tmp_path, text)
    assert "QOS034" not in codes(diags)
