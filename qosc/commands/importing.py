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
below best effort) is reported again at the configuration line it came from.

The policy is checked before it is written, with the policy's own checks
(qosc.behaviour.reconcile.settle): what would make it invalid is left out
and named at its configuration line (QOS172), so import never writes a
policy `qosc validate` refuses; an interface left out whole is lifted again
without (reconcile.lift_settled), so nothing in the policy comes from it.  Every QoS object the readers saw is lifted
or named (QOS172), and QOS202 states the count: seen = lifted + named.
Exit 0 when a policy was written (warnings allowed); 3 when there is nothing
to lift (the configurations apply no QoS qosc reads: QOS201, nothing
written); 1 when a configuration could not be read, or no valid policy can be
lifted from what they apply (QOS203, nothing written); 2 on usage or I/O
errors (two configurations under one device name: QOS187, nothing written).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from qosc.atomicfile import write_atomic
from qosc.behaviour.model import Device
from qosc.behaviour.reconcile import lift_settled, reconcile, relocate
from qosc.commands._common import add_report_options, report
from qosc.commands.equiv import side
from qosc.diagnostics import Diagnostic, Location, Severity, error, has_errors

NOTHING = 3
"""Exit status of an import that found nothing to lift (no QoS applied): no policy written."""


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
        return 2 if any(d.io for d in diagnostics) else 1
    out = Path(args.output)
    lifted, settled = lift_settled(devices, args.name or out.stem, str(out), header(args.configs))
    diagnostics += lifted.diagnostics
    diagnostics += settled.diagnostics
    counted = reconcile(devices, lifted, diagnostics, ", ".join(args.configs))
    diagnostics += counted.diagnostics
    tally = f"{counted.seen} QoS object(s) seen = {counted.lifted} lifted + {counted.named} named as not lifted"
    if settled.text is None:
        if counted.lifted == 0 and counted.clean_nothing and not has_errors(settled.diagnostics):
            diagnostics.append(Diagnostic("QOS201", Severity.INFO, "nothing to lift: the configuration applies no "
                                          f"QoS qosc reads ({tally}); no policy written", None))
            report(diagnostics, args.format)
            print(f"qosc import: nothing to lift from {', '.join(args.configs)}: no policy written ({tally})",
                  file=sys.stderr)
            return NOTHING
        diagnostics.append(error("QOS203", "nothing written: no valid policy can be lifted from what the "
                                 f"configuration applies ({tally}; each is named above)", None,
                                 "write the policy by hand from the objects named, or import more devices"))
        report(diagnostics, args.format)
        print(f"qosc import: no policy written ({tally})", file=sys.stderr)
        return 1
    try:
        write_atomic(out, settled.text)
    except OSError as exc:
        print(f"qosc import: cannot write {out}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    diagnostics += settled.checked + relocate(lifted, settled.checked, settled.text, str(out))
    report(diagnostics, args.format)
    services = len(lifted.policy["services"])
    interfaces = sum(len(d["interfaces"]) for d in lifted.policy["devices"].values())
    print(f"qosc import: {len(devices)} device(s) into {out}: {services} service(s), {interfaces} interface(s); "
          f"{tally}", file=sys.stderr)
    return 1 if has_errors(diagnostics, args.strict) else 0


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
