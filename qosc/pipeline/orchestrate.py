"""The one orchestrator: `qosc compile`, the in-memory compile (API, diff, push) and the library API run this.

    run(paths | validated results) ->
        per policy: validate (or the memo's incremental validation)
        per (target, unit) of every policy that validated: the target checks (capability, lower), and for the
            selected ones (--target, --device, no error) grammar and serialize: qosc.pipeline.batch, which
            lowers devices of the same lowering input once (qosc.pipeline.sharing)
        the selection errors, derived once, here: QOS101 unknown target, QOS102 a requested device no selected
            pair compiles, QOS103 one output file from two policies

A memo (qosc.cache.PolicyCache, the incremental compile) plugs into the
stages that read the policy: `validate` replaces the validation (it may
validate only what changed, with the same diagnostics), `units` lists the
policy's units (stand-ins for the devices it did not build again), and per (target,
unit) `key` names the content the unit's work reads, `lookup` gives what
that work gave last time, `intact` says whether the files it wrote are still
as written, and `record` remembers this run's.  A unit the memo has is
neither checked nor rendered again; if its files are intact, not written
either.  A sink (qosc.emit.Transaction) receives the rendered files in the
worker that rendered them (`write`), and in this process (`adopt`); without
one, the outputs come back in memory with their source maps.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from qosc.diagnostics import Diagnostic, has_errors
from qosc.model import Policy
from qosc.pipeline.batch import Unit, process
from qosc.pipeline.selection import duplicate, missing_devices, note_diagnostics, unknown_targets
from qosc.pipeline.units import all_units
from qosc.pipeline.validation import Result, validate_stages
from qosc.targets.base import Output, Target
from qosc.targets.registry import for_platform


class Memo(Protocol):
    """What an incremental compile remembers of one policy (see the module docstring)."""

    def validate(self) -> tuple[Result, bool]: ...

    def units(self, policy: Policy) -> list[tuple[Any, str]]:
        """Every unit of the validated policy with its platform (qosc.pipeline.units.all_units), a device the
        memo did not build being a stand-in with its name, platform and `where`, whose every unit it has."""

    def key(self, target: str, unit: Any) -> str | None: ...

    def lookup(self, key: str | None) -> tuple[list[Diagnostic], Any, list[str]] | None:
        """(target diagnostics, the files written (None: not rendered), their notes) of the key's last run."""

    def hint(self, unit: Any) -> str | None:
        """What tells devices written alike in the policy (see qosc.pipeline.sharing), or None."""

    def intact(self, files: Any) -> bool:
        """Whether the files `lookup` gave are still as written."""

    def record(self, key: str | None, checks: list[Diagnostic] | None, files: list[Any] | None,
               notes: list[str]) -> None:
        """Remember a unit: checks None: those `lookup` gave; files: what the sink staged (None: those
        `lookup` gave, if any)."""


class Sink(Protocol):
    """Where rendered files go: `write` in the worker that rendered them, `adopt` what it returned, here."""

    def write(self, relpath: str, text: str) -> Any: ...

    def adopt(self, staged: Any) -> Any: ...


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
class PolicyRun:
    """One policy on its way through the orchestrator."""

    path: str
    result: Result
    targets_ok: bool
    memo: Memo | None = None
    devices: list[str] = field(default_factory=list)
    skip: bool = False
    """--device names none of its units."""
    render: bool = False
    checks: list[Diagnostic] = field(default_factory=list)
    problems: list[Diagnostic] = field(default_factory=list)
    notes: list[tuple[str, str]] = field(default_factory=list)
    """(target, note) of its files, rendered now or from the memo (see Output.notes)."""
    outputs: list[str] = field(default_factory=list)
    """The files it produces (rendered now or intact from the memo), relative to the output directory."""
    origins: dict[str, Any] = field(default_factory=dict)
    """Output file -> the device or host it belongs to."""

    def diagnostics(self, unknown: list[Diagnostic], checked: bool = True) -> list[Diagnostic]:
        """What validating and compiling this policy found, in the order every command prints it."""
        found = list(self.result.diagnostics)
        if self.result.policy is not None:
            if checked:
                found = sorted(set(found + self.checks), key=Diagnostic.sort_key)
            if unknown and not self.skip and not has_errors(found):
                found.extend(unknown)
        return found + self.problems + note_diagnostics(self.notes)


