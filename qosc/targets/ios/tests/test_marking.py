"""Issue 21 on Cisco: MPLS EXP and 802.1p CoS in IOS MQC (ios-xe, ios-gsr 12.0S) and on the Catalyst 6500 PFC.

The reference MPLS backbone's Cisco devices compile without error, every statement in its dialect's grammar, and
render what each platform has: EXP classification and imposition (per rule and per policer colour), the EXP
rewrite, CoS classification and rewrite, the drop precedence of EXP and CoS values (discard-class); what a
release lacks is refused or said at the policy line that asks for it.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
import yaml

from qosc import api
from qosc.behaviour.roundtrip import outputs
from qosc.diagnostics import Diagnostic
from qosc.model import Policy
from qosc.targets.ios.platform import get
from qosc.targets.ios.read.parse import check_text
from qosc.targets.ios.tests.support import CISCO_BACKBONE, cisco_backbone
from qosc.targets.ios.tests.test_ios_mqc import block, classes


def compiled(path: Path) -> tuple[Policy, list[Diagnostic], dict[str, str]]:
    result = api.validate(path)
    assert result.policy is not None and result.ok, [d.message for d in result.diagnostics if d.is_error]
    texts = {}
    for dev in result.policy.devices:
        (out,) = outputs(result.policy, dev.name)
        check_text(out.text, dev.platform)
        texts[dev.name] = out.text
    return result.policy, result.diagnostics, texts


def codes(diags: list[Diagnostic], code: str) -> list[Diagnostic]:
    return [d for d in diags if d.code == code]


def line_of(path: Path, text: str, after: str | None = None) -> int:
    """The first line with `text` (after the first line with `after`)."""
    lines = path.read_text().splitlines()
    start = 0 if after is None else next(i for i, ln in enumerate(lines) if after in ln)
    return next(i for i, ln in enumerate(lines[start:], start + 1) if text in ln)


@pytest.fixture(scope="module")
def backbone(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Diagnostic], dict[str, str]]:
    path = cisco_backbone(tmp_path_factory.mktemp("bb"))
    _, diags, texts = compiled(path)
    return path, diags, texts


def test_the_backbone_cisco_devices_compile_in_their_grammar(backbone: tuple[Path, list[Diagnostic],
                                                                             dict[str, str]]) -> None:
    _, diags, texts = backbone
    assert set(texts) == set(CISCO_BACKBONE)
    assert not [d for d in diags if d.is_error]


def test_ios_xe_provider_edge(backbone: tuple[Path, list[Diagnostic], dict[str, str]]) -> None:
    """pe-asr: its MPLS uplink matches and rewrites EXP, its IP customer imposes EXP per rule and per policer colour,
    its 802.1p customer classifies CoS into drop precedences and imposes their EXP."""
    _, _, texts = backbone
    text = texts["pe-asr"]
    assert block(text, "class-map match-any assured-exp") == [" match dscp af21 af22 af23",
                                                               " match mpls experimental topmost 2 3"]
    assert block(text, "class-map match-any assured-pcp") == [" match dscp af21 af22 af23", " match cos 2 3"]
    ip_in = classes(text, "mpls-backbone-in-GigabitEthernet0-0-0")
    assert ip_in["site-in-premium-video"][0] == "set mpls experimental imposition 5"
    assert ip_in["site-in-bulk-transfer"] == [  # AF22/AF23 enter the LSP as EXP 3 (the IOS XE police block)
        "police cir 50000000 bc 2500000 pir 100000000 be 5000000",
        "conform-action set-dscp-transmit af21", "conform-action set-mpls-exp-imposition-transmit 2",
        "exceed-action set-dscp-transmit af22", "exceed-action set-mpls-exp-imposition-transmit 3",
        "violate-action set-dscp-transmit af23", "violate-action set-mpls-exp-imposition-transmit 3"]
    assert ip_in["site-in-backups"] == ["set dscp cs1", "set mpls experimental imposition 1"]
    assert ip_in["class-default"] == ["set dscp default", "set mpls experimental imposition 0"]
    dot1p_in = classes(text, "mpls-backbone-in-GigabitEthernet0-0-1")
    assert dot1p_in["assured-pcp-dp2-in"] == ["set discard-class 2", "set mpls experimental imposition 3"]
    assert dot1p_in["assured-pcp-in"] == ["set mpls experimental imposition 2"]
    assert dot1p_in["class-default"] == ["set mpls experimental imposition 0"]  # its DSCP is the customer's
    assert block(text, "class-map match-any assured-pcp-dp2-in") == [" match cos 3"]
    core_in = classes(text, "mpls-backbone-in-TenGigabitEthernet0-1-0")
    assert core_in == {"assured-exp-dp2-in": ["set discard-class 2"]}
    core_out = classes(text, "mpls-backbone-out-TenGigabitEthernet0-1-0")
    assert "set mpls experimental topmost 6" in core_out["network-control-exp"]  # EXP 7 leaves as 6
    assert "set mpls experimental topmost 0" in core_out["class-default"]  # values of no service: best effort
    assert not [c for c in core_out["assured-exp"] if c.startswith("set")]  # EXP 2 and 3 keep their precedence
    dot1p_out = classes(text, "mpls-backbone-out-GigabitEthernet0-0-1")
    assert "set cos 5" in dot1p_out["ip-premium-pcp"] and "set cos 0" in dot1p_out["class-default"]


def test_gsr_core_in_12_0s_forms(backbone: tuple[Path, list[Diagnostic], dict[str, str]]) -> None:
    """p-gsr: `match mpls experimental V` (no topmost before 12.2(13)T), no EXP rewrite and no discard-class,
    both said at the service's exp line."""
    path, diags, texts = backbone
    text = texts["p-gsr"]
    assert block(text, "class-map match-any assured-exp") == [" match ip precedence 2",
                                                               " match mpls experimental 2 3"]
    assert "topmost" not in text and "discard-class" not in text and "service-policy input" not in text
    lost = codes(diags, "QOS193")
    assert {(d.location.line if d.location else 0) for d in lost if "p-gsr" in d.message} == {
        line_of(path, "exp:", after="  assured:") + 1}  # its value, the mapping under the key
    kept = [d for d in codes(diags, "QOS194") if "p-gsr" in d.message]
    assert {d.message.split("'")[1] for d in kept} == {"best-effort", "network-control"}
    assert all("12.0S keeps the EXP" in d.message for d in kept)


