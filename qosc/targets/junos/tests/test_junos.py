"""JUNOS target: golden configs, the GÉANT queue plan, MX limits, diagnostics, and the self-check."""

from __future__ import annotations

from pathlib import Path

import pytest

from qosc import api
from qosc.render import UnsafeValue
from qosc.targets import junos
from qosc.targets.junos import serialize
from qosc.targets.junos.lower import lower_device
from qosc.targets.junos.push.text import JunosSyntaxError
from qosc.targets.junos.tests.statements import parse_conf, parse_set
from qosc.targets.registry import platform, targets

ROOT = Path(__file__).resolve().parents[4]
GEANT = (ROOT / "policies" / "geant-lbe.yaml").read_text(encoding="utf-8")
ASSURED = (ROOT / "policies" / "assured-rate.yaml").read_text(encoding="utf-8")
COS = "class-of-service"


def compile_text(tmp_path: Path, text: str, name: str = "policy.yaml") -> tuple[api.Result, dict[str, str]]:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    result = api.validate(path)
    outputs = api.compile_policy(result, ["junos"])
    return result, {o.path: o.text for o in outputs}


def codes(result: api.Result, severity: str = "error") -> set[str]:
    return {d.code for d in result.diagnostics if d.severity.value == severity}


def line_of(text: str, needle: str) -> int:
    for number, line in enumerate(text.splitlines(), 1):
        if needle in line:
            return number
    raise AssertionError(f"{needle!r} not in policy")


def at_line(result: api.Result, code: str, line: int) -> bool:
    return any(d.code == code and d.location is not None and d.location.line == line for d in result.diagnostics)


@pytest.fixture(scope="module")
def geant(tmp_path_factory: pytest.TempPathFactory) -> set[tuple[str, ...]]:
    result, out = compile_text(tmp_path_factory.mktemp("geant"), GEANT)
    assert result.ok, result.diagnostics
    return parse_conf(out["junos/de1.de.conf"])


# -- registration and golden files ------------------------------------------------------------------------

def test_registered() -> None:
    target = targets()["junos"]
    assert target.platforms == ("junos-acx", "junos-m-series", "junos-mx")
    assert target is junos.TARGET


REFERENCE = [("geant-lbe.yaml", ["de1.de"]), ("assured-rate.yaml", ["edge-mx", "core-m"])]


@pytest.mark.parametrize("policy,devices", REFERENCE)
def test_golden(policy: str, devices: list[str], golden) -> None:
    result = api.validate(ROOT / "policies" / policy)
    assert result.ok, [str(d) for d in result.diagnostics if d.is_error]
    out = {o.path: o.text for o in api.compile_policy(result, ["junos"])}
    assert sorted(out) == sorted(f"junos/{d}.{s}" for d in devices for s in ("conf", "set"))
    for path, text in out.items():
        golden(path.removeprefix("junos/"), text)


@pytest.mark.parametrize("policy,devices", REFERENCE)
def test_conf_and_set_give_the_same_statements(policy: str, devices: list[str]) -> None:
    result = api.validate(ROOT / "policies" / policy)
    out = {o.path: o.text for o in api.compile_policy(result, ["junos"])}
    for device in devices:
        conf, set_text = parse_conf(out[f"junos/{device}.conf"]), parse_set(out[f"junos/{device}.set"])
        assert conf == set_text
        assert len(conf) > 30


# -- the GÉANT configuration of domain.md 4.3 ---------------------------------------------------------------

