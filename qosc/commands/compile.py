"""qosc compile POLICY... -o DIR: one file per device and target, written atomically."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from qosc import api
from qosc.commands._common import add_report_options, report, status
from qosc.diagnostics import error
from qosc.emit import emit


def register(sub: Any) -> argparse.ArgumentParser:
    cmd = sub.add_parser("compile", help="compile policies into device configurations",
                         description="Validate policies, then write OUTDIR/<target>/<device>.<suffix> for every "
                         "device. Nothing is written unless every policy is free of errors.")
    cmd.add_argument("policies", nargs="+", metavar="POLICY")
    cmd.add_argument("-o", "--output", required=True, metavar="DIR", help="output directory")
    cmd.add_argument("--target", action="append", default=[], metavar="T", help="only this target (repeatable)")
    cmd.add_argument("--device", action="append", default=[], metavar="D", help="only this device (repeatable)")
    cmd.add_argument("-q", "--quiet", action="store_true", help="do not list written files")
    add_report_options(cmd)
    return cmd


def run(args: argparse.Namespace) -> int:
    diagnostics = []
    outputs = []
    owners: dict[str, str] = {}
    for path in args.policies:
        result = api.validate(path)
        known = set(result.policy.device_map) | {h.name for h in result.policy.hosts} if result.policy else set()
        devices = [d for d in args.device if d in known] if args.device else []
        if args.device and result.policy and not devices:
            diagnostics.extend(result.diagnostics)
            continue
        produced = api.compile_policy(result, args.target, devices)
        diagnostics.extend(result.diagnostics)
        for out in produced:
            if out.path in owners:
                diagnostics.append(error("QOS103", f"{path} and {owners[out.path]} both produce {out.path}", None,
                                         "device names must be unique across the compiled policies"))
            owners[out.path] = path
        outputs.extend(produced)
    if args.device:
        found = {o.path for o in outputs}
        for name in args.device:
            if not any(f"/{name}." in p or f"/{name}/" in p for p in found):
                diagnostics.append(error("QOS102", f"device {name} was not compiled (not in any policy, or no target "
                                         "selected serves its platform)", None))
    report(diagnostics, args.format)
    code = status(diagnostics, args.strict)
    if code:
        return code
    try:
        changed = emit(outputs, Path(args.output))
    except OSError as exc:
        print(f"qosc: cannot write to {args.output}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    if not args.quiet:
        units = {(o.path.split("/", 1)[0], o.path.split("/", 2)[1].rsplit(".", 1)[0]) for o in outputs}
        print(f"qosc: {len(outputs)} files for {len(units)} device/target pairs, "
              f"{len(changed)} changed, in {args.output}", file=sys.stderr)
    return 0
