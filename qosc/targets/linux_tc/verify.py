"""linux-tc verification (the target's `verify`, run only on request: `qosc compile --verify`, the tests):
apply each rendered batch with the real tc on a veth in a scratch netns.

What the batch may say is the grammar's business (grammar.py, checked on
every compile, on any machine); this step asks this machine's kernel.

One ``unshare --net`` process per check: it creates a veth (named qosc0; the
batch's device names are rewritten to it, as the generated device script
rewrites them to the real interface) inside a fresh network namespace, runs ``tc -force -batch``
on the batch (so every line is tried and each failure is reported with its
line number), probes the action kinds the batch uses one by one, and exits;
the namespace dies with the process, so nothing is left behind even if the
check is killed, and any number of checks can run in parallel.  Interfaces with the same
settings get the same batch but for their name, so a process checks each
distinct batch once (a large network has a few hundred, not tens of thousands).

A failed line is "not exercised" when the kernel refused it for a kind it
cannot load (an unknown qdisc, action or classifier; this project's kernels
have no police, pedit, csum, red, fq_codel, mpls, skbedit...).  tc has parsed such a line
before the kernel refused it, so its syntax was still checked.  Any other
failure (a parse error, a bad parent, a wrong class id) is a qosc bug and
raises SelfCheckError.  Without root and without user namespaces the check
reports "not exercised: no netns" -- except under CI, where it must run.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from qosc.errors import TargetBug as SelfCheckError
from qosc.errors import VerificationUnavailable

MISSING_KIND = (
    "Specified qdisc kind is unknown", "Failed to load TC action module", "TC classifier not found",
    "Unknown qdisc", "Unknown action", "Action not found", "Unknown filter", "Operation not supported",
)  # fmt: skip
PROBES = {
    "police": "police rate 1mbit burst 10000 conform-exceed drop/ok",
    "pedit": "pedit ex munge ip dsfield set 0x20 retain 0xfc pass",
    "csum": "csum ip4h pass",
    "gact": "gact pass",
    "mirred": "mirred egress mirror dev {peer}",
    "skbedit": "skbedit priority 1:1 pass",
    "mpls": "mpls modify tc 0 pipe",
}
SKIP_VALUE = {"parent", "handle", "classid", "protocol", "prio", "pref", "chain", "estimator", "dev"}
SCRIPT = r"""
set -u
dev=$1 peer=$2 dir=$3
: > "$dir/started"
ip link add "$dev" type veth peer name "$peer" 2> "$dir/link.err" || exit 90
ip link set "$dev" up && ip link set "$peer" up
tc -force -batch "$dir/batch.tc" 2> "$dir/apply.err"
echo $? > "$dir/apply.rc"
tc qdisc add dev "$peer" clsact
tc -force -batch "$dir/probe.tc" > /dev/null 2> "$dir/probe.err"
tc qdisc show dev "$dev" > "$dir/state.txt"
tc class show dev "$dev" >> "$dir/state.txt"
exit 0
"""


@dataclass(frozen=True)
class Skipped:
    line: int
    kinds: tuple[str, ...]
    message: str
    command: str


@dataclass
class Report:
    """What the self-check did with one batch."""

    status: str  # "applied" | "partial" | "no-netns" | "disabled"
    commands: int = 0
    skipped: list[Skipped] = field(default_factory=list)
    reason: str = ""

    @property
    def missing_kinds(self) -> tuple[str, ...]:
        return tuple(sorted({k for s in self.skipped for k in s.kinds}))

    def notes(self) -> list[str]:
        """What the check did, for the compile report (see Output.notes); read-only: reports are shared."""
        if self.status in ("no-netns", "disabled"):
            return [f"self-check: not exercised: {self.reason}"]
        lines = [(f"self-check: tc -batch applied to a veth in a scratch network namespace: "
                  f"{self.commands - len(self.skipped)} of {self.commands} commands loaded")]
        if self.skipped:
            lines.append(f"self-check: not exercised (this kernel cannot load them): {', '.join(self.missing_kinds)}"
                         f"; batch lines {_ranges([s.line for s in self.skipped])}")
        return lines


def _ranges(numbers: list[int]) -> str:
    out: list[tuple[int, int]] = []
    for n in sorted(numbers):
        if out and out[-1][1] == n - 1:
            out[-1] = (out[-1][0], n)
        else:
            out.append((n, n))
    return ", ".join(f"{a}" if a == b else f"{a}-{b}" for a, b in out)


def kinds(command: str) -> tuple[str, tuple[str, ...]]:
    """(qdisc/class/filter kind, action kinds) named by one batch line."""
    tokens = command.split()
    main = ""
    i = 2
    while i < len(tokens):
        tok = tokens[i]
        if tok in SKIP_VALUE:
            i += 2
            continue
        if tok in ("root", "ingress", "egress", "add", "replace", "change"):
            i += 1
            continue
        main = tok
        break
    actions = tuple(tokens[j + 1] for j, t in enumerate(tokens[:-1]) if t == "action")
    return main, actions


def _in_ci() -> bool:
    return os.environ.get("CI", "").lower() not in ("", "0", "false", "no")


def _unshare_commands() -> list[list[str]]:
    if os.geteuid() == 0:
        return [["unshare", "--net"]]
    return [["unshare", "--user", "--map-root-user", "--net"]]


SCRATCH_DEV = "qosc0"


def run(batch: str, dev: str) -> Report:
    """Apply `batch` (whose commands name `dev`) in a scratch namespace and classify every failure."""
    commands = sum(1 for ln in batch.splitlines() if ln.strip())
    if os.environ.get("QOSC_TC_SELFCHECK", "1").lower() in ("0", "off", "no", "false"):
        return Report("disabled", commands, reason="disabled by QOSC_TC_SELFCHECK=0")
    missing_tools = _missing_tools(os.environ.get("PATH", ""))
    if missing_tools:
        return _no_netns(commands, f"no netns ({', '.join(missing_tools)} not found)")
    canonical = batch.replace(f" dev {dev} ", f" dev {SCRATCH_DEV} ")  # (a device the batch names otherwise fails)
    return _check(canonical, tuple(tuple(c) for c in _unshare_commands()), _in_ci())


@lru_cache(maxsize=8)
def _missing_tools(path: str) -> tuple[str, ...]:
    """The tools the check needs that are not on `path` (looked up once per PATH: every render asks)."""
    return tuple(t for t in ("unshare", "ip", "tc") if shutil.which(t, path=path) is None)


@lru_cache(maxsize=1024)
def _check(batch: str, unshare: tuple[tuple[str, ...], ...], in_ci: bool) -> Report:
    """run() of a batch naming SCRATCH_DEV; the arguments after it only key the cache (a failure is not kept)."""
    lines = batch.splitlines()
    commands = sum(1 for ln in lines if ln.strip())
    dev, peer = SCRATCH_DEV, "qoscpeer0"
    action_kinds = sorted({a for ln in lines for a in kinds(ln)[1]} & PROBES.keys())
    with tempfile.TemporaryDirectory(prefix="qosc-tc-check-") as tmp:
        d = Path(tmp)
        (d / "batch.tc").write_text(batch, encoding="utf-8")
        probe = [(f"filter add dev {peer} ingress protocol ip prio {n + 1} u32 match u32 0 0 action "
                  + PROBES[k].format(peer=peer)) for n, k in enumerate(action_kinds)]
        (d / "probe.tc").write_text("".join(p + "\n" for p in probe), encoding="utf-8")
        errors = ""
        for prefix in unshare:
            try:
                proc = subprocess.run([*prefix, "sh", "-c", SCRIPT, "sh", dev, peer, str(d)], capture_output=True,
                                      text=True, timeout=60, check=False)
            except (OSError, subprocess.TimeoutExpired) as exc:
                errors = str(exc)
                continue
            if (d / "started").exists() and proc.returncode == 0 and (d / "apply.rc").exists():
                return _classify(d, lines, commands, action_kinds)
            if (d / "started").exists() and proc.returncode == 90:
                raise SelfCheckError(f"cannot create interface {dev!r} for the self-check: "
                                     f"{(d / 'link.err').read_text().strip()}")
            errors = (proc.stderr or proc.stdout).strip()
        return _no_netns(commands, f"no netns ({errors or 'unshare failed'})")


def _no_netns(commands: int, reason: str) -> Report:
    if _in_ci():
        raise VerificationUnavailable(f"the tc self-check must run in CI but could not: {reason}")
    return Report("no-netns", commands, reason=reason)


def _classify(d: Path, lines: list[str], commands: int, action_kinds: list[str]) -> Report:
    probe_failed = _failed_lines((d / "probe.err").read_text(encoding="utf-8", errors="replace"))
    unavailable = {action_kinds[n - 1] for n in probe_failed if 0 < n <= len(action_kinds)}
    failures = _failed_lines((d / "apply.err").read_text(encoding="utf-8", errors="replace"))
    report = Report("applied", commands)
    problems = []
    for number, message in sorted(failures.items()):
        command = lines[number - 1] if 0 < number <= len(lines) else ""
        main, acts = kinds(command)
        missing: tuple[str, ...] = ()
        if any(p in message for p in MISSING_KIND):
            if ("qdisc kind" in message or "Unknown qdisc" in message or "classifier" in message
                    or "Unknown filter" in message):
                missing = (main,)
            else:
                missing = tuple(a for a in dict.fromkeys(acts) if a in unavailable or a not in PROBES)
        if missing:
            report.skipped.append(Skipped(number, missing, message, command))
        else:
            problems.append(f"line {number}: {command!r}: {message or 'failed'}")
    if problems:
        raise SelfCheckError("tc -batch failed in a scratch namespace: " + "; ".join(problems[:5]))
    if report.skipped:
        report.status = "partial"
    return report


_FAILED = re.compile(r"^Command failed (.*):(\d+)\s*$")


def _failed_lines(stderr: str) -> dict[int, str]:
    """Line number -> tc's error text, from `tc -force -batch` stderr."""
    out: dict[int, str] = {}
    block: list[str] = []
    for raw in stderr.splitlines():
        m = _FAILED.match(raw)
        if m:
            text = " ".join(b.strip() for b in block if b.strip() and not b.startswith("Warning"))
            out[int(m.group(2))] = text
            block = []
        else:
            block.append(raw)
    return out
