"""Issue 15: Cisco output each dialect accepts and that means what the policy says, read back where it helps.

GSR (IOS 12.0S): positional police, the 2 Gbit/s police and 2,000,000 kbit/s bandwidth limits, no two-rate
policing, WRED thresholds from the class's real queue (and the seed's 2000/3000/1 reproduced).
"""

from __future__ import annotations

import re
import string
import textwrap
from pathlib import Path

import pytest

from qosc import api
from qosc.behaviour.model import Envelope
from qosc.targets.base import SelfCheckError
from qosc.targets.ios import read as reader
from qosc.targets.ios.read.interpret import envelope
from qosc.targets.ios.read.parse import check_text
from qosc.targets.ios.tests.support import load
from qosc.targets.ios.tests.test_ios_mqc import ROOT, block, classes, compile_device


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "p.yaml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def errors(result: api.Result, code: str) -> list:  # type: ignore[type-arg]
    return [d for d in result.diagnostics if d.code == code]


GSR = """\
qosc: 1
name: g
services:
  best-effort: {kind: best-effort, default: true, queue: {share: $be, priority: low}}
  premium: {kind: premium, queue: {strict: true, priority: high, rate-cap: $cap}, policer: prem}
  af: {kind: assured, dscp: [af21], queue: {share: $af, priority: low}, policer: $afpol}
policers:
  prem: {cir: 100M, cbs: 64KB}
  two: {cir: 50M, cbs: 2500KB, pir: 100M, pbs: 5MB, conform: af21, exceed: af22, violate: af23}
  three: {cir: 50M, cbs: 2500KB, ebs: 5MB, conform: af21, exceed: af22, violate: drop}
  fast: {cir: $fast, cbs: 5MB}
classifiers:
  site:
    rules:
      - {name: bulk, service: af, match: {destination: [198.18.1.0/24]}}
devices:
  r1:
    platform: ios-gsr
    interfaces:
      POS0/0: {role: core, speed: $speed}
      POS1/0: {role: edge, speed: 1G, classifier: site}
"""


def gsr(tmp_path: Path, **kw: str) -> api.Result:
    values = {"be": "60%", "af": "20%", "cap": "10%", "afpol": "three", "speed": "10G", "fast": "1G", **kw}
    return api.validate(write(tmp_path, string.Template(GSR).substitute(values)))


def test_gsr_police_is_the_classic_positional_form(tmp_path: Path) -> None:
    result = gsr(tmp_path, speed="2.5G")
    assert result.ok, [d.message for d in result.diagnostics if d.is_error]
    text = compile_device(result.policy, "r1")
    core = classes(text, "g-out-POS0-0")
    # burst (issue 17): max(10 x 1500 B, 1 ms at the 250 Mbit/s cap = 31,250 B, prem's CBS 64,000 B), and on a
    # core port at least 10 ms at the cap = 312,500 B (the bursts of several edges meet there)
    assert core["premium"] == ["priority", "police 250000000 312500 312500 conform-action transmit "
                               "exceed-action drop"]
    edge = classes(text, "g-in")
    # single-rate three-colour: burst-max is the excess bucket, violate-action names the third colour
    assert edge["site-bulk"] == ["police 50000000 2500000 5000000 conform-action set-dscp-transmit af21 "
                                 "exceed-action set-dscp-transmit af22 violate-action drop"]
    assert "police cir" not in text
    # the reader sees the same policers: the strict class's cap, the edge rule's single-rate three-colour envelope
    device = reader.interpret(reader.parse(text, "r1.cfg", None), None)[0]
    assert next(c for i in device.interfaces for c in i.classes if c.name == "premium").strict
    (rule,) = [r for i in device.interfaces for r in i.rules if r.policer is not None]
    assert rule.mark == 18 and rule.policer == Envelope(50_000_000, 2_500_000, ebs=5_000_000, exceed="dscp 20",
                                                        violate="drop")
    assert envelope(tuple(core["premium"][1].split()), None, {}) == Envelope(250_000_000, 312_500, ebs=312_500)
    # the grammar refuses the keyword form on 12.0S
    with pytest.raises(SelfCheckError, match="not valid in policy-map-class"):
        check_text(text.replace("police 250000000 312500 312500", "police cir 250000000 bc 312500"),
                           "ios-gsr")


def test_gsr_marks_with_set_ip_dscp(tmp_path: Path) -> None:
    """12.0S marks with `set ip dscp`; `set dscp` came with 12.2(13)T (IOS XE keeps it, for IPv4 and IPv6)."""
    text = compile_device(gsr(tmp_path, speed="2.5G").policy, "r1")
    assert classes(text, "g-in")["class-default"] == ["set ip dscp default"]
    device = reader.interpret(reader.parse(text, "r1.cfg", None), None)[0]
    assert next(i for i in device.interfaces if i.name == "POS1/0").unmatched_mark == 0
    with pytest.raises(SelfCheckError, match="not valid in policy-map-class"):
        check_text(text.replace("set ip dscp default", "set dscp default"), "ios-gsr")
    policy, _ = load(ROOT / "policies/assured-rate.yaml")
    assert classes(compile_device(policy, "asr-1"), "assured-rate-in")["class-default"] == ["set dscp default"]


def test_gsr_two_rate_policer_is_refused_at_its_pir(tmp_path: Path) -> None:
    result = gsr(tmp_path, afpol="two")
    (diag,) = errors(result, "QOS132")
    assert "'two' is two-rate" in diag.message
    assert diag.location is not None and diag.location.line == 9 and diag.location.column > 30  # pir:
    assert api.compile_policy(result, ["ios-mqc"]) == []
    assert "QOS199" not in [d.code for d in result.diagnostics]


