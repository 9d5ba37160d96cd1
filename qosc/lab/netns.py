"""Two network namespaces joined by a veth pair, and the processes that run in them.

    with Lab() as lab:
        lab.apply_script(compile_qosc(...))         # egress policy on the sender's veth (qosc.lab.peers)
        lab.sender(["iperf3", "-c", lab.receiver_ip, ...])

The sender namespace holds ``qlab0`` (198.18.0.1/30), the receiver ``qlab1``
(198.18.0.2/30); there is no default route, so nothing can leave the lab.
Names carry the pid, so concurrent test sessions do not collide; close()
kills every process the lab started and deletes both namespaces.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

SENDER_IP = "198.18.0.1"
RECEIVER_IP = "198.18.0.2"
SENDER_IP6 = "fd00:198:18::1"
RECEIVER_IP6 = "fd00:198:18::2"
SENDER_DEV = "qlab0"
RECEIVER_DEV = "qlab1"
TOOLS = ("ip", "tc", "iperf3")


class Script(NamedTuple):
    """A shell script to run against a lab interface, as `sh PATH ARGS... DEV` (the qosc device script takes
    `apply IFACE` before the interface it works on; a plain script takes the interface alone)."""

    path: Path
    args: tuple[str, ...] = ()


def script_command(script: Script | Path | str, dev: str) -> list[str]:
    found = script if isinstance(script, Script) else Script(Path(script))
    return ["sh", str(found.path), *found.args, dev]


class LabUnavailable(RuntimeError):
    """The machine cannot run the lab (not root, no netns, a tool missing)."""


def problems() -> list[str]:
    """Why the lab cannot run here (empty when it can)."""
    found = []
    if os.geteuid() != 0:
        found.append("not root (network namespaces need CAP_SYS_ADMIN)")
    missing = [t for t in TOOLS if shutil.which(t) is None]
    if missing:
        found.append(f"missing {', '.join(missing)} (apt-get install -y iproute2 iperf3)")
    return found


def python_env() -> dict[str, str]:
    """Environment for `python -m qosc...` inside a namespace: qosc importable, as here."""
    env = dict(os.environ)
    root = str(Path(__file__).resolve().parent.parent.parent)
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


class Lab:
    def __init__(self, tag: str = "") -> None:
        base = f"qlab{os.getpid()}{tag}"
        self.ns_sender = f"{base}s"
        self.ns_receiver = f"{base}r"
        self.sender_dev = SENDER_DEV
        self.receiver_ip = RECEIVER_IP
        self._procs: list[subprocess.Popen] = []

    # -- lifecycle -------------------------------------------------------------
    def __enter__(self) -> Lab:  # noqa: PYI034
        why = problems()
        if why:
            raise LabUnavailable("; ".join(why))
        try:
            self._setup()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _setup(self) -> None:
        for ns in (self.ns_sender, self.ns_receiver):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, check=False)
            _run(["ip", "netns", "add", ns])
            _run(["ip", "-n", ns, "link", "set", "lo", "up"])
        _run(["ip", "-n", self.ns_sender, "link", "add", SENDER_DEV, "type", "veth", "peer", "name", RECEIVER_DEV,
              "netns", self.ns_receiver])
        _run(["ip", "-n", self.ns_sender, "addr", "add", f"{SENDER_IP}/30", "dev", SENDER_DEV])
        _run(["ip", "-n", self.ns_receiver, "addr", "add", f"{RECEIVER_IP}/30", "dev", RECEIVER_DEV])
        _run(["ip", "-n", self.ns_sender, "addr", "add", f"{SENDER_IP6}/64", "dev", SENDER_DEV, "nodad"])
        _run(["ip", "-n", self.ns_receiver, "addr", "add", f"{RECEIVER_IP6}/64", "dev", RECEIVER_DEV, "nodad"])
        _run(["ip", "-n", self.ns_sender, "link", "set", SENDER_DEV, "up"])
        _run(["ip", "-n", self.ns_receiver, "link", "set", RECEIVER_DEV, "up"])
        for ns in (self.ns_sender, self.ns_receiver):
            # the same TCP everywhere, whatever the host's default: cubic, the Linux default
            subprocess.run(["ip", "netns", "exec", ns, "sysctl", "-qw", "net.ipv4.tcp_congestion_control=cubic"],
                           capture_output=True, check=False)
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            if subprocess.run(["ip", "netns", "exec", self.ns_sender, "ping", "-c1", "-W1", RECEIVER_IP],
                              capture_output=True, check=False).returncode == 0 or shutil.which("ping") is None:
                break
            time.sleep(0.1)

    def close(self) -> None:
        for proc in self._procs:
            if proc.poll() is None:
                proc.kill()
        for proc in self._procs:
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=5)
        self._procs.clear()
        for ns in (self.ns_sender, self.ns_receiver):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, check=False)

    # -- processes ---------------------------------------------------------------
    def _exec(self, ns: str, argv: Sequence[str]) -> list[str]:
        return ["ip", "netns", "exec", ns, *argv]

    def run(self, ns: str, argv: Sequence[str], timeout: float = 60, check: bool = True,
            env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
        proc = subprocess.run(self._exec(ns, argv), capture_output=True, text=True, timeout=timeout, env=env,
                              check=False)
        if check and proc.returncode != 0:
            raise RuntimeError(f"{' '.join(argv)} in {ns} failed ({proc.returncode}): {proc.stderr.strip()}")
        return proc

    def sender(self, argv: Sequence[str], **kw: object) -> subprocess.CompletedProcess:
        return self.run(self.ns_sender, argv, **kw)  # type: ignore[arg-type]

    def receiver(self, argv: Sequence[str], **kw: object) -> subprocess.CompletedProcess:
        return self.run(self.ns_receiver, argv, **kw)  # type: ignore[arg-type]

    def spawn(self, ns: str, argv: Sequence[str], env: dict[str, str] | None = None,
              background: bool = False) -> subprocess.Popen:
        """Start a process in a namespace; the lab kills it at close() if still running."""
        proc = subprocess.Popen(self._exec(ns, argv), stdout=subprocess.DEVNULL if background else subprocess.PIPE,
                                stderr=subprocess.DEVNULL if background else subprocess.PIPE, text=True, env=env)
        self._procs.append(proc)
        return proc

    def python(self, ns: str, module: str, args: Sequence[str], background: bool = False,
               nice: int = 0) -> subprocess.Popen:
        argv = [sys.executable, "-m", module, *args]
        if nice:
            argv = ["nice", "-n", str(nice), *argv]
        return self.spawn(ns, argv, env=python_env(), background=background)

    # -- traffic control on the sender's veth --------------------------------------
    def clear(self) -> None:
        for parent in ("root", "clsact"):
            self.sender(["tc", "qdisc", "del", "dev", SENDER_DEV, parent], check=False)

    def apply_script(self, script: Script | Path | str, env: dict[str, str] | None = None) -> None:
        """Run a script (sh SCRIPT ARGS... DEV) against the sender's veth."""
        self.clear()
        self.sender(script_command(script, SENDER_DEV), env=env)

    def apply_commands(self, commands: Sequence[Sequence[str]]) -> None:
        self.clear()
        for argv in commands:
            self.sender(argv)

    def class_packets(self) -> dict[str, int]:
        """Packets sent by each HTB class of the sender's veth (tc -s class show)."""
        out: dict[str, int] = {}
        current = None
        for line in self.sender(["tc", "-s", "class", "show", "dev", SENDER_DEV]).stdout.splitlines():
            words = line.split()
            if words[:2] == ["class", "htb"]:
                current = words[2]
            elif words[:1] == ["Sent"] and current is not None:
                out[current] = int(words[3])
        return out

    def send_marked(self, family: str, tos: int, count: int, port: int = 9) -> None:
        """Send `count` small UDP datagrams from the sender with this TOS / IPv6 traffic class."""
        dest = RECEIVER_IP6 if family == "inet6" else RECEIVER_IP
        code = (
            "import socket\n"
            f"s = socket.socket(socket.AF_INET{'6' if family == 'inet6' else ''}, socket.SOCK_DGRAM)\n"
            f"s.setsockopt(socket.{'IPPROTO_IPV6' if family == 'inet6' else 'IPPROTO_IP'}, "
            f"socket.{'IPV6_TCLASS' if family == 'inet6' else 'IP_TOS'}, {tos})\n"
            f"for _ in range({count}):\n"
            f"    s.sendto(b'qosc', ('{dest}', {port}))\n"
        )
        self.sender([sys.executable, "-c", code])

    def tc_state(self) -> str:
        out = self.sender(["tc", "-s", "class", "show", "dev", SENDER_DEV], check=False).stdout
        return self.sender(["tc", "qdisc", "show", "dev", SENDER_DEV], check=False).stdout + out


def _run(argv: Sequence[str]) -> None:
    proc = subprocess.run(argv, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise LabUnavailable(f"{' '.join(argv)} failed: {proc.stderr.strip()}")
