"""qosc.sizing: queues and bursts from the rate a class drains at, and the targets that use it (issue 17)."""

from __future__ import annotations

import textwrap
from fractions import Fraction
from pathlib import Path

from qosc import sizing
from qosc.targets.linux_tc import TARGET
from qosc.targets.linux_tc.plan import class_sizing
from qosc.targets.linux_tc.tests.support import number, valid

ROOT = Path(__file__).resolve().parents[4]


def test_drain_rate_rules() -> None:
    assert sizing.drain_rate(100_000_000, 10_000_000, 10_000_000).rate == 10_000_000  # capped: its cap
    starved = sizing.drain_rate(100_000_000, 1_000_000, None)
    assert starved.rate == 1_000_000 and "starved" in starved.why  # borrows: its guarantee
    assert sizing.drain_rate(100_000_000, None).rate == 100_000_000  # no guarantee: the link
    assert sizing.drain_rate(100_000_000, 0).rate == 100_000_000
    assert sizing.drain_rate(100_000_000, 300_000_000, None).rate == 100_000_000  # never above the link


def test_queue_from_a_buffer_time_is_that_time_at_the_drain_rate() -> None:
    q = sizing.queue_size(10_000_000, 100_000_000, 1514, time_us=20_000)
    assert (q.bytes, q.packets, q.wanted) == (25_000, 17, 25_000)  # 20 ms at 10 Mbit/s, not at 100
    small = sizing.queue_size(10_000_000, 100_000_000, 1514, time_us=2_000)
    assert small.wanted == 2_500 and small.bytes == 2 * 1514 and small.packets == 2  # floor: two packets
    assert "2 ms x 10 Mbit/s / 8 = 2500 B, at least 2 packets = 3028 B" in small.formula


def test_queue_from_a_percentage_is_a_share_of_the_port_buffer() -> None:
    q = sizing.queue_size(1_000_000, 1_000_000_000, 1514, percent=1.0)
    assert q.bytes == 125_000  # 1% of 100 ms at 1 Gbit/s, whatever the drain rate
    assert q.formula.startswith("1% of the port buffer (100 ms x 1 Gbit/s / 8) = 125000 B")


def test_default_queue_is_one_bdp_with_floor_and_cap() -> None:
    assert sizing.queue_size(40_000_000, 100_000_000, 1514).bytes == 500_000  # 40 Mbit/s x 100 ms
    assert sizing.queue_size(40_000_000, 100_000_000, 1514, rtt_us=20_000).bytes == 100_000
    lbe = sizing.queue_size(1_000_000, 100_000_000, 1514)
    assert lbe.wanted == 12_500 and lbe.bytes == 10 * 1514 and lbe.packets == 10
    linux = sizing.queue_size(1_000_000, 100_000_000, 1514, default_floor=65_536)
    assert linux.bytes == 65_536 and "at least one 65536 B aggregate" in linux.formula
    assert sizing.queue_size(1_000_000, 100_000_000, 1514, time_us=2_000, default_floor=65_536).bytes == 3028
    capped = sizing.queue_size(100_000_000, 100_000_000, 1514, rtt_us=300_000)
    assert capped.bytes == 1_250_000 and "at most the port buffer" in capped.formula


def test_burst_allowance() -> None:
    assert sizing.burst_allowance(10_000_000, 1514).bytes == 15_140  # 10 frames > 1 ms at 10 Mbit/s
    assert sizing.burst_allowance(1_000_000_000, 1514).bytes == 125_000  # 1 ms at 1 Gbit/s
    assert sizing.burst_allowance(10_000_000, 1514, declared=64_000).bytes == 64_000


def _policy(tmp_path: Path, services: str, speed: str = "100M", extra: str = "") -> Path:
    path = tmp_path / "policy.yaml"
    path.write_text("qosc: 1\nname: sizing\n" + extra + "services:\n" + textwrap.indent(textwrap.dedent(services), "  ")
                    + f"devices:\n  r1:\n    platform: linux\n    interfaces:\n      eth0: {{speed: {speed}}}\n",
                    encoding="utf-8")
    return path


