"""The compile server: one long-lived process that runs `qosc compile` for the command line.

A compile of a large network spends most of a small recompile starting
Python, importing qosc and reading the incremental cache's store back.  `qosc
serve` keeps a process with qosc imported and, per store, what it last wrote
there (qosc.cache.store keeps it while the file on disk is still the one it
wrote); `qosc compile` hands its whole command line to that process when one
is listening for its cache directory, and prints what it answered.  Nothing
else differs: the server runs the same command (qosc.cli.main) in the
client's working directory, with the client's environment and umask, so the
files, the diagnostics and the exit status are the ones the command gives
in-process (tests/test_server.py compares both, byte for byte).

Where the server is not used, `qosc compile` runs in its own process as
before: no server listening, `--no-server`, `--no-cache` (nothing to keep),
`--verify` (it asks this machine, so it runs where it is asked), a server of
another user (the socket lives in the private cache directory, and the
server answers only connections of its own uid, SO_PEERCRED), a server that
runs qosc from another directory than the client, a server whose qosc files
changed since it started (it answers `stale` and exits: the
client never gets output of other code than its own), or a server that ends
without answering (the client says so and compiles itself; a compile is
all-or-nothing, so one cut short left nothing half-written).  Limits, said in
the README: the server notices changes to qosc's own files (sources,
templates, platform data), not upgrades of the libraries it imported (Jinja2,
PyYAML, jsonschema): stop it after one (`qosc serve --stop`).

Protocol: one JSON object a line over a Unix stream socket `server.sock` in
the cache directory.  Request {"op": "compile", "argv", "cwd", "env",
"umask", "code": where the client's qosc is} | {"op": "status"} | {"op": "stop"}; answer {"code", "stdout",
"stderr"} | {"refused": why} | {"stale": why} | {"pid", "requests", "since"}.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import select
import signal
import socket
import struct
import sys
import time
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

SOCKET = "server.sock"
IDLE = 900.0
"""Seconds without a request after which the server exits (qosc serve --idle)."""
QUIET = 0.25
"""Seconds without a request after a compile before the server writes the cache's store and collects garbage."""
MAX_REQUEST = 1 << 22
"""Bytes of one request (a command line, a working directory and an environment)."""
_SO_PEERCRED = struct.Struct("3i")
serving = False
"""True in the server process: its own compiles never delegate (qosc.cli.main runs them here)."""
_later: list[Callable[[], object]] = []


_client: socket.socket | None = None
"""The connection of the compile being run (see `abandoned`)."""


def abandoned() -> bool:
    """Whether the client of the compile being run has gone (interrupted: Ctrl-C, killed): the compile then
    publishes nothing, as it would have in the client's own process."""
    if _client is None:
        return False
    gone = select.POLLHUP | select.POLLERR | getattr(select, "POLLRDHUP", 0)
    poll = select.poll()
    poll.register(_client.fileno(), select.POLLIN | gone)
    return any(events & gone for _, events in poll.poll(0))


def after_answer(work: Callable[[], object]) -> None:
    """Run `work` once the client has its answer (the server writes the cache's store then: a server stopped
    before leaves the previous store, which the next compile finds out of date where it is, and renders)."""
    _later.append(work)


def socket_path(cache_dir: Path) -> Path:
    return cache_dir / SOCKET


def peer_uid(conn: socket.socket) -> int:
    """The uid of the process at the other end of a Unix socket (SO_PEERCRED)."""
    _pid, uid, _gid = _SO_PEERCRED.unpack(conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, _SO_PEERCRED.size))
    return uid


NOBODY: dict[str, Any] = {}
"""`_exchange`'s answer when no server of this user listens there (nothing was sent)."""


