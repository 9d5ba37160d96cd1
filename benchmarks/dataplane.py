"""Data-plane benchmark: qosc's linux-tc output beside FireQOS and a HOWTO HTB script, on a real kernel.

    sudo python benchmarks/dataplane.py [--reps 3] [--duration 5]

Runs the lab of qosc.lab (two namespaces, a veth pair at a 100 Mbit/s HTB
bottleneck, iperf3 flows marked per service, an EF UDP echo probe) for
policies/qbss-linux.yaml and policies/four-service-linux.yaml, each expressed
three ways, measures every figure as a ratio to a baseline taken in the same
run, and writes benchmarks/results/dataplane.md (the table) and
benchmarks/results/dataplane.png (per-class throughput over time, staggered
flows, one panel per implementation).  Prints one summary line.

    sudo python benchmarks/dataplane.py --local [--reps 3] [--duration 4]

Runs policies/qbss-linux.yaml (its interface declares local-senders) on the
sender's own veth and on a forwarding router's egress (qosc.lab.local):
every service alone (cubic and bbr) and under a UDP flood at twice the link
from the sender in each other service, as ratios to a same-run baseline;
prints one line per place.

    sudo python benchmarks/dataplane.py --router [--duration 6]

Runs the router lab of qosc.lab.router instead (two senders, a forwarding
router with four-service-linux on its 100 Mbit/s egress, a receiver; an LBE
flood at twice the link rate overflows the router's queue) and prints one
line: EF one-way median delay overdriven at 1.5x its cap against the buffer's
promise, bursty in-profile EF p99 against the SLS bound qosc derives for that
hop, how long a new LBE TCP flow takes to reach its minimum after an LBE
burst, throughputs as ratios to a baseline measured in the same run, and the
router's drops per class.
"""

from __future__ import annotations

import argparse
import functools
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from qosc import api  # noqa: E402
from qosc.lab.flows import Traffic  # noqa: E402
from qosc.lab.local import services_lab  # noqa: E402
from qosc.lab.measure import measure, measure_baseline, timeline, verdicts  # noqa: E402
from qosc.lab.netns import SENDER_DEV, Lab, problems  # noqa: E402
from qosc.lab.peers import (  # noqa: E402
    Configurator,
    compile_qosc,
    fireqos_config,
    fireqos_default_failure,
    howto_script,
    intents,
)
from qosc.lab.png import plot_panels  # noqa: E402
from qosc.lab.router import ROUTER_DEV, RouterLab, run_router_lab  # noqa: E402

POLICIES = {"qbss-linux": "policies/qbss-linux.yaml", "four-service-linux": "policies/four-service-linux.yaml"}
IMPLS = ("qosc", "fireqos", "howto")
NAMES = {"qosc": "qosc", "fireqos": "FireQOS", "howto": "HOWTO HTB"}
RESULTS = ROOT / "benchmarks" / "results"
ROWS = [  # metric, label, threshold text, format
    ("lbe_alone", "LBE TCP alone / baseline", ">= 97%", "pct"),
    ("be_vs_lbe", "BE TCP under LBE flood / min(BE guarantee, baseline)", ">= 97%", "pct"),
    ("lbe_squeezed", "LBE goodput under that flood / its 1% minimum", "about 1x (<= 3x)", "x"),
    ("be_vs_lbe_tcp", "BE TCP beside an LBE TCP flow / min(BE guarantee, baseline)", ">= 97%", "pct"),
    ("be_tcp_of_baseline", "BE TCP beside an LBE TCP flow / baseline", "", "pct"),
    ("lbe_tcp_squeezed", "LBE TCP beside BE TCP / its 1% minimum", "about 1x (<= 3x)", "x"),
    ("ef_rtt_idle_ms", "EF probe median RTT, idle", "", "ms"),
    ("ef_rtt_loaded_ms", "EF probe median RTT, saturated (BE+AF TCP, LBE flood)", "", "ms"),
    ("ef_rtt_delta_ms", "EF RTT increase under saturation", "<= 1 ms", "ms"),
    ("ef_cap", "EF UDP (offered 1.5x cap) / (cap x baseline)", "95%..110%", "pct"),
    ("af_share", "AF TCP under BE+LBE load / (40% x baseline)", ">= 95%", "pct"),
    ("be_mbps", "BE goodput under the LBE flood", "", "mbps"),
    ("lbe_flood_offered_mbps", "LBE flood rate the sender's socket achieved", "", "mbps"),
]


def fmt(value: float | None, kind: str) -> str:
    if value is None:
        return "-"
    if kind == "pct":
        return f"{100 * value:.1f}%"
    if kind == "x":
        return f"{value:.2f}x"
    if kind == "ms":
        return f"{value:.3f}"
    return f"{value:.1f}"


