"""linux-host: per end host, a /etc/sysctl.d drop-in and a txqueuelen script sized from rate x RTT.

Hosts are not devices: they carry no queues, so the registry's device
platforms never select this target.  It serves the platform label
"linux-host", which `Host.target_platform` gives every host declared with
`platform: linux`; qosc.api pairs hosts with the targets serving that label.

Outputs (under linux-host/ in the output directory):
  <host>/99-qosc-tcp.conf   net.core.rmem_max / wmem_max, net.ipv4.tcp_rmem / tcp_wmem and, where the
                            policy asks, net.ipv4.tcp_congestion_control and net.core.default_qdisc;
                            every value preceded by the path and formula that produced it
  <host>/txqueuelen.sh      one `ip link set dev X txqueuelen N` per interface
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from qosc.diagnostics import Diagnostic
from qosc.hosts import (
    HEADROOM,
    STOCK_RMEM,
    STOCK_WMEM,
    TXQUEUELEN_MAX,
    TXQUEUELEN_MIN,
    TXQUEUELEN_PER_GBIT,
    Host,
    Triple,
    mbit,
    plan,
)
from qosc.model import Policy
from qosc.render import render
from qosc.targets.base import Output, SelfCheckError

SYSCTL_FILE = "99-qosc-tcp.conf"
TXQUEUELEN_FILE = "txqueuelen.sh"

_NOTES = {
    "tcp_congestion_control": ("the module must exist on the host; inside a container (a non-initial network "
                               "namespace) only algorithms in net.ipv4.tcp_allowed_congestion_control are accepted",),
    "default_qdisc": ("global on Linux, not per network namespace; applies to interfaces created or reset afterwards",),
    "rmem_max": ("caps SO_RCVBUF requests (the kernel doubles them for bookkeeping)",),
    "wmem_max": ("caps SO_SNDBUF requests (the kernel doubles them for bookkeeping)",),
    "tcp_rmem": ("min, initial, max receive buffer of a TCP socket; autotuning grows a socket up to max",),
    "tcp_wmem": ("min, initial, max send buffer of a TCP socket; autotuning grows a socket up to max",),
}

_SYSCTL_LINE = re.compile(r"^(net\.core\.(rmem_max|wmem_max|default_qdisc)|net\.ipv4\.(tcp_rmem|tcp_wmem|"
                          r"tcp_congestion_control)) = ([0-9]+( [0-9]+ [0-9]+)?|[a-z_]+)$")
_IP_LINE = re.compile(r"^ip link set dev [A-Za-z0-9][A-Za-z0-9_.-]{0,14} txqueuelen [0-9]+$")


def lower(policy: Policy, host: Host) -> dict[str, Any]:
    """The host's plan as plain data shaped like the two files."""
    p = plan(policy, host)
    paths = []
    for need in p.needs:
        service = f", service {need.path.service}" if need.path.service else ""
        paths.append({
            "label": f"{host.name} -> {need.path.peer} ({mbit(need.rate)} from {need.rate_source}{service})",
            "peer": need.path.peer, "rtt_us": need.path.rtt_us, "rate": need.rate, "window": need.window,
            "buffer": need.buffer, "formula": need.formula,
        })
    sysctl = [{"key": v.sysctl, "name": v.key, "value": str(v.value), "why": v.why, "notes": _NOTES.get(v.key, ()),
               "overridden": v.overridden} for v in p.values]
    interfaces = [{"name": i.name, "txqueuelen": n, "why": why} for i, n, why in p.txqueuelen]
    return {
        "host": host.name, "policy": policy.name, "description": host.description, "headroom": HEADROOM,
        "stock_rmem": str(Triple(*STOCK_RMEM)), "stock_wmem": str(Triple(*STOCK_WMEM)),
        "paths": paths, "sysctl": sysctl, "interfaces": interfaces,
        "per_gbit": TXQUEUELEN_PER_GBIT, "low": TXQUEUELEN_MIN, "high": TXQUEUELEN_MAX,
    }


def self_check(sysctl_text: str, script_text: str) -> None:
    """Every non-comment line is a known sysctl assignment or an `ip link set ... txqueuelen` command."""
    for text, pattern, what in ((sysctl_text, _SYSCTL_LINE, SYSCTL_FILE), (script_text, _IP_LINE, TXQUEUELEN_FILE)):
        for number, line in enumerate(text.splitlines(), 1):
            if not line or line.startswith("#") or (what == TXQUEUELEN_FILE and line == "set -e"):
                continue
            if not pattern.match(line):
                raise SelfCheckError(f"{what} line {number} is not a statement qosc generates: {line!r}")
            if what == SYSCTL_FILE and " " in line.split(" = ", 1)[1]:
                low, mid, high = (int(v) for v in line.split(" = ", 1)[1].split())
                if not low <= mid <= high:
                    raise SelfCheckError(f"{what} line {number}: triple out of order: {line!r}")
    if not script_text.startswith("#!/bin/sh\n"):
        raise SelfCheckError(f"{TXQUEUELEN_FILE} does not start with #!/bin/sh")


class LinuxHostTarget:
    name = "linux-host"
    platforms = ("linux-host",)
    description = "Linux end hosts: sysctl.d drop-in (TCP buffers from rate x RTT, congestion control) and txqueuelen"

    def check(self, policy: Policy, host: Any) -> Iterable[Diagnostic]:
        """Nothing beyond qosc.checks.hosts: those rules already see every host."""
        return ()

    def outputs(self, policy: Policy, host: Any) -> list[Output]:
        if not isinstance(host, Host):  # a device can never reach here: no platform file is named linux-host
            return []
        ir = lower(policy, host)
        conf = render("linux-host", "sysctl.conf.j2", **ir)
        script = render("linux-host", "txqueuelen.sh.j2", **ir)
        self_check(conf, script)
        return [Output(f"{host.name}/{SYSCTL_FILE}", conf), Output(f"{host.name}/{TXQUEUELEN_FILE}", script)]


TARGET = LinuxHostTarget()
