"""qosc compile POLICY... -o DIR: one file per device and target, written all or nothing.

Large networks: the per-device work (target checks, rendering, staging the
files) runs on --jobs forked processes, in a fixed order, so the output is
byte-identical whatever the number of jobs.  A cache (see qosc.cache) skips
the devices whose inputs did not change since the last compile into the same
directory: only what changed is validated again, rendered and rewritten.
"""

from __future__ import annotations

import argparse
import gc
import sys
from pathlib import Path
from typing import Any

from qosc import cache, pipeline
from qosc.commands._common import add_report_options, report, status
from qosc.diagnostics import Diagnostic, error, has_errors, warning
from qosc.emit import Transaction, UntrustedState
from qosc.targets.registry import for_platform


def register(sub: Any) -> argparse.ArgumentParser:
    cmd = sub.add_parser("compile", help="compile policies into device configurations",
                         description="Validate policies, then write OUTDIR/<target>/<device>.<suffix> for every "
                         "device. Nothing is written unless every policy is free of errors, and then every file at "
                         "once. A cache (--cache-dir) lets the next compile into the same directory validate, "
                         "render and write only the devices that changed.")
    cmd.add_argument("policies", nargs="+", metavar="POLICY")
    cmd.add_argument("-o", "--output", required=True, metavar="DIR", help="output directory")
    cmd.add_argument("--target", action="append", default=[], metavar="T", help="only this target (repeatable)")
    cmd.add_argument("--device", action="append", default=[], metavar="D", help="only this device (repeatable)")
    cmd.add_argument("-j", "--jobs", type=int, default=0, metavar="N",
                     help="processes to compile on (default 0: one per CPU once there are enough devices to pay "
                     "for it; 1: this process only); the output is the same for every N")
    cmd.add_argument("--no-cache", action="store_true",
                     help="validate and render everything again, and leave no cache behind")
    cmd.add_argument("--cache-dir", metavar="DIR",
                     help="where the incremental cache lives (default $QOSC_CACHE_DIR, else ~/.cache/qosc)")
    cmd.add_argument("--verify", action="store_true",
                     help="also run the targets' checks that depend on this machine (e.g. load every tc batch into "
                     "a network namespace) and report what they found (QOS104); the files do not change")
    cmd.add_argument("-q", "--quiet", action="store_true", help="do not list written files")
    add_report_options(cmd)
    return cmd


class _Plan:
    """One policy on its way through the compile."""

    def __init__(self, path: str, store: cache.PolicyCache, result: pipeline.Result, targets_ok: bool) -> None:
        self.path, self.store, self.result, self.targets_ok = path, store, result, targets_ok
        self.devices: list[str] = []
        self.skip = False  # --device names none of its devices
        self.render = False
        self.checks: list[Diagnostic] = []
        self.problems: list[Diagnostic] = []
        self.notes: list[tuple[str, str]] = []  # (target, note) of its files (rendered now or cached), see Output.notes
        self.outputs: list[str] = []  # the files it produces (rendered now or intact from the cache)
        self.origins: dict[str, Any] = {}  # output file -> the device or host it belongs to


def run(args: argparse.Namespace) -> int:
    # The model of a large network is millions of long-lived objects: collecting
    # them again and again while they are built costs more than building them.
    enabled = gc.isenabled()
    gc.disable()
    plans: list[_Plan] = []
    try:
        return _run(args, plans)
    finally:
        for plan in plans:
            plan.store.close()
        gc.unfreeze()
        if enabled:
            gc.enable()


