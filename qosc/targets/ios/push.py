"""Cisco IOS (ios-mqc, catalyst6500) over SSH with netmiko: diff the qosc-owned sections, apply only the difference.

    open     connect (host key checked against known_hosts), enable
    load     read `show running-config`; parse it and the compiled config with ciscoconfparse2;
             plan the commands that turn the owned sections into the compiled ones
    compare  the plan, as a diff ('' when the device already matches)
    commit   save a rollback copy on the device (copy running-config flash:qosc-rollback.cfg),
             apply the plan with error-pattern detection; on any error: leave config mode,
             `configure replace flash:qosc-rollback.cfg force`, report "rolled back"
    verify   re-read the running config: the plan must now be empty
    confirm  copy running-config startup-config (only after success)

Owned sections: every top-level block and global line of the compiled config
(ACLs, class-maps, policy-maps, `mls qos` lines) and, inside the interfaces
it configures, the QoS lines (service-policy, mls qos, wrr-queue,
priority-queue, rcv-queue, queue-set, max-reserved-bandwidth).  Lines of an
owned block that the compiled config does not have are removed (`no ...`);
other configuration is never touched.  `!` comment lines are not sent (IOS
drops them).  IOS has no confirmed commit in this flow: --confirm-timeout
does not apply; the rollback copy plays that part.

A session that dies (a request without its answer, the SSH session gone) is
not used for the rollback: the outcome is read back over a new session
(settle): the running configuration is read; after a lost save to startup,
a running configuration that holds the change is saved again (committed);
after a lost apply or verify, the rollback copy is restored unless nothing was
applied (rolled back / not committed).  A device that cannot be reached is
reported unknown.
"""

from __future__ import annotations

import re

from qosc.push.base import COMMITTED, NOT_COMMITTED, ROLLED_BACK, UNKNOWN, Driver, PushError, RolledBack
from qosc.push.cli import CliSession, open_cli
from qosc.push.credentials import redact

ROLLBACK_FILE = "flash:qosc-rollback.cfg"
ERROR_PATTERN = (r"% ?Invalid input|% ?Incomplete command|% ?Ambiguous command|% ?Unknown command|"
                 r"% ?Unrecognized command|%Error|% ?Error|% ?\S[^\n]*(not allowed|failed|in use|does not exist)")
IF_OWNED = ("service-policy", "mls qos", "wrr-queue", "priority-queue", "rcv-queue", "queue-set",
            "max-reserved-bandwidth")


def _clean(text: str) -> list[str]:
    """Configuration lines without comments, `end`, and show-run preamble."""
    lines = []
    for raw in text.splitlines():
        stripped = raw.strip()
        if not stripped or stripped.startswith(("!", "Current configuration")) \
                or stripped in ("end", "Building configuration..."):
            continue
        lines.append(raw.rstrip())
    return lines


class Tree:
    """A config block: its line and children, built with ciscoconfparse2."""

    def __init__(self, line: str, children: list[Tree]):
        self.line = line
        self.children = children

    @classmethod
    def parse(cls, text: str) -> list[Tree]:
        from ciscoconfparse2 import CiscoConfParse
        parsed = CiscoConfParse(_clean(text), syntax="ios", ignore_blank_lines=True)

        def build(obj) -> Tree:
            return cls(obj.text.strip(), [build(c) for c in obj.children])

        return [build(obj) for obj in parsed.objs if obj.parent is obj or getattr(obj, "indent", 0) == 0]

    def find(self, line: str) -> Tree | None:
        return next((c for c in self.children if c.line == line), None)


def _flatten(node: Tree) -> list[str]:
    out = [node.line]
    for child in node.children:
        out += _flatten(child)
    if node.children:
        out.append("exit")
    return out


def _diff_children(running: Tree, compiled: Tree, interface: bool) -> list[str]:
    wanted = {c.line for c in compiled.children}
    cmds = [f"no {r.line}" for r in running.children
            if r.line not in wanted and (not interface or r.line.startswith(IF_OWNED))]
    for c in compiled.children:
        r = running.find(c.line)
        if r is None:
            cmds += _flatten(c)
        elif c.children:
            sub = _diff_children(r, c, False)
            if sub:
                cmds += [c.line, *sub, "exit"]
    return cmds


def plan(running_text: str, compiled_text: str) -> list[str]:
    """The commands (in config mode) that make the owned sections of running equal the compiled ones."""
    running = Tree("", Tree.parse(running_text))
    cmds: list[str] = []
    for c in Tree.parse(compiled_text):
        r = running.find(c.line)
        if r is None:
            cmds += _flatten(c)
        elif c.children or r.children:
            sub = _diff_children(r, c, c.line.startswith("interface "))
            if sub:
                cmds += [c.line, *sub, "exit"]
    return cmds


def as_diff(cmds: list[str]) -> str:
    """The plan as a readable diff: '+' adds, '-' removes, indented by mode depth."""
    out, depth = [], 0
    for cmd in cmds:
        if cmd == "exit":
            depth = max(0, depth - 1)
            continue
        sign = "-" if cmd.startswith("no ") else "+"
        out.append(f"{sign} {' ' * depth}{cmd[3:] if sign == '-' else cmd}")
        if re.match(r"(class-map|policy-map|interface|ip access-list|ipv6 access-list|class) ", cmd):
            depth += 1
    return "\n".join(out) + ("\n" if out else "")


