"""qosc validate POLICY...: load, schema-check, build and check; print every diagnostic."""

from __future__ import annotations

import argparse
from typing import Any

from qosc import pipeline
from qosc.commands._common import add_report_options, report, status


def register(sub: Any) -> argparse.ArgumentParser:
    cmd = sub.add_parser("validate", help="check policies and print diagnostics",
                         description="Check policies: YAML, schema, references, DSCP, capacity, LBE protection, "
                         "policers, drop profiles, roles and platform limits.")
    cmd.add_argument("policies", nargs="+", metavar="POLICY")
    add_report_options(cmd)
    return cmd


def run(args: argparse.Namespace) -> int:
    diagnostics = []
    for path in args.policies:
        diagnostics.extend(pipeline.validate(path).diagnostics)
    report(diagnostics, args.format)
    return status(diagnostics, args.strict)
