"""The router lab: senders, a forwarding router whose egress queue really overflows, a receiver.

    with RouterLab() as lab:
        figures = run_router_lab(lab, policy_path, work_dir)

Four network namespaces of one kernel:

    A (EF sender, 198.18.10.1) --ra--+                       100 Mbit/s policy on rd1
                                      router (ip_forward) --rd-- D (receiver, 198.18.12.1)
    B (bulk sender, 198.18.11.1) -rb--+

A's access link is shaped to the router's link rate (tbf), so its bursts reach the
router at line rate as from a real port; B's link is a bare veth, so B's flood
arrives at twice the link rate and the router's egress queue overflows (the drop
counters of every class are read from the router).  Routes exist only between
these namespaces (198.18.10.0/23 and 198.18.12.0/24): nothing leaves the lab.

Every throughput is a ratio to a baseline measured in the same run: one
unmarked TCP flow through a single-class HTB at the link rate on the router.
Delays are one-way (qosc.lab.owd: sender stamp, kernel receive timestamp).
"""

from __future__ import annotations

import json
import re
import statistics
import subprocess
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from qosc import api
from qosc.lab.flows import Flow, Traffic, _parse
from qosc.lab.netns import Lab, LabUnavailable, Script, _run, problems, script_command
from qosc.lab.peers import SCRIPT, linux_tc
from qosc.model import Policy, Service, resolve_rate
from qosc.sls.bounds import hop

A_IP, B_IP, D_IP = "198.18.10.1", "198.18.11.1", "198.18.12.1"
OWD_PORT = 7100
EF_PAYLOAD = 1400
EF_FRAME = EF_PAYLOAD + 28 + 14  # UDP + IPv4 headers, Ethernet header
ROUTER_DEV = "rd1"
NEW_FLOW_PORT = 5399


class RouterLab(Lab):
    """Namespaces A, B (senders), R (router), D (receiver); Traffic's flows run from B to D."""

    def __init__(self, tag: str = "", link: str = "100mbit") -> None:
        super().__init__(tag)
        base = self.ns_sender[:-1]
        self.ns_ef, self.ns_sender, self.ns_router, self.ns_receiver = (f"{base}A", f"{base}B", f"{base}R",
                                                                        f"{base}D")
        self.receiver_ip = D_IP
        self.link = link

    def _setup(self) -> None:
        spaces = (self.ns_ef, self.ns_sender, self.ns_router, self.ns_receiver)
        for ns in spaces:
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, check=False)
            _run(["ip", "netns", "add", ns])
            _run(["ip", "-n", ns, "link", "set", "lo", "up"])
        r = self.ns_router
        for ns, here, there, net in ((self.ns_ef, "ra0", "ra1", "198.18.10"), (self.ns_sender, "rb0", "rb1",
                                                                                "198.18.11"),
                                     (self.ns_receiver, "rd0", "rd1", "198.18.12")):
            _run(["ip", "-n", ns, "link", "add", here, "type", "veth", "peer", "name", there, "netns", r])
            _run(["ip", "-n", ns, "addr", "add", f"{net}.1/24", "dev", here])
            _run(["ip", "-n", r, "addr", "add", f"{net}.254/24", "dev", there])
            _run(["ip", "-n", ns, "link", "set", here, "up"])
            _run(["ip", "-n", r, "link", "set", there, "up"])
        for ns in (self.ns_ef, self.ns_sender):
            via = "198.18.10.254" if ns == self.ns_ef else "198.18.11.254"
            _run(["ip", "-n", ns, "route", "add", "198.18.12.0/24", "via", via])
        _run(["ip", "-n", self.ns_receiver, "route", "add", "198.18.10.0/23", "via", "198.18.12.254"])
        _run(["ip", "netns", "exec", r, "sysctl", "-qw", "net.ipv4.ip_forward=1"])
        for ns in spaces:
            subprocess.run(["ip", "netns", "exec", ns, "sysctl", "-qw", "net.ipv4.tcp_congestion_control=cubic"],
                           capture_output=True, check=False)
        # A's access link runs at the router's link rate: its bursts arrive at line rate, as from a real port
        _run(["ip", "netns", "exec", self.ns_ef, "tc", "qdisc", "add", "dev", "ra0", "root", "tbf", "rate", self.link,
              "burst", "3028", "limit", "200000"])
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            if all(subprocess.run(["ip", "netns", "exec", ns, "ping", "-c1", "-W1", D_IP], capture_output=True,
                                  check=False).returncode == 0 for ns in (self.ns_ef, self.ns_sender)):
                return
            time.sleep(0.2)
        raise LabUnavailable("the router lab does not forward (ping from A and B to D failed)")

    def close(self) -> None:
        super().close()
        for ns in (self.ns_ef, self.ns_router):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, check=False)

    # -- the router's egress ---------------------------------------------------------
    def clear(self) -> None:
        self.run(self.ns_router, ["tc", "qdisc", "del", "dev", ROUTER_DEV, "root"], check=False)

    def apply_script(self, script: Script | Path | str, env: dict[str, str] | None = None) -> None:
        self.clear()
        self.run(self.ns_router, script_command(script, ROUTER_DEV), env=env)

    def apply_commands(self, commands: Sequence[Sequence[str]]) -> None:
        self.clear()
        for argv in commands:
            self.run(self.ns_router, argv)

    def drops(self) -> dict[str, int]:
        """Packets dropped by each leaf qdisc of the router's egress, by its parent class."""
        out: dict[str, int] = {}
        parent = None
        for line in self.run(self.ns_router, ["tc", "-s", "qdisc", "show", "dev", ROUTER_DEV]).stdout.splitlines():
            words = line.split()
            if words[:1] == ["qdisc"]:
                parent = words[words.index("parent") + 1] if "parent" in words else "root"
            elif words[:1] == ["Sent"] and parent is not None:
                found = re.search(r"dropped (\d+)", line)
                if found:
                    out[parent] = int(found[1])
        return out