def test_catalyst_trunk_trusts_cos_and_queues_by_the_services_pcp(
        backbone: tuple[Path, list[Diagnostic], dict[str, str]]) -> None:
    """sw-cat: the trunk trusts CoS; each PCP value becomes its service's DSCP of its drop precedence, and the
    DSCP-to-CoS map writes each service's PCP (AF22/AF23 on assured's PCP 3, not IP precedence 2)."""
    _, _, texts = backbone
    lines = texts["sw-cat"].splitlines()
    assert "mls qos map cos-dscp 0 8 18 20 0 46 48 48" in lines
    assert "mls qos map dscp-cos 20 22 to 3" in lines and "mls qos map dscp-cos 18 to 2" in lines
    assert "mls qos map dscp-cos 48 56 to 6" in lines
    trunk = block(texts["sw-cat"], "interface TenGigabitEthernet4/1")
    assert " mls qos trust cos" in trunk and " wrr-queue cos-map 3 1 2 3" in trunk
    assert " mls qos trust dscp" not in trunk


POLICY = """\
qosc: 1
name: m
mpls: {tunnel-model: $model}
services:
  best-effort: {kind: best-effort, default: true, exp: [0], pcp: [0], queue: {share: 40%, priority: high}}
  assured:
    kind: assured
    dscp: [af21, af22, af23]
    exp: {low: [2], high: [3]}
    pcp: $pcp
    queue: {share: 40%, priority: high}
    policer: ar
  lbe: {kind: lbe, dscp: [cs1], exp: [1], pcp: [1], queue: {share: 1%, priority: low}}
  low-data: {kind: assured, dscp: [af11], exp: [4], pcp: [4], queue: {share: 10%, priority: high}}
policers:
  ar: {cir: 50M, cbs: 2500KB, ebs: 5MB, conform: af21, exceed: $exceed, violate: drop}
classifiers:
  site:
    rules:
      - {name: bulk, service: assured, match: {destination: [198.18.1.0/24]}}
devices:
  r1:
    platform: $platform
    interfaces:
      $core: {role: core, speed: 10G, encapsulation: $encap}
      $edge: {role: edge, speed: 1G, classifier: site, impose: $impose}
"""


