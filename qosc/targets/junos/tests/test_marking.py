"""JUNOS in the 3-bit marking domains: EXP and 802.1p classifiers and rewrite rules, EXP imposition at a PE, the
M-series EXP keeping, DEI, tunnel models, and what JUNOS cannot render (located diagnostics)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from qosc import api
from qosc.targets import junos
from qosc.targets.junos.grammar import GRAMMAR, YANG
from qosc.targets.junos.lower import lower_device
from qosc.targets.junos.tests.backbone import junos_backbone
from qosc.targets.junos.tests.statements import parse_conf, parse_set
from qosc.targets.registry import platform
from qosc.tree import Document

COS = "class-of-service"


def compiled(path: Path) -> tuple[api.Result, dict[str, str]]:
    result = api.validate(path)
    outputs = api.compile_policy(result, ["junos"])
    return result, {o.path.rsplit("/", 1)[-1]: o.text for o in outputs}


def errors(result: api.Result) -> list[str]:
    return [str(d) for d in result.diagnostics if d.is_error]


@pytest.fixture(scope="module")
def backbone(tmp_path_factory: pytest.TempPathFactory) -> tuple[api.Result, dict[str, str]]:
    return compiled(junos_backbone(tmp_path_factory.mktemp("backbone")))


def documents(result: api.Result) -> list[Document]:
    assert result.policy is not None
    out = []
    for device in result.policy.devices:
        data = platform(device.platform)
        assert isinstance(data, junos.JunosPlatform)
        out.append(lower_device(result.policy, device, junos.device_plan(result.policy, device, data)))
    return out


def test_the_reference_backbone_compiles_with_no_error(backbone: tuple[api.Result, dict[str, str]]) -> None:
    result, files = backbone
    assert errors(result) == []
    assert set(files) == {f"{d}.{s}" for d in ("pe-mx", "p-mx", "p-m") for s in ("conf", "set")}
    for device in ("pe-mx", "p-mx", "p-m"):  # the curly and the set file say the same
        assert parse_conf(files[f"{device}.conf"]) == parse_set(files[f"{device}.set"])


@pytest.mark.parametrize("release", [g.release for g in YANG])
def test_every_statement_is_accepted_by_the_yang_of_both_releases(
        backbone: tuple[api.Result, dict[str, str]], release: str) -> None:
    grammar = next(g for g in YANG if g.release == release)
    docs = documents(backbone[0])
    assert len(docs) == 3
    for doc in docs:
        assert grammar.check(doc) == [], doc.stem
        assert GRAMMAR.check(doc) == [], doc.stem  # both releases, references, documented values


def test_the_pe_classifies_imposes_and_marks_each_domain(backbone: tuple[api.Result, dict[str, str]]) -> None:
    pe = parse_set(backbone[1]["pe-mx.set"])
    exp = (COS, "classifiers", "exp", "mpls-backbone-exp", "forwarding-class")
    assert (*exp, "ip-premium", "loss-priority", "low", "code-points", "101") in pe
    assert (*exp, "assured", "loss-priority", "low", "code-points", "010") in pe
    assert (*exp, "assured", "loss-priority", "medium-high", "code-points", "011") in pe
    assert (*exp, "best-effort", "loss-priority", "low", "code-points", "100") in pe  # undeclared: the default
    rw = (COS, "rewrite-rules", "exp", "mpls-backbone-exp", "forwarding-class")
    assert (*rw, "assured", "loss-priority", "high", "code-point", "011") in pe
    assert (*rw, "network-control", "loss-priority", "low", "code-point", "110") in pe
    uplink = (COS, "interfaces", "xe-0/1/0", "unit", "0")
    # the uplink's EXP rewrite is what imposes EXP on the labels pushed at this PE; protocol mpls-any leaves the
    # customer's IPv4 header alone; the DSCP rewrite is bound for IPv4 packets that enter LSPs
    assert (*uplink, "rewrite-rules", "exp", "mpls-backbone-exp", "protocol", "mpls-any") in pe
    assert (*uplink, "rewrite-rules", "dscp", "mpls-backbone", "protocol", "mpls") in pe
    assert (*uplink, "classifiers", "exp", "mpls-backbone-exp") in pe
    vlan = (COS, "interfaces", "ge-0/0/2", "unit", "100")
    assert (*vlan, "classifiers", "ieee-802.1", "mpls-backbone-8021p") in pe
    assert (*vlan, "rewrite-rules", "ieee-802.1", "mpls-backbone-8021p", "vlan-tag", "outer") in pe
    assert not any(s[:5] == vlan and s[5:7] == ("classifiers", "dscp") for s in pe)  # trusts pcp alone
    assert not any(s[:2] == ("interfaces", "ge-0/0/2") for s in pe)  # no filter: its BA classifier classifies
    ieee = (COS, "classifiers", "ieee-802.1", "mpls-backbone-8021p", "forwarding-class")
    assert (*ieee, "ip-premium", "loss-priority", "low", "code-points", "101") in pe


def test_the_m_series_keeps_exp_on_its_transparent_mpls_interfaces(
        backbone: tuple[api.Result, dict[str, str]]) -> None:
    """M-series rewrites EXP by default even where nothing is configured ('Applying Default Rewrite Rules'), so
    p-m writes every declared value back: EXP 7 and Premium's EXP 5 (not scheduled there) get the high loss
    priority of their class; no DSCP rewrite is bound (transparent)."""
    pm = parse_set(backbone[1]["p-m.set"])
    keep = (COS, "classifiers", "exp", "mpls-backbone-exp-keep", "forwarding-class")
    assert (*keep, "best-effort", "loss-priority", "high", "code-points", "101") in pm
    assert (*keep, "network-control", "loss-priority", "high", "code-points", "111") in pm
    rw = (COS, "rewrite-rules", "exp", "mpls-backbone-exp-keep", "forwarding-class")
    assert (*rw, "best-effort", "loss-priority", "high", "code-point", "101") in pm
    assert (*rw, "network-control", "loss-priority", "high", "code-point", "111") in pm
    unit = (COS, "interfaces", "so-1/2/0", "unit", "0")
    assert (*unit, "rewrite-rules", "exp", "mpls-backbone-exp-keep", "protocol", "mpls-any") in pm
    assert not any(s[:6] == (*unit, "rewrite-rules") and s[6] == "dscp" for s in pm)
    assert not any("mpls-backbone-exp" in s for s in pm)  # no second, unused table


def test_an_mx_transparent_mpls_interface_writes_no_exp(tmp_path: Path) -> None:
    path = junos_backbone(tmp_path)
    text = path.read_text().replace("platform: junos-m-series", "platform: junos-mx")
    path.write_text(text)
    result, files = compiled(path)
    assert errors(result) == []
    pm = parse_set(files["p-m.set"])
    assert not any(s[1] == "rewrite-rules" and s[2] == "exp" for s in pm)
    assert (COS, "interfaces", "so-1/2/0", "unit", "0", "classifiers", "exp", "mpls-backbone-exp") in pm


def _policy(tmp_path: Path, devices: str, extra: str = "", pcp: str = "[5]") -> Path:
    text = f"""\
