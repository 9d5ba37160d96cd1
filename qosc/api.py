"""The library API: validate and compile policies.  The CLI only wraps these.

Each call returns its diagnostics instead of printing or exiting, so CI
scripts, editors and tests get the same answers as the command line.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from qosc import load, parallel, schema
from qosc.build import build
from qosc.checks import run_checks
from qosc.diagnostics import Diagnostic, QoscError, Severity, error, has_errors
from qosc.model import Device, Policy
from qosc.render import UnsafeValue
from qosc.targets.base import Output, Renderer, SelfCheckError, Target, check_and_outputs
from qosc.targets.registry import for_platform, targets


@dataclass
class Result:
    """What a validation produced: the model (when it could be built) and every diagnostic."""

    path: str
    policy: Policy | None = None
    diagnostics: list[Diagnostic] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.policy is not None and not has_errors(self.diagnostics)


def load_tree(path: str | Path) -> tuple[object | None, list[Diagnostic]]:
    try:
        return load.load_policy(path), []
    except QoscError as exc:
        return None, exc.diagnostics


def validate(path: str | Path, with_targets: bool = True) -> Result:
    """Load, schema-check, build and check one policy; never raises on bad input."""
    result, _, targets_ok = validate_stages(path)
    if result.policy is None:
        return result
    if with_targets and targets_ok:
        # a value that did not parse is already reported; target checks on it would only echo it
        result.diagnostics.extend(target_checks(result.policy))
    result.diagnostics = sorted(set(result.diagnostics), key=Diagnostic.sort_key)
    return result


def validate_stages(path: str | Path, tree: Any = None, complete: Callable[[Policy], Policy] | None = None,
                    jobs: int = 1) -> tuple[Result, Any, bool]:
    """validate() up to and including the semantic checks, but not the target checks.

    Returns (result, tree, targets_ok): the loaded tree, and whether target
    checks apply (the model was built and every value parsed).  `tree` skips
    loading (an already loaded tree); `complete` may replace the built model
    before the checks run (the incremental compile merges cached devices
    there).  jobs != 1 lets the semantic checks of a large network use two
    processes.  Diagnostics are neither sorted nor deduplicated yet.
    """
    result = Result(str(path))
    if tree is None:
        tree, diags = load_tree(path)
        result.diagnostics.extend(diags)
        if tree is None:
            return result, None, False
    policy, build_diags, schema_diags = _schema_and_build(tree, str(path), jobs)
    result.diagnostics.extend(schema_diags)
    if schema_diags:
        return result, tree, False
    if complete is not None:
        policy = complete(policy)
    result.policy = policy
    result.diagnostics.extend(build_diags)
    result.diagnostics.extend(parallel.run_checks(policy, jobs) if jobs != 1 else run_checks(policy))
    return result, tree, not has_errors(build_diags)


def _schema_and_build(tree: Any, source: str, jobs: int) -> tuple[Any, list[Diagnostic], list[Diagnostic]]:
    """(model, build diagnostics, schema diagnostics); no model when the schema check failed.

    The model is built only from a tree the schema accepts.  For a large
    network with jobs != 1 both run at once: the schema check in a forked
    process while this one builds; the build is then thrown away (and
    whatever it raised ignored) if the schema check fails.
    """
    def check_schema() -> list[Diagnostic]:
        return schema.validate(tree, lambda p, key=False: load.locate(tree, p, key=key))

    devices = tree.get("devices") if isinstance(tree, dict) else None
    units = len(devices) if isinstance(devices, dict) else 0
    policy: Policy | None
    if jobs == 1 or parallel.resolve_jobs(jobs, units // 16) < 2:
        schema_diags = check_schema()
        if schema_diags:
            return None, [], schema_diags
        policy, build_diags = build(tree, source=source)
        return policy, build_diags, []
    pending = parallel.Background(check_schema)
    try:
        policy, build_diags = build(tree, source=source)
        failure: Exception | None = None
    except Exception as exc:  # noqa: BLE001 - meaningful only if the schema accepts the tree
        policy, build_diags, failure = None, [], exc
    schema_diags = pending.result()
    if schema_diags:
        return None, [], schema_diags
    if failure is not None:
        raise failure
    return policy, build_diags, []


def target_checks(policy: Policy) -> list[Diagnostic]:
    found: list[Diagnostic] = []
    for device, platform in _units(policy):
        for target in for_platform(platform):
            found.extend(target.check(policy, device))
    return found


def all_units(policy: Policy) -> list[tuple[Any, str]]:
    """What targets compile, in policy order: (device or host, platform label)."""
    return _units(policy)


def _units(policy: Policy) -> list[tuple[Any, str]]:
    """What targets compile: devices by platform, and hosts by their host-target label (linux -> linux-host)."""
    return [(d, d.platform) for d in policy.devices] + [(h, h.target_platform) for h in policy.hosts]


def select(policy: Policy, target_names: Sequence[str] = (),
           devices: Sequence[str] = ()) -> list[tuple[Target, Device]]:
    """The (target, device) pairs to compile: every device's targets, filtered."""
    pairs = []
    for device, platform in _units(policy):
        if devices and device.name not in devices:
            continue
        for target in for_platform(platform):
            if target_names and target.name not in target_names:
                continue
            pairs.append((target, device))
    return pairs


