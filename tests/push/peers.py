"""Real protocol peers for the push tests, started and stopped by the tests themselves.

Every peer listens on 127.0.0.1 only, on a port the kernel picks, and lives in
a temporary directory.  A peer that cannot start fails the test loudly under
CI=true and skips it with the reason on a developer machine.

- NetconfdPeer: Debian's yuma123 `netconfd`, loaded with yang/qosc-junos-qos.yang,
  reached through OpenSSH's `sshd` netconf subsystem (`netconf-subsystem`),
  key authentication, host key pinned in a known_hosts file the test writes.
- FaultProxy: a TCP relay in front of any peer that can drop the connection
  at a chosen moment (before the next request, after it, before its reply) or
  blackhole it (stop forwarding without closing).
"""

from __future__ import annotations

import contextlib
import os
import random
import select
import shutil
import socket
import subprocess
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
YANG = ROOT / "yang" / "qosc-junos-qos.yang"


def peer_unavailable(reason: str) -> None:
    """Fail loudly in CI, skip with the reason elsewhere."""
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"push test peer unavailable in CI: {reason}", pytrace=False)
    pytest.skip(reason)


_PORTS = range(20000, 32768)  # below the kernel's ephemeral range (net.ipv4.ip_local_port_range 32768-60999)
_given: set[int] = set()
_random = random.SystemRandom()  # not the `random` module's state, which a derandomized Hypothesis test seeds