def test_gsr_police_above_two_gigabit_is_refused(tmp_path: Path) -> None:
    # strict cap 30% of 10G = 3 Gbit/s: the GSR limits a priority class only with police, at most 2 Gbit/s
    result = gsr(tmp_path, cap="30%", be="50%", af="10%")
    (diag,) = errors(result, "QOS131")
    assert "3G" in diag.message and "at most 2G" in diag.message
    assert diag.location is not None and diag.location.line == 5  # premium's rate-cap
    assert "QOS199" not in [d.code for d in result.diagnostics]
    # an edge policer above 2 Gbit/s is outside the platform's police range (located at its cir)
    result = gsr(tmp_path, afpol="fast", fast="3G")
    (diag,) = [d for d in result.diagnostics if d.code == "QOS095" and "'fast'" in d.message]
    assert diag.location is not None and diag.location.line == 11
    # 2 Gbit/s itself is accepted, and the grammar refuses one bit/s more
    result = gsr(tmp_path, cap="20%")
    assert result.ok, [d.message for d in result.diagnostics if d.is_error]
    text = compile_device(result.policy, "r1")
    # burst off an edge: 10 ms at the 2 Gbit/s cap = 2,500,000 B (above 10 MTU, 1 ms at the cap and prem's CBS)
    assert "  police 2000000000 2500000 2500000 conform-action transmit exceed-action drop" in text.splitlines()
    with pytest.raises(SelfCheckError, match=re.escape("outside 8000..2000000000")):
        check_text(text.replace("police 2000000000", "police 2000000001"), "ios-gsr")


def test_gsr_bandwidth_kbps_above_two_million_is_refused(tmp_path: Path) -> None:
    # a fractional share forces kbit/s; 20.5% of 10G is 2,050,000 kbit/s, above the documented 2,000,000
    result = gsr(tmp_path, af="20.5%", be="59.5%")
    (diag,) = [d for d in errors(result, "QOS133") if "'af'" in d.message]
    assert "2050000 kbit/s" in diag.message
    assert diag.location is not None and diag.location.line == 6  # af's share
    assert "QOS199" not in [d.code for d in result.diagnostics]
    # on a 2.5G link the same shares fit in kbit/s
    result = gsr(tmp_path, af="20.5%", be="59.5%", speed="2.5G")
    assert result.ok, [d.message for d in result.diagnostics if d.is_error]
    assert classes(compile_device(result.policy, "r1"), "g-out-POS0-0")["af"][0] == "bandwidth 512500"


def test_gsr_wred_thresholds_follow_the_real_queue() -> None:
    """No 64-packet constant: a class without a buffer queues 50 ms at the link rate (3496 packets of 4470
    bytes at 2.5G); the reader, told that queue, reads the policy's fill levels back."""
    policy, _ = load(ROOT / "policies/datagrid-gsr.yaml")
    text = compile_device(policy, "gsr-1")
    got = classes(text, "datagrid-gsr-out")
    assert "random-detect precedence 1 874 2622 10" in got["precedence-1"]  # 25% / 75% of 3496
    assert "random-detect precedence 4 1049 3146 10" in got["precedence-4"]  # 30% / 90% of 3496
    for line in (ln for cmds in got.values() for ln in cmds if ln.startswith("random-detect precedence ")):
        low, high = (int(x) for x in line.split()[3:5])
        assert low >= 874 and high <= 3496


def test_gsr_seed_is_reproduced_exactly() -> None:
    """examples/datagrid-gsr-seed.yaml gives the seed's `random-detect precedence P 2000 3000 1` on every queue."""
    policy, _ = load(ROOT / "examples/datagrid-gsr-seed.yaml")
    text = compile_device(policy, "gsr-1")
    wred = [ln.strip() for ln in text.splitlines() if ln.startswith("  random-detect precedence ")]
    assert [w.split()[2] for w in wred] == ["1", "2", "3", "4", "0", "5", "6", "7"]
    assert {" ".join(w.split()[3:]) for w in wred} == {"2000 3000 1"}
    device = reader.interpret(reader.parse(text, "gsr-1.cfg", None), None)[0]
    assert [c.name for c in device.interfaces[0].classes][:4] == [f"precedence-{p}" for p in (1, 2, 3, 4)]


# -- IOS XE ---------------------------------------------------------------------------------------------------

XE = """\
qosc: 1
name: x
services:
  best-effort: {kind: best-effort, default: true, queue: {share: 60%, priority: high}}
  premium: {kind: premium, queue: {strict: true, priority: high, rate-cap: 10%}}
  lbe: {kind: lbe, dscp: [cs1], queue: {priority: low$lbe}}
  af: {kind: assured, dscp: [af21], queue: {share: 20%, priority: high}}
devices:
  r1:
    platform: $platform
    interfaces:
      HundredGigE0/0/0: {role: core, speed: 100G}
      GigabitEthernet0/0/1: {role: core, speed: 1G$extra}
"""


def xe(tmp_path: Path, **kw: str) -> api.Result:
    values = {"lbe": "", "extra": "", "platform": "ios-xe", **kw}
    return api.validate(write(tmp_path, string.Template(XE).substitute(values)))


def test_xe_strict_priority_is_hard_capped_by_police(tmp_path: Path) -> None:
    """`priority <kbps>` limits only under congestion, and above 2,000,000 kbit/s 16.x refuses it: strict classes
    get `priority` + `police cir` at the cap, so a 100G port compiles (never QOS199)."""
    result = xe(tmp_path)
    assert result.ok, [d.message for d in result.diagnostics if d.is_error]
    (out,) = api.compile_policy(result, ["ios-mqc"])
    assert "QOS199" not in [d.code for d in result.diagnostics]
    got = classes(out.text, "x-out-HundredGigE0-0-0")
    # bc (issue 17): max(10 x 1500 B, 1 ms at the 10 Gbit/s cap), no policer of its own; off an edge at least
    # 10 ms at the cap = 12,500,000 B
    assert got["premium"] == ["priority", "police cir 10000000000 bc 12500000 conform-action transmit "
                              "exceed-action drop"]
    assert not [ln for ln in out.text.splitlines() if ln.strip().startswith("priority ")]
    device = reader.interpret(reader.parse(out.text, "r1.cfg", None), None)[0]
    premium = next(c for c in device.interfaces[0].classes if c.name == "premium")
    assert premium.strict and premium.cap == 10.0  # 10G of the HundredGigE's 100G, read from the policer
    # the XE grammar refuses the kbit/s forms above the documented 2,000,000
    for bad in ("priority 10000000", "bandwidth 32500000"):
        with pytest.raises(SelfCheckError, match=re.escape("outside 8..2000000")):
            check_text(out.text.replace("  priority\n", f"  {bad}\n", 1), "ios-xe")


