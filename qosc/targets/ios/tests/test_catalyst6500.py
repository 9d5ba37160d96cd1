"""Target catalyst6500: golden configs, the DataGRID 91/9 port, CoS maps, policers, the queue-mapping rule."""

from __future__ import annotations

import re
import string
import textwrap
from pathlib import Path

import pytest

from qosc import api
from qosc.model import Policy
from qosc.targets.base import SelfCheckError
from qosc.targets.ios import table as cisco_table
from qosc.targets.ios.common import line
from qosc.targets.ios.read.parse import check_text
from qosc.targets.ios.target import CiscoTarget
from qosc.targets.ios.tests.support import confparse, load
from qosc.targets.registry import targets

ROOT = Path(__file__).resolve().parents[4]
_FOUND = targets()["catalyst6500"]
assert isinstance(_FOUND, CiscoTarget)
TARGET: CiscoTarget = _FOUND


def compile_device(policy: Policy | None, device: str = "cat6500-1") -> str:
    assert policy is not None
    unit = policy.device_map[device]
    (out,) = TARGET.render(TARGET.lower(policy, unit, TARGET.platform_data[unit.platform]))
    assert out.path == f"{device}.cfg"
    return out.text


def block(text: str, header: str) -> list[str]:
    lines = text.splitlines()
    depth = len(header) - len(header.lstrip(" ")) + 1
    out = []
    for ln in lines[lines.index(header) + 1:]:
        if not ln.startswith(" " * depth):
            break
        if not ln.strip().startswith("!"):
            out.append(ln.strip())
    return out


CASES = [("datagrid-catalyst", "cat6500-1"), ("assured-rate", "cat6500-2")]


@pytest.mark.parametrize("policy_name,device", CASES)
def test_golden(policy_name: str, device: str, golden) -> None:
    policy, _ = load(ROOT / "policies" / f"{policy_name}.yaml")
    golden(f"catalyst6500/{policy_name}/{device}.cfg", compile_device(policy, device))


def test_datagrid_catalyst_two_queue_wrr_port() -> None:
    policy, diags = load(ROOT / "policies/datagrid-catalyst.yaml")
    text = compile_device(policy)
    lines = text.splitlines()
    assert lines[lines.index("!") + 1] == "mls qos"  # the first statement after the header
    assert "mls qos map dscp-cos 46 to 5" in text.splitlines()  # EF -> CoS 5 (its precedence)
    assert "mls qos map dscp-cos 0 1 2 3 4 5 6 7 to 0" in text.splitlines()  # the rest -> best effort's CoS
    for name in ("GigabitEthernet1/1", "GigabitEthernet1/2"):
        cmds = block(text, f"interface {name}")
        # queue order: best effort in queue 1, IP Premium in queue 2 (91/9 weights, 90/10 buffers)
        assert "wrr-queue bandwidth 9 91" in cmds
        assert "wrr-queue queue-limit 90 10" in cmds
        assert "wrr-queue cos-map 1 1 0 1 2 3 4 6 7" in cmds and "wrr-queue cos-map 2 1 5" in cmds
        assert "wrr-queue threshold 1 100 100" in cmds  # 2q2t: tail drop only, thresholds at 100% (TCP lesson)
    assert "mls qos trust dscp" in block(text, "interface GigabitEthernet1/2")
    assert "mls qos trust dscp" not in block(text, "interface GigabitEthernet1/1")
    assert "service-policy input datagrid-catalyst-in" in block(text, "interface GigabitEthernet1/1")
    assert block(text, " class grid-in-premium-video") == [
        "set ip dscp ef",
        # untrusted port: conform-action transmit would trust the customer DSCP; PIR = CIR with exceed drop is
        # one-rate without a maximum burst (12.2SX refuses drop with one) (issue 15)
        "police 80000000 40000 conform-action set-dscp-transmit ef exceed-action drop"]
    assert block(text, "ip access-list extended grid-in-premium-video") == [
        "permit udp 198.18.10.0 0.0.0.255 any range 5004 5005"]
    assert [d.code for d in diags if d.code.startswith("QOS12")] == []


