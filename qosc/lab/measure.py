"""The lab's scenarios and the ratios the issue asks for, as medians of repeated short runs.

Every figure is a ratio to the baseline measured in the same run (one
unmarked TCP flow through a single-class HTB root at the link rate):

- lbe_alone:  LBE TCP alone / baseline                                   (>= 0.97)
- be_vs_lbe:  BE TCP under an LBE UDP flood at twice the link, divided by
              min(BE guarantee share x baseline, baseline)               (>= 0.97)
- lbe_squeezed: LBE goodput in that run / (LBE guarantee share x baseline) (about 1)
- be_vs_lbe_tcp, lbe_tcp_squeezed: the same with an LBE *TCP* flow, the source measurement
              (QBSS shrank to ~1% as soon as BE appeared); be_tcp_of_baseline = BE / baseline
- ef_rtt_delta_ms: median EF probe RTT under saturation - idle median    (<= 1 ms)
- ef_cap:     EF UDP offered at 1.5x its cap, goodput / (cap share x baseline)  (about 1)
- af_share:   AF TCP under BE TCP and the LBE flood / (AF share x baseline)    (>= 0.95)

On a sending host the UDP flood is paced by its socket's send buffer (the
qdisc holds the socket's packets), so iperf3 cannot push it at twice the
link; what it offers keeps the LBE queue permanently backlogged, which is the
pressure the scheduler has to withstand.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from qosc.lab.flows import Flow, FlowResult, Traffic
from qosc.lab.peers import Intents

THRESHOLDS = {"lbe_alone": 0.97, "be_vs_lbe": 0.97, "ef_rtt_delta_ms": 1.0, "af_share": 0.95}


@dataclass
class Samples:
    """Raw samples per metric (one per repetition) and goodputs for the record."""

    values: dict[str, list[float]] = field(default_factory=dict)

    def add(self, key: str, value: float) -> None:
        self.values.setdefault(key, []).append(value)

    def median(self, key: str) -> float | None:
        vals = self.values.get(key)
        return statistics.median(vals) if vals else None

    def medians(self) -> dict[str, float]:
        return {k: statistics.median(v) for k, v in self.values.items() if v}


def measure_baseline(traffic: Traffic, apply: Callable[[], None], reps: int, duration: float) -> list[float]:
    apply()
    out = []
    for _ in range(reps):
        results, _ = _run(traffic, [Flow("baseline")], duration)
        out.append(results["baseline"].mbps)
    return out


def _check(results: dict[str, FlowResult]) -> None:
    bad = {k: v.error for k, v in results.items() if v.error}
    if bad:
        raise RuntimeError(f"iperf3 failed: {bad}")


def _run(traffic: Traffic, flows: list[Flow], duration: float, **kw: object):
    """traffic.run, once more after a pause if an iperf3 server was between two tests (refused/busy)."""
    for attempt in range(3):
        time.sleep(0.3)  # iperf3 servers re-open their listening socket after each test
        results, probe = traffic.run(flows, duration, **kw)  # type: ignore[arg-type]
        errors = " ".join(r.error for r in results.values())
        if not errors or attempt == 2 or not any(w in errors for w in ("refused", "busy", "reset")):
            break
        time.sleep(2.0)
    _check(results)
    return results, probe


def measure(traffic: Traffic, apply: Callable[[], None], it: Intents, baseline: float, reps: int,
            duration: float) -> Samples:
    """Run every scenario the policy has services for, `reps` times, and collect the ratios."""
    apply()
    be, lbe, ef, af = it.role("be"), it.role("lbe"), it.role("ef"), it.role("af")
    flood = 2 * it.link
    s = Samples()
    for _ in range(reps):
        if lbe is not None:
            r, _ = _run(traffic, [Flow("lbe", lbe.tos)], duration)
            s.add("lbe_alone", r["lbe"].mbps / baseline)
            s.add("lbe_alone_mbps", r["lbe"].mbps)
        if be is not None and lbe is not None:
            guarantee = min(be.rate / it.link * baseline, baseline)
            r, _ = _run(traffic, [Flow("be", be.tos), Flow("lbe", lbe.tos)], duration)
            s.add("be_vs_lbe_tcp", r["be"].mbps / guarantee)
            s.add("be_tcp_of_baseline", r["be"].mbps / baseline)
            s.add("lbe_tcp_squeezed", r["lbe"].mbps / (lbe.rate / it.link * baseline))
            r, _ = _run(traffic, [Flow("be", be.tos), Flow("lbe", lbe.tos, udp_rate=flood)], duration)
            guarantee = min(be.rate / it.link * baseline, baseline)
            s.add("be_vs_lbe", r["be"].mbps / guarantee)
            s.add("be_mbps", r["be"].mbps)
            s.add("lbe_squeezed", r["lbe"].mbps / (lbe.rate / it.link * baseline))
            s.add("lbe_flood_mbps", r["lbe"].mbps)
            s.add("lbe_flood_offered_mbps", r["lbe"].sent_mbps)
        if ef is not None:
            idle = traffic.probe(150)
            flows = [Flow("be", be.tos if be else 0)]
            if af is not None:
                flows.append(Flow("af", af.tos))
            if lbe is not None:
                flows.append(Flow("lbe", lbe.tos, udp_rate=flood))
            r, loaded = _run(traffic, flows, duration, probe_count=int(duration / 0.01) - 20)
            s.add("ef_rtt_idle_ms", idle.median)
            s.add("ef_rtt_loaded_ms", loaded.median if loaded else float("inf"))
            s.add("ef_rtt_delta_ms", (loaded.median if loaded else float("inf")) - idle.median)
            s.add("ef_probe_lost", float(loaded.lost if loaded else 0))
            if af is not None:
                s.add("af_share", r["af"].mbps / (af.rate / it.link * baseline))
                s.add("af_mbps", r["af"].mbps)
            r, _ = _run(traffic, [Flow("ef", ef.tos, udp_rate=ef.rate * 3 // 2), Flow("be", be.tos if be else 0)]
                               + ([Flow("lbe", lbe.tos, udp_rate=flood)] if lbe else []), duration)
            s.add("ef_cap", r["ef"].mbps / (ef.rate / it.link * baseline))
            s.add("ef_mbps", r["ef"].mbps)
        elif af is not None:
            flows = [Flow("af", af.tos), Flow("be", be.tos if be else 0)]
            if lbe is not None:
                flows.append(Flow("lbe", lbe.tos, udp_rate=flood))
            r, _ = _run(traffic, flows, duration)
            s.add("af_share", r["af"].mbps / (af.rate / it.link * baseline))
            s.add("af_mbps", r["af"].mbps)
    return s


def verdicts(medians: dict[str, float]) -> dict[str, bool]:
    """Which thresholds of the issue a set of medians meets (only the metrics measured)."""
    out = {}
    for key, limit in THRESHOLDS.items():
        if key in medians:
            out[key] = medians[key] <= limit if key == "ef_rtt_delta_ms" else medians[key] >= limit
    for key in ("lbe_squeezed", "lbe_tcp_squeezed"):
        if key in medians:
            out[key] = medians[key] <= 3.0
    if "be_vs_lbe_tcp" in medians:
        out["be_vs_lbe_tcp"] = medians["be_vs_lbe_tcp"] >= THRESHOLDS["be_vs_lbe"]
    if "ef_cap" in medians:
        out["ef_cap"] = 0.95 <= medians["ef_cap"] <= 1.10
    return out


def timeline(traffic: Traffic, apply: Callable[[], None], it: Intents, step: float = 4.0,
             interval: float = 0.5) -> dict[str, list[tuple[float, float]]]:
    """Staggered flows for the plot: LBE TCP from 0 s, BE at 1 step, AF at 2, EF (1.5x cap) at 3."""
    apply()
    flows: list[Flow] = []
    order = [("lbe", None), ("be", None), ("af", None), ("ef", 1.5)]
    for role, factor in order:
        svc = it.role(role)
        if svc is None:
            continue
        udp = int(svc.rate * factor) if factor else None
        flows.append(Flow(role, svc.tos, udp_rate=udp, start=len(flows) * step))
    total = (len(flows) + 1) * step
    results, _ = _run(traffic, flows, total, interval=interval)
    return {name: r.series for name, r in results.items()}