def run(reps: int, duration: float) -> tuple[str, int]:
    started = time.monotonic()
    its = {name: intents(ROOT / path) for name, path in POLICIES.items()}
    medians: dict[tuple[str, str], dict[str, float]] = {}
    errors: dict[tuple[str, str], str] = {}
    series = {}
    with tempfile.TemporaryDirectory(prefix="qosc-dataplane-") as tmp, Lab("b") as lab:
        work = Path(tmp)
        traffic = Traffic(lab)
        base_conf = Configurator(lab, its["four-service-linux"], work)
        baseline_runs = measure_baseline(traffic, lambda: base_conf.apply("baseline"), reps, duration)
        baseline = statistics.median(baseline_runs)
        fireqos_default = fireqos_default_failure(lab, its["four-service-linux"])
        for pname, it in its.items():
            for impl in IMPLS:
                d = work / f"{pname}-{impl}"
                d.mkdir()
                conf = Configurator(lab, it, d)
                try:
                    s = measure(traffic, functools.partial(conf.apply, impl), it, baseline, reps, duration)
                    medians[(pname, impl)] = s.medians()
                except Exception as exc:  # noqa: BLE001 -- a peer that cannot run is a result, not a crash
                    errors[(pname, impl)] = str(exc)[:300]
                if pname == "four-service-linux":
                    try:
                        series[impl] = timeline(traffic, functools.partial(conf.apply, impl), it)
                    except Exception as exc:  # noqa: BLE001
                        errors.setdefault((pname, impl), str(exc)[:300])
                if impl == "fireqos":
                    conf.stop_fireqos()
        lab.clear()
    RESULTS.mkdir(parents=True, exist_ok=True)
    panels = [(f"{NAMES[impl]}: four-service-linux", series[impl]) for impl in IMPLS if impl in series]
    if panels:
        plot_panels(panels, RESULTS / "dataplane.png", y_max=100, x_max=20)
    elapsed = time.monotonic() - started
    text = report(its, baseline, baseline_runs, medians, errors, fireqos_default, reps, duration, elapsed)
    (RESULTS / "dataplane.md").write_text(text, encoding="utf-8")
    return summary(baseline, medians, errors, elapsed), 0 if all(
        all(verdicts(medians.get((p, "qosc"), {})).values()) and (p, "qosc") in medians for p in POLICIES) else 1


def summary(baseline: float, medians: dict, errors: dict, elapsed: float) -> str:
    def part(impl: str) -> str:
        m = medians.get(("four-service-linux", impl))
        q = medians.get(("qbss-linux", impl))
        if not m or not q:
            return f"{NAMES[impl]} failed"
        ok = sum(verdicts(m).values()) + sum(verdicts(q).values())
        total = len(verdicts(m)) + len(verdicts(q))
        return (f"{NAMES[impl]} {ok}/{total} (BE beside LBE TCP {100 * q['be_tcp_of_baseline']:.0f}%/"
                f"{100 * m['be_tcp_of_baseline']:.0f}% of baseline, LBE {q['lbe_tcp_squeezed']:.1f}x/"
                f"{m['lbe_tcp_squeezed']:.1f}x its minimum, EF RTT +{m['ef_rtt_delta_ms']:.2f} ms, "
                f"AF {100 * m['af_share']:.0f}% of guarantee)")

    return (f"dataplane: baseline {baseline:.1f} Mbit/s; thresholds met: " + "; ".join(part(i) for i in IMPLS)
            + f"; {elapsed:.0f} s")


