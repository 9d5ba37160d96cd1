"""The SR OS marking rules one at a time, on the backbone changed: the tunnel models, the imposition, the DE bit,
a router interface on a VLAN, a transparent MPLS link, the drop precedences SR OS cannot tell apart, and each
refusal (QOS235, QOS238, QOS239) and warning (QOS236) at its line; and the reader on configurations qosc did not
write."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from qosc.behaviour import readback
from qosc.targets.sros.read import interpret, parse
from qosc.targets.sros.tests.test_marking import (
    IP_SAP,
    PE,
    PE_NET,
    UPLINK,
    VLAN_SAP,
    _backbone,
    _compile,
    _iface,
    _only,
)


@pytest.mark.parametrize("model", ["short-pipe", "pipe", "uniform"])
def test_each_tunnel_model_is_rendered_on_the_pe(model: str, tmp_path: Path) -> None:
    data = _backbone(mpls={"tunnel-model": model})
    del data["devices"][PE]["interfaces"][VLAN_SAP]  # uniform needs a layer-3 SAP (below)
    found, flat = _compile(tmp_path, data)
    assert not [d for d in found if d.is_error], [str(d) for d in found if d.is_error]
    pe, sap = flat[PE], '/configure qos sap-egress "mpls-backbone" '
    assert (f"{PE_NET}ingress ler-use-dscp true" in pe) == (model == "short-pipe")
    assert not any("ler-use-dscp" in line for line in flat["p-mx"])
    remarks = {line for line in pe if line.startswith(sap) and " dscp " in line}
    if model == "pipe":  # the customer's DSCP is left as it was
        assert remarks == set()
    elif model == "uniform":  # every class writes its code point back, per profile (AF21 in, AF22 out)
        assert f'{sap}fc "af" dscp in-profile af21' in remarks and f'{sap}fc "af" dscp out-profile af22' in remarks
    else:  # as before tunnel models: a class with one code point re-marks to it
        assert f'{sap}fc "ef" dscp in-profile ef' in remarks and not any('"af"' in r for r in remarks)


def test_uniform_with_a_vpls_sap_is_refused_at_the_tunnel_model(tmp_path: Path) -> None:
    found, flat = _compile(tmp_path, _backbone(mpls={"tunnel-model": "uniform"}))
    (d,) = _only(found, "QOS239")
    lines = (tmp_path / "p.yaml").read_text().splitlines()
    assert VLAN_SAP in d.message and "layer-3" in d.message and d.location is not None
    assert lines[d.location.line - 1].strip() == "tunnel-model: uniform"
    assert PE not in flat and "p-mx" in flat


@pytest.mark.parametrize(("model", "trust", "needs"), [("short-pipe", "exp", "DSCP"), ("pipe", "dscp", "EXP")])
def test_a_pe_whose_mpls_interface_does_not_classify_what_the_model_needs_is_qos239(
        model: str, trust: str, needs: str, tmp_path: Path) -> None:
    data = _backbone(mpls={"tunnel-model": model})
    _iface(data, PE, UPLINK)["trust"] = trust
    found, _ = _compile(tmp_path, data)
    (d,) = _only(found, "QOS239")
    assert f"does not classify on {needs}" in d.message and d.location is not None and d.location.line > 0


IMPOSITION = {
    "edges disagree": (lambda d: _iface(d, PE, IP_SAP).update(impose=False), "imposes each service's EXP"),
    "impose false beside a rewriting core": (
        lambda d: [_iface(d, PE, s).update(impose=False) for s in (IP_SAP, VLAN_SAP)], "rewrites EXP"),
    "imposing beside a core without exp": (lambda d: _iface(d, PE, UPLINK).update(rewrite=["dscp"]),
                                           "does not rewrite EXP"),
}


@pytest.mark.parametrize("case", sorted(IMPOSITION))
def test_an_imposition_sr_os_cannot_render_is_qos238(case: str, tmp_path: Path) -> None:
    change, words = IMPOSITION[case]
    data = _backbone()
    change(data)
    found, flat = _compile(tmp_path, data)
    got = _only(found, "QOS238")
    assert got and words in got[0].message and got[0].location is not None and got[0].location.line > 0
    assert PE not in flat


def test_impose_false_with_cores_that_write_no_exp_leaves_exp_to_the_default_network_policy(tmp_path: Path) -> None:
    data = _backbone()
    for sap in (IP_SAP, VLAN_SAP):
        _iface(data, PE, sap)["impose"] = False
    _iface(data, PE, UPLINK)["rewrite"] = ["dscp"]
    found, flat = _compile(tmp_path, data)
    assert not _only(found, "QOS238")
    assert not any("lsp-exp-in-profile" in line for line in flat[PE])
    assert f'{PE_NET}ingress lsp-exp 2 fc "af"' in flat[PE]  # still classified: trust is the interface's


@pytest.mark.parametrize(("change", "words"), [
    ({"rewrite": ["dscp", "exp"], "encapsulation": ["ip", "mpls"]}, "sap-egress policy writes dot1p and DSCP"),
    ({"trust": "exp", "encapsulation": ["ip", "mpls"]}, "VPLS (Ethernet layer 2) only"),
])
def test_exp_at_a_layer_3_sap_is_qos235(change: dict[str, Any], words: str, tmp_path: Path) -> None:
    data = _backbone()
    _iface(data, PE, IP_SAP).update(change)
    found, _ = _compile(tmp_path, data)
    got = _only(found, "QOS235")
    assert got and words in got[0].message and got[0].location is not None


@pytest.mark.parametrize(("device", "name"), [("p-mx", "to-p-m:1/1/c2/1"), (PE, IP_SAP)])
def test_802_1p_where_the_name_carries_no_vlan_is_qos235(device: str, name: str, tmp_path: Path) -> None:
    data = _backbone()
    _iface(data, device, name).update(encapsulation=["mpls", "vlan"] if device == "p-mx" else ["ip", "vlan"])
    found, flat = _compile(tmp_path, data)
    got = [d for d in _only(found, "QOS235") if "no 802.1Q tag" in d.message]
    assert got and name in got[0].message and got[0].location is not None and got[0].location.line > 0
    assert device not in flat


def test_a_vpls_sap_classifies_exp(tmp_path: Path) -> None:
    data = _backbone()
    _iface(data, PE, VLAN_SAP).update(trust=["pcp", "exp"], encapsulation=["mpls", "vlan"], rewrite=["pcp"])
    found, flat = _compile(tmp_path, data)
    assert not [d for d in found if d.is_error], [str(d) for d in found if d.is_error]
    sap = '/configure qos sap-ingress "mpls-backbone-exp-pcp" '
    assert f'{sap}lsp-exp 3 fc "af"' in flat[PE] and f"{sap}lsp-exp 3 priority low" in flat[PE]


DEI = {"assured": {"kind": "assured", "dscp": ["af21", "af22", "af23"], "exp": {"low": [2], "medium": [3], "high": [3]},
                   "pcp": {"low": [2], "medium": [2], "high": [2]},
                   "queue": {"share": "40%", "buffer": "40%", "priority": "high"},
                   "drop-profile": {"low": "af-low", "medium": "af-high", "high": "af-high"}, "policer": "ar-in"}}


def test_a_drop_precedence_in_the_de_bit_is_read_and_written_on_a_7750(tmp_path: Path) -> None:
    data = _backbone()
    data["services"].update(DEI)
    _iface(data, "p-mx", "to-p-m:1/1/c2/1")["encapsulation"] = ["mpls", "vlan"]
    data["devices"]["p-mx"]["interfaces"] = {("to-p-m:1/1/c2/1:200" if k == "to-p-m:1/1/c2/1" else k): v
                                             for k, v in data["devices"]["p-mx"]["interfaces"].items()}
    found, flat = _compile(tmp_path, data)
    assert not [d for d in found if d.is_error] and not any("DE bit" in d.message for d in found)
    p, pe = flat["p-mx"], flat[PE]
    net = '/configure qos network "mpls-backbone-2" '  # the VLAN interface classifies and writes 802.1p too
    assert f'{net}ingress dot1p 2 fc "af"' in p and f"{net}ingress dot1p 2 profile de" in p
    assert f'{net}egress fc "af" dot1p-in-profile 2' in p and f'{net}egress fc "af" de-mark' in p
    assert '/configure router "Base" interface "to-p-m" port 1/1/c2/1:200' in p
    assert '/configure router "Base" interface "to-p-m" qos network-policy "mpls-backbone-2"' in p
    assert not any("dot1p" in line for line in p if line.startswith(PE_NET))  # the other link carries no VLAN
    assert '/configure qos sap-ingress "mpls-backbone-pcp" fc "af" de-1-out-profile true' in pe
    assert '/configure qos sap-egress "mpls-backbone-2" fc "af" de-mark' in pe
    # read back: PCP 2 is assured at drop precedence 1 (the DE bit clear), as the policy says
    text = "\n".join(p)
    device, _ = interpret(parse(text, "p.flat"))
    vlan = next(i for i in device.interfaces if i.name == "to-p-m:1/1/c2/1:200")
    assert vlan.classify_pcp[2] == ("af", 1) and vlan.marked("pcp")[("af", 1)] == 2


def test_the_ixr_does_not_claim_the_de_bit(tmp_path: Path) -> None:
    data = _backbone()
    data["services"].update(DEI)
    data["devices"][PE]["platform"] = "sros-7250-ixr"
    found, flat = _compile(tmp_path, data)
    said = [d for d in found if d.code == "QOS236" and "DE bit" in d.message]
    assert said and "sros-7250-ixr does not read or write the DE bit" in said[0].message
    assert said[0].location is not None and said[0].location.line > 0
    assert not any("de-1-out-profile" in line or "de-mark" in line for line in flat[PE])
    assert '/configure qos sap-ingress "mpls-backbone-pcp" dot1p 2 fc "af"' in flat[PE]


def test_two_drop_precedences_on_one_profile_are_said(tmp_path: Path) -> None:
    data = _backbone()
    data["services"]["l2vpn"] = {"kind": "other", "exp": {"low": [4], "medium": [7]},
                                 "queue": {"share": "1%", "priority": "low"}}
    data["services"]["network-control"]["exp"] = [6]
    found, _ = _compile(tmp_path, data)
    said = {d.message for d in _only(found, "QOS236") if "'l2vpn'" in d.message}
    assert any("EXP 7 is classified like EXP 4, at drop precedence 1" in m for m in said), said
    assert any("marked in-profile with 4, not 7" in m for m in said), said


def test_a_transparent_mpls_link_keeps_exp(tmp_path: Path) -> None:
    data = _backbone()
    _iface(data, "p-mx", "to-p-m:1/1/c2/1").update(role="transparent")
    _, flat = _compile(tmp_path, data)
    p = flat["p-mx"]
    assert '/configure router "Base" interface "to-p-m" qos network-policy "mpls-backbone-2"' in p
    assert not any(line.startswith('/configure qos network "mpls-backbone-2" egress') for line in p)
    assert '/configure qos network "mpls-backbone-2" ingress lsp-exp 2 fc "af"' in p
    read = readback.read("\n".join(p), "p.flat", "sros-7750", "p-mx")
    assert read.behaviour is not None
    link = next(i for i in read.behaviour.interfaces if i.name == "to-p-m:1/1/c2/1")
    assert link.marks == () and any(link.classify_exp)


THIRD_PARTY = """\
/configure qos network "core" ingress default-action fc "be"
/configure qos network "core" ingress default-action profile out
/configure qos network "core" ingress lsp-exp 1 fc "af"
/configure qos network "core" ingress lsp-exp 1 profile in
/configure qos network "core" ingress lsp-exp 2 fc "af"
/configure qos network "core" ingress lsp-exp 2 profile out
/configure qos network "core" ingress lsp-exp 5 fc "ef"
/configure qos network "core" ingress lsp-exp 5 profile in
/configure qos network "core" egress fc "af" lsp-exp-in-profile 1
/configure qos network "core" egress fc "af" lsp-exp-out-profile 2
/configure qos network "core" egress fc "ef" lsp-exp-in-profile 5
/configure qos network "core" egress fc "ef" lsp-exp-out-profile 5
/configure qos network "edge" egress fc "af" lsp-exp-in-profile 3
/configure qos network "edge" egress fc "af" lsp-exp-out-profile 3
/configure qos network-queue "nq" queue 1 queue-type best-effort
/configure qos network-queue "nq" queue 3 queue-type best-effort
/configure qos network-queue "nq" queue 6 queue-type expedited
/configure qos network-queue "nq" fc "be" queue 1
/configure qos network-queue "nq" fc "af" queue 3
/configure qos network-queue "nq" fc "ef" queue 6
/configure qos sap-egress "se" queue 1 queue-type best-effort
/configure qos sap-egress "se" queue 3 queue-type best-effort
/configure qos sap-egress "se" fc "be" queue 1
/configure qos sap-egress "se" fc "af" queue 3
/configure port 1/1/1 ethernet network egress queue-policy "nq"
/configure port 1/1/2 ethernet network egress queue-policy "nq"
/configure router "Base" interface "a-core" port 1/1/1
/configure router "Base" interface "a-core" qos network-policy "core"
/configure router "Base" interface "b-edge" port 1/1/2
/configure router "Base" interface "b-edge" qos network-policy "edge"
/configure service vpls "v" sap 1/1/9:5 egress qos sap-egress policy-name "se"
"""


def test_a_configuration_qosc_did_not_write_reads_per_domain() -> None:
    device, diagnostics = interpret(parse(THIRD_PARTY, "r.flat"))
    core = next(i for i in device.interfaces if i.name == "a-core:1/1/1")
    # EXP 1 in-profile and 2 out-of-profile in af: drop precedences 1 and 2; unlisted values to the default-action
    assert core.classify_exp[:3] == (("be", 1), ("af", 1), ("af", 2)) and core.classify_exp[5] == ("ef", 1)
    assert core.marked("exp") == {("af", 1): 1, ("af", 2): 2, ("af", 3): 2, ("ef", 1): 5, ("ef", 2): 5, ("ef", 3): 5}
    assert core.classify[0][0] is None  # lsp-exp entries and no dscp entry: not classified on DSCP
    # a SAP imposes with the EXP values of the first router interface by name; the other's differ: said
    sap = next(i for i in device.interfaces if i.name == "vpls:v:1/1/9:5")
    assert sap.marked("impose")[("af", 1)] == 1
    (said,) = [d for d in diagnostics if d.code == "QOS172"]
    assert "a-core and b-edge" in said.message and said.location is not None


def test_a_router_interface_without_dscp_rewrite_beside_an_ies_sap_is_said(tmp_path: Path) -> None:
    data = _backbone()
    interfaces = data["devices"][PE]["interfaces"]
    interfaces["ies:internet:to-b:1/1/4"] = interfaces.pop(IP_SAP)
    _iface(data, PE, UPLINK)["rewrite"] = ["exp"]
    found, flat = _compile(tmp_path, data)
    said = [d for d in _only(found, "QOS236") if "IES traffic" in d.message]
    assert said and UPLINK in said[0].message and said[0].location is not None
    assert not any("dscp-in-profile" in line for line in flat[PE])
