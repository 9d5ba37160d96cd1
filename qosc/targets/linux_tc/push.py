"""Linux tc, locally or over SSH (the system `ssh` client): apply the generated batches with the device's script.

Files from the linux-tc target: `<device>/<iface>.tc` (the tc batch of each
interface) and `<device>/qosc-tc.sh` (its `apply IFACE` replaces what qosc
recorded installing on the interface, applies the batch with `tc -batch`,
restores the previous tree on failure).

A device without `address:` in the policy (or with `address: local`) is this
machine; any other address is reached with `ssh` (BatchMode, host key checked
against known_hosts: StrictHostKeyChecking=yes; keys from the agent or
QOSC_SSH_KEY / ssh config).  Each step runs one small `sh -s` program fed on
stdin, so nothing is left behind on the host but the state files below.

State: after a successful apply, the batch and a snapshot of `tc` state are
kept in $QOSC_LINUX_STATE_DIR (default /run/qosc, on tmpfs: gone at reboot,
like tc state).  They make a dry run exact (unchanged when the interface still
holds exactly what qosc applied with the same batch; otherwise the diff of
batches, or the current state and the planned batch) and let a failed apply
roll back to the previous batch.
"""

from __future__ import annotations

import difflib
import hashlib
import shlex
import subprocess

from qosc.push.base import Driver, PushError, RolledBack
from qosc.push.credentials import redact
from qosc.targets.linux_tc.wrapper import SCRIPT

STATE = "${QOSC_LINUX_STATE_DIR:-/run/qosc}"
SHOW = ('for what in "qdisc show" "class show" "filter show" "filter show ingress" "filter show egress"; do '
        'echo "## tc $what dev $DEV"; tc $what dev "$DEV" 2>&1 | sed "s/ direct_packets_stat [0-9]*//"; done')


def _heredoc(name: str, text: str) -> str:
    tag = "QOSC_" + hashlib.sha256(text.encode()).hexdigest()[:16]
    return f"cat > \"$D/{name}\" <<'{tag}'\n{text}{'' if text.endswith(chr(10)) else chr(10)}{tag}\n"


