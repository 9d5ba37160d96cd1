"""JUNOS sizing (issue 17): the scheduler's burst-size and the SLS bound of a JUNOS hop come from one function."""

from __future__ import annotations

import textwrap
from fractions import Fraction
from pathlib import Path

from qosc import api, sizing
from qosc.behaviour.roundtrip import load, outputs
from qosc.sls.bounds import derive
from qosc.targets.junos import TARGET, JunosPlatform
from qosc.targets.junos import read as junos_read
from qosc.targets.junos.read.parse import paths
from qosc.targets.junos.sizing import class_sizing, interface_burst

COS = "class-of-service"


def _policy(tmp_path: Path, premium: str, *, platform: str = "junos-mx", speed: str = "1G",
            policers: str = "", name: str = "p.yaml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(f"""\
        qosc: 1
        name: sizing
        defaults: {{mtu: 1500B}}
        services:
          be: {{kind: best-effort, default: true, queue: {{share: 50%, buffer: 50%, priority: low}}}}
          ef: {{kind: premium, dscp: [ef], queue: {premium}}}
        {textwrap.indent(policers, "        ").strip()}
        devices:
          r1:
            platform: {platform}
            interfaces:
              ge-0/0/0: {{role: core, speed: {speed}}}
        """), encoding="utf-8")
    return path


def _model(path: Path):
    result = api.validate(path)
    assert result.policy is not None and result.ok, [str(d) for d in result.diagnostics if d.is_error]
    return result.policy


def _burst_sizes(text: str, source: str) -> dict[str, int]:
    """scheduler -> burst-size, as the JUNOS reader parses the configuration back."""
    doc = junos_read.parse(text, source, None)
    return {p[2]: int(p[p.index("burst-size") + 1]) for p, _ in paths(doc.statements)
            if p[:2] == (COS, "schedulers") and "burst-size" in p}


def test_edge_mx_burst_size_reads_back_as_class_sizing_computes_it() -> None:
    """assured-rate edge-mx: ip-premium is strict-high shaped at 10% on a 1G and a 10G port; each port's scheduler
    has the burst of its own cap: max(10 x 1500 B, 1 ms at the cap, CBS 64,000 B) = 64,000 B on the 1G port and
    125,000 B on the 10G one, the very numbers the SLS sizes each hop with."""
    policy = load("assured-rate.yaml")
    device = policy.device_map["edge-mx"]
    platform = TARGET.platform_data["junos-mx"]
    assert isinstance(platform, JunosPlatform)
    premium = policy.service_map["ip-premium"]
    for out in outputs(policy, "edge-mx"):
        assert _burst_sizes(out.text, out.path) == {"ip-premium": 125_000, "ip-premium-burst-64000": 64_000}
        written = _unit_bursts(out.text, out.path, "ip-premium")
        for iface in device.interfaces:
            burst = interface_burst(policy, iface, premium, platform)
            size = TARGET.class_sizing(policy, device, iface, premium)
            assert isinstance(size, sizing.ClassSizing) and size.burst == burst is not None
            assert burst.bytes == written[iface.name][1], (iface.name, out.path)
            assert size.drain.rate == (iface.rate or 0) // 10  # shaping-rate percent 10 of the port
    # the SLS bound of each hop is delay_bound of that very sizing, with the policed burst (CBS 64,000 B)
    for hop in derive(policy, premium).interfaces:
        if not hop.label.startswith("edge-mx:"):
            continue
        iface = next(i for i in device.interfaces if f"edge-mx:{i.name}" == hop.label)
        size = class_sizing(policy, device, iface, premium, platform)
        assert isinstance(size, sizing.ClassSizing)
        bound = sizing.delay_bound(size, 64_000)
        assert bound is not None and hop.delay_us == bound.us and hop.sized_by == "junos"
    edge = next(h for h in derive(policy, premium).path if h.label == "edge-mx:ge-0/0/1")
    # 64,000 B within the 64,000 B bucket leave at 1 Gbit/s: 512 us, + one 1500 B packet at 1 Gbit/s: 12 us
    assert edge.delay_us == 524 and edge.delay_formula is not None
    assert edge.delay_formula.startswith("junos: sigma / C = 64000 B x 8 / 1 Gbit/s")


def test_temporal_buffer_bounds_an_unpoliced_strict_queue(tmp_path: Path) -> None:
    """buffer-size temporal 2 ms: the queue drops beyond 2 ms at its transmit rate (100 Mbit/s) = 25,000 B, drained
    at the 100 Mbit/s shaping-rate: 2 ms; + 1500 B at 1 Gbit/s = 12 us.  Without a policer the generic formula
    had no bound at all."""
    policy = _model(_policy(tmp_path, "{share: 10%, buffer: 2ms, priority: high, strict: true, rate-cap: 10%}"))
    ef = policy.service_map["ef"]
    (hop,) = derive(policy, ef).interfaces
    assert hop.delay_us == 2000 + 12
    assert hop.delay_formula == ("junos: Q / R = 25000 B x 8 / 100 Mbit/s + F / C = 2 ms + 1500 B x 8 / 1 Gbit/s = "
                                 "2.012 ms (strict-high shaped at its cap 100 Mbit/s: drains at the cap)")
    # burst-size without a policer: max(10 x 1500 B, 1 ms at 100 Mbit/s = 12,500 B) = 15,000 B
    (conf,) = [o for o in outputs(policy, "r1") if o.path.endswith(".conf")]
    assert _burst_sizes(conf.text, conf.path) == {"ef": 15_000}
    assert "burst-size max(10 x 1500 B, 1 ms x 100 Mbit/s / 8) = 15000 B" in conf.text


def test_percent_buffer_is_a_share_of_the_documented_port_delay_buffer(tmp_path: Path) -> None:
    """MIC/MPC: 100 ms of port bandwidth at 1 Gbit/s and above, 500 ms below."""
    premium = "{share: 10%, buffer: 1%, priority: high, strict: true, rate-cap: 10%}"
    fast = _model(_policy(tmp_path, premium, speed="1G"))
    slow = _model(_policy(tmp_path, premium, speed="100M", name="slow.yaml"))
    for policy, port_bytes in ((fast, 12_500_000), (slow, 6_250_000)):  # 100 ms x 1G / 8, 500 ms x 100M / 8
        device = policy.device_map["r1"]
        size = TARGET.class_sizing(policy, device, device.interfaces[0], policy.service_map["ef"])
        assert isinstance(size, sizing.ClassSizing) and size.queue is not None
        assert size.queue.bytes == port_bytes // 100
        (hop,) = derive(policy, policy.service_map["ef"]).interfaces
        bound = sizing.delay_bound(size, None)
        assert bound is not None and hop.delay_us == bound.us
    assert derive(slow, slow.service_map["ef"]).interfaces[0].delay_us == Fraction(62_500 * 8, 10) + 120


def test_a_declared_burst_beyond_the_range_is_written_at_its_top(tmp_path: Path) -> None:
    path = _policy(tmp_path, "{share: 10%, priority: high, strict: true, rate-cap: 10%}", policers="""
        policers:
          big: {cir: 10M, cbs: 5GB}
        """)
    path.write_text(path.read_text().replace("rate-cap: 10%}", "rate-cap: 10%}, policer: big"))
    policy = _model(path)
    (conf,) = [o for o in outputs(policy, "r1") if o.path.endswith(".conf")]
    assert _burst_sizes(conf.text, conf.path) == {"ef": 1_000_000_000}
    assert "at most 1000000000 B (burst-size range)" in conf.text


def test_m_series_keeps_the_generic_formula_and_says_why(tmp_path: Path) -> None:
    """M-series has no strict-high: the one highest-priority queue is served above its transmit-rate in the excess
    round robin, which Juniper's documentation does not bound, so qosc keeps (b + MTU) x 8 / C and says so."""
    path = _policy(tmp_path, "{share: 10%, priority: high}", platform="junos-m-series", policers="""
        policers:
          ef-in: {cir: 10M, cbs: 64KB}
        """)
    path.write_text(path.read_text().replace("priority: high}", "priority: high}, policer: ef-in"))
    policy = _model(path)
    device = policy.device_map["r1"]
    ef = policy.service_map["ef"]
    assert isinstance(TARGET.class_sizing(policy, device, device.interfaces[0], ef), sizing.Unsized)
    (hop,) = derive(policy, ef).interfaces
    assert hop.delay_us == Fraction(65_500 * 8, 1000) and hop.sized_by is None
    assert hop.delay_formula == ("(64KB + 1500B) × 8 / 1 Gbit/s = 524 µs (generic formula; junos: a queue that is "
                                 "not strict-high is served above its transmit-rate in the excess round robin, whose "
                                 "share of the link Juniper's documentation does not bound)")
    (conf,) = [o for o in outputs(policy, "r1") if o.path.endswith(".conf")]
    assert "burst-size" not in conf.text


def _unit_bursts(text: str, source: str, fc: str) -> dict[str, tuple[str, int | None]]:
    """interface (ifd or ifd.unit) -> (the scheduler its map gives `fc`, that scheduler's burst-size), as read back."""
    found = [p for p, _ in paths(junos_read.parse(text, source, None).statements)]
    maps = {p[2]: p[6] for p in found if p[:2] == (COS, "scheduler-maps") and p[3:5] == ("forwarding-class", fc)}
    bursts = {p[2]: int(p[p.index("burst-size") + 1]) for p in found
              if p[:2] == (COS, "schedulers") and "burst-size" in p}
    out: dict[str, tuple[str, int | None]] = {}
    for p in found:
        if p[:2] == (COS, "interfaces") and p[-2] == "scheduler-map" and p[-1] in maps:
            where = p[2] + (f".{p[4]}" if p[3] == "unit" else "")
            out[where] = (maps[p[-1]], bursts.get(maps[p[-1]]))
    return out


def test_each_unit_gets_the_burst_of_its_own_cap(tmp_path: Path) -> None:
    """Issue 26: with per-unit schedulers, one strict EF scheduler had `shaping-rate percent 10 burst-size 1250000`
    (1 ms at the 10 Gbit/s cap of a 100G unit) and also served a 10 Mbit/s unit whose EF cap is 1 Mbit/s, where
    1.25 MB is 10 s at the cap.  Each unit now gets a scheduler with its own burst: 1,250,000 B there, and
    max(10 x 1500 B, 1 ms at 1 Mbit/s) = 15,000 B on the small unit; the SLS sizes each from the same number."""
    path = tmp_path / "p.yaml"
    path.write_text(textwrap.dedent("""\
        qosc: 1
        name: per-unit
        defaults: {mtu: 1500B}
        services:
          be: {kind: best-effort, default: true, queue: {share: 90%, priority: low}}
          ef: {kind: premium, dscp: [ef], queue: {share: 10%, priority: high, strict: true, rate-cap: 10%}}
        devices:
          r1:
            platform: junos-mx
            interfaces:
              xe-0/0/0.100: {role: core, speed: 100G, shape: 10M}
              xe-0/0/0.200: {role: core, speed: 100G}
        """), encoding="utf-8")
    policy = _model(path)
    device = policy.device_map["r1"]
    ef = policy.service_map["ef"]
    for out in outputs(policy, "r1"):
        bursts = _unit_bursts(out.text, out.path, "ef")
        assert {k: b for k, (_, b) in bursts.items()} == {"xe-0/0/0.100": 15_000, "xe-0/0/0.200": 1_250_000}, \
            out.text
        assert bursts["xe-0/0/0.200"][0] == "ef" and len(bursts["xe-0/0/0.100"][0]) <= 64
        # the header names each unit as the configuration does (it said `xe-0/0/0.100 unit 0`)
        assert "# xe-0/0/0 unit 100: core, 100G" in out.text and "# xe-0/0/0 unit 200: core, 100G" in out.text
        for iface in device.interfaces:
            size = TARGET.class_sizing(policy, device, iface, ef)
            assert isinstance(size, sizing.ClassSizing) and size.burst is not None
            assert size.burst.bytes == bursts[iface.name][1]



def test_a_burst_variant_of_a_long_class_name_stays_within_64_characters(tmp_path: Path) -> None:
    """The `<class>-burst-<bytes>` scheduler of a 60-character class is cut with a stable hash (qosc.names)."""
    long = "premium-" + "x" * 52
    path = _policy(tmp_path, "{share: 10%, priority: high, strict: true, rate-cap: 10%}")
    second = "ge-0/0/0: {role: core, speed: 1G}\n      xe-0/0/1: {role: core, speed: 10G}"
    text = path.read_text().replace("ef: {kind: premium", f"{long}: {{kind: premium").replace(
        "ge-0/0/0: {role: core, speed: 1G}", second)
    path.write_text(text)
    policy = _model(path)
    (conf,) = [o for o in outputs(policy, "r1") if o.path.endswith(".conf")]
    written = _unit_bursts(conf.text, conf.path, long)
    assert {k: b for k, (_, b) in written.items()} == {"ge-0/0/0": 15_000, "xe-0/0/1": 125_000}
    variant = written["ge-0/0/0"][0]
    assert variant != long and len(variant) <= 64 and variant.startswith(long[:40])
    assert written["xe-0/0/1"][0] == long