def _exchange(path: Path, request: dict[str, Any], timeout: float | None) -> dict[str, Any] | None:
    """Send one request to the server at `path` and read its one answer (None: it ended without answering;
    NOBODY: no server of this user listens there)."""
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM | socket.SOCK_CLOEXEC)
    try:
        conn.settimeout(2.0)
        try:
            conn.connect(str(path))
        except OSError:  # (a socket left by a server that was killed, or none)
            return NOBODY
        if peer_uid(conn) != os.geteuid():  # a socket of another user in our directory: never trusted
            return NOBODY
        conn.settimeout(timeout)
        conn.sendall(json.dumps(request).encode() + b"\n")
        chunks = []
        while True:
            chunk = conn.recv(1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
            if chunk.endswith(b"\n"):
                break
        answer = json.loads(b"".join(chunks)) if chunks else None
        return answer if isinstance(answer, dict) else None
    except (OSError, ValueError):
        return None
    finally:
        conn.close()


def _cache_dir_of(argv: list[str]) -> Path | None:
    """The cache directory `qosc compile argv` uses, as far as the client needs to know where to connect."""
    for i, arg in enumerate(argv):
        if arg == "--cache-dir" and i + 1 < len(argv):
            return Path(argv[i + 1])
        if arg.startswith("--cache-dir="):
            return Path(arg.split("=", 1)[1])
    from qosc.cachedir import default_dir

    return default_dir()


def delegate(argv: list[str]) -> int | None:
    """Run `qosc compile` on the server of its cache directory: its exit status, None to compile here."""
    if serving or not argv or argv[0] != "compile" or not hasattr(socket, "SO_PEERCRED") or \
            any(a in ("--no-server", "--no-cache", "--verify") for a in argv[1:]):
        return None
    cache_dir = _cache_dir_of(argv[1:])
    if cache_dir is None:
        return None
    path = socket_path(cache_dir)
    if not os.path.exists(path):
        return None
    mask = os.umask(0o022)
    os.umask(mask)
    answer = _exchange(path, {"op": "compile", "argv": argv, "cwd": os.getcwd(), "env": dict(os.environ),
                              "umask": mask, "code": _code_root()}, None)
    if answer is None:
        print(f"qosc: the compile server at {path} ended without an answer; compiling here", file=sys.stderr)
        return None
    if "stale" in answer:
        print(f"qosc: the compile server at {path} stopped: {answer['stale']}; compiling here", file=sys.stderr)
    if "code" not in answer:  # nobody listens, it refused (what it does not serve), or stale: compile here
        return None
    sys.stdout.write(str(answer.get("stdout", "")))
    sys.stdout.flush()
    sys.stderr.write(str(answer.get("stderr", "")))
    sys.stderr.flush()
    return int(answer["code"])


def status(cache_dir: Path) -> dict[str, Any] | None:
    """The server's pid, compiles and start time, None when none of this user listens for `cache_dir`."""
    return _exchange(socket_path(cache_dir), {"op": "status"}, 5.0) or None


def stop(cache_dir: Path) -> bool:
    return bool(_exchange(socket_path(cache_dir), {"op": "stop"}, 5.0))


def _code_root() -> str:
    """Where this process's qosc comes from (a server answers only clients that run the same files)."""
    import qosc

    return os.path.dirname(os.path.realpath(qosc.__file__))


def _code_state() -> tuple[tuple[str, int, int], ...]:
    """What says qosc's files on disk are still those this process loaded: every file the code fingerprint
    reads (qosc.cache.store), by path, size and mtime."""
    from qosc.cache.store import _code_roots

    found = []
    for root in _code_roots():
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
            for name in sorted(filenames):
                if name.endswith((".py", ".json", ".j2", ".sh")):
                    path = os.path.join(dirpath, name)
                    with contextlib.suppress(OSError):
                        st = os.stat(path)
                        found.append((path, st.st_size, st.st_mtime_ns))
    return tuple(found)


class Command(Protocol):
    """The command line the server runs (the qosc.cli module; passed in, as qosc.cli imports this module)."""

    def parser(self) -> argparse.ArgumentParser: ...

    def main(self, argv: Sequence[str] | None = None) -> int: ...


def _terminate(_signum: int, _frame: Any) -> None:
    raise SystemExit(0)


class Server:
    """A listening compile server for one cache directory (see the module docstring)."""

    def __init__(self, cache_dir: Path, idle: float = IDLE) -> None:
        from qosc.cachedir import _private_dir

        if not hasattr(socket, "SO_PEERCRED"):
            raise OSError("a compile server needs SO_PEERCRED (Linux) to tell who connects")
        os.close(_private_dir(cache_dir))  # Untrusted: not this user's private directory
        self.path = socket_path(cache_dir)
        if len(os.fsencode(self.path)) > 100:
            raise OSError(f"{self.path}: too long for a Unix socket path (use a shorter --cache-dir)")
        if status(cache_dir) is not None:
            raise OSError(f"a compile server is already listening on {self.path}")
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)  # left by a server that was killed
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM | socket.SOCK_CLOEXEC)
        self.sock.bind(str(self.path))
        os.chmod(self.path, 0o600)
        self.sock.listen(16)
        self.ino = os.stat(self.path).st_ino
        self.idle, self.requests, self.since = idle, 0, time.time()
        self.code = _code_state()

    def serve(self, command: Command) -> None:
        """Answer requests until stopped, idle for `idle` seconds, or the socket is no longer ours; `command` is
        the command line's (qosc.cli: its parser and main), which the server runs for its clients."""
        import gc

        from qosc.cache import store

        global serving
        signal.signal(signal.SIGTERM, _terminate)  # (a compile in progress is abandoned as on Ctrl-C: all or nothing)
        self.command = command
        command.parser()  # (everything a compile imports, once)
        store.keep_written = serving = True
        last = time.monotonic()
        later: list[Callable[[], object]] = []  # done once no compile came for QUIET seconds
        try:
            while time.monotonic() - last < self.idle and self._ours():
                self.sock.settimeout(QUIET if later else min(5.0, self.idle))
                try:
                    conn, _ = self.sock.accept()
                except TimeoutError:
                    if later:
                        later.pop(0)()
                    continue
                last = time.monotonic()
                with conn:
                    if not self._answer(conn):
                        return
                later = [store.flush, gc.collect]  # (the store written, garbage collected: not in a compile's time)
        finally:
            store.flush()
            self.close()

    def _ours(self) -> bool:
        try:
            return os.stat(self.path).st_ino == self.ino
        except OSError:
            return False

    def close(self) -> None:
        self.sock.close()
        if self._ours():
            with contextlib.suppress(OSError):
                os.unlink(self.path)

    def _answer(self, conn: socket.socket) -> bool:
        """Answer one connection; False: stop serving."""
        global _client
        if peer_uid(conn) != os.geteuid():
            return True  # another user's process: no answer at all
        conn.settimeout(10.0)
        data = b""
        with contextlib.suppress(OSError):
            while not data.endswith(b"\n") and len(data) < MAX_REQUEST:
                chunk = conn.recv(1 << 16)
                if not chunk:
                    break
                data += chunk
        try:
            request = json.loads(data)
        except ValueError:
            return True
        op = request.get("op") if isinstance(request, dict) else None
        keep = True
        if op == "status":
            answer: dict[str, Any] = {"pid": os.getpid(), "requests": self.requests, "since": self.since}
        elif op == "stop":
            answer, keep = {"stopped": os.getpid()}, False
        elif op != "compile":
            answer = {"refused": f"unknown request {op!r}"}
        elif request.get("code") != _code_root():
            answer = {"refused": f"this server runs qosc from {_code_root()}, not {request.get('code')}"}
        elif _code_state() != self.code:
            answer, keep = {"stale": "qosc's files changed since this server started"}, False
        else:
            self.requests += 1
            _client = conn
            try:
                answer = _compile(request, self.command)
            finally:
                _client = None
        with contextlib.suppress(OSError):
            conn.settimeout(None)
            conn.sendall(json.dumps(answer).encode() + b"\n")
        conn.close()
        while _later:
            with contextlib.suppress(Exception):
                _later.pop(0)()
        return keep


