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
from functools import partial
from pathlib import Path
from typing import Any

from qosc import cache, pipeline, server
from qosc.commands._common import add_report_options, report, status
from qosc.diagnostics import Diagnostic, error, warning
from qosc.emit import Transaction, UntrustedState


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
    cmd.add_argument("--no-server", action="store_true",
                     help="compile in this process even if a compile server (qosc serve) listens for the cache "
                     "directory")
    cmd.add_argument("-q", "--quiet", action="store_true", help="do not list written files")
    add_report_options(cmd)
    return cmd


def run(args: argparse.Namespace) -> int:
    # The model of a large network is millions of long-lived objects: collecting
    # them again and again while they are built costs more than building them.
    enabled = gc.isenabled()
    gc.disable()
    stores: list[cache.PolicyCache] = []
    try:
        return _run(args, stores)
    finally:
        for store in stores:
            store.close()
        gc.unfreeze()
        if enabled:
            gc.enable()


def _run(args: argparse.Namespace, stores: list[cache.PolicyCache]) -> int:
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
        return _compile(args, stores, tx)


def _compile(args: argparse.Namespace, stores: list[cache.PolicyCache], tx: Transaction) -> int:
    cache_dir = None if args.no_cache else Path(args.cache_dir) if args.cache_dir else cache.default_dir()

    def memo(path: str) -> cache.PolicyCache:
        store = cache.PolicyCache(path, args.output, cache_dir, args.jobs, args.verify)
        store.watch(background=args.jobs != 1)  # check the cached outputs on another CPU meanwhile
        stores.append(store)
        return store

    def validated() -> None:
        gc.freeze()  # the models are read-only from here on (and the workers inherit them)
        gc.enable()  # (only objects made from here on are collected)

    try:
        done = pipeline.run(args.policies, args.target, args.device, args.jobs, args.verify, sink=tx, memo=memo,
                            before_units=validated)
    except OSError as exc:  # staging a file failed: everything staged is removed on the way out
        print(f"qosc: cannot write to {args.output}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    diagnostics = _untrusted_caches(stores) + done.diagnostics + _case_collisions(done.runs)
    report(diagnostics, args.format)
    code = status(diagnostics, args.strict)
    if code:
        return code
    if server.abandoned():  # a compile server's client was interrupted: nothing is published, as in its process
        print("qosc: interrupted", file=sys.stderr)
        return 130
    try:
        tx.commit()
    except OSError as exc:
        print(f"qosc: cannot write to {args.output}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    for store in stores:
        save = partial(store.save, tx.touched)
        server.after_answer(save) if server.serving else save()  # a server answers first (qosc.server)
    if not args.quiet:
        print(f"qosc: {done.files} files for {done.pairs} device/target pairs, {done.changed} changed"
              f"{f' ({done.reused} pairs unchanged, from the cache)' if done.reused else ''}, in {args.output}",
              file=sys.stderr)
    return 0


def _untrusted_caches(stores: list[cache.PolicyCache]) -> list[Diagnostic]:
    """QOS106 once per cache directory that was refused (the compile went on without it)."""
    found = dict.fromkeys(s.store.untrusted for s in stores if s.store.untrusted)
    return [warning("QOS106", f"cache directory or file not trusted; cache ignored: {why}", None,
                    "use a cache directory of your own with mode 0700 (--cache-dir, QOSC_CACHE_DIR), or --no-cache")
            for why in found]


def _case_collisions(plans: list[pipeline.PolicyRun]) -> list[Diagnostic]:
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