class LinuxDriver(Driver):
    method = "linux-local"

    def __init__(self, job, credentials, options):
        super().__init__(job, credentials, options)
        address = (job.address or "").strip()
        self.remote = address not in ("", "local")
        self.method = "linux-ssh" if self.remote else "linux-local"
        self.ifaces = sorted({f.path.rsplit("/", 1)[-1][:-3] for f in job.files if f.path.endswith(".tc")})
        self.state: dict[str, dict[str, str]] = {}

    def _file(self, name: str) -> str:
        f = self.job.file(f"/{name}") or self.job.file(name)
        if f is None:
            raise PushError("load", f"no {name} generated for {self.job.device}")
        return f.text

    def _sh(self, stage: str, program: str, check: bool = True) -> subprocess.CompletedProcess:
        if self.remote:
            c = self.credentials
            cmd = ["ssh", "-o", "BatchMode=yes", "-o", f"ConnectTimeout={int(self.options.connect_timeout)}",
                   "-p", str(c.port)]
            if c.verify_host_key:
                cmd += ["-o", "StrictHostKeyChecking=yes"]
                if c.known_hosts:
                    cmd += ["-o", f"UserKnownHostsFile={c.known_hosts}"]
            else:
                cmd += ["-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null"]
            if c.ssh_config:
                cmd += ["-F", c.ssh_config]
            if c.key_file:
                cmd += ["-i", c.key_file]
            target = f"{c.username}@{c.host}" if c.username else c.host
            cmd += [target, "sh -s"]
        else:
            cmd = ["sh", "-s"]
        try:
            proc = subprocess.run(cmd, input=program, capture_output=True, text=True,
                                  timeout=self.options.rpc_timeout, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise PushError(stage, f"{stage}: {redact(str(exc))}") from None
        if check and proc.returncode != 0:
            err = (proc.stderr.strip() or proc.stdout.strip() or f"exit status {proc.returncode}").splitlines()
            where = "ssh" if self.remote and proc.returncode == 255 else "sh"
            raise PushError(stage, f"{where} failed on {self.job.device}: {redact(' / '.join(err[-3:]))}")
        return proc

    def open(self) -> None:
        if self.remote and self.credentials.verify_host_key and self.credentials.known_host_key() is None:
            raise PushError("open", self.credentials.unknown_host_message())
        if not self.ifaces:
            raise PushError("open", f"no tc batch generated for {self.job.device}")
        self._sh("open", "command -v tc >/dev/null || { echo 'tc (iproute2) not installed' >&2; exit 1; }")

    def running_config(self) -> str:
        """Read-only (qosc verify --from-device): `tc -j qdisc/class/filter show` of every interface the policy
        gives the device, and its `ip -j -d link show` (a VLAN device's egress-qos-map turns the packet priorities
        the filters set into 802.1p), each after a `## dev NAME` line (the reader's multi-interface dump); nothing
        changes."""
        if not self.ifaces:
            raise PushError("read", f"no tc batch generated for {self.job.device}")
        program = "".join(f"DEV={shlex.quote(iface)}\necho \"## dev $DEV\"\n"
                          "for k in qdisc class filter; do tc -j $k show dev \"$DEV\" || exit 1; echo; done\n"
                          "ip -j -d link show dev \"$DEV\" || exit 1; echo\n"
                          for iface in self.ifaces)
        return self._sh("read", program).stdout

    def _snapshot_program(self, iface: str) -> str:
        return f"DEV={shlex.quote(iface)}\n{SHOW}\n"

    def load(self) -> None:
        """Read the current state and what qosc applied last (nothing changes on the host)."""
        for iface in self.ifaces:
            q = shlex.quote(iface)
            prog = (f"S={STATE}; DEV={q}\n{SHOW}\necho '## qosc previous batch'\n"
                    f"cat \"$S/{self.job.device}.{iface}.tc\" 2>/dev/null\necho '## qosc previous state'\n"
                    f"cat \"$S/{self.job.device}.{iface}.state\" 2>/dev/null\nexit 0\n")
            out = self._sh("load", prog).stdout
            current, _, rest = out.partition("## qosc previous batch\n")
            previous, _, saved = rest.partition("## qosc previous state\n")
            self.state[iface] = {"current": current, "previous": previous, "saved": saved,
                                 "batch": self._file(f"{iface}.tc"), "script": self._file(SCRIPT)}

    def compare(self) -> str:
        parts = []
        for iface, st in self.state.items():
            if st["previous"] == st["batch"] and st["saved"] == st["current"]:
                continue
            if st["previous"] and st["saved"] == st["current"]:
                parts.append("".join(difflib.unified_diff(st["previous"].splitlines(True), st["batch"].splitlines(
                    True), f"{self.job.device} {iface}: applied by qosc", f"{self.job.device} {iface}: planned")))
            else:
                parts.append(f"# {self.job.device} {iface}: current tc state\n{st['current']}"
                             f"# {self.job.device} {iface}: planned batch ({iface}.tc)\n{st['batch']}")
        return "".join(parts)

    def _apply_program(self, iface: str, batch: str, script: str, record: bool) -> str:
        q = shlex.quote(iface)
        prog = ("set -u\nD=$(mktemp -d) || exit 2\ntrap 'rm -rf \"$D\"' EXIT\n" + _heredoc(f"{iface}.tc", batch)
                + _heredoc(SCRIPT, script)
                + f"QOSC_BATCH=\"$D/{iface}.tc\" sh \"$D/{SCRIPT}\" apply {q} {q} || exit $?\n")
        if record:
            prog += (f"S={STATE}; mkdir -p \"$S\" && cp \"$D/{iface}.tc\" \"$S/{self.job.device}.{iface}.tc\" && "
                     f"{{ DEV={q}; {SHOW}; }} > \"$S/{self.job.device}.{iface}.state\"\n")
        return prog

    def commit(self, confirm_timeout: int) -> None:
        self.notes.append("Linux tc: no confirmed commit; a failed apply restores the previously applied batch")
        done: list[str] = []
        for iface, st in self.state.items():
            try:
                self._sh("commit", self._apply_program(iface, st["batch"], st["script"], record=True))
            except PushError as exc:
                restored = self._restore(done + [iface])
                if restored:
                    raise RolledBack("commit", f"{exc}; {restored}") from None
                raise
            done.append(iface)

    def _restore(self, ifaces: list[str]) -> str:
        back = []
        for iface in ifaces:
            st = self.state[iface]
            if st["previous"]:
                self._sh("rollback", self._apply_program(iface, st["previous"], st["script"], record=True))
                back.append(iface)
        return f"previous batch re-applied on {', '.join(back)}" if back else ""

    def verify(self) -> None:
        for iface in self.state:
            after = self._sh("verify", self._snapshot_program(iface)).stdout
            if "qdisc" not in after:
                raise PushError("verify", f"no qdisc on {iface} after the apply")

    def confirm(self) -> None:
        """Nothing to confirm: tc changes take effect when applied."""

    def discard(self) -> None:
        """Nothing was staged on the host."""

    def rollback(self) -> None:
        if not self._restore(list(self.state)):
            self.notes.append("no previously applied batch recorded: nothing to roll back to")

    def close(self) -> None:
        """No session to close (one ssh per step)."""