@dataclass
class Compiled:
    """Policies compiled: per policy its run, per unit its files, and every diagnostic."""

    results: list[Result] = field(default_factory=list)
    units: list[CompiledUnit] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    runs: list[PolicyRun] = field(default_factory=list)
    pairs: int = 0
    """Selected (target, unit) pairs."""
    reused: int = 0
    """Selected pairs whose files the memo had, intact: neither rendered nor written."""
    changed: int = 0
    """Files the sink staged because their content changed."""

    @property
    def ok(self) -> bool:
        return not has_errors(self.diagnostics)

    @property
    def outputs(self) -> list[Output]:
        return [o for u in self.units for o in u.outputs]

    @property
    def files(self) -> int:
        return sum(len(r.outputs) for r in self.runs if not r.problems)


def run(paths: Sequence[str | Path] = (), target_names: Sequence[str] = (), devices: Sequence[str] = (),
        jobs: int = 1, verify: bool = False, *, sink: Sink | None = None,
        memo: Callable[[str], Memo] | None = None, targets_filter: Callable[[Target], bool] | None = None,
        validated: Sequence[Result] | None = None, before_units: Callable[[], None] | None = None) -> Compiled:
    """Validate and compile policies: every command and the API come through here (module docstring).

    `validated`: results of api.validate (target checks included) to compile instead of `paths`; their
    units are rendered, not checked again.  `targets_filter` narrows the targets further (push: only
    targets with a driver).  `before_units` runs once every policy is validated, before any unit.
    """
    out = Compiled()
    unknown = unknown_targets(target_names)
    checked = validated is None
    for path, result, targets_ok, store in _validate(paths, validated, memo):
        policy = result.policy
        run_ = PolicyRun(path, result, targets_ok, store)
        units = {u.name for u, _ in _units(run_)}
        run_.devices = [d for d in devices if d in units] if devices else []
        run_.skip = bool(devices and policy and not run_.devices)
        run_.render = policy is not None and not has_errors(result.diagnostics) and not run_.skip and not unknown
        out.runs.append(run_)
        out.results.append(result)
    if before_units is not None:
        before_units()
    work = _work(out.runs, target_names, checked, verify, targets_filter)
    write = None if sink is None else (lambda o: sink.write(o.path, o.text))
    hints = [w[0].memo.hint(w[1].device) if w[0].memo is not None else None for w in work]
    _collect(out, work, process([w[1] for w in work], jobs, sink=write, verify=verify, hints=hints), sink)
    owners: dict[str, str] = {}
    for r in out.runs:  # a policy with a rendering problem produces nothing
        out.diagnostics.extend(r.diagnostics(unknown, checked))
        for rel in r.outputs if not r.problems else ():
            if rel in owners:
                out.diagnostics.append(duplicate(f"file {rel}", owners[rel], r.path))
            owners[rel] = r.path
    if devices and all(r.result.policy is not None for r in out.runs):
        out.diagnostics.extend(missing_devices(devices, _covered(out.runs, target_names, targets_filter)))
    return out


def _units(r: PolicyRun) -> list[tuple[Any, str]]:
    """A validated policy's units (the memo's list, which has stand-ins for what it did not build again)."""
    if r.result.policy is None:
        return []
    return r.memo.units(r.result.policy) if r.memo is not None else all_units(r.result.policy)


def _covered(runs: list[PolicyRun], target_names: Sequence[str],
             targets_filter: Callable[[Target], bool] | None) -> set[str]:
    """The units (devices and hosts) of every policy that a selected target serves (QOS102 is the rest)."""
    found = set()
    for r in runs:
        for unit, platform in _units(r):
            if any((not target_names or t.name in target_names) and (targets_filter is None or targets_filter(t))
                   for t in for_platform(platform)):
                found.add(unit.name)
    return found