class IosDriver(CliSession, Driver):
    method = "ios-cli"
    reads_back = True

    def __init__(self, job, credentials, options):
        super().__init__(job, credentials, options)
        self.conn = None
        self.compiled = ""
        self.running = ""
        self.cmds: list[str] = []
        self.saved = False

    def _check(self, stage: str, output: str) -> str:
        if re.search(ERROR_PATTERN, output):
            line = next((ln for ln in output.splitlines() if "%" in ln), output.strip()[:200])
            raise PushError(stage, f"device said: {redact(line.strip())}")
        return output

    def _send(self, stage: str, command: str, answers: int = 0) -> str:
        """A privileged exec command; up to `answers` confirmation prompts are answered with Enter."""
        until = r"(\?\s*$|\[confirm\]\s*$|#\s*$)"
        try:
            out = self.conn.send_command(command, expect_string=until, strip_prompt=False, strip_command=False,
                                         read_timeout=self.options.rpc_timeout)
            for _ in range(answers):
                if not re.search(r"(\?|\[confirm\])\s*$", out):
                    break
                out += self.conn.send_command("", expect_string=until, strip_prompt=False, strip_command=False,
                                              cmd_verify=False, read_timeout=self.options.rpc_timeout)
            return self._check(stage, out)
        except PushError:
            raise
        except Exception as exc:  # noqa: BLE001 - netmiko and paramiko raise many types: all become PushError
            self._dead(stage)
            raise PushError(stage, f"{stage} failed: {redact(str(exc) or type(exc).__name__)}") from None

    def open(self) -> None:
        self.conn = open_cli(self.credentials, self.options.connect_timeout, "cisco_ios", enable=True,
                             secret=self.credentials.enable_secret.reveal())

    def _running(self, stage: str) -> str:
        try:
            return self.conn.send_command("show running-config", read_timeout=self.options.rpc_timeout)
        except Exception as exc:  # noqa: BLE001 - any session failure becomes PushError
            self._dead(stage)
            raise PushError(stage, f"cannot read the running configuration: {redact(str(exc))}") from None

    def running_config(self) -> str:
        """Read-only (qosc verify --from-device): `show running-config` in exec mode, nothing locked or changed;
        the IOS reader keeps what is not qosc's as unknown statements."""
        if self.conn is None:
            self.open()
        return self._running("read")

    def load(self) -> None:
        files = [f for f in self.job.files if f.path.endswith((".cfg", ".ios", ".txt"))]
        if len(files) != 1:
            raise PushError("load", f"expected one IOS configuration file for {self.job.device}, "
                            f"got {[f.path for f in self.job.files]}")
        self.compiled = files[0].text
        self.running = self._running("load")
        self.cmds = plan(self.running, self.compiled)

    def compare(self) -> str:
        return as_diff(self.cmds)

    def commit(self, confirm_timeout: int) -> None:
        if self.options.confirm_timeout:
            self.notes.append("IOS: no confirmed commit; a rollback copy on the device guards the change")
        self._send("save rollback copy", f"copy running-config {ROLLBACK_FILE}", answers=2)
        self.saved = True
        try:
            self.conn.send_config_set(self.cmds, error_pattern=ERROR_PATTERN, cmd_verify=True,
                                      read_timeout=self.options.rpc_timeout)
        except Exception as exc:  # noqa: BLE001 - whatever failed, the rollback copy is restored
            # the whole message on one line: netmiko's timeouts start with blank lines, so a first line is empty
            reason = redact(" ".join(str(exc).split()) or type(exc).__name__)
            if self._dead("commit"):  # no rollback over a dead session: settle() reads the device back
                raise PushError("commit", f"session lost while applying the change: {reason}") from None
            try:
                self._restore()
            except PushError as undo:
                raise PushError("rollback", f"{reason}; restoring the rollback copy failed ({undo}): the device "
                                f"may hold part of the change; restore it with `configure replace "
                                f"{ROLLBACK_FILE} force`") from None
            raise RolledBack("commit", f"{reason}; rollback copy restored") from None

    def _restore(self) -> None:
        try:
            if self.conn.check_config_mode():
                self.conn.exit_config_mode()
        except Exception:  # noqa: BLE001, S110 - best effort: configure replace follows
            pass
        self._send("rollback", f"configure replace {ROLLBACK_FILE} force")
        if plan(self.running, self.compiled) != plan(self._running("rollback"), self.compiled):
            raise PushError("rollback", "the running configuration differs from the rollback copy after "
                            "configure replace")

    def verify(self) -> None:
        left = plan(self._running("verify"), self.compiled)
        if left:
            raise PushError("verify", f"{len(left)} commands still differ after the push: {left[:3]}")

    def confirm(self) -> None:
        self._send("save to startup", "copy running-config startup-config", answers=2)

    def discard(self) -> None:
        if self.conn is not None:
            try:
                if self.conn.check_config_mode():
                    self.conn.exit_config_mode()
            except Exception:  # noqa: BLE001, S110 - best effort: nothing was changed
                pass

    def rollback(self) -> None:
        if self.conn is None or not self.saved:
            return
        self._restore()

    def settle(self, stage: str) -> str:
        sent = stage in ("commit", "verify", "confirm", "rollback")
        if self.lost:
            self.lost, self.conn = "", None
            try:
                self.open()
            except PushError as exc:
                self.notes.append(f"{exc}; the device's state could not be read")
                return UNKNOWN if sent else NOT_COMMITTED
            self.notes.append("session lost: reconnected to read the device's state")
        if not sent:
            return NOT_COMMITTED
        left = plan(self._running("settle"), self.compiled)
        if stage == "confirm" and not left:  # verified; the save's answer was lost: save again
            self.confirm()
            return COMMITTED
        if left == self.cmds:  # the owned sections are as they were: nothing (left) applied
            return ROLLED_BACK if stage != "commit" else NOT_COMMITTED
        self._restore()  # raises when the running configuration still differs from the rollback copy
        return ROLLED_BACK

    def close(self) -> None:
        if self.conn is not None:
            self.conn.disconnect()
