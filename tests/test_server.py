"""The compile server (qosc serve, qosc.server): `qosc compile` through it gives what it gives in its own process.

Every test starts a real server process on a private cache directory and runs
the real command line against it: the files (bytes and modes), the
diagnostics and the exit status are compared with a compile in its own
process (--no-server) of the same policy, edit after edit; and the server is
shown to have answered (its count of compiles), so a test cannot pass by the
client quietly compiling alone.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from qosc import server

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "tests"))

from compile_scale import change_one_device, generate  # noqa: E402
from test_scale import _copy_qosc  # noqa: E402

pytestmark = pytest.mark.xdist_group("server")


def _env(cache: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("QOSC_")}
    return {**env, "QOSC_CACHE_DIR": str(cache), **extra}


def _qosc(cwd: Path, env: dict[str, str], *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "qosc", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout, check=False)


def _serve(cache: Path, env: dict[str, str], *extra: str, cwd: Path = ROOT) -> subprocess.Popen[str]:
    proc = subprocess.Popen([sys.executable, "-m", "qosc", "serve", "--cache-dir", str(cache), *extra], cwd=cwd,
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while server.status(cache) is None:
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
        assert time.monotonic() < deadline, "the server did not listen"
        time.sleep(0.05)
    return proc


def _stop(proc: subprocess.Popen[str]) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)


def _tree(out: Path) -> dict[str, tuple[bytes, int]]:
    found = {}
    for path in sorted(out.rglob("*")):
        if path.is_file() and not path.is_symlink():
            found[str(path.relative_to(out))] = (path.read_bytes(), path.stat().st_mode & 0o777)
    return found


def _compiled(cwd: Path, env: dict[str, str], out: str, policy: str, *extra: str) -> tuple[int, str, str]:
    proc = _qosc(cwd, env, "compile", "-o", out, policy, *extra)
    return proc.returncode, proc.stdout.replace(out, "OUT"), proc.stderr.replace(out, "OUT")


def test_compiles_through_the_server_like_in_its_own_process(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    policy = work / "net.yaml"
    policy.write_text(generate(60))
    served, alone = _env(tmp_path / "cache-a"), _env(tmp_path / "cache-b")
    proc = _serve(tmp_path / "cache-a", served)
    try:
        edits = [
            lambda t: t,  # cold
            lambda t: change_one_device(t, "r00007.example.net"),  # within a line: the server's short way
            lambda t: change_one_device(t, "r00011.example.net").replace(
                "  r00003.example.net:\n", "  # a comment line\n  r00003.example.net:\n"),  # lines move
            lambda t: t.replace("platform: ios-xe", "platform: ios-xx", 1),  # an error: exit 1, nothing written
            lambda t: t.replace("platform: ios-xx", "platform: ios-xe", 1),
        ]
        for n, edit in enumerate(edits):
            policy.write_text(edit(policy.read_text()))
            before = (server.status(tmp_path / "cache-a") or {}).get("requests")
            old = os.umask(0o027)  # the client's umask is the server's for the compile
            try:
                got = _compiled(work, served, "out-a", "net.yaml", "-j", "1")
                want = _compiled(work, alone, "out-b", "net.yaml", "-j", "1", "--no-server")
            finally:
                os.umask(old)
            assert got == want, n
            assert (server.status(tmp_path / "cache-a") or {}).get("requests") == before + 1, n
            assert _tree(work / "out-a") == _tree(work / "out-b"), n
        assert "from the cache" in got[2]
        # a usage error is the command line's: refused by the server, printed by the client as ever
        usage = _qosc(work, served, "compile", "-o", "out-a", "net.yaml", "--no-such-option")
        assert usage.returncode == 2 and "unrecognized arguments: --no-such-option" in usage.stderr
    finally:
        _stop(proc)
    assert not server.socket_path(tmp_path / "cache-a").exists()  # it cleans up after itself


def test_a_server_killed_during_a_compile_leaves_the_client_to_compile(tmp_path: Path) -> None:
    policy = tmp_path / "net.yaml"
    policy.write_text(generate(1500))
    env = _env(tmp_path / "cache")
    proc = _serve(tmp_path / "cache", env)
    client = subprocess.Popen([sys.executable, "-m", "qosc", "compile", "-q", "-j", "1", "-o", "out", "net.yaml"],
                              cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while not list(tmp_path.glob(".qosc-work-*/*.stage")):  # the server has begun staging the files
        assert client.poll() is None and proc.poll() is None and time.monotonic() < deadline
        time.sleep(0.005)
    proc.kill()  # kill -9 in the middle of the compile
    proc.wait(timeout=30)
    _, err = client.communicate(timeout=300)
    assert client.returncode == 0, err
    assert "ended without an answer; compiling here" in err
    want = _compiled(tmp_path, _env(tmp_path / "cache-b"), "out-b", "net.yaml", "-q", "--no-server")
    assert want[0] == 0
    assert _tree(tmp_path / "out") == _tree(tmp_path / "out-b")
    # the socket the killed server left is nobody's: the next compile runs here without a word about a server
    again = _qosc(tmp_path, env, "compile", "-q", "-o", "out", "net.yaml")
    assert again.returncode == 0 and "server" not in again.stderr


def test_an_interrupted_client_publishes_nothing(tmp_path: Path) -> None:
    """Ctrl-C on `qosc compile` stops it before it publishes, in its own process; through the server too."""
    (tmp_path / "net.yaml").write_text(generate(1500))
    env = _env(tmp_path / "cache")
    proc = _serve(tmp_path / "cache", env)
    try:
        client = subprocess.Popen([sys.executable, "-m", "qosc", "compile", "-q", "-j", "1", "-o", "out", "net.yaml"],
                                  cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 120
        while not list(tmp_path.glob(".qosc-work-*/*.stage")):
            assert client.poll() is None and time.monotonic() < deadline
            time.sleep(0.005)
        client.send_signal(signal.SIGINT)
        _, err = client.communicate(timeout=60)
        assert client.returncode == 130 and "qosc: interrupted" in err
        status = None
        while status is None and time.monotonic() < deadline:  # (answered once the server is done with it)
            status = server.status(tmp_path / "cache")
        assert status is not None and status["requests"] == 1
        assert not (tmp_path / "out").exists()  # nothing published
    finally:
        _stop(proc)


def test_a_server_whose_qosc_changed_stops_and_the_client_compiles(tmp_path: Path) -> None:
    src = _copy_qosc(tmp_path / "src")
    env = _env(tmp_path / "cache", PYTHONPATH=str(src))
    (tmp_path / "net.yaml").write_text(generate(12))
    proc = _serve(tmp_path / "cache", env, cwd=src)
    try:
        first = _qosc(tmp_path, env, "compile", "-o", "out", "net.yaml")
        assert first.returncode == 0 and (server.status(tmp_path / "cache") or {}).get("requests") == 1
        cli = src / "qosc" / "cli.py"
        cli.write_text(cli.read_text() + "\n# changed\n")
        second = _qosc(tmp_path, env, "compile", "-o", "out", "net.yaml")
        assert second.returncode == 0
        assert "qosc's files changed since this server started; compiling here" in second.stderr
        proc.wait(timeout=30)  # and it exits
    finally:
        _stop(proc)


def test_a_client_running_other_qosc_files_is_not_served(tmp_path: Path) -> None:
    src = _copy_qosc(tmp_path / "src")
    (tmp_path / "net.yaml").write_text(generate(12))
    proc = _serve(tmp_path / "cache", _env(tmp_path / "cache"))  # the checkout's qosc
    try:
        other = _qosc(tmp_path, _env(tmp_path / "cache", PYTHONPATH=str(src)), "compile", "-o", "out", "net.yaml")
        assert other.returncode == 0
        assert (server.status(tmp_path / "cache") or {}).get("requests") == 0
    finally:
        _stop(proc)


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to connect as another user")
def test_another_users_process_gets_no_answer() -> None:
    top = Path(tempfile.mkdtemp(prefix="qosc-server-test-"))  # (pytest's tmp_path is under a 0700 directory)
    cache = top / "cache"
    proc = _serve(cache, _env(cache))
    try:
        sock = server.socket_path(cache)
        top.chmod(0o711)
        cache.chmod(0o711)  # (made reachable for this test only: the directory is 0700)
        sock.chmod(0o666)
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:
            answer = b"?"
            try:
                os.setgid(65534)
                os.setuid(65534)
                conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                conn.settimeout(10)
                conn.connect(str(sock))
                conn.sendall(b'{"op": "status"}\n')
                answer = b"answered:" + conn.recv(4096)
            except (BrokenPipeError, ConnectionResetError):
                answer = b"closed"  # (it closed without reading what was sent)
            except OSError as exc:
                answer = f"error:{exc}".encode()
            finally:
                os.write(write, answer)
                os._exit(0)
        os.close(write)
        os.waitpid(pid, 0)
        with os.fdopen(read, "rb") as fh:
            seen = fh.read()
        assert seen in (b"answered:", b"closed"), seen  # connected, and the server closed without a word
        assert server.status(cache) is not None  # and it serves its own user still
    finally:
        _stop(proc)
        shutil.rmtree(top, ignore_errors=True)


def test_serve_refuses_a_cache_directory_others_can_write(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o777)
    cache.chmod(0o777)
    proc = _qosc(tmp_path, _env(cache), "serve", "--cache-dir", str(cache), timeout=60)
    assert proc.returncode == 2 and "writable by other users" in proc.stderr
    assert not server.socket_path(cache).exists()


def test_an_idle_server_exits_and_stop_and_status(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    proc = _serve(cache, _env(cache), "--idle", "1")
    proc.wait(timeout=30)
    assert not server.socket_path(cache).exists()
    proc = _serve(cache, _env(cache))
    try:
        status = _qosc(tmp_path, _env(cache), "serve", "--status", "--cache-dir", str(cache), timeout=60)
        assert status.returncode == 0 and f"compile server pid {proc.pid}" in status.stderr
        again = _qosc(tmp_path, _env(cache), "serve", "--cache-dir", str(cache), timeout=60)
        assert again.returncode == 2 and "already listening" in again.stderr
        stopped = _qosc(tmp_path, _env(cache), "serve", "--stop", "--cache-dir", str(cache), timeout=60)
        assert stopped.returncode == 0
        proc.wait(timeout=30)
    finally:
        _stop(proc)
    none = _qosc(tmp_path, _env(cache), "serve", "--status", "--cache-dir", str(cache), timeout=60)
    assert none.returncode == 1 and "no compile server" in none.stderr