@dataclass
class RouterFigures:
    baseline_mbps: float
    lbe_alone: float
    be_under_flood: float
    af_of_guarantee: float | None
    ef_overdriven_median_ms: float
    ef_overdriven_promise_ms: float
    ef_bursty_p99_ms: float
    ef_bursty_bound_ms: float | None
    ef_bursty_lost: int
    lbe_new_flow_s: float | None
    drops: dict[str, int] = field(default_factory=dict)
    dropped_in_window: int = 0
    lbe_series: list[tuple[float, float]] = field(default_factory=list)

    def verdicts(self) -> dict[str, bool]:
        """The goals of issue 17, one by one."""
        bound = self.ef_bursty_bound_ms
        return {
            "EF overdriven median within the buffer's promise": self.ef_overdriven_median_ms
            <= self.ef_overdriven_promise_ms,
            "bursty in-profile EF p99 within the SLS bound": bound is not None and self.ef_bursty_p99_ms <= bound,
            "SLS bound at most 3x the measured p99": bound is not None and bound <= 3 * self.ef_bursty_p99_ms,
            "new LBE TCP flow at its minimum within 2 s": self.lbe_new_flow_s is not None
            and self.lbe_new_flow_s <= 2.0,
            "LBE alone at least 0.99 of the baseline": self.lbe_alone >= 0.99,
            "BE under the LBE flood at least 0.99 of the baseline": self.be_under_flood >= 0.99,
            "AF at least 0.97 of its guarantee": self.af_of_guarantee is None or self.af_of_guarantee >= 0.97,
        }

    def meets(self) -> bool:
        return all(self.verdicts().values())

    def line(self) -> str:
        bound = (f"SLS bound {self.ef_bursty_bound_ms:.2f} ms, {self.ef_bursty_bound_ms / self.ef_bursty_p99_ms:.1f}x"
                 if self.ef_bursty_bound_ms is not None and self.ef_bursty_p99_ms > 0 else "no SLS bound")
        new = f"{self.lbe_new_flow_s:.2f} s" if self.lbe_new_flow_s is not None else "never"
        af = f", AF {self.af_of_guarantee:.2f} of its guarantee" if self.af_of_guarantee is not None else ""
        drops = ", ".join(f"{k} {v}" for k, v in sorted(self.drops.items()))
        return (f"router lab: EF overdriven median {self.ef_overdriven_median_ms:.2f} ms (promise "
                f"{self.ef_overdriven_promise_ms:.2f} ms); bursty in-profile EF p99 {self.ef_bursty_p99_ms:.2f} ms "
                f"({bound}, {self.ef_bursty_lost} lost); LBE new TCP flow at its minimum after {new}; "
                f"LBE alone {self.lbe_alone:.3f}, BE under 2x LBE flood {self.be_under_flood:.3f} of the same-run "
                f"baseline {self.baseline_mbps:.1f} Mbit/s{af}; router drops per class in the EF window: {drops}; "
                f"goals met {sum(self.verdicts().values())}/{len(self.verdicts())}")