def input_classes(text: str, interface: str) -> dict[str, list[str]]:
    """The classes of the input policy-map an interface attaches."""
    name = next(ln.split()[-1] for ln in block(text, f"interface {interface}") if "service-policy input" in ln)
    return classes(text, name)


def policy(tmp_path: Path, **values: str) -> Path:
    given = {"model": "short-pipe", "pcp": "[2]", "exceed": "af22", "platform": "ios-xe", "encap": "mpls",
             "impose": "true", "core": "TenGigabitEthernet0/0/0", "edge": "GigabitEthernet0/1/0", **values}
    text = POLICY
    for key in sorted(given, key=len, reverse=True):
        text = text.replace(f"${key}", given[key])
    if given["platform"] == "ios-gsr":  # 12.0S classifies by precedence: AF11 and CS1 cannot be told apart (QOS120)
        text = "\n".join(ln for ln in text.splitlines() if "low-data" not in ln) + "\n"
    path = tmp_path / "m.yaml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def test_pipe_and_uniform_are_refused_at_the_tunnel_model(tmp_path: Path) -> None:
    for model in ("pipe", "uniform"):
        path = policy(tmp_path, model=model)
        diags = [d for d in _lower_diags(path) if d.code == "QOS189"]
        assert len(diags) == 1 and diags[0].location is not None
        assert diags[0].location.line == line_of(path, "tunnel-model")
        assert f"mpls.tunnel-model is {model}" in diags[0].message and "qos-group" in diags[0].message


def _lower_diags(path: Path) -> list[Diagnostic]:
    """Every diagnostic of a policy, its targets' lowering included (validate lowers every device)."""
    return list(api.validate(path).diagnostics)


def test_a_p_router_renders_every_tunnel_model(tmp_path: Path) -> None:
    """The tunnel model is what the provider edges do: a device without edge interfaces is not refused."""
    path = policy(tmp_path, model="pipe")
    data = yaml.safe_load(path.read_text())
    data["devices"]["r1"]["interfaces"]["GigabitEthernet0/1/0"] = {"role": "core", "speed": "1G",
                                                                   "encapsulation": "mpls"}
    path.write_text(yaml.safe_dump(data))
    assert not [d for d in _lower_diags(path) if d.code == "QOS189"]


def test_12_0s_imposes_one_action_per_colour(tmp_path: Path) -> None:
    """12.0S takes one police action per colour: a policer that remarks AF22 and imposes its EXP 3 on exceed is
    refused at the policer (QOS188); where the colours' code points share one EXP, the class imposes it with the
    12.0S form and the policer keeps its DSCP actions."""
    path = policy(tmp_path, platform="ios-gsr", core="POS0/0", edge="POS1/0")
    path.write_text(path.read_text().replace("exp: {low: [2], high: [3]}", "exp: {low: [2], medium: [3]}"))
    refused = [d for d in _lower_diags(path) if d.code == "QOS188"]
    assert len(refused) == 1 and "one police action per colour" in refused[0].message
    assert refused[0].location is not None and refused[0].location.line == line_of(path, "ar: {cir")
    path = policy(tmp_path, platform="ios-gsr", core="POS0/0", edge="POS1/0")
    _, diags, texts = compiled(path)
    assert not [d for d in diags if d.is_error]
    assert input_classes(texts["r1"], "POS1/0")["site-bulk"] == [
        "set mpls experimental 2", "police 50000000 2500000 5000000 conform-action set-dscp-transmit af21 "
        "exceed-action set-dscp-transmit af22 violate-action drop"]


def test_12_0s_has_no_set_cos(tmp_path: Path) -> None:
    path = policy(tmp_path, platform="ios-gsr", core="POS0/0", edge="POS1/0", encap="vlan", exceed="transmit")
    refused = [d for d in _lower_diags(path) if d.code == "QOS188"]
    assert len(refused) == 1 and "rewrites PCP" in refused[0].message
    assert refused[0].location is not None and refused[0].location.line == line_of(path, "encapsulation: vlan")


