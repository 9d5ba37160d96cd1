"""Compiling policies in memory, for the library API, diff and push."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from qosc.diagnostics import Diagnostic, has_errors
from qosc.model import Policy
from qosc.pipeline.batch import Unit, process
from qosc.pipeline.selection import duplicate, missing_devices, note_diagnostics, unknown_targets
from qosc.pipeline.units import select
from qosc.pipeline.validation import Result, validate
from qosc.targets.base import Output, Target


@dataclass
class CompiledUnit:
    target: Target
    unit: Any
    """The device or host."""
    policy: Policy
    path: str
    """The policy file."""
    outputs: list[Output]


@dataclass
class Compiled:
    """Policies compiled in memory: per policy its validation, per unit its files, and every diagnostic."""

    results: list[Result] = field(default_factory=list)
    units: list[CompiledUnit] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not has_errors(self.diagnostics)

    @property
    def outputs(self) -> list[Output]:
        return [o for u in self.units for o in u.outputs]


def compile_policies(paths: Sequence[str | Path], target_names: Sequence[str] = (), devices: Sequence[str] = (),
                     jobs: int = 1, verify: bool = False,
                     targets_filter: Callable[[Target], bool] | None = None) -> Compiled:
    """Validate and compile policies in memory; nothing is produced for a policy with errors.

    `targets_filter` narrows the targets further (push: only targets with a driver).
    """
    out = Compiled()
    out.diagnostics.extend(unknown_targets(target_names))
    owner: dict[str, str] = {}
    compiled: list[str] = []
    notes: list[tuple[str, str]] = []
    for path in paths:
        result = validate(path)
        out.results.append(result)
        out.diagnostics.extend(result.diagnostics)
        if not result.ok or result.policy is None or (out.diagnostics and has_errors(out.diagnostics)):
            continue
        pairs = [(t, u) for t, u in select(result.policy, target_names, devices)
                 if targets_filter is None or targets_filter(t)]
        units = [Unit(result.policy, t, u, check=False) for t, u in pairs]
        for (target, unit), res in zip(pairs, process(units, jobs, verify=verify), strict=True):
            if res.error is not None:
                raise res.error
            out.diagnostics.extend(res.problems)
            notes.extend(res.notes)
            key = f"{target.name}/{unit.name}"
            if key in owner and owner[key] != str(path):
                out.diagnostics.append(duplicate(f"device {unit.name} ({target.name})", owner[key], str(path)))
                continue
            owner[key] = str(path)
            compiled.append(unit.name)
            out.units.append(CompiledUnit(target, unit, result.policy, str(path), list(res.outputs or ())))
    out.diagnostics.extend(missing_devices(devices, compiled) if not has_errors(out.diagnostics) else [])
    out.diagnostics.extend(note_diagnostics(notes))
    return out