def free_port(span: int = 1) -> int:
    """A port (the first of `span` consecutive ones) free on 127.0.0.1 now.

    Under xdist, worker gwI of N picks at random among the ports p of 20000-32767 with p % N == I, never the same
    one twice: two workers of a run never choose the same port between choosing it and their peer binding it,
    and another test run on the machine (its workers pick the same way) rarely does, as with the kernel's own
    random pick, which is used outside xdist."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    count = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "0") or "0")
    if not (worker.startswith("gw") and worker[2:].isdigit() and count):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            return int(s.getsockname()[1])
    mine = [p for p in _PORTS[int(worker[2:]) % count::count] if p + span <= _PORTS.stop and p not in _given]
    for port in _random.sample(mine, min(len(mine), 200)):
        _given.add(port)
        if all(bindable(port + i) for i in range(span)):
            return port
    raise RuntimeError(f"no {span} free ports for {worker} in {_PORTS.start}-{_PORTS.stop - 1}")


def bindable(port: int) -> bool:
    """Whether a listening socket could bind 127.0.0.1:port now."""
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def wait_port(port: int, timeout: float = 10.0, proc: subprocess.Popen | None = None) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            return False
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return True
        except OSError:
            time.sleep(0.05)
    return False


def stop_process(proc: subprocess.Popen | None, timeout: float = 5.0) -> None:
    if proc is None or proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout)


def keygen(path: Path, kind: str = "ed25519", *extra: str) -> str:
    """Generate an OpenSSH key pair without passphrase; returns the public key line."""
    if not shutil.which("ssh-keygen"):
        peer_unavailable("ssh-keygen not installed (Debian package openssh-client; scripts/system-packages)")
    subprocess.run(["ssh-keygen", "-q", "-t", kind, *extra, "-N", "", "-C", "qosc-test", "-f", str(path)],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return Path(f"{path}.pub").read_text().strip()


class SshdPeer:
    """OpenSSH sshd on 127.0.0.1:<port>: key-only login for the current user, extra config lines appended."""

    def __init__(self, workdir: Path, extra: list[str] | None = None):
        self.dir = workdir
        self.extra = extra or []
        self.port = free_port()
        self.proc: subprocess.Popen | None = None
        self.client_key = workdir / "client_key"
        self.known_hosts = workdir / "known_hosts"
        self.user = os.environ.get("USER") or "root"

    def start(self) -> None:
        sshd = shutil.which("sshd") or "/usr/sbin/sshd"
        if not os.path.exists(sshd):
            peer_unavailable("sshd not installed (Debian package openssh-server; scripts/system-packages)")
        self.dir.mkdir(parents=True, exist_ok=True)
        if os.geteuid() == 0:
            Path("/run/sshd").mkdir(exist_ok=True)  # sshd's privilege separation directory
        host_key = self.dir / "host_key"
        host_pub = keygen(host_key)
        keygen(self.client_key)
        (self.dir / "authorized_keys").write_text(Path(f"{self.client_key}.pub").read_text())
        os.chmod(self.dir / "authorized_keys", 0o600)
        config = self.dir / "sshd_config"
        config.write_text("\n".join([
            f"Port {self.port}", "ListenAddress 127.0.0.1", f"HostKey {host_key}",
            f"PidFile {self.dir / 'sshd.pid'}", f"AuthorizedKeysFile {self.dir / 'authorized_keys'}",
            "PasswordAuthentication no", "KbdInteractiveAuthentication no", "PermitRootLogin prohibit-password",
            "StrictModes no", "UsePAM no", "LogLevel ERROR", "MaxStartups 100:30:200", "MaxSessions 50",
            *self.extra, ""]))
        self.known_hosts.write_text(f"[127.0.0.1]:{self.port} {' '.join(host_pub.split()[:2])}\n")
        with open(self.dir / "sshd.log", "wb") as log:
            self.proc = subprocess.Popen([sshd, "-D", "-e", "-f", str(config)], stdout=log, stderr=log)
        if not wait_port(self.port, 10, self.proc):
            stop_process(self.proc)
            peer_unavailable(f"sshd did not start: {(self.dir / 'sshd.log').read_text(errors='replace')[-400:]}")

    def stop(self) -> None:
        stop_process(self.proc)

    def ssh_config(self, alias: str = "*") -> Path:
        """An ssh_config file pointing at this peer (the way an operator would configure it)."""
        path = self.dir / "ssh_config"
        path.write_text(f"Host {alias}\n  HostName 127.0.0.1\n  Port {self.port}\n  User {self.user}\n"
                        f"  IdentityFile {self.client_key}\n  UserKnownHostsFile {self.known_hosts}\n")
        return path


class NetconfdPeer:
    """netconfd (yuma123) with the qosc YANG module, behind sshd's netconf subsystem."""

    def __init__(self, workdir: Path, yang: Path = YANG):
        self.dir = workdir
        self.yang = yang
        self.sock = workdir / "ncxserver.sock"
        self.proc: subprocess.Popen | None = None
        self.sshd = SshdPeer(workdir)
        # netconf-subsystem picks the netconfd socket by the SSH server port it was reached on
        self.sshd.extra = [f"Subsystem netconf /usr/sbin/netconf-subsystem "
                           f"--ncxserver-sockname={self.sshd.port}@{self.sock}"]

    def start(self) -> NetconfdPeer:
        netconfd = shutil.which("netconfd") or "/usr/sbin/netconfd"
        if not os.path.exists(netconfd) or not os.path.exists("/usr/sbin/netconf-subsystem"):
            peer_unavailable("netconfd not installed (Debian package netconfd; scripts/system-packages)")
        (self.dir / "data").mkdir(parents=True, exist_ok=True)  # netconfd saves running here on commit
        log = self.dir / "netconfd.log"
        self.proc = subprocess.Popen(
            [netconfd, f"--module={self.yang}", "--no-startup", f"--port={self.sshd.port}",
             f"--ncxserver-sockname={self.sock}",
             f"--superuser={self.sshd.user}", "--access-control=off", "--target=candidate",
             "--with-startup=false", "--with-validate=true", f"--log={log}",
             "--log-level=" + os.environ.get("QOSC_TEST_NETCONFD_LOG", "warn"),
             f"--yuma-home={self.dir}", f"--runpath={self.dir}"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=self.dir)
        deadline = time.monotonic() + 10
        while not self.sock.exists():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                stop_process(self.proc)
                text = log.read_text(errors="replace")[-600:] if log.exists() else ""
                peer_unavailable(f"netconfd did not start: {text}")
            time.sleep(0.05)
        self.sshd.start()
        return self

    def stop(self) -> None:
        self.sshd.stop()
        stop_process(self.proc)

    @property
    def port(self) -> int:
        return self.sshd.port


class FaultProxy:
    """A TCP relay 127.0.0.1:port -> upstream that can cut a connection at a chosen moment.

    The relay sees only SSH's encrypted bytes; the test arms it just before the
    driver sends the request to hit (`arm(mode)`), and the next client->server
    bytes are that request.  Modes:

    - "reply" (`drop_after_next_request()`): the request is forwarded, and the
      connection is cut as soon as the server starts to answer, so the server has
      acted on the request but the client never sees the reply;
    - "before": the request is not forwarded: the connection is cut at once;
    - "forwarded": the request is forwarded and the connection cut `delay`
      seconds later, whatever the server did meanwhile;
    - "blackhole": from the request on nothing is forwarded either way and both
      sockets stay open (a dead path: neither end learns of it).

    `arm(mode, after=n)` lets n client->server reads through before the fault.
    `blackhole_new = True` blackholes every later connection too (an unreachable
    device).  `fired_at` is the monotonic time the armed fault happened.
    """

    MODES = ("reply", "before", "forwarded", "blackhole")

    def __init__(self, upstream_port: int):
        self.upstream = upstream_port
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(16)
        self.port = int(self.listener.getsockname()[1])
        self._armed = threading.Event()
        self._stop = threading.Event()
        self.mode = "reply"
        self.delay = 0.0
        self.after = 0
        self.blackhole_new = False
        self.fired_at = 0.0
        self.held: list[socket.socket] = []
        self.dropped = threading.Event()
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def arm(self, mode: str, delay: float = 0.0, after: int = 0) -> None:
        if mode not in self.MODES:
            raise ValueError(f"unknown fault mode {mode!r}")
        self.mode, self.delay, self.after = mode, delay, after
        self.dropped.clear()
        self._armed.set()

    def drop_after_next_request(self) -> None:
        self.arm("reply")

    def _fire(self) -> None:
        self._armed.clear()
        self.fired_at = time.monotonic()
        self.dropped.set()

    def _accept(self) -> None:
        while not self._stop.is_set():
            ready, _, _ = select.select([self.listener], [], [], 0.2)
            if not ready:
                continue
            try:
                client, _ = self.listener.accept()
                if self.blackhole_new:
                    self.held.append(client)
                    continue
                server = socket.create_connection(("127.0.0.1", self.upstream))
            except OSError:
                continue
            threading.Thread(target=self._relay, args=(client, server), daemon=True).start()

    def _relay(self, client: socket.socket, server: socket.socket) -> None:
        request_seen = False
        keep = False
        try:
            while not self._stop.is_set():
                ready, _, _ = select.select([client, server], [], [], 0.2)
                for sock in ready:
                    data = sock.recv(65536)
                    if not data:
                        return
                    if sock is client:
                        mode = self.mode if self._armed.is_set() else ""
                        if mode and self.after > 0:
                            self.after -= 1
                            mode = ""
                        if mode in ("before", "blackhole"):
                            self._fire()
                            keep = mode == "blackhole"
                            return
                        server.sendall(data)
                        if mode == "forwarded":
                            self._fire()
                            time.sleep(self.delay)
                            return
                        request_seen = request_seen or mode == "reply"
                    else:
                        if request_seen and self._armed.is_set():
                            self._fire()
                            return
                        client.sendall(data)
        except OSError:
            return
        finally:
            if keep:
                self.held += [client, server]
            else:
                for sock in (client, server):
                    with contextlib.suppress(OSError):
                        sock.shutdown(socket.SHUT_RDWR)
                    sock.close()

    def close(self) -> None:
        self._stop.set()
        self.listener.close()
        self._thread.join(2)
        for sock in self.held:
            with contextlib.suppress(OSError):
                sock.close()
