"""Many units at once, on several processes, results in order: the compile path.

Units of the same lowering input (qosc.pipeline.sharing) are lowered and
rendered once per process and named per device; the work is handed to the
processes in chunks of one group at a time, so each process lowers a group at
most once however many devices it has.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from qosc import parallel
from qosc.diagnostics import Diagnostic, has_errors
from qosc.errors import TargetBug, UnsafeValue
from qosc.model import Policy
from qosc.pipeline.sharing import NAME, diagnostic, forget, output, proxy, signature
from qosc.pipeline.units import capability, lower, render
from qosc.targets.base import Lowered, Output, Target
from qosc.targets.registry import platform

CHUNK = 32
"""Units of one group handed to a process at once: small enough to balance two processes, large enough that
each lowers a group once."""
KEEP = 16
"""Stand-in lowerings a process keeps (least recently used beyond that are lowered again when needed)."""


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


_NOTHING = UnitResult()
"""The result of a unit with nothing to do (shared: callers only read results)."""


@dataclass
class _Template:
    """A group's stand-in: its lowering diagnostics, and (once a device needs them) its files and problems."""

    diagnostics: list[Diagnostic]
    lowered: Lowered | None
    outputs: list[Output] | None = None
    problems: list[Diagnostic] = field(default_factory=list)
    capable: bool = False
    """A device of the group has no capability diagnostic: then none has (they set the same fields)."""


_TEMPLATES: OrderedDict[Any, _Template | None] = OrderedDict()


def _template(key: Any, unit: Unit, label: str) -> _Template | None:
    """The group's stand-in lowered (once per process, see KEEP); None: lower this unit on its own."""
    if key in _TEMPLATES:
        _TEMPLATES.move_to_end(key)
        return _TEMPLATES[key]
    data = platform(label)
    found: _Template | None = None
    if data is not None:
        try:
            lowered = unit.target.lower(unit.policy, proxy(unit.device), data)
            found = _Template(lowered.diagnostics, lowered)
        except (UnsafeValue, TargetBug):
            found = None
    _TEMPLATES[key] = found
    if len(_TEMPLATES) > KEEP:
        _TEMPLATES.popitem(last=False)
    return found


def _shared(unit: Unit, key: Any, verify: bool, res: UnitResult) -> list[Output] | None:
    """`unit` from its group's stand-in: fills res.checks and res.problems; its files, or None when it has none
    (errors, or not asked).  Raises LookupError when the unit must be lowered on its own."""
    label = unit.device.platform
    if platform(label) is None:
        return None
    template = _template(key, unit, label)
    if template is None:
        raise LookupError(key)
    checks = [] if template.capable else capability(unit.target, unit.policy, unit.device, label)
    template.capable = not checks
    checks = sorted(set(checks + [diagnostic(d, unit.device) for d in template.diagnostics]),
                    key=Diagnostic.sort_key)
    if unit.check:
        res.checks = checks
    if not unit.render or has_errors(checks):
        return None
    if template.outputs is None:
        template.outputs, template.problems = render(unit.target, unit.policy, proxy(unit.device),
                                                     template.lowered, verify)
        template.lowered = None  # (the trees are the bulk of it; the files are what the others need)
    res.problems = [diagnostic(d, unit.device) for d in template.problems]
    return template.outputs


def process(units: Sequence[Unit], jobs: int = 1, sink: Callable[[Output], Any] | None = None,
            verify: bool = False, hints: Sequence[str | None] | None = None) -> Iterable[UnitResult]:
    """Target checks and rendering of every unit in one pass (on `jobs` processes), results in unit order.

    A unit whose target check reports an error is not rendered.  `sink`,
    when given, receives every rendered file in the worker that rendered it
    (e.g. to stage it on disk) and only its return values travel back.
    `hints` (a memo's, per unit): units of one policy and target with equal
    hints are written alike, so their signature is computed once.
    """
    keys = _keys(units, hints)

    def work(i: int) -> UnitResult:
        unit = units[i]
        res = UnitResult()
        try:
            outputs: list[Output] | None = None
            shared = False
            if keys[i] is not None:
                try:
                    stand_in = _shared(unit, keys[i], verify, res)
                    shared = True
                    if stand_in is not None:
                        outputs = [output(o, unit.device, sink is None) for o in stand_in]
                except LookupError:
                    res = UnitResult()
            if not shared:
                lowered = None
                checks, lowered = lower(unit.target, unit.policy, unit.device)
                if unit.check:
                    res.checks = checks
                if has_errors(checks):
                    lowered = None
                if unit.render and lowered is not None:
                    outputs, res.problems = render(unit.target, unit.policy, unit.device, lowered, verify)
            if outputs is not None:
                res.notes = [(unit.target.name, note) for out in outputs for note in out.notes]
                if sink is None:
                    res.outputs = [o.resolved() for o in outputs] if jobs != 1 else outputs
                else:
                    res.files = [sink(out) for out in outputs]
        except Exception as exc:  # noqa: BLE001 - handed to the caller, see UnitResult.error
            res.error = parallel.portable(exc)
        return res

    items = _items(units, keys)
    _TEMPLATES.clear()
    done: dict[int, UnitResult] = {}
    for item, results in zip(items, parallel.ordered_map(lambda k: [work(i) for i in items[k]], len(items), jobs,
                                                         chunk=1), strict=True):
        done.update(zip(item, results, strict=True))
    _TEMPLATES.clear()
    forget()
    for i in range(len(units)):
        yield done.pop(i) if i in done else _NOTHING  # nothing to do: the caller has it from its cache


def _keys(units: Sequence[Unit], hints: Sequence[str | None] | None) -> list[Any]:
    """Each unit's sharing signature (None: not shared, or nothing to do)."""
    keys: list[Any] = []
    known: dict[tuple[int, str, str], Any] = {}
    for i, u in enumerate(units):
        if not (u.check or u.render):
            keys.append(None)
            continue
        hint = hints[i] if hints is not None else None
        if hint is None or not NAME.match(u.device.name):
            keys.append(signature(u.target, u.policy, u.device))
            continue
        at = (id(u.policy), u.target.name, hint)
        if at not in known:
            known[at] = signature(u.target, u.policy, u.device)
        keys.append(known[at])
    return keys


def _items(units: Sequence[Unit], keys: list[Any]) -> list[list[int]]:
    """The work, in chunks: units of one group together (CHUNK at a time), the others one by one."""
    groups: dict[Any, list[int]] = {}
    alone: list[int] = []
    for i, unit in enumerate(units):
        if not (unit.check or unit.render):
            continue
        if keys[i] is None:
            alone.append(i)
        else:
            groups.setdefault(keys[i], []).append(i)
    for members in groups.values():
        if len(members) == 1:
            keys[members[0]] = None  # alone: nothing to share
    items = [alone[k:k + CHUNK] for k in range(0, len(alone), CHUNK)]
    by_target: dict[str, list[list[int]]] = {}
    for members in groups.values():
        by_target.setdefault(units[members[0]].target.name, []).extend(
            members[k:k + CHUNK] for k in range(0, len(members), CHUNK))
    # targets in turn: processes working at once mostly write into different folders (creating files in one
    # folder takes its lock, and two processes would wait for each other)
    queues = list(by_target.values())
    for n in range(max(map(len, queues), default=0)):
        items.extend(q[n] for q in queues if n < len(q))
    return items
