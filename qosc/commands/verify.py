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
from qosc.behaviour.ownership import OTHERS, STALE, UNSURE
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


_OWNED = {STALE: ("QOS178", Severity.WARNING), UNSURE: ("QOS178", Severity.WARNING),
          OTHERS: ("QOS205", Severity.INFO)}


def _diagnostic(f: Finding) -> Diagnostic:
    code, severity = _OWNED.get(f.what, ("QOS176", Severity.ERROR))
    d = as_diagnostic(f, code, severity)
    if f.what == UNSURE:
        return Diagnostic(d.code, d.severity, d.message + ": the policy's compile does not make it, and qosc cannot "
                          "tell whether an older push or someone else made it", d.location, d.hint)
    if f.what == OTHERS:
        return Diagnostic(d.code, d.severity, d.message + ": none of the objects the policy compiles to is on the "
                          "device, so qosc has not configured it (a takeover): this object is someone else's, not "
                          "stale", d.location, "the first push replaces it with the policy's own")
    return d


def _report(result: Verified, fmt: str) -> int:
    drift = [_diagnostic(f) for f in result.findings]
    errors = has_errors(result.diagnostics)
    if fmt == "json":
        print(json.dumps({"devices": result.devices, "verified": bool(result.devices) and not errors,
                          "drift": any(d.is_error for d in drift) if result.devices else None,
                          "not_verified": result.unread,
                          "ownership": result.ownership,
                          "findings": [finding_json(f) for f in result.findings],
                          "diagnostics": [json_object(d) for d in result.diagnostics]}, indent=2))
    else:
        report(result.diagnostics + drift, fmt)
        if fmt == "text":
            print(f"qosc verify: {_summary(result, drift, errors)}", file=sys.stderr)
    return 1 if errors or any(d.is_error for d in drift) else 0


def _summary(result: Verified, drift: list[Diagnostic], errors: bool) -> str:
    """One line that cannot be read as success when something could not be verified."""
    if result.invalid:
        return "not verified: the policy does not validate (its errors are above)"
    if not result.devices:
        return "not verified: no device's configuration could be read (the errors are above)"
    count = {what: sum(1 for f in result.findings if f.what == what) for what in (STALE, UNSURE, OTHERS)}
    state = "drift found" if any(d.is_error for d in drift) else "matches the policy"
    parts = [f"{len(result.findings)} finding(s)"]
    if count[STALE]:
        parts.append(f"{count[STALE]} of them stale object(s)")
    if count[UNSURE]:
        parts.append(f"{count[UNSURE]} of them stale or someone else's (qosc cannot tell)")
    if count[OTHERS]:
        parts.append(f"{count[OTHERS]} of them someone else's (takeover: qosc has not configured the device)")
    line = f"{', '.join(result.devices)}: {state} ({', '.join(parts)})"
    if result.unread:
        line += f"; not verified: {', '.join(result.unread)} (could not be read)"
    return line + ("; errors above" if errors else "")
