"""qosc equiv A B: do two configurations (same vendor or not) treat traffic the same way?

Each side is PLATFORM:FILE (e.g. junos-mx:before/r1.conf ios-xe:after/r1.cfg); both are read back by their
targets and compared per class: the DSCP-to-queue map of all 64 code points (IPv4 and IPv6), strictness and
priority order, guaranteed shares within rounding, drop curves, policer envelopes, remarking.  Exit 0 when
equivalent, 1 when they differ (or cannot be read), 2 on usage errors.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from qosc.behaviour.compare import Finding, Tolerance
from qosc.behaviour.readback import Read, equiv, read_file, sniff
from qosc.commands._common import report
from qosc.commands.verify import as_diagnostic, finding_json
from qosc.configtext import read_bounded
from qosc.diagnostics import Diagnostic, error, has_errors, json_object
from qosc.errors import InputError


def register(sub: Any) -> argparse.ArgumentParser:
    cmd = sub.add_parser("equiv", help="compare the QoS behaviour of two configurations (any vendors)",
                         description="Read two configurations back and compare what they do with every code point "
                         "and class. Give each as PLATFORM:FILE, or FILE when its platform can be recognised.")
    cmd.add_argument("a", metavar="A")
    cmd.add_argument("b", metavar="B")
    cmd.add_argument("--map", action="append", default=[], metavar="A_IF=B_IF",
                     help="pair an interface of A with a differently named one of B (repeatable)")
    cmd.add_argument("--share-tolerance", type=float, default=Tolerance.share, metavar="POINTS")
    cmd.add_argument("--format", choices=("text", "json", "github"), default="text")
    return cmd


def side(spec: str) -> tuple[Read | None, list[Diagnostic]]:
    """Read one side: PLATFORM:FILE, or FILE recognised by a target."""
    platform, sep, path = spec.partition(":")
    if not sep or "/" in platform:
        path, platform = spec, ""
    if not platform:
        try:
            text = read_bounded(path)
        except InputError as exc:
            return None, exc.diagnostics
        guesses = sniff(text)
        if len(guesses) != 1:
            known = ", ".join(sorted({p for p, _ in guesses})) or "none"
            return None, [error("QOS170", f"cannot tell the platform of {path} (candidates: {known})", None,
                                "write PLATFORM:FILE, e.g. junos-mx:r1.conf")]
        platform = guesses[0][0]
    result = read_file(path, platform)
    return result, list(result.diagnostics)


def run(args: argparse.Namespace) -> int:
    mapping = {}
    for item in args.map:
        a, sep, b = item.partition("=")
        if not sep or not a or not b:
            print(f"qosc equiv: --map takes A_IF=B_IF, not {item!r}", file=sys.stderr)
            return 2
        mapping[a] = b
    a, diags_a = side(args.a)
    b, diags_b = side(args.b)
    diagnostics = diags_a + diags_b
    findings: list[Finding] = []
    if a is not None and b is not None:
        findings, problems = equiv(a, b, mapping, Tolerance(share=args.share_tolerance))
        diagnostics += problems
    drift = [as_diagnostic(f, "QOS177") for f in findings]
    compared = a is not None and b is not None and a.behaviour is not None and b.behaviour is not None
    errors = has_errors(diagnostics)
    if args.format == "json":
        print(json.dumps({"a": args.a, "b": args.b, "compared": compared,
                          "equivalent": compared and not findings and not errors,
                          "findings": [finding_json(f) for f in findings],
                          "diagnostics": [json_object(d) for d in diagnostics]}, indent=2))
    else:
        report(diagnostics + drift, args.format)
        if args.format == "text":
            print(f"qosc equiv: {args.a} vs {args.b}: {_state(args, a, b, findings, errors)}", file=sys.stderr)
    return 1 if findings or errors or not compared else 0


def _state(args: argparse.Namespace, a: Read | None, b: Read | None, findings: list[Finding], errors: bool) -> str:
    """The verdict, never to be read as equivalence when a side could not be read or an error stands."""
    unread = [spec for spec, side in ((args.a, a), (args.b, b)) if side is None or side.behaviour is None]
    if unread:
        return f"not compared: {' and '.join(unread)} could not be read (the errors are above)"
    if errors:
        return f"not equivalent: {len(findings)} difference(s), and errors above (interfaces not compared)"
    return "equivalent" if not findings else f"not equivalent: {len(findings)} difference(s)"
