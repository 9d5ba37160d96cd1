"""The MPLS EXP and 802.1p marking domains on SR OS, both ways: the reference backbone on a 7750 (what the network
policies, SAP policies and router interfaces say), its read-back per domain, its equivalence with the JUNOS
output, the tunnel models, the imposition, the DE bit, and each refusal at its line."""

from __future__ import annotations

import copy
import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from qosc import pipeline
from qosc.behaviour import readback
from qosc.behaviour.roundtrip import drift, load, outputs
from qosc.diagnostics import Diagnostic
from qosc.targets.sros.tests.backbone import COMMITTED, NAMES, ROOT, sros_backbone

BACKBONE = "qosc/targets/sros/tests/policies/mpls-backbone-sros.yaml"
PE_NET = '/configure qos network "mpls-backbone" '
PE, UPLINK, IP_SAP, VLAN_SAP = "pe-mx", "to-p-mx:1/1/c1/1", "vprn:cust-a:to-a:1/1/1", "vpls:cust-b:1/1/2:100"


def _flat(policy_path: str, device: str) -> list[str]:
    text = next(o.text for o in outputs(load(policy_path), device) if o.path.endswith(".flat"))
    return [line for line in text.splitlines() if not line.startswith("#")]


def _compile(tmp_path: Path, data: dict[str, Any]) -> tuple[list[Diagnostic], dict[str, list[str]]]:
    """(diagnostics, device -> flat lines) of a policy, every device rendered that has no error (and accepted by
    the grammar)."""
    path = tmp_path / "p.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    result = pipeline.validate(path)
    assert result.policy is not None, result.diagnostics
    found, flat = list(result.diagnostics), {}
    for target, unit in pipeline.select(result.policy):
        diags, lowered = pipeline.lower(target, result.policy, unit)
        found += [d for d in diags if d not in found]
        if lowered is not None and not any(d.is_error for d in diags):
            rendered, problems = pipeline.render(target, result.policy, unit, lowered)
            assert problems == [], problems  # every statement accepted by the YANG facts of both releases
            text = next(o.text for o in rendered if o.path.endswith(".flat"))
            flat[unit.name] = [line for line in text.splitlines() if not line.startswith("#")]
    return found, flat


def _backbone(**changes: Any) -> dict[str, Any]:
    data = copy.deepcopy(sros_backbone())
    data.update(changes)
    return data


def _iface(data: dict[str, Any], device: str, name: str) -> dict[str, Any]:
    body: dict[str, Any] = data["devices"][device]["interfaces"][name]
    return body


def _only(found: list[Diagnostic], code: str) -> list[Diagnostic]:
    return [d for d in found if d.code == code]


LEAVES = ("qos/network/ingress/lsp-exp/profile", "qos/network/ingress/dot1p/profile",
          "qos/network/ingress/ler-use-dscp", "qos/network/egress/fc/lsp-exp-out-profile",
          "qos/network/egress/fc/dot1p-in-profile",
          "qos/network/egress/fc/de-mark", "qos/sap-ingress/dot1p/priority", "qos/sap-ingress/lsp-exp/fc",
          "qos/sap-ingress/fc/de-1-out-profile", "qos/sap-egress/fc/dot1p/out-profile", "qos/sap-egress/fc/de-mark",
          "router/interface/port")


@pytest.mark.parametrize("release", ["26.3", "25.10"])
def test_every_leaf_the_marking_domains_write_is_in_the_derived_facts(release: str) -> None:
    """The derivation (scripts/derive-sros-grammar) already takes the qos subtree whole: nothing to extend."""
    tree = json.loads((ROOT / "qosc/targets/sros/yang" / f"sros-{release}.json").read_text())["tree"]
    for path in LEAVES:
        node: dict[str, Any] = {"children": tree}
        for part in path.split("/"):
            node = node["children"][part]
        assert node["kind"] in ("leaf", "container"), path
    dot1p = tree["qos"]["children"]["network"]["children"]["ingress"]["children"]["dot1p"]["children"]["profile"]
    assert "de" in dot1p["type"]["enum"]


