"""What every Cisco target shares: the contract, lowering to a statement tree, one grammar per dialect.

A Cisco target supplies `lower_for(policy, device, platform)` (the commands
of the device and its findings); lower.py turns them into the device's
statement tree in its platform's dialect, grammar.py (one per dialect,
from the platform's command table) checks it, serialize.py writes it as
`<device>.cfg`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from qosc.grammar import Grammar
from qosc.model import Device, Policy
from qosc.targets.base import Format, Lowered, Target
from qosc.targets.ios.common import Findings
from qosc.targets.ios.grammar import GRAMMARS
from qosc.targets.ios.lower import build
from qosc.targets.ios.platform import IosPlatform, platforms
from qosc.targets.ios.serialize import cli
from qosc.targets.platform import PlatformBase
from qosc.tree import At

UNIT = "devices.*.interfaces.*.unit"
QUEUEING = "devices.*.interfaces.*.egress-queueing"
SHAPING_FIELDS = frozenset({"devices.*.interfaces.*.shape", UNIT})
SUFFIX = ".cfg"


def dialects(target: str) -> tuple[str, ...]:
    """The dialects of a Cisco target: one per platform (each has its own command table)."""
    return tuple(name for name, p in platforms().items() if p.target == target)


def formats_of(target: str) -> tuple[Format, ...]:
    return tuple(Format(d, SUFFIX, cli) for d in dialects(target))


def grammars_of(target: str) -> tuple[Grammar, ...]:
    return tuple(GRAMMARS[d] for d in dialects(target))


# The policy fields the Cisco targets render or refuse with a target diagnostic of their own, listed (never
# derived from the schema: a field added to the schema is QOS090 at its line until the lowering handles it).
# shape and unit only where the platform shapes subinterfaces (supports(); ios-mqc takes unit everywhere and
# refuses a sub-interface it cannot queue on, QOS186).
FIELDS = frozenset({
    "name", "description", "services.*.description", "services.*.dscp", "services.*.default",
    "services.*.queue.share", "services.*.queue.buffer", "services.*.queue.priority", "services.*.queue.strict",
    "services.*.queue.rate-cap", "services.*.queue.ceiling", "services.*.queue.shared-with", "services.*.queue.aqm",
    "services.*.queue.ecn", "services.*.drop-profile", "services.*.policer", "drop-profiles.*.description",
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
    "devices.*.interfaces.*.services", "devices.*.interfaces.*.port-type", "devices.*.interfaces.*.unit",
    "devices.*.description", "services.*.exp", "services.*.pcp", "devices.*.interfaces.*.encapsulation",
    "devices.*.interfaces.*.rewrite", "devices.*.interfaces.*.impose", "mpls.tunnel-model",
    "devices.*.interfaces.*.egress-queueing",
})


class CiscoTarget(Target):
    package = "qosc.targets.ios"
    platform_class: ClassVar[type[PlatformBase]] = IosPlatform
    fields = FIELDS
    driver = "qosc.targets.ios.push:IosDriver"
    driver_needs = ("netmiko", "ciscoconfparse2")
    reader = "qosc.targets.ios.read"
    default_port = 22
    suffix = SUFFIX

    def supports(self, field_path: str, platform: PlatformBase) -> bool:
        """`shape:` and `unit:` only where the platform has hierarchical shaping on subinterfaces (ios-xe)."""
        if field_path in SHAPING_FIELDS:
            return bool(getattr(platform, "shaping", False))
        return field_path in self.fields

    @property
    def platform_data(self) -> Mapping[str, PlatformBase]:  # type: ignore[override]
        return {name: p for name, p in platforms().items() if p.target == self.name}

    def lower_for(self, policy: Policy, device: Device, platform: Any) -> tuple[dict[str, Any], Findings]:
        """The commands of one device (plain data, see lower.build) and the capability findings."""
        raise NotImplementedError

    def ir(self, policy: Policy, device: Device) -> tuple[dict[str, Any], Findings]:
        """The commands and findings of one device on its own platform."""
        return self.lower_for(policy, device, self.platform_data[device.platform])

    def text(self, ir: dict[str, Any]) -> str:
        """The configuration of a device's commands (its tree, serialized)."""
        return cli(build(ir, "config")).text

    def lower(self, policy: Policy, unit: Any, platform: PlatformBase) -> Lowered:
        ir, found = self.lower_for(policy, unit, platform)
        if found.failed:
            return Lowered(diagnostics=list(found.items), data=ir)
        return Lowered(documents=[build(ir, unit.name, At(unit.where), policy)], diagnostics=list(found.items),
                       data=ir)
