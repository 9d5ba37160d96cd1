"""The target stages of one unit (a device or host with one of its targets): capability, lower, grammar, serialize."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from qosc import fields, parallel
from qosc.diagnostics import Diagnostic, Severity, error
from qosc.errors import TargetBug, UnsafeValue, VerificationUnavailable
from qosc.model import Policy
from qosc.targets.base import Lowered, Output, Target
from qosc.targets.registry import for_platform, platform
from qosc.tree import locate, origin_of


def all_units(policy: Policy) -> list[tuple[Any, str]]:
    """What targets compile, in policy order: (device or host, platform label)."""
    return [(d, d.platform) for d in policy.devices] + [(h, h.target_platform) for h in policy.hosts]


def select(policy: Policy, target_names: Sequence[str] = (), devices: Sequence[str] = ()) -> list[tuple[Target, Any]]:
    """The (target, device or host) pairs to compile: every unit's targets, filtered."""
    pairs = []
    for unit, label in all_units(policy):
        if devices and unit.name not in devices:
            continue
        for target in for_platform(label):
            if target_names and target.name not in target_names:
                continue
            pairs.append((target, unit))
    return pairs


def capability(target: Target, policy: Policy, unit: Any, label: str) -> list[Diagnostic]:
    """QOS090: every target field set on what the unit uses that the target does not render."""
    data = platform(label)
    if data is None:
        return []
    found = fields.set_on_host(unit) if target.serves == "hosts" else fields.set_on_device(policy, unit)
    known = fields.by_path()
    out = []
    for path, loc in found.items():
        f = known.get(path)
        if f is None or f.consumer != "target" or target.supports(path, data):
            continue
        severity = Severity.WARNING if f.unsupported == "warning" else Severity.ERROR
        what = "is not rendered" if severity is Severity.WARNING else "would be dropped"
        out.append(Diagnostic("QOS090", severity, f"'{f.key}' ({path}) is set, but target {target.name} does not "
                              f"support it on {label}: it {what}", loc,
                              f"remove it, or do not use it on {label} devices" if severity is Severity.ERROR else
                              None))
    return out


def lower(target: Target, policy: Policy, unit: Any) -> tuple[list[Diagnostic], Lowered | None]:
    """A unit's target diagnostics (capability and lowering) and its lowering (None without platform data)."""
    label = unit.platform if target.serves == "devices" else unit.target_platform
    data = platform(label)
    if data is None:  # QOS025 already says the platform is unknown
        return [], None
    found = capability(target, policy, unit, label)
    try:
        lowered = target.lower(policy, unit, data)
    except UnsafeValue as exc:
        return found + [_unsafe(target, unit, exc)], None
    except TargetBug as exc:
        return found + [_bug(target, unit, exc)], None
    return sorted(set(found + lowered.diagnostics), key=Diagnostic.sort_key), lowered


def _unsafe(target: Target, unit: Any, exc: UnsafeValue) -> Diagnostic:
    return error("QOS100", f"{unit.name} ({target.name}): {exc}", unit.where.loc,
                 "remove control and line-break characters from names and descriptions")


def _bug(target: Target, unit: Any, exc: TargetBug) -> Diagnostic:
    return error("QOS199", f"internal error: {target.name} output for {unit.name} failed its check: {exc}",
                 unit.where.loc, "this is a qosc bug; please report it with the policy")


def target_checks(policy: Policy) -> list[Diagnostic]:
    """Every target's diagnostics for every unit of a policy."""
    found: list[Diagnostic] = []
    for unit, label in all_units(policy):
        for target in for_platform(label):
            found.extend(lower(target, policy, unit)[0])
    return found


def render(target: Target, policy: Policy, unit: Any, lowered: Lowered | None = None,
           verify: bool = False) -> tuple[list[Output], list[Diagnostic]]:
    """Grammar-check and serialize one unit's lowering into its files, paths under the target's folder.

    A statement the target's grammar refuses is QOS199 at the policy line it
    came from (a qosc bug); a value that would inject a line is QOS100.
    With `verify`, the target's machine checks run and their findings become
    the outputs' notes.
    """
    try:
        if lowered is None:
            lowered = lower(target, policy, unit)[1]
            if lowered is None:
                return [], []
        grammars = {g.dialect: g for g in target.grammars_for(unit)}
        bad = []
        for doc in lowered.documents:
            if doc.dialect not in grammars:
                raise TargetBug(f"document {doc.stem} is in dialect {doc.dialect}, which has no grammar")
            bad.extend(grammars[doc.dialect].check(doc))
        if bad:
            more = f" (and {len(bad) - 1} more)" if len(bad) > 1 else ""
            return [], [error("QOS199", f"internal error: {target.name} output for {unit.name} refused by its "
                              f"grammar: {bad[0]}{more}", locate(origin_of(bad[0].path)) or unit.where.loc,
                              "this is a qosc bug; please report it with the policy")]
        outputs = target.render(lowered)
        if verify:
            outputs = target.verify(outputs)
        return [Output(f"{target.name}/{o.path}", o.text, o.notes, o.origins) for o in outputs], []
    except UnsafeValue as exc:
        return [], [_unsafe(target, unit, exc)]
    except TargetBug as exc:
        return [], [_bug(target, unit, exc)]
    except VerificationUnavailable as exc:
        return [], [error("QOS146", f"{target.name} output for {unit.name} could not be verified on this machine: "
                          f"{exc}", unit.where.loc, "run --verify where the check can run (for linux-tc: root or "
                          "user namespaces, with ip, tc and unshare), or compile without --verify")]


def render_outputs(policy: Policy, pairs: Iterable[tuple[Target, Any]],
                   jobs: int = 1) -> tuple[list[Output], list[Diagnostic]]:
    """Render every (target, unit) on `jobs` processes (the result is identical to jobs=1)."""
    pairs = list(pairs)
    outputs: list[Output] = []
    diags: list[Diagnostic] = []

    def one(i: int) -> tuple[list[Output], list[Diagnostic]]:
        outs, found = render(pairs[i][0], policy, pairs[i][1])
        return [o.resolved() for o in outs] if jobs != 1 else outs, found

    for outs, found in parallel.ordered_map(one, len(pairs), jobs):
        outputs.extend(outs)
        diags.extend(found)
    return outputs, diags
