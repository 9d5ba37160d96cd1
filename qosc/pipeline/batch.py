"""Many units at once, on several processes, results in order: the compile path."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from qosc import parallel
from qosc.diagnostics import Diagnostic, has_errors
from qosc.model import Policy
from qosc.pipeline.units import lower, render
from qosc.targets.base import Output, Target


@dataclass
class Unit:
    """One piece of compile work: check a (target, device) pair of a policy, and render it when asked."""

    policy: Policy
    target: Target
    device: Any
    check: bool = True
    render: bool = True


@dataclass
class UnitResult:
    checks: list[Diagnostic] = field(default_factory=list)
    """The target's diagnostics for the unit (when checked)."""
    outputs: list[Output] | None = None
    """Rendered files (without a sink), or None when not rendered (not asked, or the unit has errors)."""
    files: list[Any] | None = None
    """What the sink returned for each rendered file (with a sink)."""
    problems: list[Diagnostic] = field(default_factory=list)
    """Rendering failures (QOS100 unsafe value, QOS199 grammar)."""
    notes: list[tuple[str, str]] = field(default_factory=list)
    """(target, note) of every rendered file (see Output.notes)."""
    error: BaseException | None = None
    """An exception the unit raised (a qosc bug or an I/O error in the sink), for the caller to re-raise
    once every other unit's staged files are accounted for."""


def process(units: Sequence[Unit], jobs: int = 1, sink: Callable[[Output], Any] | None = None,
            verify: bool = False) -> Iterable[UnitResult]:
    """Target checks and rendering of every unit in one pass (on `jobs` processes), results in unit order.

    A unit whose target check reports an error is not rendered.  `sink`,
    when given, receives every rendered file in the worker that rendered it
    (e.g. to stage it on disk) and only its return values travel back.
    """
    def work(i: int) -> UnitResult:
        unit = units[i]
        res = UnitResult()
        try:
            lowered = None
            if unit.check or unit.render:
                checks, lowered = lower(unit.target, unit.policy, unit.device)
                if unit.check:
                    res.checks = checks
                if has_errors(checks):
                    lowered = None
            if unit.render and lowered is not None:
                outputs, res.problems = render(unit.target, unit.policy, unit.device, lowered, verify)
                res.notes = [(unit.target.name, note) for out in outputs for note in out.notes]
                if sink is None:
                    res.outputs = [o.resolved() for o in outputs] if jobs != 1 else outputs
                else:
                    res.files = [sink(out) for out in outputs]
        except Exception as exc:  # noqa: BLE001 - handed to the caller, see UnitResult.error
            res.error = parallel.portable(exc)
        return res

    todo = [i for i, unit in enumerate(units) if unit.check or unit.render]
    results = parallel.ordered_map(lambda k: work(todo[k]), len(todo), jobs)
    busy = iter(todo)
    nxt = next(busy, None)
    for i in range(len(units)):
        if i == nxt:
            yield next(results)
            nxt = next(busy, None)
        else:
            yield UnitResult()  # nothing to do: the caller has it from its cache
