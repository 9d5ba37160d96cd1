"""Cisco IOS hosts for the push tests: FakeNOS (PyPI) `cisco_ios` hosts, extended into a config-mode SIMULATOR.

FakeNOS serves SSH (paramiko) and a command shell whose stock cisco_ios
plugin knows a few fixed show commands.  The push layer needs more, so this
module extends it -- it is a simulator, not IOS:

- a running configuration per host, kept as show-running-config lines;
- `enable` (with a secret, not echoed), `configure terminal`, the sub-modes
  qosc emits (class-map, policy-map, policy-map class, interface, ip/ipv6
  access-list) with IOS prompts, `exit`, `end`, `no ...`;
- IOS-style errors for lines a mode does not know (`% Invalid input detected
  at '^' marker.`, `% Incomplete command.`); `reject` (a regex) plays a
  platform that lacks a command qosc emits;
- `show running-config`, `copy running-config flash:NAME` and
  `copy running-config startup-config` with IOS's confirmation prompts,
  `configure replace flash:NAME force`;
- per-host records the tests check: every command, the prompt each session
  ended at, the startup configuration.

Speed-ups (simulator only): FakeNOS's server reads one byte per 10 ms and polls
its line buffers every 10 ms; those two helpers are replaced by equivalents
without the sleeps, so a 100-device benchmark measures qosc, not the sleeps.
"""

from __future__ import annotations

import re
import threading
import time
from typing import ClassVar

from fakenos.plugins.shell.cmd_shell import CMDShell

from push import fakenos_fast  # noqa: F401  (installs the simulator speed-ups)
from push.clilab import CliLab

MODES = {  # mode -> (prompt suffix, first words allowed)
    "exec": (">", set()),
    "enable": ("#", set()),
    "config": ("(config)#", {"class-map", "policy-map", "interface", "ip", "ipv6", "mls", "hostname", "table-map",
                             "access-list", "service", "no"}),
    "cmap": ("(config-cmap)#", {"match", "description", "no"}),
    "pmap": ("(config-pmap)#", {"class", "description", "no"}),
    "pmapc": ("(config-pmap-c)#", {"bandwidth", "priority", "queue-limit", "random-detect", "set", "police",
                                   "shape", "fair-queue", "service-policy", "description", "no"}),
    "if": ("(config-if)#", {"service-policy", "description", "mls", "wrr-queue", "priority-queue", "rcv-queue",
                            "max-reserved-bandwidth", "queue-set", "shutdown", "ip", "no"}),
    "acl": ("(config-ext-nacl)#", {"permit", "deny", "remark", "no"}),
    "acl6": ("(config-ipv6-acl)#", {"permit", "deny", "remark", "no"}),
}
BARE_OK = {"priority", "shutdown", "random-detect", "fair-queue"}
# IOS XE shows some lines back in another spelling than typed (issue 15): a push that sends the typed form plans
# the line again on every run unless it sends the canonical one.
CANONICAL = {"random-detect precedence-based": "random-detect"}
ENTERS = [  # (mode it is typed in, pattern, sub-mode)
    ("config", re.compile(r"class-map (match-any|match-all) \S+$"), "cmap"),
    ("config", re.compile(r"policy-map \S+$"), "pmap"),
    ("config", re.compile(r"interface \S+$"), "if"),
    ("config", re.compile(r"ip access-list extended \S+$"), "acl"),
    ("config", re.compile(r"ipv6 access-list \S+$"), "acl6"),
    ("pmap", re.compile(r"class \S+$"), "pmapc"),
]
INVALID = "% Invalid input detected at '^' marker."


class Node:
    def __init__(self, line: str):
        self.line = line
        self.children: list[Node] = []

    def find(self, line: str) -> Node | None:
        return next((c for c in self.children if c.line == line), None)


def render(root: Node, hostname: str) -> str:
    out = ["Building configuration...", "", "Current configuration : 1024 bytes", "!", f"hostname {hostname}", "!"]

    def walk(node: Node, depth: int) -> None:
        for child in node.children:
            out.append(" " * depth + child.line)
            walk(child, depth + 1)
            if depth == 0:
                out.append("!")

    walk(root, 0)
    out.append("end")
    return "\n".join(out)


