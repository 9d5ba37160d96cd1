"""The library API: validate and compile policies.  The CLI only wraps these; both run qosc.pipeline's orchestrator.

Each call returns its diagnostics instead of printing or exiting, so CI
scripts, editors and tests get the same answers as the command line.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from qosc.diagnostics import has_errors
from qosc.pipeline import (
    Compiled,
    Result,
    Unit,
    UnitResult,
    all_units,
    compile_policies,
    load_tree,
    note_diagnostics,
    render,
    render_outputs,
    run,
    select,
    target_checks,
    validate,
    validate_stages,
)
from qosc.pipeline import process as check_and_render
from qosc.targets.base import Output
from qosc.targets.registry import targets

__all__ = ["Compiled", "Output", "Result", "Unit", "UnitResult", "all_units", "check_and_render", "compile",
           "compile_policy", "known_targets", "load_tree", "note_diagnostics", "render", "render_outputs",
           "select", "target_checks", "validate", "validate_stages"]


def compile(paths: Sequence[str | Path], target_names: Sequence[str] = (), devices: Sequence[str] = (),
            jobs: int = 1, verify: bool = False) -> Compiled:
    """Validate and compile policies in memory: every diagnostic, and per device its files."""
    return compile_policies(paths, target_names, devices, jobs, verify)


def compile_policy(result: Result, target_names: Sequence[str] = (), devices: Sequence[str] = (),
                   jobs: int = 1) -> list[Output]:
    """Outputs for a validated policy; adds diagnostics to `result` (nothing to write on error).

    jobs: processes to render on (1: this one; 0: one per CPU when there is
    enough work); the outputs are identical whatever the number.
    """
    if not result.ok or result.policy is None:
        return []
    done = run(target_names=target_names, devices=devices, jobs=jobs, validated=[result])
    found = done.diagnostics[len(result.diagnostics):]  # (the run's diagnostics start with the result's own)
    result.diagnostics.extend(found)
    return [] if has_errors(found) else done.outputs


def known_targets() -> list[str]:
    return list(targets())