def test_geant_queue_plan(geant: set[tuple[str, ...]]) -> None:
    queues = {s[3]: s[4] for s in geant if s[:3] == (COS, "forwarding-classes", "queue")}
    assert queues == {"0": "best-effort", "1": "ip-premium", "2": "lbe", "3": "network-control"}
    sched = {(s[2], s[3]): s[4:] for s in geant if s[:2] == (COS, "schedulers")}
    fcs = ["best-effort", "ip-premium", "lbe", "network-control"]
    assert [sched[(fc, "transmit-rate")] for fc in fcs] == [("percent", n) for n in ("5", "90", "0", "5")]
    assert [sched[(fc, "buffer-size")] for fc in fcs] == [("percent", n) for n in ("5", "90", "0", "5")]
    assert [sched[(fc, "priority")] for fc in fcs] == [("high",), ("high",), ("low",), ("high",)]
    smap = {s[4]: s[6] for s in geant if s[:3] == (COS, "scheduler-maps", "geant-lbe")}
    assert smap == {fc: fc for fc in fcs}


def test_geant_classifier_rewrite_and_drop_profiles(geant: set[tuple[str, ...]]) -> None:
    assert (COS, "classifiers", "dscp", "geant-lbe", "import", "default") in geant
    cl = (COS, "classifiers", "dscp", "geant-lbe", "forwarding-class")
    assert cl + ("lbe", "loss-priority", "low", "code-points", "cs1") in geant
    assert cl + ("ip-premium", "loss-priority", "low", "code-points", "ef") in geant
    # AF1x would land in queue 2 (LBE) through the default classifier's assured-forwarding: pinned to BE
    assert cl + ("best-effort", "loss-priority", "low", "code-points", "af11") in geant
    rw = (COS, "rewrite-rules", "dscp", "geant-lbe", "forwarding-class")
    assert rw + ("best-effort", "loss-priority", "low", "code-point", "be") in geant
    assert rw + ("lbe", "loss-priority", "low", "code-point", "cs1") in geant
    be = sorted((int(s[4]), int(s[6])) for s in geant if s[:4] == (COS, "drop-profiles", "be", "fill-level"))
    assert be == [(15, 30), (19, 50), (24, 75), (30, 100)]
    ef = [(s[4], s[6]) for s in geant if s[:4] == (COS, "drop-profiles", "ef", "fill-level")]
    assert ef == [("10", "100")]
    assert (COS, "schedulers", "best-effort", "drop-profile-map", "loss-priority", "any", "protocol", "any",
            "drop-profile", "be") in geant


def test_geant_interface(geant: set[tuple[str, ...]]) -> None:
    ifaces = {s for s in geant if s[:2] == (COS, "interfaces")}
    assert ifaces == {
        (COS, "interfaces", "so-1/2/0", "scheduler-map", "geant-lbe"),
        (COS, "interfaces", "so-1/2/0", "unit", "0", "classifiers", "dscp", "geant-lbe"),
        (COS, "interfaces", "so-1/2/0", "unit", "0", "rewrite-rules", "dscp", "geant-lbe"),
        (COS, "interfaces", "so-1/2/0", "unit", "0", "classifiers", "dscp-ipv6", "geant-lbe-ipv6"),
        (COS, "interfaces", "so-1/2/0", "unit", "0", "rewrite-rules", "dscp-ipv6", "geant-lbe-ipv6"),
    }
    assert not any(s[0] == "firewall" for s in geant)


def test_geant_on_mx_uses_mx_limits_and_changes_nothing_else(tmp_path: Path, geant: set[tuple[str, ...]]) -> None:
    text = GEANT.replace("platform: junos-m-series", "platform: junos-mx")
    result, out = compile_text(tmp_path, text)
    assert result.ok, result.diagnostics
    mx = parse_conf(out["junos/de1.de.conf"])
    # the same statements, plus MX's excess priority beside each scheduler's priority (domain.md 4.3 mapping)
    excess = {s for s in mx if s[:2] == (COS, "schedulers") and s[3] == "excess-priority"}
    assert mx - excess == geant
    assert {(s[2], s[4]) for s in excess} == {("best-effort", "high"), ("ip-premium", "high"), ("lbe", "low"),
                                              ("network-control", "high")}
    assert "(junos-mx)" in out["junos/de1.de.conf"].splitlines()[0]
    # MX's eight queues take a fifth service that M-series' four cannot
    fifth = text.replace("drop-profiles:\n", "  video:\n    dscp: [cs4]\n    queue: {share: 0%, priority: low}\n"
                         "drop-profiles:\n", 1)
    result, out = compile_text(tmp_path, fifth, "fifth.yaml")
    assert result.ok, result.diagnostics
    queues = {s[3]: s[4] for s in parse_conf(out["junos/de1.de.conf"])
              if s[:3] == (COS, "forwarding-classes", "queue")}
    assert queues == {"0": "best-effort", "1": "ip-premium", "2": "lbe", "3": "network-control", "4": "video"}


