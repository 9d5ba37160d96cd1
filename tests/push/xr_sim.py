"""Cisco IOS XR hosts for the push tests: FakeNOS (PyPI) hosts extended into an IOS XR CLI SIMULATOR.

It is a simulator, not IOS XR, and it reads configuration with its own few
lines of code (never qosc's):

- a running configuration per host, shown by `show running-config` in IOS XR's
  layout (` end-class-map`, ` end-policy-map`, `!` after each block);
- `configure terminal` opens a candidate (the session's target configuration:
  a copy of the running one); the modes qosc types (class-map, policy-map,
  class, police, interface) with IOS XR prompts, `exit`, `no ...`; a line
  whose first word a mode does not know is `% Invalid input detected at '^'
  marker.`; `reject` (a regex) plays a box that refuses a line at commit
  (`% Failed to commit one or more configuration items ...`);
- `show configuration`: the candidate's changes; `abort` drops the candidate;
  `end` with changes asks `Uncommitted changes found, commit them before
  exiting(yes/no/cancel)?`;
- `commit` makes the candidate running; `commit confirmed N` too, and starts a
  timer of N simulated seconds (`second` real seconds each): without a
  confirming `commit` from any session before it runs out, the previous
  running configuration comes back; `rollback configuration last 1` restores
  the one before the last commit;
- a session that ends (the connection dropped) loses its candidate.
"""

from __future__ import annotations

import copy
import re
import threading
from typing import Any, ClassVar

from fakenos.plugins.shell.cmd_shell import CMDShell

from push import fakenos_fast  # noqa: F401  (installs the simulator speed-ups)
from push.clilab import CliLab

PROMPT = "RP/0/RP0/CPU0:{name}{mode}#"
MODES = {  # mode -> (prompt part, first words allowed)
    "exec": ("", set()),
    "config": ("(config)", {"class-map", "policy-map", "interface", "hostname", "no"}),
    "cmap": ("(config-cmap)", {"match", "description", "end-class-map", "no"}),
    "pmap": ("(config-pmap)", {"class", "description", "end-policy-map", "no"}),
    "pmapc": ("(config-pmap-c)", {"bandwidth", "priority", "queue-limit", "random-detect", "set", "police",
                                  "shape", "service-policy", "no"}),
    "police": ("(config-pmap-c-police)", {"conform-action", "exceed-action", "violate-action", "no"}),
    "if": ("(config-if)", {"service-policy", "description", "shutdown", "ipv4", "no"}),
}
ENTERS = [
    ("config", re.compile(r"class-map (match-any|match-all) \S+$"), "cmap"),
    ("config", re.compile(r"policy-map \S+$"), "pmap"),
    ("config", re.compile(r"interface \S+$"), "if"),
    ("pmap", re.compile(r"class \S+$"), "pmapc"),
    ("pmapc", re.compile(r"police rate .*"), "police"),
]
PARENT = {"cmap": "config", "pmap": "config", "if": "config", "pmapc": "pmap", "police": "pmapc"}
INVALID = "% Invalid input detected at '^' marker."
FAILED = ("% Failed to commit one or more configuration items during a pseudo-atomic operation. All changes made "
          "have been reverted. Please issue 'show configuration failed' from this session to view the errors")


class Node:
    def __init__(self, line: str) -> None:
        self.line = line
        self.children: list[Node] = []

    def find(self, line: str) -> Node | None:
        return next((c for c in self.children if c.line == line), None)


def render(root: Node) -> str:
    out = ["Building configuration...", "!! IOS XR Configuration 7.11.2 (simulated)"]

    def walk(node: Node, depth: int) -> None:
        for child in node.children:
            out.append(" " * depth + child.line)
            walk(child, depth + 1)
            if depth == 0 and child.line.startswith(("class-map", "policy-map")):
                out.append(" end-" + child.line.split()[0])
            if child.children or depth == 0:
                out.append(" " * depth + "!")

    walk(root, 0)
    out.append("end")
    return "\n".join(out)


def parse(text: str) -> Node:
    root = Node("")
    stack: list[tuple[int, Node]] = [(-1, root)]
    for raw in text.splitlines():
        s = raw.strip()
        if not s or s.startswith(("!", "Building")) or s in ("end", "end-class-map", "end-policy-map"):
            continue
        depth = len(raw) - len(raw.lstrip(" "))
        while stack[-1][0] >= depth:
            stack.pop()
        node = Node(s)
        stack[-1][1].children.append(node)
        stack.append((depth, node))
    return root


class Device:
    """One simulated router's state, shared by its sessions."""

    def __init__(self, name: str, initial: str = "", reject: str | None = None, second: float = 0.05) -> None:
        self.name = name
        self.running = parse(initial)
        self.history: list[Node] = []
        self.reject = re.compile(reject) if reject else None
        self.second = second
        self.timer: threading.Timer | None = None
        self.log: list[str] = []
        self.reverted = 0
        self.lock = threading.RLock()

    def running_text(self) -> str:
        with self.lock:
            return render(self.running)

    def apply(self, candidate: Node, confirmed: int | None) -> str:
        with self.lock:
            text = render(candidate)
            if self.reject and self.reject.search(text):
                return FAILED
            self.history.append(self.running)
            self.running = copy.deepcopy(candidate)
            if self.timer is not None:
                self.timer.cancel()
                self.timer = None
            if confirmed is not None:
                self.timer = threading.Timer(confirmed * self.second, self._revert)
                self.timer.daemon = True
                self.timer.start()
            return ""

    def confirm(self) -> bool:
        with self.lock:
            if self.timer is None:
                return False
            self.timer.cancel()
            self.timer = None
            return True

    def _revert(self) -> None:
        with self.lock:
            if self.timer is not None and self.history:
                self.running = self.history.pop()
                self.timer = None
                self.reverted += 1

    def rollback(self) -> str:
        with self.lock:
            if not self.history:
                return "% No commits to roll back"
            if self.timer is not None:
                self.timer.cancel()
                self.timer = None
            self.running = self.history.pop()
            return ""


