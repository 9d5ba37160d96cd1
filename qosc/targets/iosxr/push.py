"""Cisco IOS XR over SSH with netmiko's cisco_xr driver: a candidate configuration, its diff, a confirmed commit.

    open     connect (host key checked against known_hosts)
    load     read `show running-config`; plan the commands that turn the qosc-owned sections into the compiled
             ones (plan()); enter configuration mode and type them into the session's candidate
    compare  `show configuration`: the candidate's changes as IOS XR shows them ('' when the plan is empty)
    commit   `commit confirmed <seconds>` (at least 30, IOS XR's minimum); the box reverts by itself when no
             confirming commit comes in time
    verify   `show running-config` again: the plan must now be empty
    confirm  `commit` (confirms), `end`
    discard  `abort` (the candidate is dropped, nothing was committed)
    rollback `abort`, then `rollback configuration last 1` where a commit went through

Owned sections: every class-map and policy-map of the compiled configuration (lines of an owned block the
compiled one lacks are removed with `no ...`) and the `service-policy` lines of the interfaces it configures.
A session that dies is not used again: settle() reconnects, reads the running configuration, confirms a
commit whose confirm was lost (verified: the running configuration holds the change) or rolls back one whose
verify or confirm never happened.
"""

from __future__ import annotations

import contextlib
import re
from typing import Any

from qosc.push.base import COMMITTED, NOT_COMMITTED, ROLLED_BACK, UNKNOWN, Driver, PushError
from qosc.push.cli import CliSession, open_cli
from qosc.push.credentials import redact

ERROR = r"% ?Invalid input|% ?Incomplete command|% ?Ambiguous command|% ?Failed to commit|%\s*Error"
OWNED_TOP = ("class-map ", "policy-map ")
OWNED_IF = ("service-policy ",)
MIN_CONFIRM = 30
"""IOS XR's shortest `commit confirmed` (seconds); qosc's --confirm-timeout is used when longer."""


_SKIP = ("!", "Building configuration", "Mon ", "Tue ", "Wed ", "Thu ", "Fri ", "Sat ", "Sun ")


class Node:
    def __init__(self, line: str) -> None:
        self.line = line
        self.children: list[Node] = []

    def find(self, line: str) -> Node | None:
        return next((c for c in self.children if c.line == line), None)


def tree(text: str) -> Node:
    """Configuration lines by indentation; comments, banners and block ends left out."""
    root = Node("")
    stack: list[tuple[int, Node]] = [(-1, root)]
    for raw in text.splitlines():
        s = raw.strip()
        if not s or s.startswith(_SKIP) or s in ("end", "end-class-map", "end-policy-map"):
            continue
        depth = len(raw) - len(raw.lstrip(" "))
        while stack[-1][0] >= depth:
            stack.pop()
        node = Node(s)
        stack[-1][1].children.append(node)
        stack.append((depth, node))
    return root


def _block(node: Node, running: Node | None, owned: tuple[str, ...] = ()) -> list[str]:
    """The commands that turn `running` (None: absent) into `node`, from inside its mode; `owned`: only lines
    starting so are compared (interfaces)."""
    out: list[str] = []
    have = running.children if running is not None else []
    for child in node.children:
        if owned and not child.line.startswith(owned):
            continue
        mine = running.find(child.line) if running is not None else None
        if mine is None or _lines(mine) != _lines(child):
            if child.children:
                out += [child.line, *_block(child, mine), "exit"]
            else:
                out.append(child.line)
    for old in have:
        if owned and not old.line.startswith(owned):
            continue
        if node.find(old.line) is None:
            out.append(f"no {old.line}")
    return out


def _lines(node: Node) -> list[Any]:
    return [(c.line, _lines(c)) for c in node.children]


def plan(running_text: str, compiled_text: str) -> list[str]:
    """The configuration commands that make the owned sections of the running configuration the compiled ones."""
    running, compiled = tree(running_text), tree(compiled_text)
    out: list[str] = []
    for top in compiled.children:
        mine = running.find(top.line)
        owned = OWNED_IF if top.line.startswith("interface ") else ()
        body = _block(top, mine, owned)
        if mine is None or body:
            out += [top.line, *body, "exit"] if (body or not top.children) else []
    return out


