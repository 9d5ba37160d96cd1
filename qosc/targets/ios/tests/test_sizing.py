"""ios-mqc sizing (issue 17): the priority class's police burst and the SLS bound of an IOS hop come from one
function (qosc.targets.ios.sizing)."""

from __future__ import annotations

import textwrap
from fractions import Fraction
from pathlib import Path

from qosc import api, sizing
from qosc.behaviour.model import Envelope
from qosc.sls.bounds import derive
from qosc.targets.ios import TARGETS
from qosc.targets.ios import read as reader
from qosc.targets.ios.platform import MqcPlatform
from qosc.targets.ios.read.interpret import envelope
from qosc.targets.ios.sizing import class_sizing, police_burst_range
from qosc.targets.ios.tests.test_ios_mqc import ROOT, compile_device
from qosc.targets.platform import Range
from qosc.tree import Document, Statement

MQC = TARGETS[0]


def _platform(name: str) -> MqcPlatform:
    platform = MQC.platform_data[name]
    assert isinstance(platform, MqcPlatform)
    return platform


def _model(path: Path):
    result = api.validate(path)
    assert result.policy is not None and result.ok, [str(d) for d in result.diagnostics if d.is_error]
    return result.policy


def _words(s: Statement) -> list[str]:
    return [str(w) for w in s.words]


def _priority_police(doc: Document, class_name: str) -> dict[str, Envelope]:
    """interface -> the police of `class_name` in its output policy-map, as the IOS reader parses it back."""
    maps: dict[str, Envelope] = {}
    for pm in doc.statements:
        if _words(pm)[:1] != ["policy-map"]:
            continue
        for cls in pm.children or ():
            if _words(cls) == ["class", class_name]:
                police = [c for c in cls.children or () if _words(c)[:1] == ["police"]]
                if police:
                    maps[_words(pm)[1]] = envelope(tuple(_words(police[0])), None, {})
    out = {}
    for iface in doc.statements:
        if _words(iface)[:1] == ["interface"]:
            for c in iface.children or ():
                if _words(c)[:2] == ["service-policy", "output"] and _words(c)[2] in maps:
                    out[_words(iface)[1]] = maps[_words(c)[2]]
    return out


def test_police_bc_reads_back_as_class_sizing_computes_it() -> None:
    """assured-rate: ip-premium is priority + police at 10% of each link; bc = max(10 x 1500 B, 1 ms at the cap,
    premium-in's CBS 64,000 B), off an edge at least 10 ms at the cap, and the SLS bound of each hop is
    delay_bound of that very sizing."""
    policy = _model(ROOT / "policies" / "assured-rate.yaml")
    premium = policy.service_map["ip-premium"]
    expected = {("asr-1", "GigabitEthernet0/0/0"): 64_000,       # edge: CBS above 1 ms at 100 Mbit/s (12,500 B)
                ("asr-1", "TenGigabitEthernet0/1/0"): 1_250_000,  # core: 10 ms at 1 Gbit/s
                ("gsr-2", "POS0/0"): 312_500}                     # core: 10 ms at 250 Mbit/s, above the CBS
    hops = {h.label: h for h in derive(policy, premium).interfaces}
    for (name, ifname), bc in expected.items():
        device = policy.device_map[name]
        doc = reader.parse(compile_device(policy, name), f"{name}.cfg", None)
        read = _priority_police(doc, "ip-premium")[ifname]
        iface = next(i for i in device.interfaces if i.name == ifname)
        size = MQC.class_sizing(policy, device, iface, premium)
        assert isinstance(size, sizing.ClassSizing) and size.policed is not None
        assert read.cbs == size.policed.bytes == bc and read.cir == (iface.rate or 0) // 10
        if name == "gsr-2":
            assert read.ebs == bc  # classic positional police: burst-normal = burst-max
        bound = sizing.delay_bound(size, 64_000)
        hop = hops[f"{name}:{ifname}"]
        assert bound is not None and hop.delay_us == bound.us and hop.sized_by == "ios-mqc"
    gsr = hops["gsr-2:POS0/0"]
    # the policer queues nothing: at most the 64,000 B edge burst (below its 312,500 B bucket) waits, at the
    # 2.5 Gbit/s link rate, + one MTU
    assert gsr.delay_us == Fraction(64_000 * 8, 2500) + Fraction(1500 * 8, 2500) == Fraction(2096, 10)
    assert gsr.delay_formula is not None and gsr.delay_formula.startswith(
        "ios-mqc: sigma / C = 64000 B x 8 / 2.5 Gbit/s + F / C = 204.8 µs + 1500 B x 8 / 2.5 Gbit/s = 209.6 µs")


def test_police_burst_range_is_the_dialect_s_command_table() -> None:
    # Cisco-IOS-XE-policy YANG (16.11.1, 17.6.1) for `police cir ... bc`; 12.0S command reference for positional
    assert police_burst_range(_platform("ios-xe")) == Range(1000, 512_000_000)
    assert police_burst_range(_platform("ios-gsr")) == Range(1000, 512_000_000)


def _xe(tmp_path: Path, premium: str, speed: str = "1G") -> Path:
    path = tmp_path / "p.yaml"
    path.write_text(textwrap.dedent(f"""\
        qosc: 1
        name: x
        services:
          be: {{kind: best-effort, default: true, queue: {{share: 60%, priority: low}}}}
          ef: {{kind: premium, dscp: [ef], queue: {premium}}}
        devices:
          r1:
            platform: ios-xe
            interfaces:
              GigabitEthernet0/0/1: {{role: core, speed: {speed}}}
        """), encoding="utf-8")
    return path