def _leaves(path: Path) -> dict:
    policy = valid(path)
    (plan,) = TARGET.plan(policy, policy.device_map["r1"])
    return {leaf.service: leaf for leaf in plan.egress.leaves}


def test_capped_ef_buffer_is_sized_at_its_cap(tmp_path: Path) -> None:
    """Issue 17: EF capped at 10 Mbit/s with buffer 2ms got 25,000 B (2 ms at 100 Mbit/s); now 2 ms at its cap."""
    leaves = _leaves(_policy(tmp_path, """\
        ef: {kind: premium, dscp: [ef], queue: {share: 10%, buffer: 2ms, strict: true, rate-cap: 10M}}
        be: {kind: best-effort, default: true, queue: {share: 50%, priority: high}}
        lbe: {kind: lbe, dscp: [cs1], queue: {share: 1%}}
        """))
    assert leaves["ef"].qdisc == "bfifo limit 3028"  # 2500 B, at least two frames
    assert leaves["ef"].burst == leaves["ef"].cburst == 15_140  # max(10 frames, 1 ms at the cap)
    assert "2 ms x 10 Mbit/s / 8 = 2500 B" in leaves["ef"].why
    # LBE without a buffer: one BDP at 1 Mbit/s (12,500 B), raised to one 64 KiB GSO aggregate (0.5 s at
    # 1 Mbit/s), not `pfifo limit 1000` (12 s at 1 Mbit/s)
    assert leaves["lbe"].qdisc == "bfifo limit 65536" and leaves["lbe"].qdisc_kind == "bfifo"
    assert leaves["be"].qdisc == "bfifo limit 625000"  # 50 Mbit/s x 100 ms


def test_default_queue_follows_rate_and_rtt(tmp_path: Path) -> None:
    services = """\
        be: {kind: best-effort, default: true, queue: {share: 50%, priority: high}}
        lbe: {kind: lbe, dscp: [cs1], queue: {share: 1%}}
        """
    slow = _leaves(_policy(tmp_path, services, "1M"))
    mid = _leaves(_policy(tmp_path, services, "100M"))
    fast = _leaves(_policy(tmp_path, services, "10G", extra="defaults: {rtt: 20ms}\n"))
    assert slow["be"].qdisc == "bfifo limit 65536"  # 500 kbit/s x 100 ms = 6250 B: one GSO aggregate at least
    assert mid["be"].qdisc == "bfifo limit 625000"  # 50 Mbit/s x 100 ms
    assert fast["be"].qdisc == "bfifo limit 12500000"  # 5 Gbit/s x 20 ms
    assert fast["lbe"].qdisc == "bfifo limit 250000"  # 100 Mbit/s x 20 ms


def test_the_batch_writes_what_class_sizing_computes(tmp_path: Path) -> None:
    """One function: the numbers in the .tc file are class_sizing's, for every class of the lab policies."""
    for policy_file, device in (("policies/four-service-linux.yaml", "lab-router"),
                                ("policies/assured-rate.yaml", "linux-gw"), ("policies/qbss-linux.yaml", "lab-sender")):
        policy = valid(ROOT / policy_file)
        dev = policy.device_map[device]
        for plan in TARGET.plan(policy, dev):
            iface = next(i for i in dev.interfaces if i.name == plan.name)
            for leaf in plan.egress.leaves:
                size = class_sizing(policy, policy.service_map[leaf.service], iface, TARGET.platform_of(dev))
                assert size.queue is not None
                limit = number(r"limit (\d+)", leaf.qdisc)
                if leaf.qdisc_kind == "fq_codel":
                    assert limit == size.queue.packets
                else:
                    assert limit == size.queue.bytes
                if size.burst is not None:
                    assert leaf.cburst == size.burst.bytes


# -- the SLS bound comes from the numbers the configuration is written with ----------------