class IosxrDriver(CliSession, Driver):
    method = "iosxr-cli"
    reads_back = True

    def __init__(self, job: Any, credentials: Any, options: Any) -> None:
        super().__init__(job, credentials, options)
        self.conn: Any = None
        self.compiled = ""
        self.running = ""
        self.cmds: list[str] = []
        self.committed = False

    def _send(self, stage: str, command: str, expect: str | None = None) -> str:
        try:
            out: str = self.conn.send_command(command, expect_string=expect, read_timeout=self.options.rpc_timeout,
                                              strip_prompt=True, strip_command=True)
        except Exception as exc:  # noqa: BLE001 - netmiko and paramiko raise many types: all become PushError
            self._dead(stage)
            raise PushError(stage, f"{stage} failed: {redact(' '.join(str(exc).split()) or type(exc).__name__)}"
                            ) from None
        if re.search(ERROR, out):
            line = next((ln for ln in out.splitlines() if "%" in ln), out.strip()[:200])
            raise PushError(stage, f"device said: {redact(line.strip())}")
        return out

    def open(self) -> None:
        self.conn = open_cli(self.credentials, self.options.connect_timeout, "cisco_xr")

    def _running(self, stage: str) -> str:
        return self._send(stage, "show running-config", r"#\s*$")

    def running_config(self) -> str:
        if self.conn is None:
            self.open()
        return self._running("read")

    def load(self) -> None:
        files = self.job.files_with(".cfg")
        if len(files) != 1:
            raise PushError("load", f"expected one IOS XR configuration file for {self.job.device}, "
                            f"got {[f.path for f in self.job.files]}")
        self.compiled = files[0].text
        self.running = self._running("load")
        self.cmds = plan(self.running, self.compiled)
        if not self.cmds:
            return
        try:
            self.conn.send_config_set(self.cmds, error_pattern=ERROR, cmd_verify=True,
                                      read_timeout=self.options.rpc_timeout)
        except Exception as exc:  # noqa: BLE001 - a refused line: the candidate is aborted by discard()
            self._dead("load")
            raise PushError("load", f"the candidate was refused: {redact(' '.join(str(exc).split()))}") from None

    def compare(self) -> str:
        if not self.cmds:
            return ""
        shown = self._send("compare", "show configuration", r"#\s*$")
        return "\n".join(ln for ln in shown.splitlines() if ln.strip() and not ln.startswith("Building"))

    def commit(self, confirm_timeout: int) -> None:
        seconds = max(MIN_CONFIRM, int(confirm_timeout))
        self._send("commit", f"commit confirmed {seconds}", r"#\s*$")
        self.committed = True

    def verify(self) -> None:
        left = plan(self._running("verify"), self.compiled)
        if left:
            raise PushError("verify", f"{len(left)} commands still differ after the commit: {left[:3]}")

    def confirm(self) -> None:
        self._send("confirm", "commit", r"#\s*$")
        self._send("confirm", "end", r"#\s*$")

    def discard(self) -> None:
        if self.conn is not None:
            with contextlib.suppress(Exception):
                if self.conn.check_config_mode():
                    self.conn.send_command("abort", expect_string=r"#\s*$", read_timeout=self.options.rpc_timeout)

    def rollback(self) -> None:
        self.discard()
        if self.committed and self.conn is not None:
            self._send("rollback", "rollback configuration last 1", r"#\s*$")

    def settle(self, stage: str) -> str:
        sent = stage in ("commit", "verify", "confirm", "rollback")
        if self.lost:
            self.lost, self.conn = "", None
            try:
                self.open()
            except PushError as exc:
                self.notes.append(f"{exc}; the device's state could not be read (an unconfirmed commit reverts "
                                  "by itself at the confirm timeout)")
                return UNKNOWN if sent else NOT_COMMITTED
            self.notes.append("session lost: reconnected to read the device's state")
        if not sent:
            return NOT_COMMITTED
        left = plan(self._running("settle"), self.compiled)
        if not left and stage == "confirm":  # verified; the confirm's answer was lost: confirm again
            self._send("confirm", "configure terminal", r"#\s*$")
            self.confirm()
            return COMMITTED
        if left == self.cmds:
            return NOT_COMMITTED if stage == "commit" else ROLLED_BACK
        self._send("rollback", "rollback configuration last 1", r"#\s*$")
        return ROLLED_BACK

    def close(self) -> None:
        if self.conn is not None:
            with contextlib.suppress(Exception):
                self.conn.disconnect()
