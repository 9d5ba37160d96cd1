"""Target ios-mqc: golden configs, the DataGRID GSR and Assured Rate facts, the mode self-check."""

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
from qosc.targets.ios.common import Cmd, line
from qosc.targets.ios.read.parse import check_text
from qosc.targets.ios.target import CiscoTarget
from qosc.targets.ios.tests.support import confparse, load
from qosc.targets.registry import targets

ROOT = Path(__file__).resolve().parents[4]
_FOUND = targets()["ios-mqc"]
assert isinstance(_FOUND, CiscoTarget)
TARGET: CiscoTarget = _FOUND


def compile_device(policy: Policy | None, device: str) -> str:
    assert policy is not None
    unit = policy.device_map[device]
    (out,) = TARGET.render(TARGET.lower(policy, unit, TARGET.platform_data[unit.platform]))
    assert out.path == f"{device}.cfg"
    return out.text


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "p.yaml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def block(text: str, header: str) -> list[str]:
    """The lines under one top-level command, up to the next top-level line."""
    lines = text.splitlines()
    start = lines.index(header)
    out = []
    for ln in lines[start + 1:]:
        if not ln.startswith(" "):
            break
        out.append(ln)
    return out


def classes(text: str, policy_map: str) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    current = None
    for ln in block(text, f"policy-map {policy_map}"):
        if ln.startswith(" class "):
            current = ln.split()[1]
            found[current] = []
        elif current and not ln.strip().startswith("!"):
            found[current].append(ln.strip())
    return found


CASES = [("datagrid-gsr", "gsr-1"), ("assured-rate", "gsr-2"), ("assured-rate", "asr-1")]


@pytest.mark.parametrize("policy_name,device", CASES)
def test_golden(policy_name: str, device: str, golden) -> None:
    policy, _ = load(ROOT / "policies" / f"{policy_name}.yaml")
    golden(f"ios-mqc/{policy_name}/{device}.cfg", compile_device(policy, device))


def test_datagrid_gsr_five_precedence_classes_with_wred() -> None:
    policy, diags = load(ROOT / "policies/datagrid-gsr.yaml")
    assert not [d for d in diags if d.code.startswith("QOS12")]
    text = compile_device(policy, "gsr-1")
    got = classes(text, "datagrid-gsr-out")
    assert list(got) == ["precedence-1", "precedence-2", "precedence-3", "precedence-4", "class-default"]
    shares = [next(c for c in cmds if c.startswith("bandwidth percent")) for cmds in got.values()]
    assert shares == [f"bandwidth percent {n}" for n in (4, 4, 4, 16, 72)]
    for prec in (1, 2, 3, 4):
        assert block(text, f"class-map match-any precedence-{prec}") == [f" match ip precedence {prec}"]
        cmds = got[f"precedence-{prec}"]
        assert "random-detect" in cmds and "random-detect precedence-based" not in cmds
        # thresholds in packets: fill % of the class's queue, 50 ms at 2.5 Gbit/s in 4470-byte packets (3496),
        # not a 64-packet constant (issue 15); 1/10 at max
        expected = "874 2622 10" if prec < 4 else "1049 3146 10"
        assert f"random-detect precedence {prec} {expected}" in cmds
    # every precedence that can reach class-default gets the best-effort curve
    assert [c for c in got["class-default"] if c.startswith("random-detect precedence ")] == [
        f"random-detect precedence {p} 1049 3146 10" for p in (0, 5, 6, 7)]
    # 100% guaranteed: above the classic IOS 75% reservable, raised before the policy is attached
    assert block(text, "interface POS0/0")[-2:] == [" max-reserved-bandwidth 100",
                                                   " service-policy output datagrid-gsr-out"]