def test_the_pfc_refuses_mpls(tmp_path: Path) -> None:
    path = policy(tmp_path, platform="catalyst6500", core="GigabitEthernet1/1", edge="GigabitEthernet1/2",
                  impose="false")
    refused = [d for d in _lower_diags(path) if d.code == "QOS188"]
    assert len(refused) == 1 and "no MPLS QoS" in refused[0].message
    assert refused[0].location is not None and refused[0].location.line == line_of(path, "encapsulation: mpls")
    assert get("catalyst6500").mpls_qos is False  # type: ignore[union-attr]


@pytest.mark.parametrize(("platform", "core"), [("ios-xe", "TenGigabitEthernet0/0/0"),
                                                ("catalyst6500", "GigabitEthernet1/1")])
def test_a_pcp_drop_precedence_in_the_dei_is_said(tmp_path: Path, platform: str, core: str) -> None:
    """PCP 2 at low and high is PCP 2 with the DEI set at high (802.1Q-2011): IOS XE's YANG and the PFC have no
    DEI, so it travels as low (QOS193, at the service's pcp)."""
    path = policy(tmp_path, platform=platform, core=core, edge="GigabitEthernet1/2", encap="vlan",
                  pcp="{low: [2], high: [2]}", impose="false")
    lost = [d for d in _lower_diags(path) if d.code == "QOS193"]
    assert len(lost) == 1 and "DEI" in lost[0].message and "PCP 2" in lost[0].message
    assert lost[0].location is not None and lost[0].location.line == line_of(path, "pcp: {low")


def test_an_edge_that_leaves_exp_to_ios_gets_qos089_and_one_that_imposes_does_not(tmp_path: Path) -> None:
    """Cisco IOS copies the IP precedence into the imposed EXP (platform data exp_default, with its source): LBE
    (CS1) and low-data (AF11) both enter the LSPs as EXP 1 unless the edge imposes the services' values."""
    gsr = get("ios-gsr")
    assert gsr is not None and gsr.exp_default == "ip-precedence" and "12.0S" in gsr.sources["exp_default"]
    data = get("ios-xe")
    assert data is not None and data.exp_default == "ip-precedence" and "exp_default" in data.sources
    path = policy(tmp_path, impose="false", exceed="transmit")
    found = [d for d in _lower_diags(path) if d.code == "QOS089"]
    assert len(found) == 1 and "'lbe' and 'low-data'" in found[0].message and "EXP 1" in found[0].message
    path = policy(tmp_path, impose="true", exceed="transmit")
    assert not [d for d in _lower_diags(path) if d.code == "QOS089"]
    _, _, texts = compiled(path)
    edge_in = input_classes(texts["r1"], "GigabitEthernet0/1/0")
    assert edge_in["site-bulk"][0] == "set mpls experimental imposition 2"
    assert edge_in["class-default"] == ["set dscp default", "set mpls experimental imposition 0"]


def test_rewrite_and_impose_say_what_is_written(tmp_path: Path) -> None:
    """An MPLS core that does not rewrite EXP (rewrite: [dscp], or transparent) keeps it: no `set mpls experimental
    topmost`, EXP still classified; an edge with impose: false leaves EXP to the box (no imposition)."""
    path = policy(tmp_path, impose="false", exceed="transmit")
    data = yaml.safe_load(path.read_text())
    data["devices"]["r1"]["interfaces"]["TenGigabitEthernet0/0/0"]["rewrite"] = ["dscp"]
    path.write_text(yaml.safe_dump(data))
    _, _, texts = compiled(path)
    text = texts["r1"]
    assert "topmost 0" not in text and "match mpls experimental topmost 2 3" in text
    assert "imposition" not in text
    data["devices"]["r1"]["interfaces"]["TenGigabitEthernet0/0/0"] = {"role": "transparent", "speed": "10G",
                                                                      "encapsulation": "mpls"}
    path.write_text(yaml.safe_dump(data))
    _, _, texts = compiled(path)
    assert "set mpls experimental topmost" not in texts["r1"]