XE_SHARES = """\
qosc: 1
name: x
services:
  best-effort: {kind: best-effort, default: true, queue: {share: $be, priority: high}}
  premium: {kind: premium, queue: {strict: true, priority: high, rate-cap: 10%}}
  af: {kind: assured, dscp: [af21], queue: {share: 32.5%, priority: high}}
  network-control: {kind: network-control, queue: {share: 6%, priority: high}}
devices:
  r1:
    platform: $platform
    interfaces:
      HundredGigE0/0/0: {role: core, speed: 100G}
"""


def xe_shares(tmp_path: Path, be: str, platform: str = "ios-xe") -> api.Result:
    return api.validate(write(tmp_path, string.Template(XE_SHARES).substitute(be=be, platform=platform)))


def test_xe_fractional_share_above_the_kbps_range_is_a_remaining_ratio(tmp_path: Path) -> None:
    """32.5% of 100G is 32,500,000 kbit/s, far above the 2,000,000 of `bandwidth` on 16.x, and `bandwidth percent`
    takes whole numbers: every share of the policy-map becomes `bandwidth remaining ratio` (XE takes one bandwidth
    form per policy-map), never QOS133 or QOS199, in the smallest integers of the shares' proportions within the
    documented 1..1000 (51.5 : 32.5 : 6 = 103 : 65 : 12, exact; issue 26: it was 5150 : 3250 : 600, hundredths of
    a percent, above what Cisco documents); read back, a ratio is its part of what the strict class leaves, so
    the shares are the policy's and verify finds no share to report."""
    from qosc.behaviour import intent
    from qosc.behaviour.compare import compare

    result = xe_shares(tmp_path, "51.5%")  # 51.5 + 32.5 + 6 = 90: what the 10% strict class leaves
    assert result.ok, [d.message for d in result.diagnostics if d.is_error]
    assert not {"QOS133", "QOS138", "QOS199"} & {d.code for d in result.diagnostics}
    assert result.policy is not None
    text = compile_device(result.policy, "r1")
    got = classes(text, "x-out")
    # no buffer: one BDP at the guarantee (32.5 Gbit/s x 100 ms), at most the 4,096-packet pool
    assert got["af"] == ["bandwidth remaining ratio 65", "queue-limit 4096"]
    assert got["network-control"] == ["bandwidth remaining ratio 12", "queue-limit 4096"]
    assert got["class-default"][0] == "bandwidth remaining ratio 103"
    assert not [d for d in result.diagnostics if d.code == "QOS185"]
    assert ("! bandwidth remaining ratio 65 of 180: 36.11% of what the strict classes leave, exactly the share's "
            "part (32.5% of the shares' 90%)") in [ln.strip() for ln in block(text, "policy-map x-out")]
    assert got["premium"][0] == "priority"
    bandwidth = [ln for cmds in got.values() for ln in cmds if ln.startswith("bandwidth")]
    assert bandwidth and all(ln.startswith("bandwidth remaining ratio ") for ln in bandwidth)
    check_text(text, "ios-xe")
    with pytest.raises(SelfCheckError, match=re.escape("outside 1..1000")):
        check_text(text.replace("remaining ratio 65", "remaining ratio 1001"), "ios-xe")
    device = reader.interpret(reader.parse(text, "r1.cfg", None), None)[0]
    shares = {c.name: c.share for c in device.interfaces[0].classes}
    assert shares == {"premium": 10.0, "af": 32.5, "network-control": 6.0, "class-default": 51.5}
    found = compare(intent.device(result.policy, result.policy.device_map["r1"]), device)
    assert [f for f in found if f.what == "share" and f.subject != "premium"] == []
    # classic IOS (12.0S) has no remaining forms: QOS133 there, at the share
    (diag,) = [d for d in xe_shares(tmp_path, "51.5%", "ios-gsr").diagnostics
               if d.code == "QOS133" and "'af'" in d.message]
    assert diag.location is not None and diag.location.line == 6


XE_400G = """\
qosc: 1
name: x
services:
  best-effort: {kind: best-effort, default: true, queue: {share: $be, priority: high}}
  premium: {kind: premium, queue: {strict: true, priority: high, rate-cap: 10%}}
  lbe: {kind: lbe, dscp: [cs1], queue: {share: $lbe, priority: low}}
  af: {kind: assured, dscp: [af21], queue: {share: 1G, priority: high}}
  af3: {kind: assured, dscp: [af31], queue: {share: 30%, priority: high}}
devices:
  r1:
    platform: ios-xe
    interfaces:
      HundredGigE0/0/0: {role: core, speed: 100G}
"""