def _compile(request: dict[str, Any], command: Command) -> dict[str, Any]:
    """Run `qosc` with the request's command line, directory, environment and umask; restore them after."""
    argv, cwd, env, mask = request.get("argv"), request.get("cwd"), request.get("env"), request.get("umask")
    if not (isinstance(argv, list) and all(isinstance(a, str) for a in argv) and isinstance(cwd, str)
            and isinstance(env, dict) and isinstance(mask, int)):
        return {"refused": "malformed request"}
    try:
        args = command.parser().parse_args(argv)
    except SystemExit:
        args = None
    if args is None or getattr(args, "command", None) != "compile" or args.verify or args.no_cache:
        return {"refused": "only compiles without --verify or --no-cache are served"}
    saved_env, saved_cwd = dict(os.environ), os.getcwd()
    out, err = io.StringIO(), io.StringIO()
    old_mask = os.umask(mask)
    try:
        os.chdir(cwd)
        os.environ.clear()
        os.environ.update({str(k): str(v) for k, v in env.items()})
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = command.main(argv)
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            except Exception:  # noqa: BLE001 - what the command would have printed, then exit 1, as in-process
                traceback.print_exc()
                code = 1
    except OSError as exc:
        return {"refused": f"cannot run in {cwd}: {exc.strerror or exc}"}
    finally:
        os.umask(old_mask)
        os.environ.clear()
        os.environ.update(saved_env)
        os.chdir(saved_cwd)
    return {"code": code, "stdout": out.getvalue(), "stderr": err.getvalue()}