def test_strict_premium_is_strict_high_on_mx(tmp_path: Path) -> None:
    text = GEANT.replace("platform: junos-m-series", "platform: junos-mx").replace(
        "queue: {share: 90%, buffer: 90%, priority: high}",
        "queue: {share: 10%, buffer: 90%, priority: high, strict: true, rate-cap: 20%}")
    result, out = compile_text(tmp_path, text)
    assert result.ok, result.diagnostics
    st = parse_conf(out["junos/de1.de.conf"])
    assert (COS, "schedulers", "ip-premium", "priority", "strict-high") in st
    # shaped at its cap with burst-size max(10 x 4470 B MTU, 1 ms at 20% of 2.5 Gbit/s = 62,500 B) (issue 17)
    assert (COS, "schedulers", "ip-premium", "shaping-rate", "percent", "20", "burst-size", "62500") in st


# -- capability diagnostics at the policy's own line --------------------------------------------------------

def test_five_services_on_m_series_is_qos091(tmp_path: Path) -> None:
    text = GEANT.replace("drop-profiles:\n", "  video:\n    dscp: [cs4]\n    queue: {share: 0%, priority: low}\n"
                         "drop-profiles:\n", 1)
    result, out = compile_text(tmp_path, text)
    assert out == {}
    assert "QOS091" in codes(result)
    assert at_line(result, "QOS091", line_of(text, "so-1/2/0: {profile"))


def test_more_classes_per_device_than_queues_is_qos118(tmp_path: Path) -> None:
    text = GEANT.replace("drop-profiles:\n", "  video:\n    dscp: [cs4]\n    queue: {share: 0%, priority: low}\n"
                         "drop-profiles:\n", 1).replace(
        "      so-1/2/0: {profile: backbone-stm16}",
        "      so-1/2/0: {profile: backbone-stm16, services: [best-effort, ip-premium, lbe, network-control]}\n"
        "      so-1/3/0: {profile: backbone-stm16, services: [best-effort, video]}")
    result, out = compile_text(tmp_path, text)
    assert out == {}
    assert "QOS091" not in codes(result)
    assert at_line(result, "QOS118", line_of(text, "platform: junos-m-series"))


STRICT = "queue: {share: 10%, buffer: 90%, priority: high, strict: true, rate-cap: 20%}"
EF_QUEUE = "queue: {share: 90%, buffer: 90%, priority: high}"
EDGE = "      so-1/2/0: {profile: backbone-stm16}\n      ge-0/0/0: {role: edge, speed: 1G}"
DIAGNOSTICS = [  # (policy, [(old, new)...], code, text on the line the diagnostic must point at)
    (GEANT, [(EF_QUEUE, STRICT)], "QOS110", "strict: true"),  # M-series: no strict-high
    (GEANT, [("drop-profiles:\n", "policers:\n  tiny: {cir: 4k, cbs: 10KB}\ndrop-profiles:\n"),
             ("      so-1/2/0: {profile: backbone-stm16}", EDGE),
             ("    dscp: [ef]\n", "    dscp: [ef]\n    policer: tiny\n")],
     "QOS095", "tiny: {cir: 4k"),  # below JUNOS's 8 kbit/s (generic, from platform data)
    (ASSURED, [("  edge-mx:\n    platform: junos-mx", "  edge-mx:\n    platform: junos-m-series")], "QOS111",
     "pir: 100M"),
    (ASSURED, [("    exceed: af22\n", "    exceed: af23\n")], "QOS114", "exceed: af23"),  # yellow is rewritten af22
    (GEANT, [("queue: {share: 5%, buffer: 5%, priority: high}\n    drop-profile: be",
              "queue: {share: 5%, buffer: 5%, priority: high, ceiling: 50%}\n    drop-profile: be")],
     "QOS112", "ceiling: 50%"),  # M-series cannot shape a queue
    (GEANT, [("queue: {share: 0%, buffer: 0%, priority: low}", "queue: {share: 0%, buffer: 300ms, priority: low}")],
     "QOS113", "buffer: 300ms"),  # temporal buffer above 200 ms
    (GEANT, [(EF_QUEUE, "queue: {share: 89.5%, buffer: 90%, priority: high}")], "QOS113", "share: 89.5%"),
    # the service the name collides on
    (GEANT, [("  lbe:\n    kind: lbe", "  ip.premium:\n    kind: lbe")], "QOS117", "kind: lbe"),
]