def test_xe_remaining_ratios_keep_the_proportions_within_1_to_1000(tmp_path: Path) -> None:
    """Issue 26: on a 400G port LBE 10 Mbit/s (0.0025%) and a 4 Gbit/s class (1%) were written as ratios 1 and 100
    (LBE four times its share) beside 3000 and 5900, above the 1..1000 Cisco documents (here the same proportions
    on a 100G port, 2.5 Mbit/s and 1 Gbit/s, whose speed the reader knows).  The ratios are now the
    integers within 1..1000 whose largest relative error of a class's part is smallest: af 17 : af3 509 : best
    effort 1000 (errors of 0.2% and less), LBE at the floor of 1 -- still 23.6 times its part, which no ratio in
    1..1000 can help (its share is 1/23,599 of best effort's): each class's comment states its error, and QOS185
    warns at LBE's share.  A 0.25% LBE (1/236 of best effort) fits: ratio 4, 6% over (QOS185 above 5%); 0.5%
    fits exactly enough to stay silent."""
    path = write(tmp_path, string.Template(XE_400G).substitute(be="58.9975%", lbe="2.5M"))
    result = api.validate(path)
    assert result.ok and result.policy is not None, [d.message for d in result.diagnostics if d.is_error]
    text = compile_device(result.policy, "r1")
    check_text(text, "ios-xe")
    got = classes(text, "x-out")
    ratios = {name: int(cmds[0].split()[-1]) for name, cmds in got.items() if cmds[0].startswith("bandwidth")}
    assert ratios == {"lbe": 1, "af": 17, "af3": 509, "class-default": 1000}
    assert max(ratios.values()) <= 1000
    notes = [ln.strip() for ln in block(text, "policy-map x-out")]
    assert ("! bandwidth remaining ratio 17 of 1527: 1.113% of what the strict classes leave, for the share's "
            "1.111% (1% of the shares' 90%): rounding error +0.2%") in notes
    assert any(ln.startswith("! bandwidth remaining ratio 1 of 1527: 0.06549% of what the strict classes leave, "
                             "for the share's 0.002778%") and "rounding error +2258%" in ln for ln in notes)
    (diag,) = [d for d in result.diagnostics if d.code == "QOS185"]
    assert diag.severity == "warning" and "'lbe'" in diag.message and "1..1000" in diag.message
    assert "23.6 times" in diag.message
    assert diag.location is not None and diag.location.line == 6
    # read back: each class gets its ratio's part of what the strict class leaves
    device = reader.interpret(reader.parse(text, "r1.cfg", None), None)[0]
    shares = {c.name: c.share for c in device.interfaces[0].classes}
    assert shares["af3"] == pytest.approx(90 * 509 / 1527, abs=1e-4)
    # the scale is searched, not fixed by the largest share: 0.25 : 1 : 30 : 58.75 is exactly 1 : 4 : 120 : 235;
    # LBE 1/1100 of best effort must be 1 beside 1000 (+10%: warned); 1/982 is 1 : 17 : 505 : 992 (1% off: silent)
    for lbe, be, want, warned in (("0.25%", "58.75%", [1, 4, 120, 235], False),
                                  ("53.6M", "58.9464%", [1, 17, 509, 1000], True),
                                  ("60M", "58.94%", [1, 17, 505, 992], False)):
        result = api.validate(write(tmp_path, string.Template(XE_400G).substitute(be=be, lbe=lbe)))
        assert result.policy is not None
        got = classes(compile_device(result.policy, "r1"), "x-out")
        assert [int(got[c][0].split()[-1]) for c in ("lbe", "af", "af3", "class-default")] == want, lbe
        assert [d.message for d in result.diagnostics if d.code == "QOS185"] == (
            ["service 'lbe' share 0.0536% on r1:HundredGigE0/0/0 is written as "
             "`bandwidth remaining ratio 1` of 1527 (ios-xe takes ratios 1..1000): its part of what the strict "
             "classes leave is 0.06549%, 1.1 times the share's 0.05956%"] if warned else []), lbe


def test_xe_remaining_ratio_that_leaves_bandwidth_over_warns(tmp_path: Path) -> None:
    """Ratios divide all the strict class leaves: shares adding up to less are each guaranteed more (QOS138 at the
    share that forced the ratios), and the reader reads that larger guarantee."""
    result = xe_shares(tmp_path, "41.5%")  # 80 of the 90% the strict class leaves
    (diag,) = [d for d in result.diagnostics if d.code == "QOS138"]
    assert "'af' share 32.5%" in diag.message and "all 90%" in diag.message and "1.125 times" in diag.message
    assert diag.location is not None and diag.location.line == 6
    assert result.policy is not None
    device = reader.interpret(reader.parse(compile_device(result.policy, "r1"), "r1.cfg", None), None)[0]
    shares = {c.name: c.share for c in device.interfaces[0].classes}
    assert shares["af"] == pytest.approx(32.5 * 90 / 80, abs=1e-4)
    # import(compile(P)): the import's shares are the guarantees read back, and compile to the same behaviour
    from qosc.behaviour.roundtrip import round_trip
    trip = round_trip(result.policy, "r1", ".cfg", tmp_path)
    assert trip.ok, (trip.stage, trip.findings, trip.problems)


def test_xe_queue_limit_needs_a_share(tmp_path: Path) -> None:
    result = xe(tmp_path, lbe=", buffer: 1%")
    (diag,) = errors(result, "QOS134")
    assert "'lbe'" in diag.message
    assert diag.location is not None and diag.location.line == 6
    # the GSR takes the same class with a bare queue-limit
    assert not errors(xe(tmp_path, lbe=", buffer: 1%", platform="ios-gsr"), "QOS134")


def test_xe_shape_and_unit_are_a_hierarchical_policy_on_the_subinterface(tmp_path: Path) -> None:
    result = xe(tmp_path, extra=", shape: 500M, unit: 100")
    assert result.ok, [d.message for d in result.diagnostics if d.is_error]
    (out,) = api.compile_policy(result, ["ios-mqc"])
    parent = "x-out-GigabitEthernet0-0-1-shape-500000000"
    assert classes(out.text, parent) == {"class-default": ["shape average 500000000",
                                                            "service-policy x-out-GigabitEthernet0-0-1"]}
    lines = out.text.splitlines()
    at = lines.index("interface GigabitEthernet0/0/1.100")
    assert f" service-policy output {parent}" in lines[at:at + 6]
    # shares of the child are of the shaped rate: the strict cap is 10% of 500M
    child = classes(out.text, "x-out-GigabitEthernet0-0-1")
    assert child["premium"][1].startswith("police cir 50000000 ")


