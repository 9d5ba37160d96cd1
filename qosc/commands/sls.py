"""qosc sls POLICY -o DIR [--service S] [--format md|html]: one SLS document per service."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from qosc import pipeline
from qosc.commands._common import report, status
from qosc.diagnostics import Diagnostic, error
from qosc.emit import emit
from qosc.render import UnsafeValue


def register(sub: Any) -> argparse.ArgumentParser:
    cmd = sub.add_parser(
        "sls", help="write Service Level Specification documents (Markdown or HTML)",
        description="Write one SLS per service (TEQUILA parameters: identity and scope, flow identification, "
        "traffic envelope and conformance test, excess treatment, performance guarantees, schedule, reliability) "
        "to DIR/<service>.md or .html. Declared targets and the bounds qosc derives from the configuration are "
        "kept apart, each bound with its formula. A declared target the configuration cannot support "
        "(QOS160-QOS166) is reported and shown in the document, and the exit status is 1; a policy with other "
        "errors writes nothing.")
    cmd.add_argument("policy", metavar="POLICY")
    cmd.add_argument("-o", "--output", required=True, metavar="DIR", help="output directory")
    cmd.add_argument("--service", action="append", default=[], metavar="S", help="only this service (repeatable)")
    cmd.add_argument("--format", choices=("md", "html"), default="md", help="document format (default md)")
    cmd.add_argument("--strict", action="store_true", help="warnings fail the run too")
    cmd.add_argument("-q", "--quiet", action="store_true", help="do not list written files")
    return cmd


def _sls_code(d: Diagnostic) -> bool:
    return d.code.startswith("QOS16")


def run(args: argparse.Namespace) -> int:
    from qosc.sls.document import services_for
    from qosc.sls.render import outputs

    result = pipeline.validate(args.policy)
    diagnostics = list(result.diagnostics)
    blocking = [d for d in diagnostics if d.is_error and not _sls_code(d)]
    if result.policy is None or blocking:
        report(diagnostics, "text")
        return status(diagnostics, args.strict) or 1
    try:
        services = services_for(result.policy, args.service)
    except KeyError as exc:
        print(f"qosc sls: no service {exc.args[0]} in {args.policy} (services: "
              f"{', '.join(result.policy.service_map)})", file=sys.stderr)
        return 2
    try:
        docs = outputs(result.policy, services, args.format)
    except UnsafeValue as exc:
        diagnostics.append(error("QOS100", f"SLS document: {exc}", None,
                                 "remove control and line-break characters from names and descriptions"))
        report(diagnostics, "text")
        return 1
    report(diagnostics, "text")
    try:
        emit(docs, Path(args.output))
    except (OSError, ValueError) as exc:
        print(f"qosc: cannot write to {args.output}: {getattr(exc, 'strerror', None) or exc}", file=sys.stderr)
        return 2
    if not args.quiet:
        for out in docs:
            print(f"{Path(args.output) / out.path}", file=sys.stderr)
        print(f"qosc: {len(docs)} SLS documents ({args.format}) in {args.output}", file=sys.stderr)
    return status(diagnostics, args.strict)
