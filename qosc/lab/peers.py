"""What the lab compares: qosc's generated wrapper, the baseline, FireQOS, and a HOWTO script.

All four are derived from the same policy intents (Intents), so the only
difference is how each tool expresses them:

- baseline: one unmarked flow through a single-class HTB root at the link
  rate (the same burst as qosc's root class), the yardstick of every ratio;
- qosc: the linux-tc target's batch, applied to the lab veth by its device script (qosc-tc.sh apply IFACE);
- FireQOS (Debian ``fireqos``): one ``class`` per service in priority order,
  commit = share (cap for strict), max = ceiling/cap, ``match dscp``; it needs
  ``qdisc pfifo`` on the interface, because its default leaf qdisc, sfq, is
  not in this kernel (FireQOS then fails: "Specified qdisc kind is unknown");
- HOWTO: the classic Linux traffic-control HOWTO HTB script: one class per
  service with rate and ceil, no priorities, burst 15k, ``u32 match ip tos
  ... 0xff`` filters; its sfq leaves become pfifo for the same reason.
"""

from __future__ import annotations

import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from qosc import api
from qosc.lab.netns import SENDER_DEV, Lab, Script
from qosc.model import Kind, Policy, Service

SERVICE_ROLES = ("ef", "af", "be", "lbe")
# FireQOS 3.1.7 knows DSCP names only: a number such as "match dscp 46" silently yields a u32 filter
# with no match at all, which tc refuses ("filter ... prio 10 flowid 1:11"); other code points use tos
FIREQOS_DSCP = {0: "CS0", 8: "CS1", 16: "CS2", 24: "CS3", 32: "CS4", 40: "CS5", 48: "CS6", 56: "CS7",
                10: "AF11", 12: "AF12", 14: "AF13", 18: "AF21", 20: "AF22", 22: "AF23", 26: "AF31", 28: "AF32",
                30: "AF33", 34: "AF41", 36: "AF42", 38: "AF43", 46: "EF"}


@dataclass(frozen=True)
class ServiceIntent:
    name: str
    role: str  # ef | af | be | lbe | other
    dscp: int
    rate: int  # guaranteed (the cap for strict priority), bit/s
    ceil: int
    strict: bool
    codes: tuple[int, ...] = ()

    @property
    def tos(self) -> int:
        return self.dscp << 2


@dataclass(frozen=True)
class Intents:
    policy: str
    source: str
    device: str
    iface: str
    link: int
    root_burst: int
    services: tuple[ServiceIntent, ...]  # in HTB priority order (strict first, LBE last)
    default: str

    def role(self, role: str) -> ServiceIntent | None:
        return next((s for s in self.services if s.role == role), None)


def _role(s: Service) -> str:
    return {Kind.PREMIUM: "ef", Kind.ASSURED: "af", Kind.BEST_EFFORT: "be", Kind.LBE: "lbe"}.get(s.kind, "other")


SCRIPT = "qosc-tc.sh"
"""The linux-tc target's device script (its wrapper.SCRIPT; the lab reaches the target through the registry,
never by import)."""


def linux_tc() -> Any:
    """The linux-tc target (whose output the lab measures), found through the registry like any target."""
    from qosc.targets.registry import targets

    return targets()["linux-tc"]


def tc_rate(bps: int) -> str:
    rate: str = linux_tc().tc_rate(bps)
    return rate


def intents(path: str | Path, device: str | None = None) -> Intents:
    """The policy's intents on the first linux interface of `device` (default: the first linux device)."""
    result = api.validate(path)
    if not result.ok or result.policy is None:
        raise ValueError(f"{path}: does not validate: {[str(d) for d in result.diagnostics]}")
    policy: Policy = result.policy
    dev = next(d for d in policy.devices if d.platform == "linux" and (device is None or d.name == device))
    plan = linux_tc().plan(policy, dev)[0]
    leaves = sorted(plan.egress.leaves, key=lambda leaf: leaf.prio)
    out = []
    for leaf in leaves:
        s = policy.service_map[leaf.service]
        out.append(ServiceIntent(s.name, _role(s), s.mark if s.dscp else 0, leaf.rate, leaf.ceil, s.queue.strict,
                                leaf.dscp))
    default = plan.egress.default_service
    return Intents(policy.name, str(path), dev.name, plan.name, plan.egress.rate, plan.egress.burst, tuple(out),
                   default)


# -- the four ways of configuring the veth -------------------------------------------

def baseline_commands(it: Intents) -> list[list[str]]:
    dev, rate = SENDER_DEV, tc_rate(it.link)
    return [["tc", "qdisc", "add", "dev", dev, "root", "handle", "1:", "htb", "default", "1"],
            ["tc", "class", "add", "dev", dev, "parent", "1:", "classid", "1:1", "htb", "rate", rate, "ceil", rate,
             "burst", str(it.root_burst), "cburst", str(it.root_burst)]]