@pytest.mark.parametrize("field,value,code", [("shape", "500M", "QOS090"), ("unit", "100", "QOS186")])
def test_gsr_refuses_shape_and_unit_at_the_field(tmp_path: Path, field: str, value: str, code: str) -> None:
    """shape: is a field ios-gsr does not render (QOS090); unit: names a sub-interface, which ios-gsr cannot queue
    on, refused as the same sub-interface written in the name is (QOS186, test_issue26)."""
    result = xe(tmp_path, extra=f", {field}: {value}", platform="ios-gsr")
    (diag,) = [d for d in result.diagnostics if d.code == code]
    if code == "QOS090":
        assert f"({'devices.*.interfaces.*.' + field})" in diag.message
    else:
        assert "GigabitEthernet0/0/1.100 is a sub-interface" in diag.message
    assert diag.location is not None and diag.location.line == 13


# -- Catalyst 6500 (PFC) --------------------------------------------------------------------------------------

CAT = """\
qosc: 1
name: c
services:
  best-effort: {kind: best-effort, default: true, queue: {share: 60%, priority: low}}
  af: {kind: assured, dscp: [af21], queue: {share: 30%, priority: high}}
  bulk: {kind: assured, dscp: [$bulk], queue: {shared-with: af}}
policers:
  mark-down: {cir: 10M, cbs: $cbs, conform: af21, exceed: af22}
  ef-seed: {cir: 80M, cbs: 40KB, pir: 80M, pbs: 40KB, conform: transmit, exceed: drop, violate: drop}
classifiers:
  site:
    rules:
      - {name: r1, service: af, policer: mark-down, match: {source: [$src]}}
      - {name: r2, service: af, policer: ef-seed, match: {source: [198.18.2.0/24]}}
devices:
  cat:
    platform: catalyst6500
    interfaces:
      GigabitEthernet1/1: {role: edge, speed: 1G, classifier: site, port-type: 1p3q8t}
"""


def cat(tmp_path: Path, **kw: str) -> api.Result:
    values = {"bulk": "af11", "cbs": "64KB", "src": "198.18.1.0/24", **kw}
    return api.validate(write(tmp_path, string.Template(CAT).substitute(values)))


def cat_text(result: api.Result) -> str:
    assert result.ok, [d.message for d in result.diagnostics if d.is_error]
    (out,) = api.compile_policy(result, ["catalyst6500"])
    return out.text


def test_catalyst_markdown_without_pir_uses_the_max_burst_map(tmp_path: Path) -> None:
    text = cat_text(cat(tmp_path))
    assert "  police 10000000 64000 conform-action set-dscp-transmit af21 exceed-action policed-dscp-transmit" in \
        text.splitlines()
    assert "mls qos map policed-dscp max-burst 18 to 20" in text.splitlines()
    assert "normal-burst" not in text
    # read back: the PFC really marks the exceeding traffic AF22 (through the max-burst map)
    device = reader.interpret(reader.parse(text, "cat.cfg", None), None)[0]
    (rule,) = [r for i in device.interfaces for r in i.rules if r.policer is not None and r.policer.cir == 10**7]
    assert rule.policer is not None and rule.policer.exceed == "dscp 20"


def test_catalyst_pir_equal_to_cir_is_a_one_rate_policer(tmp_path: Path) -> None:
    text = cat_text(cat(tmp_path))
    assert "  police 80000000 40000 conform-action set-dscp-transmit af21 exceed-action drop" in text.splitlines()
    assert " pir " not in text
    # 12.2SX refuses exceed-action drop with a maximum burst: so does the grammar
    bad = text.replace("police 80000000 40000 conform", "police 80000000 40000 40000 pir 80000000 conform")
    with pytest.raises(SelfCheckError, match="not valid in policy-map-class"):
        check_text(bad, "catalyst6500")


def test_catalyst_small_bucket_warns_at_the_burst(tmp_path: Path) -> None:
    result = cat(tmp_path, cbs="2000B")  # 10 Mbit/s / 4000 = 2500 bytes
    (diag,) = [d for d in result.diagnostics if d.code == "QOS135"]
    assert "'mark-down' cbs 2000 bytes" in diag.message and "2500 bytes" in diag.message
    assert diag.location is not None and diag.location.line == 8
    assert not [d for d in cat(tmp_path).diagnostics if d.code == "QOS135"]


def test_catalyst_sharer_on_its_owners_cos_warns(tmp_path: Path) -> None:
    result = cat(tmp_path, bulk="cs2")  # precedence 2, like af21: one CoS, so one threshold
    (diag,) = [d for d in result.diagnostics if d.code == "QOS136"]
    assert "'bulk'" in diag.message and "CoS 2" in diag.message
    assert diag.location is not None and diag.location.line == 6
    assert not [d for d in cat(tmp_path).diagnostics if d.code == "QOS136"]  # af11: CoS 1, a threshold of its own


def test_catalyst_ipv6_rule_warns_without_ipv6_qos(tmp_path: Path) -> None:
    result = cat(tmp_path, src="fd00:1::/64")
    (diag,) = [d for d in result.diagnostics if d.code == "QOS137"]
    assert "'r1'" in diag.message and "IPv6" in diag.message
    assert diag.location is not None and diag.location.line == 13
    assert not [d for d in cat(tmp_path).diagnostics if d.code == "QOS137"]


