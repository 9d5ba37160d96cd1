"""What every Cisco target shares: the contract, rendering and the mode self-check.

A Cisco target supplies `lower_for(policy, device, platform)` (the IR and
its findings); rendering through the package's templates/<target>/config.j2
and the mode-structure check of qosc.targets.ios.modes are the same for all.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from importlib import resources
from typing import Any, ClassVar

import jinja2

from qosc import fields as fields_mod
from qosc.diagnostics import format_text
from qosc.model import Device, Policy
from qosc.render import quoted, safe
from qosc.targets.base import Lowered, Output, SelfCheckError, Target
from qosc.targets.ios.common import Findings
from qosc.targets.ios.modes import check as modes_check
from qosc.targets.ios.platform import IosPlatform, platforms
from qosc.targets.platform import PlatformBase

SHAPING_FIELDS = frozenset({"devices.*.interfaces.*.shape", "devices.*.interfaces.*.unit"})


@lru_cache(maxsize=4)
def _template(target: str) -> jinja2.Template:
    folder = resources.files(__package__).joinpath("templates", target)
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(folder)), undefined=jinja2.StrictUndefined,
                             finalize=safe, autoescape=False, keep_trailing_newline=True, trim_blocks=True,
                             lstrip_blocks=True, auto_reload=False)
    env.filters["quoted"] = quoted
    return env.get_template("config.j2")


class CiscoTarget(Target):
    package = "qosc.targets.ios"
    platform_class: ClassVar[type[PlatformBase]] = IosPlatform
    fields = frozenset(fields_mod.target_fields("devices.")) | frozenset(
        f for f in fields_mod.target_fields() if not f.startswith("hosts."))
    driver = "qosc.targets.ios.push:IosDriver"
    reader = "qosc.targets.ios.read"
    default_port = 22
    suffix = ".cfg"

    def supports(self, field_path: str, platform: PlatformBase) -> bool:
        """`shape:` and `unit:` only where the platform has hierarchical shaping on subinterfaces (ios-xe)."""
        if field_path in SHAPING_FIELDS:
            return bool(getattr(platform, "shaping", False))
        return field_path in self.fields

    @property
    def platform_data(self) -> Mapping[str, PlatformBase]:  # type: ignore[override]
        return {name: p for name, p in platforms().items() if p.target == self.name}

    def lower_for(self, policy: Policy, device: Device, platform: Any) -> tuple[dict[str, Any], Findings]:
        """The IR for one device and the capability findings that came with it."""
        raise NotImplementedError

    def ir(self, policy: Policy, device: Device) -> tuple[dict[str, Any], Findings]:
        """The IR and findings of one device on its own platform."""
        return self.lower_for(policy, device, self.platform_data[device.platform])

    def text(self, ir: dict[str, Any]) -> str:
        """The configuration of an IR, before the mode self-check."""
        return _template(self.name).render(**ir)

    def lower(self, policy: Policy, unit: Any, platform: PlatformBase) -> Lowered:
        ir, found = self.lower_for(policy, unit, platform)
        return Lowered(diagnostics=list(found.items), data=(unit, ir, found))

    def render(self, lowered: Lowered) -> list[Output]:
        device, ir, found = lowered.data
        if found.failed:
            raise SelfCheckError("; ".join(format_text(d) for d in found.items if d.is_error))
        text = self.text(ir)
        modes_check(text, device.platform)
        return [Output(f"{device.name}{self.suffix}", text)]