def report(its, baseline, baseline_runs, medians, errors, fireqos_default, reps, duration, elapsed) -> str:
    out = ["# Data-plane lab: qosc vs FireQOS vs a HOWTO HTB script", "",
           "Generated by `benchmarks/dataplane.py` (do not edit). Two network namespaces joined by a veth pair; the",
           "egress policy on the sender's veth (HTB at 100 Mbit/s); iperf3 flows marked with each service's DSCP",
           "(TCP cubic; UDP 1400-byte datagrams); an EF UDP echo probe with TOS 0xb8 every 10 ms. Every figure is",
           f"the median of {reps} runs of {duration:g} s (the first second is warm-up) and a ratio to the baseline",
           "measured in the same run: one unmarked TCP flow through a single-class HTB root at 100 Mbit/s",
           f"(**{baseline:.2f} Mbit/s** goodput; runs {', '.join(f'{b:.2f}' for b in baseline_runs)}).",
           f"Wall time {elapsed:.0f} s on a 2-core machine shared with other jobs.", ""]
    for pname in its:
        out += [f"## {pname}", "",
                "| metric | threshold | " + " | ".join(NAMES[i] for i in IMPLS) + " |",
                "|---|---|" + "---|" * len(IMPLS)]
        for key, label, threshold, kind in ROWS:
            cells = []
            present = False
            for impl in IMPLS:
                m = medians.get((pname, impl))
                if m is None:
                    cells.append("failed")
                    continue
                value = m.get(key)
                present |= value is not None
                mark = ""
                v = verdicts(m).get(key)
                if v is not None:
                    mark = " ✓" if v else " ✗"
                cells.append(fmt(value, kind) + mark)
            if present:
                out.append(f"| {label} | {threshold} | " + " | ".join(cells) + " |")
        out.append("")
        for impl in IMPLS:
            if (pname, impl) in errors:
                out.append(f"- {NAMES[impl]} on {pname}: **{errors[(pname, impl)]}**")
        out.append("")
    out += ["![per-class throughput over time](dataplane.png)", "",
            "The plot: four-service-linux with staggered flows (LBE TCP from 0 s, BE TCP from 4 s, AF TCP from 8 s,",
            "EF UDP at 1.5x its cap from 12 s), receiver goodput per 0.5 s interval, one panel per implementation.", "",
            "## Notes", "",
            ("- **FireQOS** (Debian `fireqos` 3.1.7) with its defaults cannot run on this kernel: "
             f"`{fireqos_default or 'it ran'}`. Its leaf qdisc defaults to `sfq`, which this kernel lacks. The"),
            "  documented `qdisc pfifo` interface option avoids it; the FireQOS column uses it. FireQOS also only",
            "  understands DSCP names: `match dscp 46` silently produces a u32 filter with no match, which tc",
            "  refuses.",
            "- **HOWTO**: the classic traffic-control HOWTO HTB script (one class per service with rate/ceil, no",
            "  `prio`, `burst 15k`, `u32 match ip tos 0xNN 0xff`); its `sfq perturb 10` leaves became `pfifo`",
            "  (no sfq here).",
            "- The LBE flood is offered at twice the link by iperf3, but on a sending host the qdisc holds the "
            "socket's",
            "  packets, so the socket send buffer paces the sender to what the LBE class drains: the LBE queue stays",
            "  full (the pressure the scheduler must withstand) instead of dropping at the qdisc.",
            "- qbss-linux's interface declares `local-senders` (the source's LAN test shaped the senders' own",
            "  interfaces), so qosc's BE and QBSS leaves hold 4 MiB, what TCP Small Queues lets one local socket keep",
            "  in the qdisc; the flows here are cubic. With bbr, the 64 KiB QBSS fifo qosc wrote before gave one flow",
            "  alone 0.4 Mbit/s: `benchmarks/dataplane.py --local` measures every service with both, on the sender",
            "  and through a forwarding router.",
            "- Not exercised on this kernel (no police, pedit, csum, red, fq_codel modules): the edge ingress",
            "  policing/remarking and RED/fq_codel leaves of the linux-tc target. `qosc compile --verify` loads each",
            "  batch in a scratch namespace, so tc parses those lines, and reports them (QOS104 info, not written",
            "  into the files):", ""]
    out += [f"  - `{line}`" for line in selfcheck_lines()]
    for pname, it in its.items():
        out += ["", f"<details><summary>{pname}: FireQOS configuration and HOWTO script</summary>", "",
                "```", fireqos_config(it).rstrip(), "```", "", "```sh", howto_script(it).rstrip(), "```", "",
                "</details>"]
    return "\n".join(out) + "\n"


def selfcheck_lines() -> list[str]:
    """What `compile --verify` reported (QOS104) for each batch of assured-rate's linux-gw."""
    compiled = api.compile([ROOT / "policies" / "assured-rate.yaml"], ["linux-tc"], ["linux-gw"], verify=True)
    lines = []
    for out in compiled.outputs:
        iface = out.path.rsplit("/", 1)[-1].removesuffix(".tc")
        lines += [f"assured-rate linux-gw {iface}: {note}" for note in out.notes]
    return lines


def local(reps: int, duration: float) -> int:
    """qbss-linux on the sender's own veth, then on a forwarding router's egress: one line each."""
    it = intents(ROOT / POLICIES["qbss-linux"])
    failed = []
    for make, dev, where in ((lambda: Lab("b"), SENDER_DEV, "sender's own interface"),
                             (lambda: RouterLab("b"), ROUTER_DEV, "forwarding router")):
        with tempfile.TemporaryDirectory(prefix="qosc-local-") as tmp, make() as lab:
            script = compile_qosc(it, Path(tmp))
            env = {"QOSC_STATE_DIR": str(Path(tmp) / "state"), "PATH": "/usr/sbin:/usr/bin:/sbin:/bin"}
            figures = services_lab(lab, Traffic(lab), script, it, dev, where, reps, duration, env=env)
        print(figures.line())
        failed += figures.failures()
    return 1 if failed else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--duration", type=float, default=5.0)
    parser.add_argument("--router", action="store_true", help="run the router lab and print its one line")
    parser.add_argument("--local", action="store_true", help="qbss-linux on a sender's own veth and on a router")
    args = parser.parse_args()
    why = problems()
    if why:
        print(f"dataplane: cannot run: {'; '.join(why)}")
        return 2
    if args.local:
        return local(args.reps, args.duration)
    if args.router:
        with tempfile.TemporaryDirectory(prefix="qosc-router-") as tmp, RouterLab("b") as lab:
            figures = run_router_lab(lab, ROOT / POLICIES["four-service-linux"], Path(tmp), args.duration)
        print(figures.line())
        return 0 if figures.meets() else 1
    line, code = run(args.reps, args.duration)
    print(line)
    return code


if __name__ == "__main__":
    sys.exit(main())