def test_assured_rate_policer_remarks_through_policed_dscp_maps() -> None:
    policy, diags = load(ROOT / "policies/assured-rate.yaml")
    text = compile_device(policy, "cat6500-2")
    assert block(text, " class site-in-bulk-transfer") == [
        "set ip dscp af21",
        "police 50000000 2500000 5000000 pir 100000000 conform-action set-dscp-transmit af21 "
        "exceed-action policed-dscp-transmit violate-action policed-dscp-transmit"]
    lines = text.splitlines()
    assert "mls qos map policed-dscp normal-burst 18 to 20" in lines  # exceed: AF21 -> AF22
    assert "mls qos map policed-dscp max-burst 18 to 22" in lines  # violate: AF21 -> AF23
    core = block(text, "interface TenGigabitEthernet4/1")
    assert "priority-queue cos-map 1 5" in core  # 1p7q8t: EF (strict) in the priority queue
    assert "wrr-queue cos-map 1 1 1" in core  # LBE alone in the lowest queue
    assert "wrr-queue bandwidth 1 40 40 5 1 1 1" in core
    assert "wrr-queue random-detect max-threshold 3 95 95 95 95 95 95 95 95" in core  # AF: af-low profile
    assert any(d.code == "QOS122" and "catalyst6500" in d.message for d in diags)


def test_hierarchy_matches_the_ir() -> None:
    ciscoconfparse2 = confparse()
    for policy_name, device in CASES:
        policy, _ = load(ROOT / "policies" / f"{policy_name}.yaml")
        ir, _ = TARGET.ir(policy, policy.device_map[device])
        parsed = ciscoconfparse2.CiscoConfParse(TARGET.text(ir).splitlines(), syntax="ios")
        maps = parsed.find_objects(r"^policy-map ")
        assert [m.text.split()[1] for m in maps] == [pm["name"] for pm in ir["policy_maps"]]
        for obj, pm in zip(maps, ir["policy_maps"], strict=True):
            got = [(c.text.strip(), [a.text.strip() for a in c.children if not a.text.strip().startswith("!")])
                   for c in obj.children if not c.text.strip().startswith("!")]
            assert got == [(f"class {c['name']}", [line(cmd) for cmd in c["commands"]]) for c in pm["classes"]]
        for iface in ir["interfaces"]:
            (obj,) = parsed.find_objects(rf"^interface {re.escape(iface['name'])}$")
            assert [c.text.strip() for c in obj.children if not c.text.strip().startswith("!")] == [
                line(cmd) for cmd in iface["commands"]]
        globals_ = [o.text for o in parsed.find_objects(r"^mls qos")]
        assert globals_ == [line(cmd) for cmd in ir["globals"]]


@pytest.mark.parametrize("bad,where", [
    ("interface GigabitEthernet1/2\n wrr-queue bandwidth 9 300\n", "300 is outside 1..255"),
    ("interface GigabitEthernet1/2\n service-policy output datagrid-catalyst-in\n", "not valid in interface mode"),
    ("policy-map p\n class grid-in-premium-video\n  police 80000000 40000 conform-action transmit "
     "exceed-action set-dscp-transmit af22\n", "not valid in policy-map-class mode"),
    ("policy-map q\n class nothing\n  trust dscp\n", "class-map nothing is used but never defined"),
    ("mls qos map dscp-cos 46 to 8\n", "8 is outside 0..7"),
    ("bandwidth percent 5\n", "not valid in global mode"),
])
def test_injected_bad_line_fails_the_mode_check(bad: str, where: str) -> None:
    policy, _ = load(ROOT / "policies/datagrid-catalyst.yaml")
    text = compile_device(policy)
    with pytest.raises(SelfCheckError, match=re.escape(where)):
        check_text(text.replace("end\n", bad + "end\n"), "catalyst6500")