def parse(text: str) -> Node:
    root = Node("")
    stack = [(-1, root)]
    for raw in text.splitlines():
        if not raw.strip() or raw.strip().startswith("!") or raw.strip() in ("end", "Building configuration...") \
                or raw.startswith(("Current configuration", "hostname ")):
            continue
        depth = len(raw) - len(raw.lstrip(" "))
        while stack[-1][0] >= depth:
            stack.pop()
        node = Node(raw.strip())
        stack[-1][1].children.append(node)
        stack.append((depth, node))
    return root


class Device:
    """One simulated router's state, shared by its sessions."""

    def __init__(self, name: str, initial: str = "", secret: str = "", reject: str | None = None):
        self.name = name
        self.running = parse(initial)
        self.flash: dict[str, str] = {}
        self.startup = ""
        self.secret = secret
        self.reject = re.compile(reject) if reject else None
        self.log: list[str] = []
        self.session_end_prompts: list[str] = []
        self.lock = threading.RLock()

    def running_text(self) -> str:
        with self.lock:
            return render(self.running, self.name)


class IosShell(CMDShell):
    """FakeNOS's shell with the IOS config modes (one per SSH session)."""

    devices: ClassVar[dict[str, Device]] = {}  # every session of the simulator sees the same devices

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.device = self.devices[self.base_prompt]
        self.mode = "exec"
        self.path: list[Node] = []
        self.pending = None  # (kind, argument) while a confirmation prompt is open
        self._set_prompt()

    def _set_prompt(self, custom: str | None = None) -> None:
        self.prompt = custom if custom is not None else self.base_prompt + MODES[self.mode][0]

    def postloop(self) -> None:
        self.device.session_end_prompts.append(self.prompt)

    def stop(self) -> None:  # FakeNOS's watchdog ends a dead session by typing "exit"; IOS's exit only leaves a mode
        self._stopping = True
        self.stdin.write("exit" + self.newline)

    def default(self, line: str) -> bool:
        if getattr(self, "_stopping", False):
            return True
        text = line.strip()
        with self.device.lock:
            self.device.log.append(text if self.pending is None or self.pending[0] != "secret" else "<secret>")
            out = self._handle(text)
        if out is True:
            return True
        if out:
            self.writeline(out)
        return not self.is_running.is_set()

    def emptyline(self) -> None:
        self.default("")

    def do_exit(self, arg: str) -> bool:  # FakeNOS's own `exit` ends the shell; IOS leaves a mode
        return self.default("exit")

    def _handle(self, text: str):
        dev = self.device
        if self.pending:
            kind, arg = self.pending
            self.pending = None
            self.stdin.no_echo = False
            if kind == "secret":
                if text != dev.secret:
                    self._set_prompt()
                    return "% Access denied"
                self.mode = "enable"
            elif kind == "flash":
                dev.flash[arg] = dev.running_text()
                self._set_prompt()
                return f"{len(dev.flash[arg])} bytes copied in 0.010 secs"
            elif kind == "startup":
                dev.startup = dev.running_text()
                self._set_prompt()
                return "[OK]"
            self._set_prompt()
            return ""
        if not text or text.startswith("!"):
            return ""
        if self.mode in ("exec", "enable"):
            return self._exec(text)
        return self._config(text)

    def _exec(self, text: str):
        dev = self.device
        if text in ("exit", "logout", "quit"):
            return True
        if text in ("terminal length 0", "terminal width 511", "terminal no monitor"):
            return ""
        if text == "enable":
            if self.mode == "enable":
                return ""
            if dev.secret:
                self.pending = ("secret", None)
                self.stdin.no_echo = True
                self._set_prompt("Password: ")
                return ""
            self.mode = "enable"
            self._set_prompt()
            return ""
        if self.mode != "enable":
            return INVALID
        if text in ("configure terminal", "conf t", "config term"):
            self.mode, self.path = "config", []
            self._set_prompt()
            return "Enter configuration commands, one per line.  End with CNTL/Z."
        if text in ("show running-config", "show run"):
            return dev.running_text()
        if text == "show startup-config":
            return dev.startup or "startup-config is not present"
        m = re.fullmatch(r"copy running-config (flash:\S+|startup-config)", text)
        if m:
            dest = m.group(1)
            name = dest.split(":", 1)[1] if dest.startswith("flash:") else "startup-config"
            self.pending = ("flash" if dest.startswith("flash:") else "startup", name)
            self._set_prompt(f"Destination filename [{name}]? ")
            return ""
        m = re.fullmatch(r"configure replace flash:(\S+)( force)?", text)
        if m:
            saved = dev.flash.get(m.group(1))
            if saved is None:
                return f"%Error opening flash:{m.group(1)} (File not found)"
            dev.running = parse(saved)
            return "Total number of passes: 1\nRollback Done"
        if text.startswith("show "):
            return ""
        return INVALID

    def _config(self, text: str):
        dev = self.device
        if text == "end":
            self.mode, self.path = "enable", []
            self._set_prompt()
            return ""
        if text == "exit":
            if self.path:
                self.path.pop()
            self.mode = {"pmapc": "pmap"}.get(self.mode, "config") if self.path else (
                "enable" if self.mode == "config" else "config")
            self._set_prompt()
            return ""
        words = text.split()
        mode = self.mode
        for m, pattern, _sub in ENTERS:  # a top-level command leaves any sub-mode, as on IOS
            if m == "config" and mode != "config" and pattern.match(text):
                self.path, mode = [], "config"
        if words[0] not in MODES[mode][1] or (dev.reject and dev.reject.search(text)):
            return INVALID
        if len(words) == 1 and words[0] not in BARE_OK:
            return "% Incomplete command."
        parent = self.path[-1] if self.path else dev.running
        text = CANONICAL.get(text, text)  # stored (and shown back) as IOS XE prints it
        if words[0] == "no":
            target = " ".join(words[1:])
            victim = next((c for c in parent.children if c.line == target or c.line.startswith(target + " ")),
                          None)
            if victim is not None:
                parent.children.remove(victim)
            return ""
        for m, pattern, sub in ENTERS:
            if m == mode and pattern.match(text):
                node = parent.find(text)
                if node is None:
                    node = Node(text)
                    default = parent.find("class class-default") if sub == "pmapc" else None
                    index = parent.children.index(default) if default is not None else len(parent.children)
                    parent.children.insert(index, node)
                self.path.append(node)
                self.mode = sub
                self._set_prompt()
                return ""
        if parent.find(text) is None:
            parent.children.append(Node(text))
        self.mode = mode
        self._set_prompt()
        return ""