class XrShell(CMDShell):
    """FakeNOS's shell with IOS XR's candidate, commit and confirm (one per SSH session)."""

    devices: ClassVar[dict[str, Device]] = {}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.device = self.devices[self.base_prompt]
        self.mode = "exec"
        self.path: list[Node] = []
        self.candidate: Node | None = None
        self.typed: list[str] = []
        self.asking = False
        self._set_prompt()

    def _set_prompt(self) -> None:
        self.prompt = PROMPT.format(name=self.device.name, mode=MODES[self.mode][0])

    def stop(self) -> None:
        self._stopping = True
        self.stdin.write("exit" + self.newline)

    def default(self, line: str) -> bool:
        if getattr(self, "_stopping", False):
            return True
        text = line.strip()
        with self.device.lock:
            self.device.log.append(text)
            out = self._handle(text)
        if out is True:
            return True
        if out:
            self.writeline(out)
        return not self.is_running.is_set()

    def emptyline(self) -> None:
        self.default("")

    def do_exit(self, arg: str) -> bool:
        return self.default("exit")

    def _leave(self) -> None:
        self.mode, self.path, self.candidate, self.typed = "exec", [], None, []
        self._set_prompt()

    def _handle(self, text: str) -> Any:
        dev = self.device
        if self.asking:
            self.asking = False
            if text.startswith("y"):
                out = dev.apply(self.candidate, None) if self.candidate is not None else ""
                if out:
                    return out
            if text.startswith(("y", "n")):
                self._leave()
            return ""
        if not text or text.startswith("!"):
            return ""
        if text.startswith("show running-config"):
            return dev.running_text()
        if self.mode == "exec":
            return self._exec(text)
        return self._config(text)

    def _exec(self, text: str) -> Any:
        dev = self.device
        if text in ("exit", "logout", "quit"):
            return True
        if text.startswith("terminal "):
            return ""
        if text in ("configure terminal", "configure", "config t"):
            self.mode, self.path = "config", []
            self.candidate, self.typed = copy.deepcopy(dev.running), []
            self._set_prompt()
            return ""
        if text == "rollback configuration last 1":
            return dev.rollback()
        return INVALID

    def _config(self, text: str) -> Any:
        dev = self.device
        assert self.candidate is not None
        changed = render(self.candidate) != dev.running_text()
        if text in ("end", "exit") and (text == "end" or self.mode == "config"):
            if changed:
                self.asking = True
                return "Uncommitted changes found, commit them before exiting(yes/no/cancel)? [cancel]:"
            self._leave()
            return ""
        if text == "abort":
            self._leave()
            return ""
        if text == "show configuration":
            return "Building configuration...\n" + "\n".join(self.typed) + "\nend"
        m = re.fullmatch(r"commit( confirmed (\d+))?", text)
        if m:
            if not changed:
                return "" if dev.confirm() else "% No configuration changes to commit."
            out = dev.apply(self.candidate, int(m.group(2)) if m.group(2) else None)
            if not out:
                self.typed = []
            return out
        if text in ("exit", "end-class-map", "end-policy-map"):
            if self.path:
                self.path.pop()
            self.mode = PARENT.get(self.mode, "config")
            self._set_prompt()
            return ""
        words = text.split()
        mode = self.mode
        for m_, pattern, _ in ENTERS:
            if m_ == "config" and mode != "config" and pattern.match(text):
                self.path, mode = [], "config"
        if words[0] not in MODES[mode][1]:
            return INVALID
        self.typed.append(" " * len(self.path) + text)
        parent = self.path[-1] if self.path else self.candidate
        if words[0] == "no":
            target = " ".join(words[1:])
            victim = next((c for c in parent.children if c.line == target), None)
            if victim is not None:
                parent.children.remove(victim)
            return ""
        for m_, pattern, sub in ENTERS:
            if m_ == mode and pattern.match(text):
                node = parent.find(text)
                if node is None:
                    node = Node(text)
                    parent.children.append(node)
                self.path.append(node)
                self.mode = sub
                self._set_prompt()
                return ""
        if parent.find(text) is None:
            parent.children.append(Node(text))
        self.mode = mode
        self._set_prompt()
        return ""


class XrLab(CliLab):
    """N FakeNOS hosts on 127.0.0.1, ports base..base+N-1, driven by XrShell."""

    def __init__(self, names: list[str], base_port: int, username: str, password: str, initial: str = "",
                 reject: str | None = None, second: float = 0.05) -> None:
        super().__init__(names, base_port, username, password, XrShell, "cisco_xr",
                         {name: Device(name, initial, reject, second) for name in names})
