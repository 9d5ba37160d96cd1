"""Every service of a policy alone, and under a flood from a local sender, through a real egress (issue 26).

    figures = services_lab(lab, Traffic(lab), script, intents(policy), dev)

`lab` is a Lab (the policy on the sending host's own veth: its TCP sockets
are local, TCP Small Queues keeps up to net.ipv4.tcp_limit_output_bytes of
each in the qdisc and what the qdisc drops is a local drop) or a RouterLab
(the policy on a forwarding router's egress, the flows forwarded from the
sender namespace).  Figures are ratios to a baseline measured in the same
run on the same egress (one unmarked TCP flow through a single-class HTB at
the link rate), medians of `reps` runs:

- alone: one TCP flow of the service (per congestion control: cubic, the
  Linux default, and bbr, which paces and sends 64 KiB GSO aggregates from
  its first round trip) / (its ceiling's part of the link x baseline);
- flooded: the service's TCP flow (bbr) beside a UDP flood at twice the link
  from the same sender in each other service / (its guarantee's part of the
  link x baseline): a service keeps at least what it is guaranteed.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from qosc.lab.flows import Flow, Traffic
from qosc.lab.netns import Lab
from qosc.lab.peers import Intents, tc_rate

ALONE_MIN = 0.95
FLOODED_MIN = 0.9


@dataclass
class ServiceFigures:
    where: str
    baseline_runs: list[float]
    alone: dict[tuple[str, str], list[float]] = field(default_factory=dict)
    """(service, congestion control) -> goodput / (ceiling share x baseline), one per run."""
    flooded: dict[tuple[str, str], list[float]] = field(default_factory=dict)
    """(service, flooding service) -> goodput / (guarantee share x baseline), one per run."""
    mbps: dict[str, list[float]] = field(default_factory=dict)

    @property
    def baseline(self) -> float:
        return statistics.median(self.baseline_runs)

    def failures(self) -> list[str]:
        out = [f"{s} alone ({cc}) {statistics.median(v):.3f} < {ALONE_MIN}" for (s, cc), v in self.alone.items()
               if statistics.median(v) < ALONE_MIN]
        out += [f"{s} under a {t} flood {statistics.median(v):.3f} < {FLOODED_MIN}"
                for (s, t), v in self.flooded.items() if statistics.median(v) < FLOODED_MIN]
        return out

    def line(self) -> str:
        alone = ", ".join(f"{s} alone {cc} {statistics.median(v):.3f} ({statistics.median(self.mbps[f'{s}/{cc}']):.1f}"
                          " Mbit/s)" for (s, cc), v in self.alone.items())
        flooded = ", ".join(f"{s} under {t} flood {statistics.median(v):.2f} of its guarantee "
                            f"({statistics.median(self.mbps[f'{s}|{t}']):.2f} Mbit/s)"
                            for (s, t), v in self.flooded.items())
        return f"{self.where}: baseline {self.baseline:.1f} Mbit/s; {alone}; {flooded}"


def _goodput(traffic: Traffic, flows: list[Flow], duration: float) -> float:
    """Goodput of the first flow; the others (floods) only load the link, so their own errors are not failures
    (a flood's iperf3 may lose its result exchange on a saturated 2-core machine): retried like measure._run."""
    for attempt in range(3):
        time.sleep(0.3)  # iperf3 servers re-open their listening socket after each test
        result = traffic.run(flows, duration)[0][flows[0].name]
        if not result.error:
            return result.mbps
        if attempt < 2:
            time.sleep(2.0)
    raise RuntimeError(f"iperf3 failed: {flows[0].name}: {result.error}")


def baseline_commands(dev: str, it: Intents) -> list[list[str]]:
    rate = tc_rate(it.link)
    return [["tc", "qdisc", "add", "dev", dev, "root", "handle", "1:", "htb", "default", "1"],
            ["tc", "class", "add", "dev", dev, "parent", "1:", "classid", "1:1", "htb", "rate", rate, "ceil", rate,
             "burst", str(it.root_burst), "cburst", str(it.root_burst)]]


def services_lab(lab: Lab, traffic: Traffic, script: Path, it: Intents, dev: str, where: str, reps: int = 3,
                 duration: float = 4.0, ccs: Sequence[str] = ("cubic", "bbr"),
                 env: dict[str, str] | None = None) -> ServiceFigures:
    """Apply the baseline then `script` to `dev` through `lab`, and measure every service (module docstring)."""
    lab.apply_commands(baseline_commands(dev, it))
    figures = ServiceFigures(where, [_goodput(traffic, [Flow("baseline")], duration) for _ in range(reps)])
    lab.apply_script(script, env=env)
    base = figures.baseline
    for s in it.services:
        for cc in ccs:
            for _ in range(reps):
                got = _goodput(traffic, [Flow(s.name, s.tos, cc=cc)], duration)
                figures.mbps.setdefault(f"{s.name}/{cc}", []).append(got)
                figures.alone.setdefault((s.name, cc), []).append(got / (min(s.ceil, it.link) / it.link * base))
        for t in it.services:
            if t is s:
                continue
            for _ in range(reps):
                flows = [Flow(s.name, s.tos, cc="bbr"), Flow(f"flood-{t.name}", t.tos, udp_rate=2 * it.link)]
                got = _goodput(traffic, flows, duration)
                figures.mbps.setdefault(f"{s.name}|{t.name}", []).append(got)
                figures.flooded.setdefault((s.name, t.name), []).append(got / (s.rate / it.link * base))
    lab.clear()
    return figures