def test_catalyst_conform_transmit_trusts_the_customers_dscp_read_back(tmp_path: Path) -> None:
    """PFC: `police ... conform-action transmit` applies trust DSCP to the class's conforming traffic, so `set ip
    dscp` does not mark it (12.2SX, Configuring PFC QoS, police).  qosc writes `conform-action set-dscp-transmit`
    at untrusted edges; the reader models the PFC: a class (or class-default) policed with `conform-action
    transmit`, written or by default, marks nothing, and verify says so."""
    from qosc.behaviour import intent
    from qosc.behaviour.compare import compare

    policy, _ = load(ROOT / "policies/datagrid-catalyst.yaml")
    text = api.compile_policy(api.validate(ROOT / "policies/datagrid-catalyst.yaml"), ["catalyst6500"])[0].text
    want = intent.device(policy, policy.device_map["cat6500-1"])

    def edge(config: str) -> tuple[int | None, list[tuple[str, str, str, str]]]:
        device = reader.interpret(reader.parse(config, "cat6500-1.cfg", None), None)[0]
        found = [(f.subject, f.what, f.expected, f.found) for f in compare(want, device)
                 if f.interface == "GigabitEthernet1/1"]
        return device.interfaces[0].rules[0].mark, found

    assert edge(text) == (46, [])
    for conform in ("conform-action transmit ", ""):  # written, or the PFC's default conform action
        trusting = text.replace("conform-action set-dscp-transmit ef ", conform)
        assert trusting != text
        assert edge(trusting) == (None, [("rule premium-video (ip-premium)", "marks", "46", "none")])
    # class-default policed that way at an untrusted port: unmatched traffic keeps its DSCP (not marked 0)
    policed = text.replace(" class class-default\n", " class class-default\n  police 1000000 8000 "
                           "conform-action transmit exceed-action drop\n")
    device = reader.interpret(reader.parse(policed, "cat6500-1.cfg", None), None)[0]
    assert device.interfaces[0].unmatched_mark is None
    assert reader.interpret(reader.parse(text, "cat6500-1.cfg", None), None)[0].interfaces[0].unmatched_mark == 0


AGGREGATE = """\
qosc: 1
name: c
services:
  best-effort: {kind: best-effort, default: true, queue: {share: 60%, priority: low}}
  af: {kind: assured, dscp: [af21], queue: {share: 30%, priority: high}}
  bulk: {kind: assured, dscp: [af11], queue: {share: 5%, priority: high}}
policers:
  $policer: {cir: 10M, cbs: 64KB, conform: transmit, exceed: af22}
classifiers:
  site:
    rules:
      - {name: r1, service: af, policer: $policer, match: {source: [198.18.1.0/24]}}
      - {name: r2, service: $second, policer: $policer, match: {source: [198.18.2.0/24]}}
      - {name: r3, service: af, match: {source: [198.18.3.0/24]}}
devices:
  cat:
    platform: catalyst6500
    interfaces:
      GigabitEthernet1/1: {role: edge, speed: 1G, classifier: site, port-type: 1p3q8t}
      GigabitEthernet1/2: {role: edge, speed: 1G, classifier: site, port-type: 1p3q8t}
"""


def aggregate(tmp_path: Path, **kw: str) -> api.Result:
    values = {"policer": "site-limit", "second": "af", **kw}
    return api.validate(write(tmp_path, string.Template(AGGREGATE).substitute(values)))


def test_catalyst_shared_policer_is_one_named_aggregate_per_interface(tmp_path: Path) -> None:
    """Two rules naming one policer share it (was QOS130, each class policed at the full rate): a PFC named
    aggregate per interface (a named aggregate polices every port it is applied to together), `police
    aggregate` in both classes; read back, both rules share one envelope, and verify finds nothing."""
    from qosc.behaviour import intent
    from qosc.behaviour.compare import compare

    result = aggregate(tmp_path)
    assert "QOS130" not in [d.code for d in result.diagnostics]
    text = cat_text(result)
    lines = text.splitlines()
    assert [ln for ln in lines if ln.startswith("mls qos aggregate-policer ")] == [
        f"mls qos aggregate-policer site-limit-GigabitEthernet1-{n} 10000000 64000 conform-action "
        "set-dscp-transmit af21 exceed-action policed-dscp-transmit" for n in (1, 2)]
    for n in (1, 2):
        got = block_of(text, f"policy-map c-in-GigabitEthernet1-{n}")
        assert got[" class site-r1"] == got[" class site-r2"] == [
            "set ip dscp af21", f"police aggregate site-limit-GigabitEthernet1-{n}"]
        assert got[" class site-r3"] == ["set ip dscp af21"]
    assert " service-policy input c-in-GigabitEthernet1-2" in lines
    device, diags = reader.interpret(reader.parse(text, "cat.cfg", None), None)
    assert not diags
    for iface in device.interfaces:
        r1, r2, r3 = iface.rules
        assert r1.policer == r2.policer and r3.policer is None
        assert r1.policer is not None and r1.policer.shared == f"site-limit-{iface.name.replace('/', '-')}"
        assert (r1.policer.cir, r1.policer.cbs, r1.policer.exceed) == (10**7, 64000, "dscp 20")
    assert ("aggregate-policer", "site-limit-GigabitEthernet1-1") in {(k, n) for k, n, _ in device.owned}
    assert result.policy is not None
    assert compare(intent.device(result.policy, result.policy.device_map["cat"]), device) == []
    # per-class policers (what the Catalyst wrote before, and IOS MQC writes) are a difference verify reports
    apart = re.sub(r"police aggregate site-limit-GigabitEthernet1-(\d)", "police 10000000 64000 conform-action "
                   "set-dscp-transmit af21 exceed-action policed-dscp-transmit", text)
    device = reader.interpret(reader.parse(apart, "cat.cfg", None), None)[0]
    found = compare(intent.device(result.policy, result.policy.device_map["cat"]), device)
    assert sorted((f.subject, f.what, f.expected, f.found) for f in found if f.interface == "GigabitEthernet1/1") \
        == [("rule r1 (af) policer", "shared with", "['r2']", "no rule"),
            ("rule r2 (af) policer", "shared with", "['r1']", "no rule")]