def test_an_unpoliced_priority_class_is_bounded_by_its_police_bucket(tmp_path: Path) -> None:
    """No edge policer: the generic formula had no bound; on this core port the priority class's own police admits
    at most bc = max(10 x 1500 B, 1 ms at 100 Mbit/s, off an edge 10 ms at 100 Mbit/s) = 125,000 B, which leaves
    at 1 Gbit/s: 1000 us, + 12 us."""
    policy = _model(_xe(tmp_path, "{strict: true, priority: high, rate-cap: 10%}"))
    (hop,) = derive(policy, policy.service_map["ef"]).interfaces
    assert hop.delay_us == 1012
    assert "police cir 100000000 bc 125000 conform-action transmit exceed-action drop" in compile_device(policy, "r1")


def test_a_bandwidth_class_keeps_the_generic_formula_and_says_why(tmp_path: Path) -> None:
    path = _xe(tmp_path, "{share: 10%, priority: high}")
    path.write_text(path.read_text().replace("priority: high}}", "priority: high}, policer: ef-in}")
                    + "policers:\n  ef-in: {cir: 10M, cbs: 64KB}\n")
    policy = _model(path)
    device = policy.device_map["r1"]
    ef = policy.service_map["ef"]
    assert isinstance(MQC.class_sizing(policy, device, device.interfaces[0], ef), sizing.Unsized)
    assert class_sizing(policy, device.interfaces[0], ef, _platform("ios-xe")) == MQC.class_sizing(
        policy, device, device.interfaces[0], ef)
    (hop,) = derive(policy, ef).interfaces
    assert hop.delay_us == 524 and hop.sized_by is None
    assert hop.delay_formula == ("(64KB + 1500B) × 8 / 1 Gbit/s = 524 µs (generic formula; ios-mqc: a class without "
                                 "priority is a CBWFQ bandwidth class served by weight, whose delay IOS does not "
                                 "bound)")


XE_DEFAULT = """\
qosc: 1
name: x
defaults: {{rtt: 20ms}}
drop-profiles:
  be: {{min: 20, max: 80, max-probability: 10%}}
services:
  be: {{kind: best-effort, default: true, queue: {{share: 60%, priority: high}}, drop-profile: be}}
  af: {{kind: assured, dscp: [af21], queue: {{share: 30%, priority: high}}, rtt: 80ms}}
  lbe: {{kind: lbe, dscp: [cs1], queue: {{share: {lbe}, priority: low}}}}
devices:
  r1:
    platform: {platform}
    interfaces:
      {iface}: {{role: core, speed: 1G}}
"""


def test_xe_class_without_buffer_gets_one_bdp_at_its_guarantee(tmp_path: Path) -> None:
    """Issue 17 for IOS XE: a bandwidth class without a buffer kept the box's 64 packets whatever its rate (77 us
    of a 40% class at 10G, 10 ms of a 1% class at 1G); it now gets queue-limit = one BDP at its guarantee, the
    service's rtt else defaults.rtt, at least 10 packets, at most the 4,096-packet pool, and WRED thresholds
    are fill % of it.  ios-gsr takes no queue-limit beside WRED: its classes without WRED get the same BDP, the
    WRED class keeps its 50 ms reference."""
    def compiled(platform: str, iface: str, lbe: str = "1%") -> str:
        path = tmp_path / f"{platform}.yaml"
        path.write_text(XE_DEFAULT.format(platform=platform, iface=iface, lbe=lbe), encoding="utf-8")
        result = api.validate(path)
        assert result.ok, [d.message for d in result.diagnostics if d.is_error]
        return next(o.text for o in api.compile_policy(result) if o.path.endswith("r1.cfg"))

    text = compiled("ios-xe", "GigabitEthernet0/0/1")
    assert "  bandwidth percent 30\n  queue-limit 2000\n" in text  # 300 Mbit/s x 80 ms / 8 / 1500 B
    assert "  bandwidth percent 1\n  queue-limit 17\n" in text  # 10 Mbit/s x 20 ms: 25,000 B
    assert "  bandwidth percent 60\n  queue-limit 1000\n" in text  # 600 Mbit/s x 20 ms
    assert "  random-detect precedence 0 200 800 10\n" in text  # 20% / 80% of the 1000-packet queue-limit
    assert "one BDP, 10 Mbit/s x rtt 20 ms / 8 = 25000 B" in text  # the formula beside it
    tiny = compiled("ios-xe", "GigabitEthernet0/0/1", lbe="0.1%")
    assert "  queue-limit 10\n" in tiny  # 1 Mbit/s x 20 ms is 2 packets: the floor is 10
    gsr = compiled("ios-gsr", "POS0/0")
    assert "  bandwidth percent 30\n  queue-limit 2000\n" in gsr and "  bandwidth percent 1\n  queue-limit 17\n" in gsr
    default = gsr[gsr.index(" class class-default"):]
    assert "queue-limit" not in default.replace("no queue-limit with WRED here", "")
    assert "  random-detect precedence 0 819 3277 10\n" in default  # 20% / 80% of the 50 ms reference (4,096)