def test_assured_rate_two_rate_policer_remarks_af21_af22_af23() -> None:
    policy, diags = load(ROOT / "policies/assured-rate.yaml")
    text = compile_device(policy, "asr-1")
    edge = classes(text, "assured-rate-in")
    assert edge["site-in-bulk-transfer"] == [
        "police cir 50000000 bc 2500000 pir 100000000 be 5000000 conform-action set-dscp-transmit af21 "
        "exceed-action set-dscp-transmit af22 violate-action set-dscp-transmit af23"]
    assert edge["site-in-premium-video"] == [
        "police cir 10000000 bc 64000 conform-action set-dscp-transmit ef exceed-action drop"]
    assert edge["site-in-backups"] == ["set dscp cs1"]
    assert edge["class-default"] == ["set dscp default"]
    assert " service-policy input assured-rate-in" in block(text, "interface GigabitEthernet0/0/0")
    # IOS XE classifies by DSCP, so AF drop precedences get their own WRED curves
    core = classes(text, "assured-rate-out-TenGigabitEthernet0-1-0")
    assert core["assured"][:3] == ["bandwidth percent 40", "queue-limit 1638", "random-detect dscp-based"]
    assert [c.split()[2] for c in core["assured"] if c.startswith("random-detect dscp ")] == ["af21", "af22", "af23"]
    # a hard cap: `priority <kbps>` limits only under congestion (issue 15); 10% of 10G; bc on this core port
    # 10 ms at the cap (above 10 MTU, 1 ms at the cap and premium-in's CBS 64,000 B: edge bursts meet, issue 17)
    assert core["ip-premium"] == ["priority", "police cir 1000000000 bc 1250000 conform-action transmit "
                                  "exceed-action drop"]
    # the GSR schedules by precedence: one curve for AF2x, and a warning says so
    assert any(d.code == "QOS122" and "ios-gsr" in d.message for d in diags)
    gsr = classes(compile_device(policy, "gsr-2"), "assured-rate-out")
    # classic 12.0S police is positional (the cir/bc keywords came with two-rate policing, 12.2(4)T)
    # burst on this core port: 10 ms at the 250 Mbit/s cap, 312,500 B (above premium-in's CBS 64,000 B)
    assert gsr["ip-premium"] == ["priority", "police 250000000 312500 312500 conform-action transmit "
                                 "exceed-action drop"]
    assert "queue-limit 1638" not in gsr["assured"]  # classic IOS: no queue-limit with random-detect


def test_hierarchy_matches_the_ir() -> None:
    """Parse the rendered config with ciscoconfparse2 and compare policy-map / class / action with the IR."""
    ciscoconfparse2 = confparse()
    for policy_name, device in CASES:
        policy, _ = load(ROOT / "policies" / f"{policy_name}.yaml")
        ir, _ = TARGET.ir(policy, policy.device_map[device])
        text = TARGET.text(ir)
        parsed = ciscoconfparse2.CiscoConfParse(text.splitlines(), syntax="ios")
        maps = parsed.find_objects(r"^policy-map ")
        assert [m.text.split()[1] for m in maps] == [pm["name"] for pm in ir["policy_maps"]]
        for obj, pm in zip(maps, ir["policy_maps"], strict=True):
            got = [(c.text.strip(), [a.text.strip() for a in c.children if not a.text.strip().startswith("!")])
                   for c in obj.children if not c.text.strip().startswith("!")]
            want = [(f"class {c['name']}", [line(cmd) for cmd in c["commands"]]) for c in pm["classes"]]
            assert got == want
        for cm in ir["class_maps"]:
            (obj,) = parsed.find_objects(rf"^class-map match-any {re.escape(cm['name'])}$")
            assert [c.text.strip() for c in obj.children] == [line(m) for m in cm["matches"]]
        for iface in ir["interfaces"]:
            (obj,) = parsed.find_objects(rf"^interface {re.escape(iface['name'])}$")
            assert [c.text.strip() for c in obj.children if not c.text.strip().startswith("!")] == [
                line(cmd) for cmd in iface["commands"]]


