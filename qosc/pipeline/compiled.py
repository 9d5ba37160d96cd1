"""Compiling policies in memory, for the library API, diff and push: the orchestrator without a sink."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from qosc.pipeline.orchestrate import Compiled, CompiledUnit, run
from qosc.targets.base import Target

__all__ = ["Compiled", "CompiledUnit", "compile_policies"]


def compile_policies(paths: Sequence[str | Path], target_names: Sequence[str] = (), devices: Sequence[str] = (),
                     jobs: int = 1, verify: bool = False,
                     targets_filter: Callable[[Target], bool] | None = None) -> Compiled:
    """Validate and compile policies in memory; nothing is produced for a policy with errors.

    `targets_filter` narrows the targets further (push: only targets with a driver).
    """
    return run(paths, target_names, devices, jobs, verify, targets_filter=targets_filter)