def test_every_command_table_entry_cites_a_source() -> None:
    data = cisco_table.table_data("catalyst6500")
    for entries in data["modes"].values():
        for entry in entries:
            assert entry["source"] in data["sources"], entry["syntax"]


POLICY = string.Template("""\
qosc: 1
name: t
services:
  best-effort: {kind: best-effort, default: true, queue: {share: 60%, priority: high}}
  lbe: {kind: lbe, dscp: [$lbe], queue: {share: 1%, priority: low}}
  premium: {kind: premium, dscp: [ef], queue: {share: 10%, priority: high, strict: $strict, rate-cap: 10%}}
$extra
devices:
  c1:
    platform: catalyst6500
    interfaces:
      GigabitEthernet1/1: {role: core, speed: 1G, port-type: $port}
""")


def variant(tmp_path: Path, **kw: str) -> api.Result:
    values = {"lbe": "cs1", "strict": "true", "port": "1p2q2t", "extra": "", **kw}
    path = tmp_path / "p.yaml"
    path.write_text(textwrap.dedent(POLICY.substitute(values)), encoding="utf-8")
    return api.validate(path)


def plan(result: api.Result) -> list[dict]:
    assert result.ok and result.policy is not None, [d.message for d in result.diagnostics if d.is_error]
    ir, _ = TARGET.ir(result.policy, result.policy.device_map["c1"])
    return ir["interfaces"][0]["queues"]


def test_mapping_rule_lbe_bottom_queue_strict_to_priority_queue(tmp_path: Path) -> None:
    got = plan(variant(tmp_path))
    assert [(q["queue"], q["services"]) for q in got] == [(1, ["lbe"]), (2, ["best-effort"]), ("pq", ["premium"])]
    assert got[0]["cos"] == {1: [1]} and got[2]["cos"] == {1: [5]}


def test_lbe_on_le_moves_off_best_effort_cos(tmp_path: Path) -> None:
    result = variant(tmp_path, lbe="le")
    assert plan(result)[0]["cos"] == {1: [1]}  # DSCP 1 (precedence 0) gets the free CoS 1, not BE's 0
    text = compile_device(result.policy, "c1")
    assert "mls qos map dscp-cos 1 to 1" in text.splitlines()


def test_lbe_that_cannot_get_a_cos_of_its_own_is_rejected(tmp_path: Path) -> None:
    extra = "\n".join(f"  s{p}: {{kind: other, dscp: [cs{p}], queue: {{share: 1%, priority: high}}}}"
                      for p in (1, 2, 3, 4, 6, 7))
    result = variant(tmp_path, lbe="le", extra=extra, port="1p7q8t")
    diags = [d for d in result.diagnostics if d.code == "QOS126"]
    assert diags and "'lbe'" in diags[0].message and "LBE must never share" in diags[0].message
    assert diags[0].location is not None and diags[0].location.line == 5


def test_too_many_wrr_services_for_the_port_type(tmp_path: Path) -> None:
    result = variant(tmp_path, strict="false")  # three WRR services, 1p2q2t has two WRR queues
    diags = [d for d in result.diagnostics if d.code == "QOS125"]
    assert diags and "needs 3 WRR queues" in diags[0].message
    assert diags[0].location is not None and diags[0].location.line == 12


def test_strict_service_without_priority_queue_warns(tmp_path: Path) -> None:
    assert [q["services"] for q in plan(variant(tmp_path, port="1p3q8t"))][-1] == ["premium"]  # priority queue
    codes = [d.code for d in variant(tmp_path, port="2q2t").diagnostics]
    assert "QOS127" in codes  # served by the top WRR queue instead (and three services do not fit: QOS125)
    assert "QOS125" in codes


def test_unknown_port_type(tmp_path: Path) -> None:
    result = variant(tmp_path, port="9q9t")
    assert "QOS125" in [d.code for d in result.diagnostics]