def test_sls_bound_of_a_linux_hop_is_the_tc_configuration_s(tmp_path: Path) -> None:
    from qosc.sls.bounds import derive

    path = _policy(tmp_path, """\
        ef: {kind: premium, dscp: [ef], queue: {share: 10%, buffer: 2ms, strict: true, rate-cap: 10M}}
        be: {kind: best-effort, default: true, queue: {share: 50%, priority: high}}
        """)
    policy = valid(path)
    ef = policy.service_map["ef"]
    (hop,) = derive(policy, ef).interfaces
    dev = policy.device_map["r1"]
    size = TARGET.class_sizing(policy, dev, dev.interfaces[0], ef)
    assert hop.sized_by == "linux-tc" and size is not None
    bound = sizing.delay_bound(size, None)
    assert bound is not None and size.queue is not None and size.burst is not None and hop.delay_formula
    assert hop.delay_us == bound.us  # no policer: the queue limit bounds it
    (plan,) = TARGET.plan(policy, dev)
    leaf = next(leaf for leaf in plan.egress.leaves if leaf.service == "ef")
    assert leaf.qdisc == f"bfifo limit {size.queue.bytes}" and leaf.cburst == size.burst.bytes
    # Q / R + F / C = 3028 B at the 10 Mbit/s cap + one 1514 B frame at 100 Mbit/s = 2422.4 + 121.12 us
    assert hop.delay_us == Fraction(3028 * 8, 10) + Fraction(1514 * 8, 100)
    assert "Q / R = 3028 B x 8 / 10 Mbit/s" in hop.delay_formula and "linux-tc" in hop.delay_formula


def test_sls_bound_with_a_policed_burst_above_the_shaper_bucket() -> None:
    c = sizing.ClassSizing(100_000_000, 1514, sizing.drain_rate(100_000_000, 10_000_000, 10_000_000),
                           sizing.queue_size(10_000_000, 100_000_000, 1514, time_us=50_000),
                           sizing.burst_allowance(10_000_000, 1514))
    # sigma 45,140 B: 15,140 B leave at the link rate, 30,000 B wait for the 10 Mbit/s cap = 24 ms
    bound = sizing.delay_bound(c, 45_140)
    assert bound is not None and bound.us == Fraction(30_000 * 8, 10) + Fraction(1514 * 8, 100)
    assert "(sigma - B) / R" in bound.formula
    # a burst within the bucket leaves at the link rate
    assert (sizing.delay_bound(c, 10_000) or bound).us == Fraction(10_000 * 8, 100) + Fraction(1514 * 8, 100)
    # the queue limit caps the wait whatever the burst: Q = 62,500 B at 10 Mbit/s = 50 ms
    assert (sizing.delay_bound(c, 10**9) or bound).us == 50_000 + Fraction(1514 * 8, 100)


def test_the_cheap_bound_the_checks_use_is_never_below_the_queue(tmp_path: Path) -> None:
    """QOS144 sizes only classes whose cheap upper bound could pass tc's limit: the bound must hold."""
    from qosc.targets.linux_tc.plan import queue_bytes_at_most, queue_bytes_wanted

    for speed in ("1M", "100M", "10G", "400G"):
        for buffer in ("", ", buffer: 1ms", ", buffer: 300ms", ", buffer: 1%", ", buffer: 100%"):
            path = _policy(tmp_path, f"""\
                ef: {{kind: premium, dscp: [ef], queue: {{share: 10%, strict: true, rate-cap: 10%{buffer}}}}}
                be: {{kind: best-effort, default: true, queue: {{share: 50%, priority: high{buffer}}}}}
                lbe: {{kind: lbe, dscp: [cs1], queue: {{share: 0%{buffer}}}}}
                """, speed, extra="defaults: {rtt: 400ms}\n")
            policy = valid(path)
            iface = policy.device_map["r1"].interfaces[0]
            linux = TARGET.platform_of(policy.device_map["r1"])
            for s in policy.services:
                assert queue_bytes_at_most(s, iface, linux) >= queue_bytes_wanted(policy, s, iface, linux), (
                    speed, buffer, s.name)
