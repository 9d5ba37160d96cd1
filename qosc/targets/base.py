"""What a target is: lower the model for one device to plain data, render it, self-check it.

A target module defines `TARGET = SomeTarget()`; the registry finds it.  The
core never imports a target by name, so adding one touches nothing here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Protocol

from qosc.diagnostics import Diagnostic
from qosc.model import Device, Policy


@dataclass(frozen=True)
class Output:
    """One generated file: a path relative to the output directory and its text.

    `notes` say what the target checked while rendering it that depends on the
    machine rather than the policy (e.g. which tc modules this kernel could
    load); they are reported by the compile, never written into the file, so
    the file is the same on every machine.
    """

    path: str
    text: str
    notes: tuple[str, ...] = field(default=(), compare=False)


class SelfCheckError(Exception):
    """A rendered config failed the target's own structural check: a qosc bug, never the user's."""


class Target(Protocol):
    name: str
    platforms: tuple[str, ...]
    description: str

    def check(self, policy: Policy, device: Device) -> Iterable[Diagnostic]:
        """Target-specific capability diagnostics, at the policy's own lines."""
        ...

    def outputs(self, policy: Policy, device: Device) -> list[Output]:
        """Lower, render and self-check every file for one device (only called on a clean policy)."""
        ...


Renderer = Callable[[], list[Output]]
"""Renders one device's files when called (may raise UnsafeValue or SelfCheckError, as outputs() does)."""


def check_and_outputs(target: Target, policy: Policy, device: Device) -> tuple[list[Diagnostic], Renderer]:
    """The target's diagnostics for a device and a renderer of its files.

    A target whose check and outputs start from the same expensive lowering
    defines `check_and_outputs` itself and lowers once; any other target gets
    check() now and outputs() when the renderer is called.
    """
    both = getattr(target, "check_and_outputs", None)
    if both is not None:
        found, renderer = both(policy, device)
        return list(found), renderer
    return list(target.check(policy, device)), lambda: target.outputs(policy, device)