def test_catalyst_aggregate_imports_as_one_shared_policer(tmp_path: Path) -> None:
    """import(compile(P)): the rules of an aggregate import with one policer (so the import compiles to the
    aggregate again), rules with equal policers of their own with one each (so it does not)."""
    from qosc.behaviour.lift import lift
    from qosc.behaviour.roundtrip import round_trip

    result = aggregate(tmp_path)
    assert result.policy is not None
    trip = round_trip(result.policy, "cat", ".cfg", tmp_path)
    assert trip.ok, (trip.stage, trip.findings, trip.problems)
    assert trip.lifted is not None
    rules = [r for c in trip.lifted.policy["classifiers"].values() for r in c["rules"]]
    assert len([r for r in rules if "policer" in r]) == 4 and len({r["policer"] for r in rules if "policer" in r}) == 2
    apart = re.sub(r"police aggregate site-limit-GigabitEthernet1-(\d)", "police 10000000 64000 conform-action "
                   "set-dscp-transmit af21 exceed-action policed-dscp-transmit", cat_text(result))
    lifted = lift([reader.interpret(reader.parse(apart, "cat.cfg", None), None)[0]])
    (classifier,) = lifted.policy["classifiers"].values()
    assert [r.get("policer") for r in classifier["rules"]] == ["site-r1-policer", "site-r2-policer", None]


def block_of(text: str, header: str) -> dict[str, list[str]]:
    """The classes of one policy-map: class line -> its commands (comments left out)."""
    lines = text.splitlines()
    out: dict[str, list[str]] = {}
    current = None
    for ln in lines[lines.index(header) + 1:]:
        if not ln.startswith(" "):
            break
        if ln.startswith(" class "):
            current = out.setdefault(ln, [])
        elif current is not None and not ln.strip().startswith("!"):
            current.append(ln.strip())
    return out


def test_catalyst_aggregate_name_fits_the_pfc_limit(tmp_path: Path) -> None:
    """Aggregate names are at most 31 characters (12.2SX): a longer one is cut with a stable hash suffix, the same
    on every compile; the grammar refuses a 32-character name."""
    result = aggregate(tmp_path, policer="a-policer-with-a-very-long-name")
    text = cat_text(result)
    names = sorted({ln.split()[3] for ln in text.splitlines() if ln.startswith("mls qos aggregate-policer ")})
    assert len(names) == 2 and all(re.fullmatch(r"a-policer-with-a-very-[0-9a-f]{8}", n) for n in names)
    assert cat_text(aggregate(tmp_path, policer="a-policer-with-a-very-long-name")) == text
    bad = text.replace(names[0], "x" * 32)
    with pytest.raises(SelfCheckError, match="not valid in global mode"):
        check_text(bad, "catalyst6500")


def test_catalyst_aggregate_grammar_follows_the_police_forms() -> None:
    """The aggregate takes the class police's forms: no exceed-action drop with a maximum burst (12.2SX)."""
    good = ("mls qos aggregate-policer agg 10000000 64000 conform-action transmit exceed-action drop\n"
            "policy-map p\n class class-default\n  police aggregate agg\n")
    check_text(good, "catalyst6500")
    for bad in (good.replace("64000 conform", "64000 64000 pir 20000000 conform"),
                good.replace("aggregate-policer agg 10000000", "aggregate-policer 9agg 10000000")):
        with pytest.raises(SelfCheckError, match="not valid in global mode"):
            check_text(bad, "catalyst6500")
    with pytest.raises(SelfCheckError, match="aggregate-policer other is used but never defined"):
        check_text(good.replace("police aggregate agg", "police aggregate other"), "catalyst6500")


def test_catalyst_rules_marking_differently_keep_a_policer_each(tmp_path: Path) -> None:
    """An aggregate's conform action marks every class alike: rules of different marks keep their own policer,
    QOS130 at the policer says so."""
    result = aggregate(tmp_path, second="bulk")
    found = [d for d in result.diagnostics if d.code == "QOS130"]
    assert [d.message.split(" on ")[1].split()[0] for d in found] == ["GigabitEthernet1/1", "GigabitEthernet1/2"]
    assert all("af11, af21" in d.message and d.location is not None and d.location.line == 8 for d in found)
    text = cat_text(result)
    assert "aggregate" not in text
    got = block_of(text, "policy-map c-in")
    assert got[" class site-r2"] == ["set ip dscp af11", "police 10000000 64000 conform-action set-dscp-transmit "
                                     "af11 exceed-action policed-dscp-transmit"]


# -- every Cisco feature of the schema, on every dialect ---------------------------------------------------------