def _service(policy: Policy, kind: str) -> Service | None:
    return next((s for s in policy.services if s.kind.value == kind), None)


def _owd(lab: RouterLab, rate: int, burst: int, seconds: float,
         tos: int = 0xB8) -> tuple[subprocess.Popen, subprocess.Popen]:
    """Start a one-way-delay receiver in D and a sender in A (EF marked); _collect() reads them."""
    recv = lab.python(lab.ns_receiver, "qosc.lab.owd", ["recv", "--port", str(OWD_PORT), "--duration",
                                                       f"{seconds + 2:g}"])
    time.sleep(0.3)
    send = lab.python(lab.ns_ef, "qosc.lab.owd", ["send", "--host", D_IP, "--port", str(OWD_PORT), "--tos",
                                                 hex(tos), "--rate", str(rate), "--size", str(EF_PAYLOAD),
                                                 "--burst", str(burst), "--seconds", f"{seconds:g}"], nice=-10)
    return recv, send


def _collect(recv: subprocess.Popen, send: subprocess.Popen, skip: float, rate: int) -> tuple[list[float], int]:
    sent_out, _ = send.communicate(timeout=120)
    out, _ = recv.communicate(timeout=120)
    data = json.loads(out) if out.strip() else {}
    delays = [float(d) for d in data.get("delay_ms", [])]
    sent = int(sent_out.strip() or data.get("sent", 0))
    first = int(skip * rate / (EF_FRAME * 8))  # the warm-up, while the other flows ramp up
    return delays[first:], sent - len(delays)


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return float("inf")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def run_router_lab(lab: RouterLab, policy_path: Path, work: Path, duration: float = 6.0) -> RouterFigures:
    result = api.validate(policy_path)
    policy = result.policy
    if not result.ok or policy is None:
        raise RuntimeError("; ".join(str(d) for d in result.diagnostics if d.is_error))
    device = next(d for d in policy.devices if d.platform == "linux")
    iface = device.interfaces[0]
    link = iface.rate or 100_000_000
    files = {o.path.removeprefix("linux-tc/"): o.text for o in api.compile_policy(result, ["linux-tc"],
                                                                                     [device.name])}
    for name, text in files.items():
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        (work / name).write_text(text, encoding="utf-8")
    script = Script(work / device.name / SCRIPT, ("apply", iface.name))
    env = {"QOSC_STATE_DIR": str(work / "state"), "PATH": "/usr/sbin:/usr/bin:/sbin:/bin"}
    ef, be, lbe, af = (_service(policy, k) for k in ("premium", "best-effort", "lbe", "assured"))
    if ef is None or be is None or lbe is None:
        raise RuntimeError("the router lab needs premium, best-effort and lbe services")
    traffic = Traffic(lab)
    flood = 2 * link

    # same-run baseline: one unmarked TCP flow through a single-class HTB at the link rate
    rate = f"{link // 1_000_000}mbit"
    lab.apply_commands([["tc", "qdisc", "add", "dev", ROUTER_DEV, "root", "handle", "1:", "htb", "default", "10"],
                        ["tc", "class", "add", "dev", ROUTER_DEV, "parent", "1:", "classid", "1:10", "htb", "rate",
                         rate, "ceil", rate]])
    baseline = traffic.run([Flow("baseline")], duration)[0]["baseline"].mbps
    lab.apply_script(script, env=env)

    lbe_alone = traffic.run([Flow("lbe", lbe.mark << 2)], duration)[0]["lbe"].mbps / baseline
    be_flood = traffic.run([Flow("be", be.mark << 2), Flow("lbe", lbe.mark << 2, udp_rate=flood)],
                           duration)[0]["be"].mbps / baseline
    af_ratio = None
    if af is not None:
        guarantee = resolve_rate(af.queue.share, link) or 0
        r = traffic.run([Flow("af", af.mark << 2), Flow("be", be.mark << 2),
                         Flow("lbe", lbe.mark << 2, udp_rate=flood)], duration)[0]
        af_ratio = r["af"].mbps / (guarantee / link * baseline) if guarantee else None

    # EF overdriven: 1.5x its cap under BE TCP and the LBE flood
    owner = policy.queue_owner(ef)
    plan_hop = hop(policy, ef, f"{device.name}:{iface.name}")
    TARGET = linux_tc()
    size = TARGET.class_sizing(policy, device, iface, ef)
    assert size is not None
    cap = size.drain.rate
    buffer_us = owner.queue.buffer.time_us if owner.queue.buffer and owner.queue.buffer.time_us else 0
    promise = buffer_us / 1000 + size.frame * 8 / cap * 1000
    before = lab.drops()
    recv, send = _owd(lab, cap * 3 // 2, 1, duration)
    traffic.run([Flow("be", be.mark << 2), Flow("lbe", lbe.mark << 2, udp_rate=flood)], duration + 1)
    over, _ = _collect(recv, send, 1.0, cap * 3 // 2)
    after = lab.drops()
    names = {leaf.classid: leaf.service for p in TARGET.plan(policy, device) for leaf in p.egress.leaves}
    window = {names[k]: after.get(k, 0) - before.get(k, 0) for k in after if k in names}  # leaves, not the root

    # bursty in-profile EF: half the cap on average, in bursts of 10 datagrams
    recv, send = _owd(lab, cap // 2, 10, duration)
    traffic.run([Flow("be", be.mark << 2), Flow("lbe", lbe.mark << 2, udp_rate=flood)], duration + 1)
    bursty, lost = _collect(recv, send, 1.0, cap // 2)

    # LBE new flow: BE TCP saturating, an LBE flood for 3 s, then a new LBE TCP flow, measured at the
    # receiver every 0.1 s (its own iperf3 server)
    step = 3.0
    lab.spawn(lab.ns_receiver, ["iperf3", "-s", "-1", "-J", "-i", "0.1", "-p", str(NEW_FLOW_PORT)], background=True)
    new_flow = Flow("lbe", lbe.mark << 2, start=step)
    argv = traffic._client(new_flow, NEW_FLOW_PORT, step + duration, 0.1)
    timer = threading.Timer(step, lambda: started.append(lab.spawn(lab.ns_sender, argv)))
    started: list[subprocess.Popen] = []
    timer.start()
    traffic.run([Flow("be", be.mark << 2), Flow("flood", lbe.mark << 2, udp_rate=flood, duration=step)],
                step + duration)
    timer.join()
    out, err = started[0].communicate(timeout=duration + 60)
    series = _parse(new_flow, step, out, err, 0.0).series
    minimum = next((leaf.rate for p in TARGET.plan(policy, device) for leaf in p.egress.leaves
                    if leaf.service == policy.queue_owner(lbe).name), 0)
    reached = next((t for t, mbps in series if mbps * 1e6 >= 0.9 * minimum), None)
    lab.clear()
    return RouterFigures(
        baseline_mbps=baseline, lbe_alone=lbe_alone, be_under_flood=be_flood, af_of_guarantee=af_ratio,
        ef_overdriven_median_ms=statistics.median(over) if over else float("inf"), ef_overdriven_promise_ms=promise,
        ef_bursty_p99_ms=_percentile(bursty, 0.99),
        ef_bursty_bound_ms=float(plan_hop.delay_us) / 1000 if plan_hop.delay_us is not None else None,
        ef_bursty_lost=lost, lbe_new_flow_s=None if reached is None else reached - step, drops=window,
        dropped_in_window=sum(window.values()), lbe_series=series)


def available() -> list[str]:
    return problems()