@pytest.mark.parametrize("bad,where", [
    ("interface POS0/0\n bandwidth percent 10\n", "not valid in interface mode"),
    ("policy-map x\n class precedence-9\n  priority\n", "class-map precedence-9 is used but never defined"),
    ("policy-map y\n class class-default\n  bandwidth percent 101\n", "outside 1..100"),
    ("policy-map z\n class class-default\n  random-detect dscp af51 1 2 10\n", "not valid in policy-map-class"),
    ("interface POS0/1\n service-policy output nowhere\n", "policy-map nowhere is used but never defined"),
    ("class-map match-any precedence-1\n match ip precedence 1\n", "defined twice"),
])
def test_injected_bad_line_fails_the_mode_check(bad: str, where: str) -> None:
    policy, _ = load(ROOT / "policies/datagrid-gsr.yaml")
    text = compile_device(policy, "gsr-1")
    check_text(text, "ios-gsr")
    with pytest.raises(SelfCheckError, match=re.escape(where)):
        check_text(text.replace("end\n", bad + "end\n"), "ios-gsr")


def test_bad_statement_becomes_qos199_at_its_policy_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """A statement the dialect's grammar refuses is QOS199 at the policy line it came from (the source map of
    the tree), never a file."""
    policy, _ = load(ROOT / "policies/datagrid-gsr.yaml")
    real = TARGET.lower_for

    def broken(*args: object) -> object:
        ir, found = real(*args)  # type: ignore[arg-type]
        for pm in ir["policy_maps"]:
            for c in pm["classes"]:
                c["commands"] = [Cmd(["bandwidth", "72%"], cmd.origin) if isinstance(cmd, Cmd) and cmd[:2] ==
                                 ["bandwidth", "percent"] and cmd[2] == 72 else cmd for cmd in c["commands"]]
        return ir, found

    monkeypatch.setattr(TARGET, "lower_for", broken)
    outputs, diags = api.render_outputs(policy, [(TARGET, policy.device_map["gsr-1"])])
    assert not outputs and [d.code for d in diags] == ["QOS199"]
    assert "bandwidth 72%" in diags[0].message and "not valid in policy-map-class mode" in diags[0].message
    share = policy.service_map["best-effort"].where.at("queue.share")
    assert share is not None and diags[0].location == share


def test_every_command_table_entry_cites_a_source() -> None:
    for platform in TARGET.platforms:
        data = cisco_table.table_data(platform)
        for mode, entries in data["modes"].items():
            for entry in entries:
                assert entry["source"] in data["sources"], (platform, mode, entry["syntax"])
        assert all("cisco" in src.lower() for src in data["sources"].values())


POLICY = """\
qosc: 1
name: t
services:
  best-effort: {kind: best-effort, default: true, queue: {share: 60%, priority: high}, drop-profile: be}
  lbe: {kind: lbe, dscp: [$lbe], queue: {share: 1%, priority: low}}
  af: {kind: assured, dscp: [af21], queue: {share: $af, priority: high, ecn: $ecn}, drop-profile: be}
drop-profiles:
  be: {min: 40, max: 80, max-probability: 10%}
devices:
  r1:
    platform: $platform
    interfaces:
      Gi0/0: {role: core, speed: 1G}
"""


def variant(tmp_path: Path, **kw: str) -> api.Result:
    values = {"lbe": "cs1", "af": "20%", "ecn": "false", "platform": "ios-gsr", **kw}
    return api.validate(write(tmp_path, string.Template(POLICY).substitute(values)))


def test_precedence_collision_is_a_capability_error(tmp_path: Path) -> None:
    result = variant(tmp_path, lbe="le")
    diags = [d for d in result.diagnostics if d.code == "QOS120"]
    assert len(diags) == 1 and "'lbe'" in diags[0].message and "precedence 0" in diags[0].message
    assert diags[0].location is not None and diags[0].location.line == 5
    assert not [d for d in variant(tmp_path, lbe="le", platform="ios-xe").diagnostics if d.code == "QOS120"]