@pytest.mark.parametrize("policy,edits,code,needle", DIAGNOSTICS, ids=[f"{c}-{n}" for _, _, c, n in DIAGNOSTICS])
def test_capability_diagnostics_at_the_policy_line(tmp_path: Path, policy: str, edits: list[tuple[str, str]],
                                                   code: str, needle: str) -> None:
    text = policy
    for old, new in edits:
        assert old in text
        text = text.replace(old, new, 1)
    result, out = compile_text(tmp_path, text)
    assert out == {}
    assert at_line(result, code, line_of(text, needle)), [str(d) for d in result.diagnostics]


def test_strict_on_m_series_says_use_priority_high_with_a_policer(tmp_path: Path) -> None:
    result, _ = compile_text(tmp_path, GEANT.replace(EF_QUEUE, STRICT))
    hint = next(d.hint for d in result.diagnostics if d.code == "QOS110")
    assert hint is not None and "priority: high" in hint and "police" in hint


def test_warnings_where_a_dscp_will_be_rewritten(tmp_path: Path) -> None:
    text = (ROOT / "policies" / "assured-rate.yaml").read_text()
    assert "        role: transparent\n        speed: 2.5G\n" in text
    core = tmp_path / "core.yaml"
    core.write_text(text.replace("        role: transparent\n        speed: 2.5G\n",
                                 "        role: core\n        speed: 2.5G\n"))
    warnings = [d for d in api.validate(core).diagnostics if d.code in ("QOS115", "QOS116")]
    assert any(d.code == "QOS116" and "ip-premium" in d.message and "core-m" in d.message for d in warnings)
    assert any(d.code == "QOS115" and "af23" in d.message for d in warnings)
    # the reference policy makes core-m transparent, so EF and AF23 leave it unchanged
    reference = api.validate(ROOT / "policies" / "assured-rate.yaml")
    assert not [d for d in reference.diagnostics if d.code == "QOS116" or (d.code == "QOS115" and "af23" in d.message)]
    geant = api.validate(ROOT / "policies" / "geant-lbe.yaml")
    assert not [d for d in geant.diagnostics if d.code.startswith("QOS11")]


# -- edge conditioning and roles ---------------------------------------------------------------------------