def _run(args: argparse.Namespace, plans: list[_Plan]) -> int:
    # The output's lock is taken first: everything judged against what the output holds (a cached file
    # intact, a file unchanged) is judged by one compile at a time, until its switch.
    def waiting() -> None:
        print(f"qosc: waiting for another compile into {args.output} to finish", file=sys.stderr)

    try:
        tx = Transaction(Path(args.output).absolute(), waiting=None if args.quiet else waiting)
    except UntrustedState as exc:
        report([error("QOS105", f"planted or foreign temporary state refused: {exc.strerror}", None,
                      f"nothing was replayed or written; if this state is yours, inspect and remove {exc.filename}")],
               args.format)
        return 1
    except OSError as exc:
        print(f"qosc: cannot write to {args.output}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    with tx:
        return _compile(args, plans, tx)


def _compile(args: argparse.Namespace, plans: list[_Plan], tx: Transaction) -> int:
    cache_dir = None if args.no_cache else Path(args.cache_dir) if args.cache_dir else cache.default_dir()
    unknown = pipeline.unknown_targets(args.target)
    for path in args.policies:
        store = cache.PolicyCache(path, args.output, cache_dir, args.jobs)
        store.watch(background=args.jobs != 1)  # stat the cached outputs on another CPU meanwhile
        result, targets_ok = store.validate()
        plan = _Plan(path, store, result, targets_ok)
        policy = result.policy
        known = set(policy.device_map) | {h.name for h in policy.hosts} if policy else set()
        plan.devices = [d for d in args.device if d in known] if args.device else []
        plan.skip = bool(args.device and policy and not plan.devices)
        plan.render = policy is not None and not has_errors(result.diagnostics) and not plan.skip and not unknown
        plans.append(plan)
    gc.freeze()  # the models are read-only from here on (and the workers inherit them)
    gc.enable()  # (only objects made from here on are collected)

    # Every (target, unit) is checked, as validate does; the selected ones are
    # rendered too, unless the cache has them and their files are intact.
    work: list[tuple[_Plan, pipeline.Unit, bool, str | None, Any]] = []
    for plan in plans:
        policy = plan.result.policy
        if policy is None or not plan.targets_ok:
            continue
        for unit, platform in pipeline.all_units(policy):
            for target in for_platform(platform):
                selected = plan.render and (not args.target or target.name in args.target) and (
                    not plan.devices or unit.name in plan.devices)
                key = plan.store.key(target.name, unit)
                hit = plan.store.lookup(key)
                # --verify asks this machine about every selected file: a cached one is rendered (and checked) again
                intact = hit is not None and selected and not args.verify and plan.store.intact(hit[1])
                todo = pipeline.Unit(policy, target, unit, check=hit is None, render=selected and not intact)
                work.append((plan, todo, selected, key, hit))

    owners: dict[str, str] = {}
    files_out = changed = 0
    failure: BaseException | None = None
    results = pipeline.process([w[1] for w in work], args.jobs,
                               sink=lambda out: tx.write(out.path, out.text), verify=args.verify)
    for (plan, unit, selected, key, hit), res in zip(work, results, strict=True):
        for staged in res.files or ():
            tx.adopt(staged)  # first of all: whatever happens next, it is cleaned up
        if res.error is not None:
            failure = failure or res.error
            continue
        checks = res.checks if unit.check else hit[0]
        plan.checks.extend(checks)
        plan.problems.extend(res.problems)
        files = hit[1] if hit is not None else None
        notes: list[str] = []  # what a verification found now (a cached run's findings are not replayed)
        if res.files is not None:
            files = [(s.relpath, s.digest) for s in res.files]
            notes = [note for _, note in res.notes]
            changed += sum(s.tmp is not None for s in res.files)
        if selected and files is not None:
            plan.outputs.extend(rel for rel, _ in files)
            plan.origins.update((rel, unit.device) for rel, _ in files)
            plan.notes.extend((unit.target.name, note) for note in notes)
        plan.store.record(key, res.checks if unit.check else None, files, notes)
    if isinstance(failure, OSError):  # staging a file failed: everything staged is removed on the way out
        print(f"qosc: cannot write to {args.output}: {failure.strerror or failure}", file=sys.stderr)
        return 2
    if failure is not None:
        raise failure
    diagnostics = _untrusted_caches(plans)
    for plan in plans:  # as api.compile_policy: a policy with a rendering problem produces nothing
        diagnostics.extend(_diagnostics(plan, unknown))
        for rel in plan.outputs if not plan.problems else ():
            if rel in owners:
                diagnostics.append(pipeline.duplicate(f"file {rel}", owners[rel], plan.path))
            owners[rel] = plan.path
        files_out += len(plan.outputs)
    diagnostics += pipeline.missing_devices(args.device, _compiled_units(args.device, owners))
    diagnostics += _case_collisions(plans)
    report(diagnostics, args.format)
    code = status(diagnostics, args.strict)
    if code:
        return code
    try:
        tx.commit()
    except OSError as exc:
        print(f"qosc: cannot write to {args.output}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    for plan in plans:
        plan.store.save()
    if not args.quiet:
        pairs = sum(1 for w in work if w[2])
        reused = sum(1 for w in work if w[2] and not w[1].render)
        print(f"qosc: {files_out} files for {pairs} device/target pairs, {changed} changed"
              f"{f' ({reused} pairs unchanged, from the cache)' if reused else ''}, in {args.output}", file=sys.stderr)
    return 0


def _diagnostics(plan: _Plan, unknown: list[Diagnostic]) -> list[Diagnostic]:
    """What pipeline.validate and pipeline.compile_policies report for this policy."""
    found = list(plan.result.diagnostics)
    if plan.result.policy is not None:
        found = sorted(set(found + plan.checks), key=Diagnostic.sort_key)
        if unknown and not plan.skip and not has_errors(found):
            found.extend(unknown)
    return found + plan.problems + pipeline.note_diagnostics(plan.notes)


def _compiled_units(wanted: list[str], owners: dict[str, str]) -> list[str]:
    """The wanted devices some written file belongs to (target/<device>.<suffix> or target/<host>/<file>)."""
    return [name for name in wanted if any(f"/{name}." in p or f"/{name}/" in p for p in owners)]


def _untrusted_caches(plans: list[_Plan]) -> list[Diagnostic]:
    """QOS106 once per cache directory that was refused (the compile went on without it)."""
    found = dict.fromkeys(plan.store.store.untrusted for plan in plans if plan.store.store.untrusted)
    return [warning("QOS106", f"cache directory or file not trusted; cache ignored: {why}", None,
                    "use a cache directory of your own with mode 0700 (--cache-dir, QOSC_CACHE_DIR), or --no-cache")
            for why in found]


def _case_collisions(plans: list[_Plan]) -> list[Diagnostic]:
    """QOS107: two output files whose paths differ only by case (one overwrites the other on such filesystems),
    once per colliding name, at the later device or, when one device's files collide (Linux interfaces eth0
    and ETH0 are two to the kernel), at the later interface."""
    seen: dict[str, str] = {}
    found: dict[tuple[object, ...], Diagnostic] = {}
    for plan in plans:
        for rel in plan.outputs if not plan.problems else ():
            first = seen.setdefault(rel.casefold(), rel)
            if first == rel:
                continue
            unit = plan.origins.get(rel)
            ifaces = [i for i in getattr(unit, "interfaces", ()) if i.name in rel and i.name not in first]
            what, where = (("interfaces", ifaces[0].where.loc) if ifaces else
                           ("devices (or hosts)", getattr(getattr(unit, "where", None), "loc", None)))
            key = (what, where, ifaces[0].name if ifaces else getattr(unit, "name", rel))
            found.setdefault(key, error(
                "QOS107", f"output files {first!r} and {rel!r} differ only by case: on a case-insensitive "
                "filesystem (macOS, Windows) one would overwrite the other", where,
                f"rename one of the {what} so their names differ in more than case"))
    return list(found.values())