def test_ecn_needs_a_platform_that_marks(tmp_path: Path) -> None:
    assert "QOS123" in [d.code for d in variant(tmp_path, ecn="true").diagnostics]
    result = variant(tmp_path, ecn="true", platform="ios-xe")
    assert result.ok
    text = compile_device(result.policy, "r1")
    assert "random-detect ecn" in classes(text, "t-out")["af"]


def test_fractional_shares_switch_the_whole_policy_to_kbps(tmp_path: Path) -> None:
    result = variant(tmp_path, af="12.5%", platform="ios-xe")
    assert result.ok
    got = classes(compile_device(result.policy, "r1"), "t-out")
    assert got["af"][0] == "bandwidth 125000" and got["lbe"][0] == "bandwidth 10000"
    assert got["class-default"][0] == "bandwidth 600000"


def test_reservable_bandwidth_is_left_alone_below_75_percent(tmp_path: Path) -> None:
    result = variant(tmp_path, af="10%")
    text = compile_device(result.policy, "r1")
    assert "max-reserved-bandwidth" not in text  # 60 + 1 + 10 = 71%
    assert "max-reserved-bandwidth 100" in compile_device(variant(tmp_path, af="20%").policy, "r1")


def test_strict_cap_outside_the_police_range_is_a_capability_error(tmp_path: Path) -> None:
    path = tmp_path / "p.yaml"
    path.write_text((ROOT / "tests" / "regressions" / "ios-gsr-police-below-range.yaml").read_text())
    result = api.validate(path)
    (diag,) = [d for d in result.diagnostics if d.is_error]
    assert diag.code == "QOS121"
    assert diag.message == ("strict-priority service 'ip-premium' is capped at 6.4k on gsr1:POS0/0 (rate cap 10%), "
                            "outside ios-gsr's range 8k..2G")
    assert diag.location is not None and (diag.location.line, diag.location.column) == (8, 91)  # rate-cap:
    assert api.compile_policy(result) == [] and "QOS199" not in [d.code for d in result.diagnostics]
    # the same link with a cap the platform can police compiles
    path.write_text(path.read_text().replace("rate-cap: 10%", "rate-cap: 8K"))
    result = api.validate(path)
    assert result.ok, [d.message for d in result.diagnostics if d.is_error]
    (out,) = api.compile_policy(result, ["ios-mqc"])
    # burst: 10 x 1500 B (1 ms at 8 kbit/s is one byte)
    assert "  police 8000 15000 15000 conform-action transmit exceed-action drop" in out.text.splitlines()


def test_ios_xe_classes_match_ipv4_and_ipv6_dscp(tmp_path: Path) -> None:
    """IOS XE egress classes use `match dscp` (IPv4 and IPv6), never `match ip dscp` (IPv4 only) (issue 15)."""
    text = compile_device(variant(tmp_path, platform="ios-xe").policy, "r1")
    matches = [ln.strip() for ln in text.splitlines() if ln.startswith(" match ")]
    assert "match dscp af21" in matches and "match dscp cs1" in matches
    assert not [m for m in matches if m.startswith("match ip ")]


@pytest.mark.parametrize("platform", ["ios-gsr", "ios-xe"])
def test_precedence_wred_is_bare_random_detect(tmp_path: Path, platform: str) -> None:
    """Precedence WRED is bare `random-detect` on both dialects (issue 15): GSR 12.0S has no `precedence-based`,
    and IOS XE prints it back bare, so pushing the keyword never converges."""
    got = classes(compile_device(variant(tmp_path, platform=platform).policy, "r1"), "t-out")
    wred = [[c for c in cmds if c.startswith("random-detect")] for cmds in got.values()]
    per_precedence = [w for w in wred if w and w[1].startswith("random-detect precedence ")]
    assert per_precedence and all(w[0] == "random-detect" for w in per_precedence)
    with pytest.raises(SelfCheckError):
        check_text("policy-map p\n class class-default\n  random-detect precedence-based\nend\n",
                                 "ios-gsr")
