"""Per-class throughput under congestion: one TCP flow per class at once, through a tc tree on the lab veth.

    shares = class_shares(lab, traffic, batch_text, {"ef": 0xb8, "be": 0x00}, link=100_000_000)

The batch (any device names; they become the lab's sender veth) is loaded
with `tc -batch`; then every flow runs at the same time, each marked with a
TOS byte that the tree classifies to one class, `reps` times.  A flow's
figure is the median of its goodput over the runs, as a fraction of the
link: comparable between two trees measured on the same machine, whatever
its speed, as long as the link is a bottleneck (a veth carries far more).
"""

from __future__ import annotations

import re
import statistics
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from qosc.lab.flows import Flow, Traffic
from qosc.lab.measure import _run
from qosc.lab.netns import SENDER_DEV, Lab


@dataclass
class Shares:
    """Goodput per flow of each run (Mbit/s) and the link; `share` is the median as a fraction of the link."""

    link: int
    runs: dict[str, list[float]] = field(default_factory=dict)

    def share(self, name: str) -> float:
        return statistics.median(self.runs[name]) * 1e6 / self.link

    def line(self) -> str:
        return " ".join(f"{name} {self.share(name):.3f} ({'/'.join(f'{v:.1f}' for v in runs)} Mbit/s)"
                        for name, runs in self.runs.items())


def load_batch(lab: Lab, batch: str) -> None:
    """Replace the sender veth's tree with `batch` (its `dev NAME` become the veth)."""
    lab.clear()
    with tempfile.TemporaryDirectory(prefix="qosc-lab-") as tmp:
        path = Path(tmp) / "tree.tc"
        path.write_text(re.sub(r"\bdev \S+", f"dev {SENDER_DEV}", batch), encoding="utf-8")
        lab.sender(["tc", "-batch", str(path)])


def class_shares(lab: Lab, traffic: Traffic, batch: str, flows: Mapping[str, int], link: int, reps: int = 3,
                 duration: float = 4.0) -> Shares:
    """Load `batch` and run the `flows` (name -> TOS byte, TCP) together `reps` times: their shares of `link`."""
    load_batch(lab, batch)
    out = Shares(link)
    for _ in range(reps):
        results, _ = _run(traffic, [Flow(name, tos) for name, tos in flows.items()], duration)
        for name in flows:
            out.runs.setdefault(name, []).append(results[name].mbps)
    lab.clear()
    return out