def test_the_committed_backbone_is_the_example_with_its_mx_devices_on_sros() -> None:
    assert yaml.safe_load(COMMITTED.read_text(encoding="utf-8")) == sros_backbone()


def test_the_provider_edge_classifies_and_imposes_exp_and_classifies_and_writes_802_1p() -> None:
    flat = _flat(BACKBONE, PE)
    # network ingress: every EXP value to its class at the profile of its drop precedence (AF21's EXP 2 in,
    # AF22/AF23's EXP 3 out: the profiles whose slopes carry af-low and af-high)
    assert f'{PE_NET}ingress lsp-exp 2 fc "af"' in flat and f"{PE_NET}ingress lsp-exp 2 profile in" in flat
    assert f'{PE_NET}ingress lsp-exp 3 fc "af"' in flat and f"{PE_NET}ingress lsp-exp 3 profile out" in flat
    assert f'{PE_NET}ingress lsp-exp 7 fc "nc"' in flat and f'{PE_NET}ingress lsp-exp 0 fc "be"' in flat
    assert not any("ingress lsp-exp 4 " in line for line in flat)  # undeclared: the default-action
    # network egress: the EXP the PE imposes on SAP traffic, in-profile (CIR) and out-of-profile
    assert f'{PE_NET}egress fc "af" lsp-exp-in-profile 2' in flat
    assert f'{PE_NET}egress fc "af" lsp-exp-out-profile 3' in flat
    assert f'{PE_NET}egress fc "ef" lsp-exp-in-profile 5' in flat
    # short-pipe (the backbone's tunnel model): the LSPs ending here queue on the customer's DSCP
    assert f"{PE_NET}ingress ler-use-dscp true" in flat
    assert not any("remark-trusted" in line for line in flat)
    # the 802.1p customer: its VLAN SAP classifies PCP (AF precedences by enqueuing priority) and writes it back
    sap = '/configure qos sap-ingress "mpls-backbone-pcp" '
    assert f'{sap}dot1p 2 fc "af"' in flat and f"{sap}dot1p 2 priority high" in flat
    assert f"{sap}dot1p 3 priority low" in flat and f'{sap}dot1p 5 fc "ef"' in flat
    assert not any(line.startswith(f"{sap}dot1p 5 priority") for line in flat)  # one precedence: no priority
    egress = '/configure qos sap-egress "mpls-backbone-2" fc "af" '
    assert f"{egress}dot1p in-profile 2" in flat and f"{egress}dot1p out-profile 3" in flat
    assert '/configure service vpls "cust-b" sap 1/1/2:100 egress qos sap-egress policy-name "mpls-backbone-2"' \
        in flat
    # the IP customer's SAP keeps the DSCP re-marking it had; it carries no 802.1p
    assert not any(line.startswith('/configure qos sap-egress "mpls-backbone" ') and "dot1p" in line for line in flat)


def test_the_p_router_queues_on_exp_and_keeps_the_customers_dscp() -> None:
    flat = _flat(BACKBONE, "p-mx")
    assert f'{PE_NET}ingress lsp-exp 5 fc "ef"' in flat and f"{PE_NET}egress fc \"nc\" lsp-exp-in-profile 6" in flat
    assert not any("ler-use-dscp" in line for line in flat)  # no SAP: not a PE, no tunnel ends here
    assert '/configure router "Base" interface "to-p-m" qos network-policy "mpls-backbone"' in flat


def test_a_label_the_p_router_swaps_keeps_its_exp_and_that_is_said() -> None:
    found = [d for d in pipeline_diagnostics(BACKBONE) if d.code == "QOS236" and "swaps keeps its EXP" in d.message]
    assert {d.message.split(":")[0] for d in found} == {"pe-mx", "p-mx"}
    assert all("'network-control'" in d.message and d.location is not None and d.location.line > 0 for d in found)


def pipeline_diagnostics(path: str) -> list[Diagnostic]:
    result = pipeline.validate(path)
    assert result.policy is not None
    found = list(result.diagnostics)
    for target, unit in pipeline.select(result.policy):
        found += [d for d in pipeline.lower(target, result.policy, unit)[0] if d not in found]
    return found