def test_assured_rate_edge_marks_af_by_loss_priority() -> None:
    result = api.validate(ROOT / "policies" / "assured-rate.yaml")
    out = {o.path: o.text for o in api.compile_policy(result, ["junos"])}
    st = parse_conf(out["junos/edge-mx.conf"])
    rw = (COS, "rewrite-rules", "dscp", "assured-rate", "forwarding-class", "assured", "loss-priority")
    assert {rw + (lp, "code-point", c) for lp, c in (("low", "af21"), ("medium-high", "af22"), ("high", "af23"))} <= st
    inet = ("firewall", "family", "inet", "filter", "site-in", "term")
    assert inet + ("bulk-transfer", "then", "three-color-policer", "two-rate", "ar-in") in st
    assert inet + ("premium-video", "then", "policer", "premium-in") in st
    assert inet + ("unclassified", "then", "forwarding-class", "best-effort") in st
    assert ("firewall", "family", "inet6", "filter", "site-in", "term", "bulk-transfer", "from", "source-address",
            "fd00:20::/64") in st
    assert not any(s[:7] == ("firewall", "family", "inet6", "filter", "site-in", "term", "premium-video") for s in st)
    assert ("firewall", "three-color-policer", "ar-in", "two-rate", "committed-burst-size", "2500000") in st
    assert ("interfaces", "ge-0/0/1", "unit", "0", "family", "inet", "filter", "input", "site-in") in st
    # trust none: no BA classifier on the edge unit, but the rewrite rule marks on the way out
    assert not any(s[:6] == (COS, "interfaces", "ge-0/0/1", "unit", "0", "classifiers") for s in st)
    assert (COS, "interfaces", "ge-0/0/1", "unit", "0", "rewrite-rules", "dscp", "assured-rate") in st
    # network control on queue 3 even though LBE comes first in the policy
    assert (COS, "forwarding-classes", "queue", "3", "network-control") in st


def test_transparent_interface_has_no_rewrite(tmp_path: Path) -> None:
    text = GEANT.replace("so-1/2/0: {profile: backbone-stm16}",
                         "so-1/2/0: {profile: backbone-stm16, role: transparent}")
    result, out = compile_text(tmp_path, text)
    assert result.ok, result.diagnostics
    st = parse_conf(out["junos/de1.de.conf"])
    assert not any("rewrite-rules" in s for s in st if s[:2] == (COS, "interfaces"))
    assert (COS, "interfaces", "so-1/2/0", "scheduler-map", "geant-lbe") in st


def test_trusted_edge_polices_by_code_point(tmp_path: Path) -> None:
    text = ASSURED.replace("    classifier: site-in\n", "    classifier: site-in\n    trust: dscp\n")
    result, out = compile_text(tmp_path, text)
    assert result.ok, [str(d) for d in result.diagnostics if d.is_error]
    st = parse_conf(out["junos/edge-mx.conf"])
    base = ("firewall", "family", "inet", "filter", "site-in-dscp", "term")
    assert base + ("police-ip-premium", "from", "dscp", "ef") in st
    assert base + ("police-ip-premium", "then", "policer", "premium-in") in st
    assert base + ("trusted", "then", "accept") in st
    assert (COS, "interfaces", "ge-0/0/1", "unit", "0", "classifiers", "dscp", "assured-rate") in st


def test_le_gets_a_code_point_alias(tmp_path: Path) -> None:
    text = GEANT.replace("    dscp: [cs1]\n", "    dscp: [le, cs1]\n")
    result, out = compile_text(tmp_path, text)
    assert result.ok, result.diagnostics
    st = parse_conf(out["junos/de1.de.conf"])
    assert (COS, "code-point-aliases", "dscp", "le", "000001") in st
    cl = (COS, "classifiers", "dscp", "geant-lbe", "forwarding-class", "lbe", "loss-priority")
    assert cl + ("low", "code-points", "le") in st and cl + ("high", "code-points", "cs1") in st


# -- names, descriptions and the self-check ------------------------------------------------------------------

def test_descriptions_are_quoted_comments(tmp_path: Path) -> None:
    text = GEANT.replace("description: Routing protocols",
                         "description: 'say \"hi\" } ; set system root-authentication'")
    result, out = compile_text(tmp_path, text)
    assert result.ok, result.diagnostics
    conf = out["junos/de1.de.conf"]
    line = next(ln for ln in conf.splitlines() if "root-authentication" in ln)
    assert line.startswith("# ") and "\"say 'hi' } ; set system root-authentication\"" in line
    assert not any(ln.startswith("set system") for ln in out["junos/de1.de.set"].splitlines())