EVERYTHING = """\
qosc: 1
name: all
defaults: {mtu: 1500B, rtt: 20ms}
services:
  best-effort: {kind: best-effort, default: true, queue: {share: 40%, buffer: 20%, priority: high}, drop-profile: be}
  premium: {kind: premium, queue: {strict: true, priority: high, rate-cap: 10%}, policer: $prem}
  af: {kind: assured, dscp: [af21, af22, af23], queue: {share: 30%, priority: high},
       drop-profile: {low: af-low, medium: af-medium, high: af-high}, policer: $af}
  af-bulk: {kind: assured, dscp: [cs2], queue: {shared-with: af}}
  lbe: {kind: lbe, dscp: [cs1], queue: {share: 1%, buffer: 1%, priority: low}}
  network-control: {kind: network-control, queue: {share: 5%, buffer: 5%, priority: high}}
drop-profiles:
  be: {min: 40, max: 80, max-probability: 10%}
  af-low: {min: 60, max: 95, max-probability: 5%}
  af-medium: {min: 40, max: 80, max-probability: 10%}
  af-high: {min: 20, max: 60, max-probability: 20%}
policers:
  one: {cir: 10M, cbs: 64KB, exceed: drop}
  one-mark: {cir: 10M, cbs: 64KB, conform: cs2, exceed: af22}
  sr3: {cir: 50M, cbs: 2.5MB, ebs: 5MB, conform: af21, exceed: af22, violate: drop}
  tr3: {cir: 50M, cbs: 2.5MB, pir: 100M, pbs: 5MB, conform: af21, exceed: af22, violate: af23}
  seed-ef: {cir: 80M, cbs: 40KB, pir: 80M, pbs: 40KB, exceed: drop, violate: drop}
classifiers:
  site:
    rules:
      - {name: video, service: premium, policer: $ef,
         match: {source: [198.18.20.0/24], protocol: [udp], destination-port: ["5004-5005"]}}
      - {name: bulk, service: af, match: {source: [198.18.20.0/24, "fd00:20::/64"], protocol: [tcp],
                                          destination-port: [2811, "50000-51000"]}}
      - {name: mark, service: af-bulk, policer: one-mark, match: {destination: [198.18.40.0/24]}}
      - {name: backups, service: lbe, match: {destination: [198.18.30.0/24], protocol: [tcp]}}
      - {name: sctp6, service: af, match: {destination: ["fd00:30::/64"], protocol: [sctp],
                                           destination-port: [2905]}}
devices:
  r1:
    platform: $platform
    interfaces:
$interfaces
"""

DIALECTS = {
    "ios-gsr": ("one", "sr3", "one", """\
      POS0/0: {role: edge, speed: 1G, classifier: site}
      POS1/0: {role: edge, speed: 1G, classifier: site, trust: dscp}
      POS2/0: {role: core, speed: 2.5G}
      POS3/0: {role: core, speed: 10G}"""),
    "ios-xe": ("one", "tr3", "seed-ef", """\
      GigabitEthernet0/0/0: {role: edge, speed: 1G, classifier: site}
      GigabitEthernet0/0/1: {role: edge, speed: 1G, classifier: site, trust: dscp}
      TenGigabitEthernet0/1/0: {role: core, speed: 10G, shape: 4G, unit: 200}
      HundredGigE0/2/0: {role: core, speed: 100G}"""),
    "catalyst6500": ("one", "tr3", "seed-ef", """\
      GigabitEthernet1/1: {role: edge, speed: 1G, classifier: site, port-type: 1p7q8t}
      GigabitEthernet1/2: {role: edge, speed: 1G, classifier: site, trust: dscp, port-type: 1p2q2t,
                           services: [best-effort, premium, af]}
      GigabitEthernet2/1: {role: core, speed: 1G, port-type: 2q2t, services: [best-effort, lbe]}
      GigabitEthernet2/2: {role: core, speed: 1G, port-type: 1p3q8t, services: [best-effort, premium, af, lbe]}
      TenGigabitEthernet4/1: {role: core, speed: 10G, port-type: 1p7q8t}"""),
}


@pytest.mark.parametrize("platform", sorted(DIALECTS))
def test_every_cisco_feature_is_accepted_by_the_dialect_grammar(tmp_path: Path, platform: str) -> None:
    """Strict with caps, AF with per-precedence WRED, policers of every kind the dialect has (with remarks),
    ACL classifiers v4/v6, shaping and subinterfaces where the dialect has them, every Catalyst port type,
    100G links: compiled, every line passes the dialect's grammar (render runs it), and nothing is QOS199."""
    prem, af, ef, interfaces = DIALECTS[platform]
    text = string.Template(EVERYTHING).substitute(platform=platform, prem=prem, af=af, ef=ef, interfaces=interfaces)
    result = api.validate(write(tmp_path, text))
    errs = [f"{d.code} {d.message}" for d in result.diagnostics if d.is_error]
    assert not errs, errs
    target = "catalyst6500" if platform == "catalyst6500" else "ios-mqc"
    (out,) = api.compile_policy(result, [target])
    assert "QOS199" not in [d.code for d in result.diagnostics]
    check_text(out.text, platform)
    lines = out.text.splitlines()
    assert any(ln.startswith("ipv6 access-list ") for ln in lines)
    if platform == "ios-xe":
        assert "interface TenGigabitEthernet0/1/0.200" in lines and "  shape average 4000000000" in lines
        # XE keeps max-reserved-bandwidth on every interface and subinterface (Cisco-IOS-XE-interfaces YANG)
        sub = lines.index("interface TenGigabitEthernet0/1/0.200")
        assert " max-reserved-bandwidth 100" in lines[sub:sub + 5]
        assert ("  police cir 50000000 bc 2500000 pir 100000000 be 5000000 conform-action set-dscp-transmit af21 "
                "exceed-action set-dscp-transmit af22 violate-action set-dscp-transmit af23") in lines
    if platform == "ios-gsr":
        assert ("  police 50000000 2500000 5000000 conform-action set-dscp-transmit af21 exceed-action "
                "set-dscp-transmit af22 violate-action drop") in lines
    if platform == "catalyst6500":
        # a class that marks never polices with conform-action transmit (the PFC would trust the DSCP instead)
        marking = [cmds for pm in (ln for ln in lines if ln.startswith("policy-map "))
                   for cmds in block_of(out.text, pm).values() if any(c.startswith("set ip dscp ") for c in cmds)]
        assert marking and not [c for cmds in marking for c in cmds if "conform-action transmit" in c]
        # tr3 (with PIR) marks AF21 down through the normal-burst map, its violate and the PIR-less one-mark
        # through the max-burst map
        assert [ln for ln in lines if ln.startswith("mls qos map policed-dscp ")] == [
            "mls qos map policed-dscp max-burst 16 to 20", "mls qos map policed-dscp max-burst 18 20 22 to 22",
            "mls qos map policed-dscp normal-burst 18 20 22 to 20"]  # (the trusted port polices all of AF2x)
