"""linux-host: per end host, a /etc/sysctl.d drop-in and a txqueuelen script sized from rate x RTT.

Hosts are not devices: they carry no queues, so device platforms never
select this target.  It serves the platform label "linux-host", which
`Host.target_platform` gives every host declared with `platform: linux`.

Outputs (under linux-host/ in the output directory):
  <host>/99-qosc-tcp.conf   net.core.rmem_max / wmem_max, net.ipv4.tcp_rmem / tcp_wmem and, where the
                            policy asks, net.ipv4.tcp_congestion_control and net.core.default_qdisc;
                            every value preceded by the path and formula that produced it
  <host>/txqueuelen.sh      one `ip link set dev X txqueuelen N` per interface

Package layout (every target has the same): lower.py (model -> statement
trees), serialize.py (trees -> text), grammar.py (what the files may hold,
with sources), platforms/*.json (typed platform data), tests/.
"""

from __future__ import annotations

from typing import Any, ClassVar

from qosc.grammar import Grammar
from qosc.model import Policy
from qosc.targets.base import Format, Lowered, Target
from qosc.targets.linux_host import serialize
from qosc.targets.linux_host.grammar import SHELL, SYSCTL
from qosc.targets.linux_host.lower import lower
from qosc.targets.platform import PlatformBase

# What the host's plan reads (listed, never derived from the schema: a new host field is QOS090 until rendered).
FIELDS = frozenset({
    "hosts.*.description", "hosts.*.interfaces.*.description", "hosts.*.interfaces.*.speed",
    "hosts.*.interfaces.*.txqueuelen", "hosts.*.paths.*.peer", "hosts.*.paths.*.rtt", "hosts.*.paths.*.rate",
    "hosts.*.paths.*.service", "hosts.*.paths.*.description", "hosts.*.overrides.rmem_max",
    "hosts.*.overrides.wmem_max", "hosts.*.overrides.tcp_rmem", "hosts.*.overrides.tcp_wmem",
    "hosts.*.overrides.tcp_congestion_control", "hosts.*.overrides.default_qdisc",
})


class LinuxHostTarget(Target):
    name = "linux-host"
    description = "Linux end hosts: sysctl.d drop-in (TCP buffers from rate x RTT, congestion control) and txqueuelen"
    package = __name__
    platform_class = PlatformBase
    serves = "hosts"
    fields = FIELDS
    formats = (Format("sysctl", ".conf", serialize.sysctl), Format("sh", ".sh", serialize.shell))
    grammars: ClassVar[tuple[Grammar, ...]] = (SYSCTL, SHELL)

    def lower(self, policy: Policy, unit: Any, platform: PlatformBase) -> Lowered:
        """Nothing to diagnose beyond qosc.checks.hosts, which already sees every host."""
        return Lowered(documents=list(lower(policy, unit)))


TARGET = LinuxHostTarget()
