"""iperf3 flows and the EF probe, run concurrently through a Lab, measured at the receiver.

A Flow is one iperf3 client (TCP, or UDP at a given rate) with a TOS byte;
run_flows() starts them together (each may start late), and returns, per
flow, the goodput the receiver saw (from the server's own intervals, via
--get-server-output) after a warm-up, plus the interval series for plots.
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from qosc.lab.netns import Lab

BASE_PORT = 5301
PROBE_PORT = 7007
UDP_LEN = 1400


@dataclass(frozen=True)
class Flow:
    name: str
    tos: int = 0
    udp_rate: int | None = None  # bit/s; None = TCP
    start: float = 0.0  # seconds after the scenario starts
    duration: float | None = None  # default: the scenario's
    cc: str = "cubic"  # TCP congestion control (iperf3 -C); bbr paces and sends 64 KiB GSO aggregates from the start


@dataclass
class FlowResult:
    name: str
    mbps: float  # receiver goodput after the warm-up, Mbit/s
    series: list[tuple[float, float]] = field(default_factory=list)  # (t since scenario start, Mbit/s)
    sent_mbps: float = 0.0
    error: str = ""


@dataclass
class ProbeResult:
    rtt_ms: list[float]
    sent: int
    lost: int

    @property
    def median(self) -> float:
        return statistics.median(self.rtt_ms) if self.rtt_ms else float("inf")


class Traffic:
    """iperf3 servers (one port per concurrent flow) and the probe echo, started once per lab."""

    def __init__(self, lab: Lab, max_flows: int = 6) -> None:
        self.lab = lab
        self.ports = [BASE_PORT + i for i in range(max_flows)]
        for port in self.ports:
            lab.spawn(lab.ns_receiver, ["iperf3", "-s", "-J", "-p", str(port)], background=True)
        lab.python(lab.ns_receiver, "qosc.lab.probe", ["serve", "--port", str(PROBE_PORT)], background=True)
        time.sleep(0.5)

    def run(self, flows: Sequence[Flow], duration: float, warmup: float = 1.0, interval: float = 0.5,
            probe_count: int = 0, probe_interval: float = 0.01) -> tuple[dict[str, FlowResult], ProbeResult | None]:
        procs = []
        t0 = time.monotonic()
        probe = None
        if probe_count:
            probe = self.lab.python(self.lab.ns_sender, "qosc.lab.probe",
                                    ["ping", "--host", self.lab.receiver_ip, "--port", str(PROBE_PORT),
                                     "--count", str(probe_count), "--interval", str(probe_interval)], nice=-10)
        pending = sorted(zip(flows, self.ports, strict=False), key=lambda fp: fp[0].start)  # ports >= flows
        for flow, port in pending:
            delay = t0 + flow.start - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            procs.append((flow, flow.start, self.lab.spawn(self.lab.ns_sender, self._client(flow, port, duration,
                                                                                            interval))))
        results = {}
        for flow, start, proc in procs:
            out, err = proc.communicate(timeout=duration + 60)
            results[flow.name] = _parse(flow, start, out, err, warmup)
        probe_result = None
        if probe is not None:
            out, err = probe.communicate(timeout=probe_count * probe_interval + 60)
            data = json.loads(out) if out.strip() else {}
            probe_result = ProbeResult(list(data.get("rtt_ms", [])), int(data.get("sent", probe_count)),
                                       int(data.get("lost", probe_count)))
        return results, probe_result

    def probe(self, count: int, interval: float = 0.01) -> ProbeResult:
        return self.run([], 0, probe_count=count, probe_interval=interval)[1]  # type: ignore[return-value]

    def _client(self, flow: Flow, port: int, duration: float, interval: float) -> list[str]:
        length = flow.duration if flow.duration is not None else duration - flow.start
        argv = ["iperf3", "-c", self.lab.receiver_ip, "-p", str(port), "-t", f"{length:g}", "-i", f"{interval:g}",
                "-J", "--get-server-output", "-S", str(flow.tos)]
        if flow.udp_rate is not None:
            argv += ["-u", "-b", str(flow.udp_rate), "-l", str(UDP_LEN)]
        else:
            argv += ["-C", flow.cc]
        return argv


def _parse(flow: Flow, start: float, out: str, err: str, warmup: float) -> FlowResult:
    try:
        data = json.loads(out)
    except json.JSONDecodeError:
        return FlowResult(flow.name, 0.0, error=(err or out)[-300:])
    if "error" in data and "server_output_json" not in data:
        return FlowResult(flow.name, 0.0, error=str(data["error"]))
    server = data.get("server_output_json") or {}
    intervals = server.get("intervals") or data.get("intervals") or []
    series = []
    total_bytes = 0
    total_time = 0.0
    for iv in intervals:
        s = iv["sum"]
        if s.get("omitted"):
            continue
        t_end = s["end"]
        if s["seconds"] >= 0.8 * (intervals[0]["sum"]["seconds"] or 1):  # not the last, partial one
            series.append((start + t_end, s["bits_per_second"] / 1e6))
        if s["start"] >= warmup - 1e-6:
            total_bytes += s["bytes"]
            total_time += s["seconds"]
    mbps = total_bytes * 8 / total_time / 1e6 if total_time else 0.0
    sent = data.get("end", {}).get("sum_sent") or data.get("end", {}).get("sum") or {}
    return FlowResult(flow.name, mbps, series, sent.get("bits_per_second", 0.0) / 1e6)
