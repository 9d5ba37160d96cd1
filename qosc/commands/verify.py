"""qosc verify POLICY --config DEVICE=FILE...: does each device run what the policy compiles to?

Each configuration is read back by its device's target (parser and
interpreter) and compared with the policy's intent in the policy's own
terms; qosc-owned objects the policy no longer produces are stale.  Exit 0
when every device matches, 1 on drift (or errors), 2 on usage errors.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from qosc import push
from qosc.behaviour.compare import Finding, Tolerance
from qosc.behaviour.readback import Verified, verify
from qosc.commands._common import report
from qosc.diagnostics import Diagnostic, Severity, has_errors, json_object


def register(sub: Any) -> argparse.ArgumentParser:
    cmd = sub.add_parser("verify", help="compare devices' configurations with what a policy compiles to",
                         description="Read each device's configuration back (a file, or --from-device through "
                         "its push driver) and report every difference from the policy, in the policy's terms: "
                         "service X on interface Y: share 5%% expected, 4%% found; DSCP 8 classified to "
                         "best-effort instead of lbe. Exit 0 when every device matches, 1 on drift, 2 on usage "
                         "errors.")
    cmd.add_argument("policy", metavar="POLICY")
    cmd.add_argument("--config", action="append", default=[], metavar="DEVICE=FILE",
                     help="a device's configuration as the device shows it (repeatable)")
    cmd.add_argument("--from-device", action="append", default=[], metavar="DEVICE",
                     help="read the running configuration from the device with its push driver (repeatable)")
    cmd.add_argument("--share-tolerance", type=float, default=Tolerance.share, metavar="POINTS",
                     help=f"percentage points a share may differ by (default {Tolerance.share})")
    cmd.add_argument("--format", choices=("text", "json", "github"), default="text")
    cmd.add_argument("--insecure-lab-skip-hostkey", action="store_true",
                     help="with --from-device: do not verify SSH host keys (labs only)")
    return cmd


def as_diagnostic(f: Finding, code: str, severity: Severity = Severity.ERROR) -> Diagnostic:
    where = f" (configuration: {f.found_at})" if f.found_at else ""
    return Diagnostic(code, severity, f.message + where, f.expected_at, None)


def finding_json(f: Finding) -> dict[str, Any]:
    return {"device": f.device, "interface": f.interface, "subject": f.subject, "what": f.what.rstrip(":"),
            "expected": f.expected, "found": f.found, "message": f.message,
            "policy": str(f.expected_at) if f.expected_at else None,
            "config": str(f.found_at) if f.found_at else None}


def run(args: argparse.Namespace) -> int:
    configs: dict[str, str] = {}
    for item in args.config:
        device, sep, path = item.partition("=")
        if not sep or not device or not path:
            print(f"qosc verify: --config takes DEVICE=FILE, not {item!r}", file=sys.stderr)
            return 2
        configs[device] = path
    if not configs and not args.from_device:
        print("qosc verify: give at least one --config DEVICE=FILE or --from-device DEVICE", file=sys.stderr)
        return 2
    texts: dict[str, str] = {}
    problems: list[Diagnostic] = []
    if args.from_device:
        try:
            push.require("verify")
            from qosc.push.reading import running_configs

            texts, problems = running_configs(args.policy, args.from_device, args.insecure_lab_skip_hostkey)
        except push.NotInstalled as exc:
            print(exc, file=sys.stderr)
            return 2
    result = verify(args.policy, configs, texts, Tolerance(share=args.share_tolerance))
    result.diagnostics[:0] = [p for p in problems if p not in result.diagnostics]  # both validate the policy
    return _report(result, args.format)


def _report(result: Verified, fmt: str) -> int:
    drift = [as_diagnostic(f, "QOS178" if f.what == "stale object:" else "QOS176",
                           Severity.WARNING if f.what == "stale object:" else Severity.ERROR)
             for f in result.findings]
    if fmt == "json":
        print(json.dumps({"devices": result.devices, "drift": any(d.is_error for d in drift),
                          "findings": [finding_json(f) for f in result.findings],
                          "diagnostics": [json_object(d) for d in result.diagnostics]}, indent=2))
    else:
        report(result.diagnostics + drift, fmt)
        if fmt == "text":
            checked = ", ".join(result.devices) or "no device"
            stale = sum(1 for d in drift if not d.is_error)
            state = "drift found" if len(drift) > stale else "matches the policy"
            extra = f", {stale} of them stale object(s)" if stale else ""
            print(f"qosc verify: {checked}: {state} ({len(result.findings)} finding(s){extra})", file=sys.stderr)
    return 1 if has_errors(result.diagnostics) or any(d.is_error for d in drift) else 0
