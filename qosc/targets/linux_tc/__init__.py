"""Target linux-tc: iproute2 tc for a Linux router or host (platform linux).

Per device it writes:

- ``<device>/<iface>.tc``, one per interface: a ``tc -batch`` file (no
  comments: tc -batch has none);
- ``<device>/qosc-tc.sh``: one POSIX sh script (wrapper.py) whose ``apply
  IFACE [DEV]`` replaces what qosc recorded installing on the interface (its
  HTB root and its clsact qdisc; records in $QOSC_STATE_DIR, per network
  namespace and interface), leaves every other qdisc alone (refusing, exit 4,
  where it would have to replace one), checks the batch in a scratch
  namespace first, and on a failure on the interface restores the previous
  tree from the batch that made it, proven by comparing ``tc -j`` dumps (exit
  1; 5 when the dumps differ).  HTB cannot be replaced in place, so it deletes
  then adds; running it twice leaves the same state.  ``teardown IFACE [DEV]``
  removes what apply recorded installing, and restores it the same way if tc
  fails half-way.  DEV (default QOSC_IFACE, else the interface's own name)
  applies the same batch to another interface (the lab uses this for a veth).
  The logic is written once per device; each interface carries only its data
  (its batch, whether it adds a clsact qdisc, the comment saying what its
  numbers are, shared by interfaces of equal settings).

Package layout (every target has the same): plan.py (HTB egress), marks.py
(its MPLS EXP and 802.1p filters and rewrites) and edge.py (clsact ingress)
decide every value as a typed word (words.py);
lower.py puts them into one statement tree per interface, each statement
with its policy origin; serialize.py writes the batch; grammar.py (the tc
commands and options qosc writes, from the iproute2 manual pages) checks the
tree before anything is written; wrapper.py and templates/ the device's
shell script (prose, Jinja2) written from the same plan; checks.py the target's diagnostics
(QOS140-QOS144, QOS147-QOS149); platform.py and platforms/linux.json the typed platform
data; push.py the push driver; read/ the reader of `tc -j` dumps (and of
`ip -j -d link`, for a VLAN device's egress-qos-map); verify.py
the optional check on this machine's kernel (`qosc compile --verify`: each
distinct batch loaded in a scratch network namespace; what it loaded, and
what this kernel could not, is reported as QOS104, never written into the
files, so the files are the same on every machine); tests/.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import PurePosixPath
from typing import Any, ClassVar

from qosc.diagnostics import Severity
from qosc.grammar import Grammar
from qosc.model import Device, Interface, Policy, Service
from qosc.sizing import ClassSizing
from qosc.targets.base import Format, Lowered, Output, Target
from qosc.targets.linux_tc import checks, serialize, wrapper
from qosc.targets.linux_tc import lower as lowering
from qosc.targets.linux_tc import verify as machine
from qosc.targets.linux_tc.grammar import GRAMMAR
from qosc.targets.linux_tc.plan import class_sizing
from qosc.targets.linux_tc.platform import LinuxTcPlatform
from qosc.targets.linux_tc.words import tc_rate
from qosc.targets.platform import PlatformBase

# The policy fields this target renders, listed (never derived from the schema: a field added to the schema is
# refused here, QOS090 at its line, until the lowering renders it).  Not here: devices.*.interfaces.*.unit (a
# Linux sub-interface is an interface of its own, eth0.100, and the batch is written for the interface named).
# port-type as on JUNOS: a Linux interface has one port structure, its own, so any value means it and a profile
# shared with Catalyst ports stays usable.  devices.*.interfaces.*.egress-queueing (device-default): the interface's
# EXP and 802.1p rewrites are filters of its HTB tree (marks.py), and apply/teardown own that tree; an interface left
# to the kernel's default qdisc is not written yet, so it is refused here.
FIELDS = frozenset({
    "name", "description", "services.*.description", "services.*.dscp", "services.*.default",
    "services.*.queue.share", "services.*.queue.buffer", "services.*.queue.priority", "services.*.queue.strict",
    "services.*.queue.rate-cap", "services.*.queue.ceiling", "services.*.queue.shared-with", "services.*.queue.aqm",
    "services.*.queue.ecn", "services.*.drop-profile", "services.*.policer", "services.*.exp", "services.*.pcp",
    "mpls.tunnel-model", "drop-profiles.*.description",
    "drop-profiles.*.points", "drop-profiles.*.min", "drop-profiles.*.max", "drop-profiles.*.max-probability",
    "drop-profiles.*.interpolate", "policers.*.description", "policers.*.cir", "policers.*.cbs", "policers.*.pir",
    "policers.*.pbs", "policers.*.ebs", "policers.*.conform", "policers.*.exceed", "policers.*.violate",
    "policers.*.color-aware", "classifiers.*.description", "classifiers.*.rules.*.name",
    "classifiers.*.rules.*.description", "classifiers.*.rules.*.match.source",
    "classifiers.*.rules.*.match.destination", "classifiers.*.rules.*.match.protocol",
    "classifiers.*.rules.*.match.source-port", "classifiers.*.rules.*.match.destination-port",
    "classifiers.*.rules.*.match.dscp", "classifiers.*.rules.*.service", "classifiers.*.rules.*.set-dscp",
    "classifiers.*.rules.*.policer", "devices.*.interfaces.*.description", "devices.*.interfaces.*.role",
    "devices.*.interfaces.*.shape", "devices.*.interfaces.*.trust", "devices.*.interfaces.*.classifier",
    "devices.*.interfaces.*.encapsulation", "devices.*.interfaces.*.rewrite", "devices.*.interfaces.*.impose",
    "devices.*.interfaces.*.services", "devices.*.interfaces.*.port-type", "devices.*.interfaces.*.local-senders",
    "devices.*.description",
})


class LinuxTcTarget(Target):
    name = "linux-tc"
    description = ("Linux iproute2 tc: HTB egress with u32 DSCP and EXP and cls_bpf 802.1p filters, clsact "
                   "policing and remarking at the edge")
    package = __name__
    platform_class = LinuxTcPlatform
    fields = FIELDS
    codes = checks.CODES
    formats = (Format(lowering.DIALECT, ".tc", serialize.batch),)
    grammars: ClassVar[tuple[Grammar, ...]] = (GRAMMAR,)
    driver = "qosc.targets.linux_tc.push:LinuxDriver"
    reader = "qosc.targets.linux_tc.read"
    tc_rate = staticmethod(tc_rate)
    """A rate as tc reads it (for the lab's own baseline scripts)."""

    def platform_of(self, device: Device) -> LinuxTcPlatform:
        data = self.platform_data[device.platform]
        assert isinstance(data, LinuxTcPlatform)
        return data

    def lower(self, policy: Policy, unit: Any, platform: PlatformBase) -> Lowered:
        assert isinstance(platform, LinuxTcPlatform)
        found = list(checks.check(policy, unit, platform))
        if any(d.severity is Severity.ERROR for d in found):
            return Lowered(diagnostics=found)
        plans = lowering.plan(policy, unit, platform)
        documents = [lowering.batch(policy, p, f"{unit.name}/{p.name}") for p in plans]
        return Lowered(documents=documents, diagnostics=found, data=plans)

    def render(self, lowered: Lowered) -> list[Output]:
        """The batch of every interface (from its statement tree), then the device's script (prose, Jinja2)."""
        batches = super().render(lowered)
        plans = lowered.data or []
        if not plans:
            return batches
        return [*batches, Output(f"{plans[0].device}/{wrapper.SCRIPT}", wrapper.script(plans))]

    def verify(self, outputs: Sequence[Output]) -> list[Output]:
        """Each batch loaded in a scratch network namespace on this machine; what it found becomes notes."""
        out = []
        for o in outputs:
            if o.path.endswith(".tc"):
                report = machine.run(o.text, PurePosixPath(o.path).stem)  # raises on a qosc bug
                o = Output(o.path, o.text, (*o.notes, *report.notes()), o.origins)
            out.append(o)
        return out

    def shown(self, output: Output) -> str | None:
        """A batch as a Linux device shows it: loaded in a scratch network namespace and dumped with `tc -j`
        (read.kernel; VerificationUnavailable where it cannot be loaded here).  The device script (qosc-tc.sh): None."""
        if not output.path.endswith(".tc"):
            return None
        from qosc.targets.linux_tc.read import kernel

        return kernel.dump(output.text)

    # -- sizing (the SLS bounds use the numbers the batch is written with) --------------
    def class_sizing(self, policy: Policy, device: Device, iface: Interface, service: Service) -> ClassSizing | None:
        """Drain rate, queue limit and shaper burst of the class carrying `service` on `iface`."""
        if not iface.rate:
            return None
        return class_sizing(policy, policy.queue_owner(service), iface, self.platform_of(device))

    def plan(self, policy: Policy, device: Device) -> list[lowering.InterfacePlan]:
        """The per-interface plans of a device (what the batch and the wrappers are written from)."""
        return lowering.plan(policy, device, self.platform_of(device))


TARGET = LinuxTcTarget()