def render_one(policy: Policy, target: Target, device: Any,
               renderer: Renderer | None = None) -> tuple[list[Output], list[Diagnostic]]:
    """Render one (target, device); unsafe values and self-check failures become diagnostics.

    `renderer` (from check_and_outputs) renders from a lowering already made
    for the target checks; without it the target lowers the device itself.
    """
    try:
        outputs = renderer() if renderer is not None else target.outputs(policy, device)
        return [Output(f"{target.name}/{out.path}", out.text, out.notes) for out in outputs], []
    except UnsafeValue as exc:
        return [], [error("QOS100", f"{device.name} ({target.name}): {exc}", device.where.loc,
                          "remove control and line-break characters from names and descriptions")]
    except SelfCheckError as exc:
        return [], [error("QOS199", f"internal error: {target.name} output for {device.name} failed its "
                          f"self-check: {exc}", device.where.loc, "this is a qosc bug; please report it")]


def render_outputs(policy: Policy, pairs: Iterable[tuple[Target, Device]],
                   jobs: int = 1) -> tuple[list[Output], list[Diagnostic]]:
    """Render every (target, device); unsafe values and self-check failures become diagnostics.

    With jobs != 1 the pairs are rendered on forked processes (0: one per CPU
    when there is enough work); the result is identical to jobs=1.
    """
    pairs = list(pairs)
    outputs: list[Output] = []
    diags: list[Diagnostic] = []
    for outs, found in parallel.ordered_map(lambda i: render_one(policy, *pairs[i]), len(pairs), jobs):
        outputs.extend(outs)
        diags.extend(found)
    return outputs, diags


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
    """The target's capability diagnostics for the device (when checked)."""
    outputs: list[Output] | None = None
    """Rendered files (without a sink), or None when not rendered (not asked, or the device has errors)."""
    files: list[Any] | None = None
    """What the sink returned for each rendered file (with a sink)."""
    problems: list[Diagnostic] = field(default_factory=list)
    """Rendering failures (QOS100 unsafe value, QOS199 self-check)."""
    notes: list[tuple[str, str]] = field(default_factory=list)
    """(target, note) of every rendered file's Output.notes (see qosc.targets.base.Output)."""
    error: BaseException | None = None
    """An exception the unit raised (a qosc bug or an I/O error in the sink), for the caller to re-raise
    once every other unit's staged files are accounted for."""


def check_and_render(units: Sequence[Unit], jobs: int = 1,
                     sink: Callable[[Output], Any] | None = None) -> Iterable[UnitResult]:
    """Target checks and rendering of every unit in one pass (on `jobs` processes), results in unit order.

    This is the compile path's form of validate()'s target checks plus
    render_outputs(): the same diagnostics and outputs, but each device is
    handled once, on every CPU.  A device whose target check reports an error
    is not rendered.  `sink`, when given, receives every rendered file in the
    worker that rendered it (e.g. to stage it on disk) and only its return
    values travel back.
    """
    def work(i: int) -> UnitResult:
        unit = units[i]
        res = UnitResult()
        try:
            renderer = None
            if unit.check:
                res.checks, renderer = check_and_outputs(unit.target, unit.policy, unit.device)
            if unit.render and not has_errors(res.checks):
                outputs, res.problems = render_one(unit.policy, unit.target, unit.device, renderer)
                res.notes = [(unit.target.name, note) for out in outputs for note in out.notes]
                if sink is None:
                    res.outputs = outputs
                else:
                    res.files = []
                    for out in outputs:
                        res.files.append(sink(out))
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


def compile_policy(result: Result, target_names: Sequence[str] = (), devices: Sequence[str] = (),
                   jobs: int = 1) -> list[Output]:
    """Outputs for a validated policy; adds diagnostics to `result` (nothing to write on error).

    jobs: processes to render on (1: this one; 0: one per CPU when there is
    enough work); the outputs are identical whatever the number.
    """
    if not result.ok or result.policy is None:
        return []
    known = targets()
    unknown = [t for t in target_names if t not in known]
    if unknown:
        result.diagnostics.append(error("QOS101", f"unknown target {', '.join(unknown)}",
                                        None, f"targets: {', '.join(known) or 'none registered'}"))
        return []
    hosts = {h.name for h in result.policy.hosts}
    missing = [d for d in devices if d not in result.policy.device_map and d not in hosts]
    if missing:
        result.diagnostics.append(error("QOS102", f"no device {', '.join(missing)} in {result.path}", None,
                                        f"devices: {', '.join(result.policy.device_map)}"))
        return []
    outputs, diags = render_outputs(result.policy, select(result.policy, target_names, devices), jobs)
    result.diagnostics.extend(diags)
    return [] if diags else outputs


def note_diagnostics(notes: Iterable[tuple[str, str]]) -> list[Diagnostic]:
    """One QOS104 info per distinct (target, note) of rendered files, with how many files it was given for."""
    counts = Counter(notes)
    return [Diagnostic("QOS104", Severity.INFO, f"{target}: {note} ({n} file{'s' if n != 1 else ''})", None)
            for (target, note), n in sorted(counts.items())]


def known_targets() -> list[str]:
    return list(targets())