def test_conflicting_policed_dscp_maps(tmp_path: Path) -> None:
    extra = """\
policers:
  a: {cir: 10M, cbs: 64KB, exceed: af22}
  b: {cir: 10M, cbs: 64KB, exceed: af23}
classifiers:
  c:
    rules:
      - {name: r1, match: {source: [198.18.1.0/24]}, service: lbe, policer: a}
      - {name: r2, match: {source: [198.18.2.0/24]}, service: lbe, policer: b}"""
    path = tmp_path / "p.yaml"
    text = POLICY.substitute(lbe="cs1", strict="true", port="1p2q2t", extra=extra)
    path.write_text(text.replace("{role: core, speed: 1G", "{role: edge, classifier: c, speed: 1G"), "utf-8")
    diags = [d for d in api.validate(path).diagnostics if d.code == "QOS129"]
    assert diags and "policer 'b'" in diags[0].message


def test_qos128_wred_on_a_tail_drop_only_port(tmp_path) -> None:
    from qosc import api
    text = (ROOT / "policies" / "datagrid-catalyst.yaml").read_text()
    text = text.replace("    queue: {share: 9%, buffer: 90%, priority: low}\n",
                        "    queue: {share: 9%, buffer: 90%, priority: low}\n    drop-profile: be-wred\n")
    text += "drop-profiles:\n  be-wred: {min: 40, max: 100, max-probability: 10%}\n"
    path = tmp_path / "wred.yaml"
    path.write_text(text)
    diags = api.validate(path).diagnostics
    assert [d.code for d in diags if d.code.startswith("QOS12")] == ["QOS128"]
    assert next(d for d in diags if d.code == "QOS128").severity.value == "warning"


MARKDOWN = """\
  af: {kind: assured, dscp: [af21, af22, af23], queue: {share: 20%, priority: high}}
policers:
  p: $policer
classifiers:
  c:
    rules:
      - {name: r1, match: {source: [198.18.1.0/24]}, service: af, policer: p}"""


def markdown(tmp_path: Path, policer: str) -> tuple[api.Result, str]:
    path = tmp_path / "p.yaml"
    text = POLICY.substitute(lbe="cs1", strict="true", port="1p3q8t",
                             extra=string.Template(MARKDOWN).substitute(policer=policer))
    path.write_text(text.replace("{role: core, speed: 1G", "{role: edge, classifier: c, speed: 1G"), "utf-8")
    result = api.validate(path)
    return result, compile_device(result.policy, "c1") if result.ok else ""