# what SR OS's SAPs do differently from the policy, said when compiling (QOS236): one WRED curve per SAP egress
# queue (its low-precedence one), and a policer that discards above PIR instead of re-marking AF23
EDGE_KNOWN = {
    (sap, "assured", f"drop probability at 65% fill (precedence {p})") for sap in (IP_SAP, VLAN_SAP) for p in (2, 3)
} | {(IP_SAP, "rule bulk-transfer (assured) policer", "violate action")}


@pytest.mark.parametrize("fmt", [".cfg", ".flat", ".xml"])
@pytest.mark.parametrize("device", ["pe-mx", "p-mx"])
def test_the_backbone_reads_back_as_the_policy_in_every_domain(device: str, fmt: str) -> None:
    policy = load(BACKBONE)
    text = next(o.text for o in outputs(policy, device) if o.path.endswith(fmt))
    found = readback.read(text, device + fmt, "sros-7750", device)
    assert found.behaviour is not None and found.diagnostics == []
    got = {(f.interface, f.subject, f.what) for f in drift(policy, device, found.behaviour)}
    assert got == (EDGE_KNOWN if device == PE else set())
    by_name = {i.name: i for i in found.behaviour.interfaces}
    core = by_name[UPLINK if device == PE else "to-pe-mx:1/1/c1/1"]
    assert core.classify_exp[3] == ("af", 2) and core.classify_exp[4] == ("be", 1)
    assert core.marked("exp")[("af", 1)] == 2 and core.marked("exp")[("af", 2)] == 3
    if device == PE:
        assert by_name[VLAN_SAP].classify_pcp[3] == ("af", 2) and by_name[VLAN_SAP].marked("pcp")[("af", 2)] == 3
        assert by_name[IP_SAP].marked("impose") == by_name[VLAN_SAP].marked("impose") == core.marked("exp")


def test_junos_and_sros_backbones_are_equivalent_in_every_marking_domain() -> None:
    """equiv of the JUNOS output of the example's pe-mx and p-mx against their SR OS output: every EXP and PCP
    value goes to the same class at the same drop precedence, every class leaves with the same EXP and PCP, the
    SAPs impose what the JUNOS PE imposes.  What differs is explained and asserted here."""
    junos, sros = load("examples/mpls-backbone.yaml"), load(BACKBONE)
    for device, names in NAMES.items():
        a_out = next(o for o in outputs(junos, device) if o.path.endswith(".conf"))
        b_out = next(o for o in outputs(sros, device) if o.path.endswith(".cfg"))
        a = readback.read(a_out.text, "junos.conf", "junos-mx", device)
        b = readback.read(b_out.text, "sros.cfg", "sros-7750", device)
        assert a.behaviour is not None and b.behaviour is not None
        # the SR OS SAP's VLAN is in its name, JUNOS's in the unit: pair them by name
        a.behaviour = dataclasses.replace(a.behaviour, interfaces=tuple(
            dataclasses.replace(i, unit=0) for i in a.behaviour.interfaces))
        findings, problems = readback.equiv(a, b, names)
        assert problems == []
        marking = [f for f in findings if f.subject.startswith(("EXP", "PCP")) or "rewrite" in f.what
                   or "imposition" in f.what or f.what == "drop precedence"]
        assert marking == []
        assert any(any(i.classify_exp) for i in b.behaviour.interfaces)
        # 1. JUNOS's DSCP rewrite rule writes the class's code point on every packet it sends; SR OS keeps the DSCP
        #    of traffic from the network (no remark-trusted): only code points the policy does not declare differ
        declared = {0, 8, 18, 20, 22, 46, 48, 56}
        left = [f for f in findings if f.what != "leaves marked"]
        assert not any(f.subject.split()[1] in map(str, declared) for f in findings if f.what == "leaves marked")
        # 2. the SAPs: one WRED curve per SR OS SAP egress queue, and SR OS discards above PIR (both said, QOS236)
        junos_name = {v: k for k, v in names.items()}
        assert {(f.interface, f.subject.replace(" [af21 af22 af23]", "").replace(" [no code point]", ""), f.what)
                for f in left} == {(junos_name[i], s, w) for i, s, w in EDGE_KNOWN if i in junos_name}
