"""qosc push POLICY...: load, compare, then (with --commit) commit, verify, confirm -- or roll back.

Without --commit it is a dry run: every device is reached, the change is
staged and the device's own diff is printed, then discarded.  Nothing changes
on a device unless --commit is given.  Exit status: 0 every device unchanged
or changed, 1 any device failed, was rolled back or is unknown (its state could
not be read back after a lost reply), or the policy has errors, 2 usage or I/O
error, or the `push` extra is not installed (what to install is said).

Credentials come from the environment, the SSH agent or ssh config (see
qosc/push/credentials.py: QOSC_USER, QOSC_PASSWORD, QOSC_PORT_<DEVICE>, ...),
never from the policy, and are never printed.
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path
from typing import Any

from qosc import push
from qosc.commands._common import report as report_diagnostics
from qosc.commands._common import status
from qosc.diagnostics import has_errors

LOUD = ("WARNING: --insecure-lab-skip-hostkey: SSH host keys are NOT verified. Anyone on the path can pose as "
        "these devices and read the credentials. Use this in a closed lab only, never in production.")


ENVIRONMENT = """\
environment (DEVICE = the device name in upper case, other characters than letters and digits as _):
  QOSC_USER[_DEVICE]            login name (else ssh config User, else $USER)
  QOSC_PASSWORD[_DEVICE]        password, tried after the SSH agent and keys; never printed
  QOSC_ENABLE_SECRET[_DEVICE]   IOS enable secret (default: the password)
  QOSC_PORT[_DEVICE]            port (default 830 NETCONF, 22 SSH; else ssh config Port)
  QOSC_SSH_KEY[_DEVICE]         private key file (else ssh config IdentityFile, agent)
  QOSC_SSH_CONFIG               ssh config file (default ~/.ssh/config)
  QOSC_KNOWN_HOSTS              known_hosts file (default ssh config UserKnownHostsFile, ~/.ssh/known_hosts)
  QOSC_LINUX_STATE_DIR          where a Linux host keeps qosc's last applied batch (default /run/qosc)
The device is reached at its policy `address:` (else ssh config HostName, else its name); a Linux
device without an address is this machine.
"""


def register(sub: Any) -> argparse.ArgumentParser:
    cmd = sub.add_parser("push", help="push compiled configuration to devices (dry run unless --commit)",
                         description="Push the compiled configuration of every device: JUNOS over NETCONF, IOS "
                         "over SSH, Linux tc locally or over SSH.  Without --commit: a dry run that shows each "
                         "device's diff and changes nothing.  Credentials: QOSC_USER, QOSC_PASSWORD, "
                         "QOSC_PORT_<DEVICE>, QOSC_SSH_KEY, QOSC_KNOWN_HOSTS, the SSH agent or ssh config.",
                         epilog=ENVIRONMENT, formatter_class=argparse.RawDescriptionHelpFormatter)
    cmd.add_argument("policies", nargs="+", metavar="POLICY")
    cmd.add_argument("--device", action="append", default=[], metavar="D", help="only this device (repeatable)")
    cmd.add_argument("--commit", action="store_true", help="really change the devices (default: dry run)")
    cmd.add_argument("--confirm-timeout", type=int, default=120, metavar="SECONDS",
                     help="confirmed-commit timeout: the device reverts by itself unless qosc confirms in time "
                     "(default 120; JUNOS rounds up to minutes)")
    cmd.add_argument("--rpc-timeout", type=float, default=10.0, metavar="SECONDS",
                     help="deadline for each request's reply: past it the session is declared dead and the outcome "
                     "is read back from the device over a new session (default 10; raise it for slow commits)")
    cmd.add_argument("--workers", type=int, default=4, metavar="N", help="devices pushed in parallel (default 4)")
    cmd.add_argument("--report", metavar="FILE", help="write a JSON report of every device's result")
    cmd.add_argument("--insecure-lab-skip-hostkey", action="store_true",
                     help="LAB ONLY: do not verify SSH host keys against known_hosts")
    cmd.add_argument("--format", choices=("text", "json", "github"), default="text",
                     help="diagnostics format (default text)")
    cmd.add_argument("-q", "--quiet", action="store_true", help="no progress lines, no diffs")
    return cmd


def run(args: argparse.Namespace) -> int:
    try:
        push.require("push")
    except push.NotInstalled as exc:
        print(exc, file=sys.stderr)
        return 2
    from qosc.push import runner  # keeps the CLI usable without the push libraries installed

    for name in ("paramiko", "ncclient", "netmiko"):  # their tracebacks and socket chatter are not the report
        logging.getLogger(name).setLevel(logging.CRITICAL)

    if args.workers < 1 or args.confirm_timeout < 1 or not 0 < args.rpc_timeout <= 3600:
        print("qosc push: --workers and --confirm-timeout must be at least 1, --rpc-timeout within 0..3600 "
              "seconds", file=sys.stderr)
        return 2
    jobs, diagnostics = runner.plan(args.policies, args.device)
    report_diagnostics(diagnostics, args.format)
    if has_errors(diagnostics):
        return status(diagnostics, False)  # 2 when a policy could not be read at all
    if not jobs:
        print("qosc push: no device to push (no target with a push driver)", file=sys.stderr)
        return 0
    try:
        push.require("push", jobs)
    except push.NotInstalled as exc:
        print(exc, file=sys.stderr)
        return 2
    options = runner.Options(commit=args.commit, confirm_timeout=args.confirm_timeout, workers=args.workers,
                             rpc_timeout=args.rpc_timeout,
                             insecure_skip_hostkey=args.insecure_lab_skip_hostkey, progress=not args.quiet)
    if options.insecure_skip_hostkey:
        print(LOUD, file=sys.stderr)
    mode = "commit" if args.commit else "dry run (nothing will change; --commit to apply)"
    print(f"qosc push: {len(jobs)} devices, {mode}, {options.workers} workers", file=sys.stderr)
    results = runner.run(jobs, options)
    if not args.quiet:
        for r in results:
            if r.diff:
                print(f"--- {r.device} ({r.target}) diff ---")
                sys.stdout.write(r.diff if r.diff.endswith("\n") else r.diff + "\n")
    sys.stdout.write(runner.table(results))
    if options.insecure_skip_hostkey:
        print(LOUD, file=sys.stderr)
    if args.report:
        try:
            Path(args.report).write_text(runner.report(results, options, args.policies), encoding="utf-8")
        except OSError as exc:
            print(f"qosc push: cannot write {args.report}: {exc.strerror or exc}", file=sys.stderr)
            return 2
    return 1 if runner.failed(results) else 0