class IosLab(CliLab):
    """N FakeNOS cisco_ios hosts on 127.0.0.1, ports base..base+N-1, driven by IosShell."""

    def __init__(self, names: list[str], base_port: int, username: str, password: str, secret: str = "",
                 initial: str = "", reject: str | None = None):
        super().__init__(names, base_port, username, password, IosShell, "cisco_ios",
                         {name: Device(name, initial, secret, reject) for name in names})


def wait_until(predicate, timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


def main(argv: list[str] | None = None) -> int:
    """Serve N hosts from a separate process: prints `READY <base port>` and runs until stdin closes."""
    import argparse
    import sys
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hosts", type=int, default=1)
    ap.add_argument("--prefix", default="r")
    ap.add_argument("--base-port", type=int, required=True)
    ap.add_argument("--username", default="netops")
    ap.add_argument("--secret", default="")
    args = ap.parse_args(argv)
    password = sys.stdin.readline().rstrip("\n")  # never on the command line
    sys.setswitchinterval(0.0005)  # many shell threads hand lines to each other: switch promptly
    names = [f"{args.prefix}{i:03d}" for i in range(args.hosts)]
    lab = IosLab(names, args.base_port, args.username, password, secret=args.secret).start()
    print(f"READY {args.base_port}", flush=True)
    try:
        sys.stdin.read()
    finally:
        lab.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
