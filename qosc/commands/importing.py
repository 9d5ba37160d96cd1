"""qosc import CONFIG... -o policy.yaml: lift devices' QoS configurations into one qosc policy.

Each CONFIG is [PLATFORM:]FILE (the device is named after the file, or
PLATFORM:FILE@DEVICE).  The configurations are read back by their targets
and lifted together (qosc.behaviour.lift): services shared by code points,
queue settings, drop profiles, policers, classifiers, interface roles.
Every statement the policy language cannot represent, every ambiguity and
every semantic problem found on the way (dangling references, overlapping
classifiers) is reported at its configuration line; the written policy is
then validated like any other, and what its checks find in an imported
service, interface, drop profile or policer (shares above 100%, LBE not
below best effort) is reported again at the configuration line it came from.  Exit 0 when a policy was written (warnings
allowed), 1 when a configuration could not be read or the policy has errors,
2 on usage errors (two configurations under one device name: QOS187, nothing
written).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import yaml

from qosc import pipeline
from qosc.atomicfile import write_atomic
from qosc.behaviour.lift import lift
from qosc.behaviour.model import Device
from qosc.commands._common import add_report_options, report
from qosc.commands.equiv import side
from qosc.diagnostics import Diagnostic, Location, error, has_errors


def register(sub: Any) -> argparse.ArgumentParser:
    cmd = sub.add_parser("import", help="lift devices' QoS configurations into a qosc policy",
                         description="Read configurations back (CONFIG is [PLATFORM:]FILE[@DEVICE]) and write one "
                         "policy with shared services; report, at its configuration line, everything the policy "
                         "language cannot represent or that is ambiguous.")
    cmd.add_argument("configs", nargs="+", metavar="CONFIG")
    cmd.add_argument("-o", "--output", required=True, metavar="POLICY", help="the policy file to write")
    cmd.add_argument("--name", default=None, help="name of the policy (default: the output file's stem)")
    add_report_options(cmd)
    return cmd


def run(args: argparse.Namespace) -> int:
    diagnostics: list[Diagnostic] = []
    devices: list[Device] = []
    named: dict[str, str] = {}  # device name, case folded -> the configuration given it first
    twice = []
    for spec in args.configs:
        path_spec, at, device = spec.rpartition("@")
        if not at:
            path_spec, device = spec, ""
        read, found = side(path_spec)
        diagnostics += found
        if read is None or read.behaviour is None:
            continue
        behaviour = read.behaviour
        if device:
            behaviour = replace(behaviour, name=device)
        first = named.setdefault(behaviour.name.casefold(), spec)
        if first != spec:
            twice.append(error(
                "QOS187", f"import: configurations {first!r} and {spec!r} are both device {behaviour.name!r}"
                f"{'' if behaviour.name in (d.name for d in devices) else ' (names differing only by case)'}; "
                "one policy holds one device of a name", Location(read.source, 1, 1),
                "give each configuration its own device name: [PLATFORM:]FILE@DEVICE"))
        devices.append(behaviour)
    if twice:  # a usage error: nothing is written
        report(diagnostics + twice, args.format)
        return 2
    if has_errors(diagnostics) or not devices:
        report(diagnostics, args.format)
        return 1
    out = Path(args.output)
    lifted = lift(devices, args.name or out.stem)
    diagnostics += lifted.diagnostics
    text = header(args.configs) + yaml.safe_dump(lifted.policy, sort_keys=False, allow_unicode=True)
    try:
        write_atomic(out, text)
    except OSError as exc:
        print(f"qosc import: cannot write {out}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    checked = pipeline.validate(out)
    diagnostics += checked.diagnostics + lifted.relocate(checked.diagnostics, text, str(out))
    report(diagnostics, args.format)
    print(f"qosc import: {len(devices)} device(s) into {out}: {len(lifted.policy['services'])} services",
          file=sys.stderr)
    return 1 if has_errors(checked.diagnostics, args.strict) else 0


def header(configs: list[str]) -> str:
    """The policy's first line, naming the configurations as given: one comment line whatever their names."""
    return "# Imported by qosc from " + ", ".join(_literal(c) for c in configs) + "\n"


def _literal(text: str) -> str:
    """`text` as a double-quoted string literal (Python's escapes) holding only printable characters.

    No name can end the comment or the line: newlines, the other YAML line breaks (CR, NEL, U+2028/9), other
    control and format characters (bidi overrides) and the surrogates a name that is not UTF-8 decodes to are
    written as escapes, so a reader (and `eval`) gets the name back exactly.
    """
    out = []
    for ch in text:
        if ch in '\\"':
            out.append("\\" + ch)
        elif ch.isprintable():
            out.append(ch)
        else:
            code = ord(ch)
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else
                       f"\\U{code:08x}")
    return '"' + "".join(out) + '"'