def test_control_characters_never_reach_the_config() -> None:
    result = api.validate(ROOT / "policies" / "geant-lbe.yaml")
    assert result.policy is not None
    device = result.policy.devices[0]
    data = platform(device.platform)
    doc = lower_device(result.policy, device, junos.device_plan(result.policy, device, data))  # type: ignore[arg-type]
    with pytest.raises(UnsafeValue):
        serialize.curly(type(doc)(doc.stem, doc.dialect, doc.statements, ("line\nset system root-authentication",)))


def test_dotted_names_become_junos_names(tmp_path: Path) -> None:
    text = GEANT.replace("  lbe:\n    kind: lbe", "  lbe.v2:\n    kind: lbe")
    result, out = compile_text(tmp_path, text)
    assert result.ok, result.diagnostics
    assert (COS, "forwarding-classes", "queue", "2", "lbe-v2") in parse_conf(out["junos/de1.de.conf"])


def test_grammar_refusal_becomes_qos199(monkeypatch: pytest.MonkeyPatch) -> None:
    from qosc.grammar import Violation
    monkeypatch.setattr(type(junos.TARGET.grammars[0]), "check",
                        lambda self, doc: [Violation((doc.statements[0],), "refused for the test")])
    result = api.validate(ROOT / "policies" / "geant-lbe.yaml")
    assert api.compile_policy(result, ["junos"]) == []
    assert "QOS199" in codes(result)


def test_test_parsers_agree_on_lists_and_nesting() -> None:
    conf = "a {\n    b [ x y ];\n    c { d e; }\n}\n# comment\n"
    assert parse_conf(conf) == parse_set("set a b x\nset a b y\nset a c d e\n") == {
        ("a", "b", "x"), ("a", "b", "y"), ("a", "c", "d", "e")}
    with pytest.raises(JunosSyntaxError):
        parse_conf("a { b; ")


def test_queue_numbers_do_not_depend_on_where_network_control_is_written(tmp_path: Path) -> None:
    services, rest = GEANT.split("\ndrop-profiles:\n")
    head, nc = services.split("  network-control:\n")
    text = head.replace("services:\n", "services:\n  network-control:\n" + nc + "\n", 1) + "\ndrop-profiles:\n" + rest
    result, out = compile_text(tmp_path, text)
    assert result.ok, result.diagnostics
    st = parse_conf(out["junos/de1.de.conf"])
    queues = {s[3]: s[4] for s in st if s[:3] == (COS, "forwarding-classes", "queue")}
    assert queues == {"0": "best-effort", "1": "ip-premium", "2": "lbe", "3": "network-control"}


def test_three_colour_policer_dropping_yellow_and_red_is_a_two_colour_policer(tmp_path: Path) -> None:
    text = ASSURED.replace("    exceed: af22\n    violate: af23", "    exceed: drop\n    violate: drop")
    result, out = compile_text(tmp_path, text)
    assert result.ok, [str(d) for d in result.diagnostics if d.is_error]
    st = parse_conf(out["junos/edge-mx.conf"])
    assert ("firewall", "policer", "ar-in", "if-exceeding", "bandwidth-limit", "50000000") in st
    assert ("firewall", "policer", "ar-in", "then", "discard") in st
    assert ("firewall", "family", "inet", "filter", "site-in", "term", "bulk-transfer", "then", "policer",
            "ar-in") in st
    assert not any(s[:2] == ("firewall", "three-color-policer") for s in st)


def test_ceiling_equal_to_share_is_exact(tmp_path: Path) -> None:
    text = GEANT.replace("queue: {share: 0%, buffer: 0%, priority: low}",
                         "queue: {share: 1%, buffer: 1%, priority: low, ceiling: 1%}").replace(
        "queue: {share: 90%, buffer: 90%, priority: high}", "queue: {share: 89%, buffer: 89%, priority: high}")
    result, out = compile_text(tmp_path, text)
    assert result.ok, result.diagnostics
    assert (COS, "schedulers", "lbe", "transmit-rate", "percent", "1", "exact") in parse_conf(out["junos/de1.de.conf"])