qosc: 1
name: m
{extra}
services:
  best-effort: {{kind: best-effort, default: true, exp: [0], pcp: [0], queue: {{share: 40%, priority: high}}}}
  premium: {{kind: premium, exp: [5], pcp: {pcp}, queue: {{share: 10%, priority: high}}}}
  assured:
    kind: assured
    dscp: [af21, af22, af23]
    exp: {{low: [2], medium: [3], high: [4]}}
    pcp: {{low: [2], medium: [2], high: [3]}}
    queue: {{share: 30%, priority: high}}
devices:
{devices}"""
    path = tmp_path / "m.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def at(result: api.Result, code: str, path: Path, needle: str) -> bool:
    line = next(n for n, text in enumerate(path.read_text().splitlines(), 1) if needle in text)
    return any(d.code == code and d.location is not None and d.location.line == line for d in result.diagnostics)


PE = """\
  pe1:
    platform: {platform}
    interfaces:
      ge-0/0/1: {{role: edge, speed: 1G{edge}}}
      ge-0/0/2: {{role: edge, speed: 1G, unit: 7, encapsulation: [ip, vlan], trust: pcp{edge2}}}
      xe-0/0/0: {{role: core, speed: 10G, encapsulation: mpls{core}}}
"""


def pe(platform: str = "junos-mx", edge: str = "", edge2: str = "", core: str = "") -> str:
    return PE.format(platform=platform, edge=edge, edge2=edge2, core=core)


@pytest.mark.parametrize(("edge", "edge2", "core", "needle"), [
    (", impose: false", "", "", "ge-0/0/1:"),  # one edge imposes, the other not
    (", impose: false", ", impose: false", "", "ge-0/0/1:"),  # none imposes, but the uplink rewrites EXP
    ("", "", ", rewrite: [dscp]", "xe-0/0/0:"),  # the edges impose, the uplink does not rewrite EXP
])
def test_what_imposition_junos_cannot_render_is_refused_at_its_line(tmp_path: Path, edge: str, edge2: str,
                                                                   core: str, needle: str) -> None:
    path = _policy(tmp_path, pe(edge=edge, edge2=edge2, core=core))
    result, files = compiled(path)
    assert at(result, "QOS114", path, needle), [str(d) for d in result.diagnostics]
    assert not files


def test_edges_that_all_leave_exp_to_the_box_with_an_uplink_that_keeps_it_compile(tmp_path: Path) -> None:
    path = _policy(tmp_path, pe(edge=", impose: false", edge2=", impose: false", core=", rewrite: [dscp]"))
    result, files = compiled(path)
    assert errors(result) == []
    assert not any("rewrite-rules exp" in line for line in files["pe1.set"].splitlines())


@pytest.mark.parametrize("model", ["pipe", "uniform"])
def test_pipe_and_uniform_are_refused_at_the_tunnel_model_naming_explicit_null(tmp_path: Path, model: str) -> None:
    path = _policy(tmp_path, pe(), extra=f"mpls: {{tunnel-model: {model}}}")
    result, files = compiled(path)
    found = [d for d in result.diagnostics if d.code == "QOS192"]
    assert found and at(result, "QOS192", path, "tunnel-model"), [str(d) for d in result.diagnostics]
    assert "explicit-null" in found[0].message and "protocols mpls" in found[0].message
    assert not files


def test_short_pipe_needs_the_pe_to_classify_dscp_on_its_mpls_interfaces(tmp_path: Path) -> None:
    path = _policy(tmp_path, pe(core=", trust: exp"))
    result, _ = compiled(path)
    assert at(result, "QOS192", path, "xe-0/0/0:"), [str(d) for d in result.diagnostics]
    # a P router (no edge) does not care about the tunnel model
    p_only = _policy(tmp_path, "  p1:\n    platform: junos-mx\n    interfaces:\n"
                     "      xe-0/0/0: {role: core, speed: 10G, encapsulation: mpls, trust: exp}\n",
                     extra="mpls: {tunnel-model: pipe}")
    assert errors(compiled(p_only)[0]) == []


def test_dei_on_mx_is_written_as_ieee_802_1ad(tmp_path: Path) -> None:
    """assured's medium drop precedence travels as PCP 2 with the DEI set: MX classifies and rewrites 4-bit
    code points (the PCP, then the DEI)."""
    path = _policy(tmp_path, pe())
    result, files = compiled(path)
    assert errors(result) == []
    found = parse_set(files["pe1.set"])
    ad = (COS, "classifiers", "ieee-802.1ad", "m-8021ad", "forwarding-class", "assured", "loss-priority")
    assert (*ad, "low", "code-points", "0100") in found
    assert (*ad, "medium-high", "code-points", "0101") in found
    assert (*ad, "high", "code-points", "0110") in found
    rw = (COS, "rewrite-rules", "ieee-802.1ad", "m-8021ad", "forwarding-class", "assured", "loss-priority")
    assert (*rw, "medium-high", "code-point", "0101") in found
    assert (COS, "interfaces", "ge-0/0/2", "unit", "7", "classifiers", "ieee-802.1ad", "m-8021ad") in found
    assert not any(s[2:3] == ("ieee-802.1",) for s in found)
    for doc in documents(result):
        assert GRAMMAR.check(doc) == []


def test_m_series_has_no_dei_and_two_loss_priorities_and_says_so(tmp_path: Path) -> None:
    path = _policy(tmp_path, pe(platform="junos-m-series"))
    result, files = compiled(path)
    assert errors(result) == []
    warned = [d for d in result.diagnostics if d.code == "QOS115"]
    assert any("drop eligible indicator" in d.message and "PCP 2 at drop precedence 2" in d.message for d in warned)
    # exp medium 3 and high 4 share loss priority high: the explicit medium wins, high is said
    assert any("drop precedence 3 of service 'assured'" in d.message and "EXP 3" in d.message for d in warned)
    found = parse_set(files["pe1.set"])
    assert (COS, "rewrite-rules", "exp", "m-exp", "forwarding-class", "assured", "loss-priority", "high",
            "code-point", "011") in found
    assert any(s[2] == "ieee-802.1" for s in found if len(s) > 2)


def test_a_unit_with_ip_and_mpls_on_mx_binds_the_dscp_rule_plain_and_into_lsps(tmp_path: Path) -> None:
    path = _policy(tmp_path, pe(core=", encapsulation: [ip, mpls]").replace("encapsulation: mpls, ", ""))
    result, files = compiled(path)
    assert errors(result) == []
    found = parse_set(files["pe1.set"])
    unit = (COS, "interfaces", "xe-0/0/0", "unit", "0", "rewrite-rules")
    assert (*unit, "dscp", "m") in found and (*unit, "dscp", "m-mpls", "protocol", "mpls") in found
    assert (*unit, "dscp-ipv6", "m-ipv6-mpls", "protocol", "mpls") in found
    assert (COS, "rewrite-rules", "dscp", "m-mpls", "forwarding-class", "assured", "loss-priority", "low",
            "code-point", "af21") in found


def test_an_m_series_pe_binds_its_dscp_rule_plain(tmp_path: Path) -> None:
    """No `protocol mpls` on the M-series E-FPC (platform `dscp_into_lsp`)."""
    result, files = compiled(_policy(tmp_path, pe(platform="junos-m-series")))
    assert not any("protocol mpls" in line and "dscp" in line for line in files["pe1.set"].splitlines())
    assert errors(result) == []


def test_an_edge_with_a_classifier_that_trusts_pcp_keeps_its_ba_classification(tmp_path: Path) -> None:
    devices = pe(edge2=", classifier: c").replace("trust: pcp, classifier: c", "trust: pcp, classifier: c")
    path = _policy(tmp_path, devices)
    data = yaml.safe_load(path.read_text())
    data["classifiers"] = {"c": {"rules": [{"name": "video", "service": "premium",
                                            "match": {"protocol": ["udp"], "destination-port": [5004]}}]}}
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    result, files = compiled(path)
    assert errors(result) == []
    text = files["pe1.conf"]
    body = text[text.index("filter c {"):]
    body = body[:body.index("\n        }\n")]
    assert "term video" in body and "term trusted" in body and "unclassified" not in body