def compile_qosc(it: Intents, directory: Path) -> Script:
    result = api.validate(it.source)
    outputs = api.compile_policy(result, ["linux-tc"], [it.device])
    if not outputs:
        raise RuntimeError(f"qosc could not compile {it.source}: {[str(d) for d in result.diagnostics]}")
    for out in outputs:
        target = directory / Path(out.path).name
        target.write_text(out.text, encoding="utf-8")
    return Script(directory / SCRIPT, ("apply", it.iface))


def fireqos_config(it: Intents) -> str:
    lines = [f"# FireQOS: the intents of {it.policy} ({Path(it.source).name}); qdisc pfifo: this kernel has no sfq",
             f"interface {SENDER_DEV} lab output rate {it.link // 1000}kbit qdisc pfifo"]
    for s in it.services:
        name = "default" if s.name == it.default else s.name.replace("-", "_")
        max_ = f" max {s.ceil // 1000}kbit" if s.ceil < it.link else ""
        lines.append(f"   class {name} commit {s.rate // 1000}kbit{max_}")
        if s.name != it.default:
            for code in s.codes or (s.dscp,):
                dscp_name = FIREQOS_DSCP.get(code)
                lines.append(f"      match dscp {dscp_name}" if dscp_name else f"      match tos 0x{code << 2:02x}")
    return "\n".join(lines) + "\n"


def howto_script(it: Intents) -> str:
    """The classic HOWTO HTB script: one class per service, no prio, burst 15k, tos filters."""
    dev = "$DEV"
    rate = tc_rate(it.link)
    minors = {s.name: 10 * (i + 1) for i, s in enumerate(it.services)}
    lines = ["#!/bin/sh", f"# Linux traffic-control HOWTO style HTB script for {it.policy}: one class per service,",
             "# no priorities; sfq leaves replaced by pfifo (no sfq in this kernel)",
             f"DEV=${{1:-{SENDER_DEV}}}",
             f"tc qdisc add dev {dev} root handle 1: htb default {minors[it.default]}",
             f"tc class add dev {dev} parent 1: classid 1:1 htb rate {rate} burst 15k"]
    for s in it.services:
        m = minors[s.name]
        lines.append(f"tc class add dev {dev} parent 1:1 classid 1:{m} htb rate {tc_rate(s.rate)} "
                     f"ceil {tc_rate(s.ceil)} burst 15k")
        lines.append(f"tc qdisc add dev {dev} parent 1:{m} handle {m}: pfifo limit 1000")
    for s in it.services:
        if s.name == it.default:
            continue
        lines.extend(f"tc filter add dev {dev} protocol ip parent 1:0 prio 1 u32 match ip tos "
                     f"0x{code << 2:02x} 0xff flowid 1:{minors[s.name]}" for code in s.codes or (s.dscp,))
    return "\n".join(lines) + "\n"


class Configurator:
    """Applies one of the four configurations to the lab's sender veth."""

    def __init__(self, lab: Lab, it: Intents, workdir: Path) -> None:
        self.lab, self.it, self.workdir = lab, it, workdir
        self.fireqos_error = ""

    def apply(self, which: str) -> None:
        if which == "baseline":
            self.lab.apply_commands(baseline_commands(self.it))
        elif which == "qosc":
            self.lab.apply_script(compile_qosc(self.it, self.workdir))
        elif which == "howto":
            script = self.workdir / "howto.sh"
            script.write_text(howto_script(self.it), encoding="utf-8")
            self.lab.apply_script(script)
        elif which == "fireqos":
            self.stop_fireqos()
            conf = self.workdir / "fireqos.conf"
            conf.write_text(fireqos_config(self.it), encoding="utf-8")
            proc = self.lab.sender(["fireqos", "start", str(conf)], check=False, timeout=120)
            if proc.returncode != 0 or "htb" not in self.lab.tc_state():
                tail = [ln for ln in (proc.stdout + proc.stderr).splitlines() if ln.strip()][-8:]
                self.fireqos_error = " | ".join(tail)
                raise RuntimeError(f"fireqos start failed: {self.fireqos_error}")
        else:
            raise ValueError(which)

    def stop_fireqos(self) -> None:
        """fireqos stop (clears what it installed and its state under /run/fireqos), then a clean veth."""
        self.lab.sender(["fireqos", "stop"], check=False, timeout=120)
        self.lab.clear()


def fireqos_default_failure(lab: Lab, it: Intents) -> str:
    """What FireQOS says with its defaults (sfq leaves) on this kernel; '' if it works."""
    with tempfile.TemporaryDirectory() as tmp:
        conf = Path(tmp) / "fireqos.conf"
        conf.write_text(fireqos_config(it).replace(" qdisc pfifo", ""), encoding="utf-8")
        lab.clear()
        try:
            proc = lab.sender(["fireqos", "start", str(conf)], check=False, timeout=120)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return str(exc)
        lab.sender(["fireqos", "stop"], check=False, timeout=120)
        lab.clear()
        if proc.returncode == 0:
            return ""
        lines = [ln.strip() for ln in (proc.stdout + proc.stderr).splitlines() if ln.strip()]
        keep = [ln for ln in lines if ln.startswith(("Error", "/usr/sbin/tc", "/sbin/tc", "tc failed"))]
        return " | ".join(keep or lines[-4:])