def _validate(paths: Sequence[str | Path], validated: Sequence[Result] | None,
              memo: Callable[[str], Memo] | None) -> list[tuple[str, Result, bool, Memo | None]]:
    if validated is not None:
        return [(r.path, r, r.policy is not None, None) for r in validated]
    found = []
    for path in map(str, paths):
        store = memo(path) if memo is not None else None
        result, targets_ok = store.validate() if store is not None else _plain(path)
        found.append((path, result, targets_ok, store))
    return found


def _plain(path: str) -> tuple[Result, bool]:
    result, _, targets_ok = validate_stages(path)
    return result, targets_ok


Work = tuple[PolicyRun, Unit, bool, str | None, Any]
"""(policy run, unit of work, selected, memo key, what the memo had)."""


def _work(runs: list[PolicyRun], target_names: Sequence[str], checked: bool, verify: bool,
          targets_filter: Callable[[Target], bool] | None) -> list[Work]:
    """Every (target, unit) is checked, as validate does; the selected ones are rendered too, unless the memo
    has them and their files are intact (--verify asks this machine about every selected file: rendered again)."""
    work: list[Work] = []
    served: dict[str, list[Target]] = {}
    for r in runs:
        policy, memo = r.result.policy, r.memo
        if policy is None or not r.targets_ok:
            continue
        for unit, platform in _units(r):
            targets = served.get(platform)
            if targets is None:
                targets = served[platform] = [t for t in for_platform(platform)
                                              if targets_filter is None or targets_filter(t)]
            for target in targets:
                selected = r.render and (not target_names or target.name in target_names) and (
                    not r.devices or unit.name in r.devices)
                key = memo.key(target.name, unit) if memo is not None else None
                hit = memo.lookup(key) if memo is not None else None
                intact = hit is not None and selected and not verify and memo is not None and memo.intact(hit[1])
                todo = Unit(policy, target, unit, check=checked and hit is None, render=selected and not intact)
                if (todo.check or todo.render) and getattr(unit, "stand_in", False):
                    raise RuntimeError(f"qosc bug: the memo did not build {unit.name}, but has not all its work")
                work.append((r, todo, selected, key, hit))
    return work


def _collect(out: Compiled, work: list[Work], results: Any, sink: Sink | None) -> None:
    failure: BaseException | None = None
    for (r, unit, selected, key, hit), res in zip(work, results, strict=True):
        for staged in res.files or ():
            sink.adopt(staged)  # type: ignore[union-attr]  # first of all: whatever happens next, it is cleaned up
        if res.error is not None:
            failure = failure or res.error
            continue
        r.checks.extend(res.checks if unit.check or hit is None else hit[0])
        r.problems.extend(res.problems)
        files: list[str] | None = hit[1] if hit is not None else None
        notes: list[str] = []  # what a verification found now (a memo's findings are not replayed)
        if res.files is not None:
            files = [s.relpath for s in res.files]
            notes = [note for _, note in res.notes]
            out.changed += sum(s.tmp is not None for s in res.files)
        elif res.outputs is not None:
            files = [o.path for o in res.outputs]
            notes = [note for _, note in res.notes]
            out.units.append(CompiledUnit(unit.target, unit.device, unit.policy, r.path, list(res.outputs)))
        elif selected and unit.render:
            out.units.append(CompiledUnit(unit.target, unit.device, unit.policy, r.path, []))
        if selected:
            out.pairs += 1
            out.reused += not unit.render
            if files is not None:
                r.outputs.extend(files)
                r.origins.update(dict.fromkeys(files, unit.device))
                if notes:
                    r.notes.extend((unit.target.name, note) for note in notes)
        if r.memo is not None:
            r.memo.record(key, res.checks if unit.check else None, res.files, notes)
    if failure is not None:
        raise failure