@pytest.mark.parametrize(("policer", "police", "maps"), [
    # srTCM (RFC 2697) with a maximum burst above the normal one: exceed (above CBS) through the normal-burst map,
    # violate (above EBS) through the max-burst map, so AF21 -> AF22 and AF21 -> AF23 are two maps, no clash
    ("{cir: 10M, cbs: 64KB, ebs: 128KB, conform: af21, exceed: af22, violate: af23}",
     "police 10000000 64000 128000 conform-action set-dscp-transmit af21 exceed-action policed-dscp-transmit "
     "violate-action policed-dscp-transmit",
     ["mls qos map policed-dscp normal-burst 18 to 20", "mls qos map policed-dscp max-burst 18 to 22"]),
    # trTCM: likewise
    ("{cir: 10M, cbs: 64KB, pir: 20M, pbs: 128KB, conform: af21, exceed: af22, violate: af23}",
     "police 10000000 64000 128000 pir 20000000 conform-action set-dscp-transmit af21 exceed-action "
     "policed-dscp-transmit violate-action policed-dscp-transmit",
     ["mls qos map policed-dscp normal-burst 18 to 20", "mls qos map policed-dscp max-burst 18 to 22"]),
    # no pir and no maximum burst (it equals the normal burst): exceed through the max-burst map
    ("{cir: 10M, cbs: 64KB, conform: af21, exceed: af22}",
     "police 10000000 64000 conform-action set-dscp-transmit af21 exceed-action policed-dscp-transmit",
     ["mls qos map policed-dscp max-burst 18 to 20"]),
    # no pir, a maximum burst equal to the normal one: the max-burst map too
    ("{cir: 10M, cbs: 64KB, ebs: 64KB, conform: af21, exceed: af22, violate: drop}",
     "police 10000000 64000 64000 conform-action set-dscp-transmit af21 exceed-action policed-dscp-transmit "
     "violate-action drop",
     ["mls qos map policed-dscp max-burst 18 to 20"]),
])
def test_markdown_map_of_exceed_follows_pir_and_the_bursts(tmp_path: Path, policer: str, police: str,
                                                          maps: list[str]) -> None:
    """Issue 26, Cisco's PFC QoS chapter (Catalyst 6500 IOS Configuration Guide 12.1E, 78-14099-04, p. 31-69; the
    same note in the 12.2SX guide's PFC QoS chapter, Cisco 7600 12.2SX OL-4266-08 p. 42-63): only a policer
    without `pir` whose maximum burst equals its normal burst (or is not entered) marks exceeding traffic down
    through the max-burst map; otherwise exceed uses the normal-burst map and violate the max-burst map.  An srTCM
    with two bursts was written into the max-burst map for exceed, and one that remarks violate differently was
    refused with QOS129."""
    from qosc.behaviour.roundtrip import drift
    from qosc.targets.ios import read as reader

    result, text = markdown(tmp_path, policer)
    assert result.ok, [d.message for d in result.diagnostics if d.is_error]
    assert not [d for d in result.diagnostics if d.code == "QOS129"]
    assert block(text, " class c-r1") == ["set ip dscp af21", police]
    assert sorted(ln for ln in text.splitlines() if ln.startswith("mls qos map policed-dscp")) == sorted(maps)
    # read back, exceed and violate remark as the policy says (the reader takes the map the PFC takes)
    assert result.policy is not None
    found = reader.interpret(reader.parse(text, "c1.cfg", None), None)[0]
    (rule,) = found.interfaces[0].rules
    assert rule.policer is not None and rule.policer.exceed == "dscp 20"
    assert [f.message for f in drift(result.policy, "c1", found) if f.subject.startswith("rule")] == []


def test_one_bucket_policer_cannot_remark_exceed_and_violate_apart(tmp_path: Path) -> None:
    """Without pir and with a maximum burst equal to the normal burst, exceed and violate both go through the
    max-burst map: two remarks of one code point are QOS129, which says why (not 'another policer')."""
    result, _ = markdown(tmp_path, "{cir: 10M, cbs: 64KB, ebs: 64KB, conform: af21, exceed: af22, violate: af23}")
    (diag,) = [d for d in result.diagnostics if d.code == "QOS129"]
    assert "to 20 on exceed and to 22 on violate" in diag.message and "max-burst" in diag.message
    assert diag.location is not None and diag.location.line == 9 and "ebs" in (diag.hint or "")


def test_a_port_given_no_service_compiles_without_a_cos_map(tmp_path: Path) -> None:
    """Issue 22 (c6500-wrr.ios): a Port-channel that only trusts CoS, imported as an interface with `services: []`,
    made the PFC lowering index a queue plan that had no queue (IndexError while the policy was validated)."""
    path = tmp_path / "c6.yaml"
    path.write_text(textwrap.dedent("""\
        qosc: 1
        name: c6
        services:
          best-effort: {kind: best-effort, default: true, queue: {share: 60%, priority: high}}
          voice: {kind: premium, dscp: [ef], queue: {share: 40%, priority: high}}
        devices:
          sw1:
            platform: catalyst6500
            interfaces:
              Port-channel51: {role: core, services: []}
              GigabitEthernet1/7: {role: core, speed: 1G, port-type: 1p3q8t}
        """))
    policy, _ = load(path)
    text = compile_device(policy, "sw1")
    assert not [ln for ln in block(text, "interface Port-channel51") if "cos-map" in ln]
    assert [ln for ln in block(text, "interface GigabitEthernet1/7") if "cos-map" in ln]
