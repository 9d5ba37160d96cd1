"""Speed-ups for FakeNOS's SSH server, for the IOS simulator only (tests/push/ios_sim.py).

FakeNOS reads the client one byte per 10 ms, polls its line buffers every
10 ms and lets Nagle's algorithm hold the prompt behind the echo (~40 ms per
command).  The replacements below do the same work without the sleeps, so the
push tests and benchmarks/push_scale.py measure qosc, not FakeNOS's pacing.
Importing this module installs them.
"""

from __future__ import annotations

import contextlib
import io
import socket
import threading

import paramiko
from fakenos.plugins.servers import ssh_server_paramiko as fakessh


def _send(channel, data: bytes) -> None:
    with contextlib.suppress(OSError, EOFError, paramiko.SSHException):
        channel.sendall(data)


def _fast_channel_to_shell_tap(channel_stdio, shell_stdin, shell_replied_event, run_srv):
    """FakeNOS's reader without its 10 ms per byte: echo what arrives, pass whole lines, wait for each reply."""
    buffer = b""
    last_cr = False
    channel = channel_stdio.channel
    while run_srv.is_set() and channel.active:
        try:
            data = channel.recv(4096)
        except (OSError, EOFError, paramiko.SSHException):
            break
        if not data:
            break
        echo = b""
        for byte in data:
            ch = bytes([byte])
            if ch in (b"\r", b"\n"):
                if ch == b"\n" and last_cr and buffer == b"":
                    last_cr = False
                    continue
                last_cr = ch == b"\r"
                _send(channel, echo + b"\r\n")
                echo = b""
                shell_replied_event.clear()
                shell_stdin.write(buffer.decode("utf-8", "replace") + "\n")
                buffer = b""
                shell_replied_event.wait(10)
            else:
                last_cr = False
                if not getattr(shell_stdin, "no_echo", False):
                    echo += ch
                buffer += ch
        if echo:
            _send(channel, echo)


def _fast_shell_to_channel_tap(channel_stdio, shell_stdout, shell_replied_event, run_srv):
    """FakeNOS's writer, straight to the channel (no buffered file in between)."""
    channel = channel_stdio.channel
    while run_srv.is_set() and channel.active:
        line = shell_stdout.readline()
        if line is None:
            break
        if "\r\n" not in line and "\n" in line:
            line = line.replace("\n", "\r\n")
        _send(channel, line.encode("utf-8"))
        shell_replied_event.set()


class _FastTapIO(io.StringIO):
    """FakeNOS's TapIO (a blocking line queue) with a condition variable instead of 10 ms polling."""

    def __init__(self, run_srv, initial_value: str = "", newline: str = "\n"):
        super().__init__(initial_value, newline)
        self.lines: list[str] = []
        self.run_srv = run_srv
        self.cond = threading.Condition()
        self.no_echo = False

    def readline(self):
        with self.cond:
            while self.run_srv.is_set():
                if self.lines:
                    return self.lines.pop(0)
                self.cond.wait(0.2)
        return None

    def write(self, value: str):
        with self.cond:
            self.lines.append(value)
            self.cond.notify()
        return len(value)


fakessh.channel_to_shell_tap = _fast_channel_to_shell_tap
_connection_function = fakessh.ParamikoSshServer.connection_function


def _nodelay_connection_function(self, client, is_running):
    """Echo and prompt are separate small writes: without TCP_NODELAY, Nagle holds the prompt ~40 ms."""
    with contextlib.suppress(OSError):
        client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return _connection_function(self, client, is_running)


fakessh.ParamikoSshServer.connection_function = _nodelay_connection_function
fakessh.shell_to_channel_tap = _fast_shell_to_channel_tap
fakessh.TapIO = _FastTapIO
