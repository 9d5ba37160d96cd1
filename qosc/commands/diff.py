"""qosc diff OLD NEW | qosc diff POLICY --base REV: unified diffs of the generated configuration."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from qosc import diff
from qosc.commands._common import report


def register(sub: Any) -> argparse.ArgumentParser:
    cmd = sub.add_parser(
        "diff", help="diff the configuration two versions of a policy generate",
        description="Compile two versions of a policy for every device and target (in memory, nothing is "
        "written) and print a unified diff per generated file; new and removed devices and files are shown as "
        "such. Either two policy files (OLD NEW), or one policy and --base REV: the same path at a git revision, "
        "includes resolved as they were at that revision. Exit status: 0 no change, 1 changes, 2 error (an "
        "invalid side prints its diagnostics).")
    cmd.add_argument("policies", nargs="+", metavar="POLICY", help="OLD NEW, or one POLICY with --base")
    cmd.add_argument("--base", metavar="REV", help="compare POLICY with the same path at this git revision")
    cmd.add_argument("--target", action="append", default=[], metavar="T", help="only this target (repeatable)")
    cmd.add_argument("--device", action="append", default=[], metavar="D", help="only this device (repeatable)")
    cmd.add_argument("--format", choices=("text", "json", "github"), default="text",
                     help="text: unified diffs (coloured on a terminal unless NO_COLOR is set); json: one "
                     "document; github: workflow notices and collapsed groups")
    cmd.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                     help="colour the text diff (default auto: only when stdout is a terminal and NO_COLOR is unset)")
    return cmd


def _colour(choice: str) -> bool:
    if choice == "always":
        return True
    if choice == "never":
        return False
    return sys.stdout.isatty() and not os.environ.get("NO_COLOR") and os.environ.get("TERM") != "dumb"


def run(args: argparse.Namespace) -> int:
    if args.base is not None:
        if len(args.policies) != 1:
            print("qosc diff: with --base, give exactly one POLICY", file=sys.stderr)
            return 2
        result = diff.diff_base(args.policies[0], args.base, args.target, args.device)
    else:
        if len(args.policies) != 2:
            print("qosc diff: give OLD and NEW policy files, or one POLICY with --base REV", file=sys.stderr)
            return 2
        result = diff.diff_files(args.policies[0], args.policies[1], args.target, args.device)
    if not result.ok:
        failing = [s for s in (result.old, result.new) if not s.ok]
        for side in failing:
            report(side.diagnostics, args.format)
        report(result.errors, args.format)
        names = " and ".join(s.label for s in failing) or "the request"
        if args.format == "text":
            print(f"qosc diff: cannot compare: {names} has errors", file=sys.stderr)
        return 2
    if args.format == "json":
        sys.stdout.write(diff.format_json(result))
    elif args.format == "github":
        sys.stdout.write(diff.format_github(result, args.policies[-1]))
    else:
        for note in result.notes:
            print(f"qosc: {note}", file=sys.stderr)
        sys.stdout.write(diff.format_text(result, _colour(args.color)))
        print(diff.summary(result), file=sys.stderr)
    return 1 if result.changed else 0
