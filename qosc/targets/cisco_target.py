"""What every Cisco target shares: platform lookup, check, render and the mode self-check.

A Cisco target only supplies `lower_for(policy, device, platform)`; rendering
and the mode-structure check of qosc.targets.cisco_modes are the same for all.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from qosc.diagnostics import Diagnostic, format_text
from qosc.model import Device, Policy
from qosc.platforms import Platform, get
from qosc.render import render
from qosc.targets import cisco_modes
from qosc.targets.base import Output, Renderer, SelfCheckError
from qosc.targets.cisco_common import Findings


class CiscoTarget:
    name = ""
    platforms: tuple[str, ...] = ()
    description = ""
    suffix = ".cfg"

    def lower_for(self, policy: Policy, device: Device, platform: Platform) -> tuple[dict[str, Any], Findings]:
        """The IR for one device and the capability findings that came with it."""
        raise NotImplementedError

    def _platform(self, device: Device) -> Platform:
        platform = get(device.platform)
        if platform is None or platform.target != self.name:
            raise SelfCheckError(f"{device.name}: platform {device.platform} is not served by {self.name}")
        return platform

    def lower(self, policy: Policy, device: Device) -> tuple[dict[str, Any], Findings]:
        return self.lower_for(policy, device, self._platform(device))

    def check(self, policy: Policy, device: Device) -> Iterable[Diagnostic]:
        return self.lower(policy, device)[1].items

    def render(self, ir: dict[str, Any]) -> str:
        return render(self.name, "config.j2", **ir)

    def outputs(self, policy: Policy, device: Device) -> list[Output]:
        return self._outputs(device, *self.lower(policy, device))

    def check_and_outputs(self, policy: Policy, device: Device) -> tuple[list[Diagnostic], Renderer]:
        """check() and a renderer of outputs() from one lowering: lowering is most of a Cisco compile."""
        ir, found = self.lower(policy, device)
        return list(found.items), lambda: self._outputs(device, ir, found)

    def _outputs(self, device: Device, ir: dict[str, Any], found: Findings) -> list[Output]:
        if found.failed:
            raise SelfCheckError("; ".join(format_text(d) for d in found.items if d.is_error))
        text = self.render(ir)
        cisco_modes.check(text, device.platform)
        return [Output(f"{device.name}{self.suffix}", text)]
