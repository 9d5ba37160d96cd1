"""Push outcomes when replies are lost, against a real NETCONF server (netconfd behind OpenSSH).

A FaultProxy sits between qosc and the server.  It is armed just before
qosc sends the request under test (the confirmed commit, the read-back that
verifies it, the confirming commit) and then cuts the connection before the
request is forwarded, right after forwarding it, a few milliseconds later, or
when the server starts to answer; or it blackholes the connection (nothing
forwarded, nothing closed).  The device is the real server: after every
trial the test reads the server's running datastore in its own session and
checks that the outcome qosc reported is what the server holds, now and
after the confirm timeout has passed (so that "committed" was not a pending
confirmed commit about to revert), and that no lock is left.

Also here: the blackholed and unreachable cases with their timing, a hung
NETCONF server, key authentication with a password in the environment, and
the same lost-answer faults on the IOS and JUNOS RPC simulators.
"""

from __future__ import annotations

import time

import pytest
from push.fixtures import (
    ios_lab_fixture,  # noqa: F401  (provides the `ios_lab` fixture)
    junos_sim_fixture,  # noqa: F401  (provides the `junos_sim` fixture)
    netconfd_fixture,  # noqa: F401  (provides the `netconfd` fixture)
    sim_host_key,  # noqa: F401  (the `junos_sim` fixture's host key, made once per session)
)
from push.lab import lab_policy
from push.peers import FaultProxy
from test_push_netconf import env_for, lock_free, reset, running, wait_for

from qosc.push import runner
from qosc.push.base import COMMITTED, NOT_COMMITTED, ROLLED_BACK, UNKNOWN, Status

pytestmark = pytest.mark.slow  # trials that wait out confirm timeouts and request deadlines

CONFIRM_TIMEOUT = 2  # seconds: the server reverts an unconfirmed commit this long after it


def holds_change(peer) -> bool:
    """The server's running datastore holds what the lab policy pushes (its scheduler map)."""
    return "<name>assured-rate</name>" in running(peer)


def push_through(peer, tmp_path, monkeypatch, stage: str, mode: str, delay: float = 0.0,
                 unreachable_after: bool = False, **options):
    """Push the lab policy through a FaultProxy armed at `stage`; returns (result, proxy, time of the result)."""
    from qosc.push.netconf import NetconfDriver
    proxy = FaultProxy(peer.port)
    original = NetconfDriver._call
    seen: list[str] = []

    def armed(self, name, fn, *args, **kwargs):
        if name == stage and not seen:
            seen.append(name)
            proxy.arm(mode, delay)
            proxy.blackhole_new = unreachable_after
        return original(self, name, fn, *args, **kwargs)

    monkeypatch.setattr(NetconfDriver, "_call", armed)
    known = tmp_path / "known_hosts"
    line = peer.sshd.known_hosts.read_text()
    known.write_text(line + line.replace(f"]:{peer.port} ", f"]:{proxy.port} "))
    for key, value in env_for(peer, tmp_path, proxy.port).items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("QOSC_KNOWN_HOSTS", str(known))
    jobs, _ = runner.plan([str(lab_policy(tmp_path))], ["edge-mx"])
    options.setdefault("confirm_timeout", CONFIRM_TIMEOUT)
    try:
        [result] = runner.run(jobs, runner.Options(commit=True, workers=1, progress=False, **options))
        done = time.monotonic()
    finally:
        monkeypatch.setattr(NetconfDriver, "_call", original)
        proxy.close()
    assert proxy.dropped.is_set(), f"the fault at {stage} never fired: {result}"
    return result, proxy, done


def assert_truthful(peer, result, confirm_timeout: float = CONFIRM_TIMEOUT) -> bool:
    """The reported outcome is the server's state, now and once the confirm timeout has passed; no lock left."""
    state = holds_change(peer)
    assert result.outcome != UNKNOWN, result  # the server was reachable: qosc must have read its state
    assert (result.outcome == COMMITTED) == state, (result.outcome, state, result)
    assert result.outcome in (COMMITTED, ROLLED_BACK, NOT_COMMITTED)
    expected = {COMMITTED: (Status.CHANGED, Status.FAILED), ROLLED_BACK: (Status.ROLLED_BACK,),
                NOT_COMMITTED: (Status.FAILED,)}[result.outcome]
    assert result.status in expected, result
    if result.status is Status.CHANGED:
        assert result.stage == "confirm" or not result.error, result  # only the confirm's reply may be lost
    time.sleep(confirm_timeout + 1.5)  # netconfd runs its confirmed-commit timer when idle
    assert holds_change(peer) == state, "the state qosc reported did not last: a confirmed commit was pending"
    assert lock_free(peer)
    return state


# (how, delay) at each stage whose request is hit: every drop point, twice over (the two rounds are separate
# tests, so that xdist workers run them side by side): 24 trials
DROPS = [("before", 0.0), ("forwarded", 0.0), ("forwarded", 0.05), ("reply", 0.0)]


@pytest.mark.parametrize("round_", [1, 2])
@pytest.mark.parametrize("stage", ["commit", "verify", "confirm"])
def test_reported_outcome_matches_the_servers_running_state(netconfd, tmp_path, monkeypatch, stage, round_):
    rows = []
    for i, (mode, delay) in enumerate(DROPS):
        reset(netconfd)
        assert not holds_change(netconfd)
        trial = tmp_path / f"t{i}"
        trial.mkdir()
        result, _, _ = push_through(netconfd, trial, monkeypatch, stage, mode, delay)
        state = assert_truthful(netconfd, result)
        rows.append((stage, mode, delay, result.status.value, result.outcome, state))
    print("\nstage    drop       delay  status       outcome        running holds the change")
    for _, mode, delay, status, outcome, state in rows:
        print(f"{stage:8} {mode:10} {delay:5.2f}  {status:12} {outcome:14} {state}")
    # the confirm whose request reached the server (or was re-sent after reconnecting) leaves the change
    assert all(r[4] == COMMITTED for r in rows if r[0] == "confirm"), rows
    # a commit that never reached the server, or was cancelled after reconnecting, leaves nothing
    assert all(r[4] in (ROLLED_BACK, NOT_COMMITTED) for r in rows if r[0] in ("commit", "verify")), rows
    if stage == "commit":  # both: the commit cut before it reached the server, and one that reached it
        assert any(r[4] == ROLLED_BACK for r in rows) and any(r[4] == NOT_COMMITTED for r in rows), rows


@pytest.mark.parametrize("stage", ["commit", "confirm"])
def test_blackholed_session_is_reported_within_10_seconds(netconfd, tmp_path, monkeypatch, stage):
    """Nothing forwarded, nothing closed, with the default 10 s request deadline: the unanswered SSH keepalive
    declares the session dead, qosc reconnects, kills the session the server still thinks alive (it holds the
    lock) and reads the state.  The blackholed request never reached the server: a commit that did not happen,
    a confirm that qosc makes again over the new session (the verified commit was still pending)."""
    reset(netconfd)
    result, proxy, done = push_through(netconfd, tmp_path, monkeypatch, stage, "blackhole", confirm_timeout=15)
    elapsed = done - proxy.fired_at
    print(f"\nblackhole at {stage}: reported after {elapsed:.2f} s: {result.status.value}, {result.outcome}")
    assert runner.Options().rpc_timeout == 10.0
    assert elapsed < 10.0, elapsed
    assert any(f"no reply to {stage} and no sign of life" in text for text in (result.error, *result.notes)), result
    assert_truthful(netconfd, result, confirm_timeout=15)
    assert result.outcome == (COMMITTED if stage == "confirm" else NOT_COMMITTED), result


def test_unreachable_device_is_reported_unknown_never_rolled_back(netconfd, tmp_path, monkeypatch):
    """The confirm's path and every new connection blackholed: qosc cannot read the state and says so."""
    reset(netconfd)
    result, proxy, done = push_through(netconfd, tmp_path, monkeypatch, "confirm", "blackhole",
                                       unreachable_after=True, rpc_timeout=3.0)
    elapsed = done - proxy.fired_at
    print(f"\nunreachable after confirm: reported after {elapsed:.2f} s: {result.status.value}, {result.outcome}")
    assert result.status is Status.UNKNOWN and result.outcome == UNKNOWN, result
    assert elapsed < 3.0 / 2 + 3.0 + 2, elapsed  # half the request deadline, then the reconnect deadline
    assert any("could not be read" in note for note in result.notes), result.notes
    assert runner.failed([result])
    # once the dead path is gone, the server ends the session, frees its lock and, the confirm never having
    # reached it, reverts the commit at the confirm timeout: "unknown" was the truth, "committed" would not be
    assert wait_for(lambda: lock_free(netconfd), 15)
    assert wait_for(lambda: not holds_change(netconfd), 15)


def test_password_in_the_environment_does_not_block_key_authentication(netconfd, tmp_path):
    """The server takes keys only; a password in the environment is tried last, never instead of the key, and
    never printed.  Once with the key file, once with the key in an SSH agent (no key file, no ~/.ssh)."""
    import os
    import signal
    import subprocess

    from push.fixtures import qosc
    reset(netconfd)
    password = "Env-pa55-word-7Q"
    env = {**env_for(netconfd, tmp_path), "QOSC_PASSWORD": password}
    report = tmp_path / "r.json"
    with_key = qosc("push", str(lab_policy(tmp_path)), "--device", "edge-mx", "--report", str(report), env=env)
    assert with_key.returncode == 0, with_key.stdout + with_key.stderr
    assert "changed (dry run: not committed)" in with_key.stdout
    agent = subprocess.run(["ssh-agent", "-s", "-a", str(tmp_path / "agent.sock")], capture_output=True,
                           text=True, check=True).stdout
    pid = int(agent.split("SSH_AGENT_PID=")[1].split(";")[0])
    try:
        sock = str(tmp_path / "agent.sock")
        subprocess.run(["ssh-add", "-q", str(netconfd.sshd.client_key)], env={**os.environ, "SSH_AUTH_SOCK": sock},
                       check=True, capture_output=True)
        env.pop("QOSC_SSH_KEY")
        with_agent = qosc("push", str(lab_policy(tmp_path)), "--device", "edge-mx", env={**env,
                          "SSH_AUTH_SOCK": sock})
    finally:
        os.kill(pid, signal.SIGTERM)
    assert with_agent.returncode == 0, with_agent.stdout + with_agent.stderr
    assert "changed (dry run: not committed)" in with_agent.stdout
    for text in (with_key.stdout, with_key.stderr, with_agent.stdout, with_agent.stderr, report.read_text()):
        assert password not in text
    assert lock_free(netconfd)


def test_a_host_key_that_differs_is_refused_with_a_password_set(netconfd, tmp_path):
    """Verification stays on by default: a known_hosts entry with another key refuses the session, and the
    password fallback does not bypass it."""
    from push.fixtures import qosc
    from push.peers import keygen
    reset(netconfd)
    other = keygen(tmp_path / "other_host_key").split()
    known = tmp_path / "wrong_known_hosts"
    known.write_text(f"[127.0.0.1]:{netconfd.port} {other[0]} {other[1]}\n")
    password = "Env-pa55-word-8R"
    env = {**env_for(netconfd, tmp_path), "QOSC_PASSWORD": password, "QOSC_KNOWN_HOSTS": str(known)}
    proc = qosc("push", str(lab_policy(tmp_path)), "--device", "edge-mx", "--commit", env=env)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "open" in proc.stdout and "failed" in proc.stdout
    assert password not in proc.stdout + proc.stderr
    assert not holds_change(netconfd) and lock_free(netconfd)


def test_a_slow_device_keeps_the_whole_deadline_and_a_hung_one_is_unknown(netconfd, tmp_path, monkeypatch):
    """netconfd stopped (SIGSTOP) just before the confirm: sshd still answers the keepalives, so the session is
    not declared dead early; the request deadline (4 s here) ends the wait; the new session gets no NETCONF
    hello within the deadline either, so the state cannot be read: unknown, not rolled back."""
    import os
    import signal

    from qosc.push.netconf import NetconfDriver
    reset(netconfd)
    original = NetconfDriver._call
    stopped: list[float] = []

    def freeze(self, name, fn, *args, **kwargs):
        if name == "confirm" and not stopped:
            os.kill(netconfd.proc.pid, signal.SIGSTOP)
            stopped.append(time.monotonic())
        return original(self, name, fn, *args, **kwargs)

    monkeypatch.setattr(NetconfDriver, "_call", freeze)
    for key, value in env_for(netconfd, tmp_path).items():
        monkeypatch.setenv(key, value)
    jobs, _ = runner.plan([str(lab_policy(tmp_path))], ["edge-mx"])
    try:
        [result] = runner.run(jobs, runner.Options(commit=True, confirm_timeout=30, workers=1, progress=False,
                                                   rpc_timeout=4.0))
        elapsed = time.monotonic() - stopped[0]
    finally:
        os.kill(netconfd.proc.pid, signal.SIGCONT)
        monkeypatch.setattr(NetconfDriver, "_call", original)
    print(f"\nnetconfd stopped at confirm: reported after {elapsed:.2f} s: {result.status.value}, {result.outcome}")
    assert "no reply to confirm within 4 s" in result.error, result
    assert 4.0 <= elapsed < 4.0 + 4.0 + 2, elapsed  # the whole deadline (alive SSH), then the reconnect deadline
    assert result.status is Status.UNKNOWN and result.outcome == UNKNOWN, result
    assert wait_for(lambda: lock_free(netconfd), 40)  # resumed, the server ends the dead sessions


# (stage, drop, delay, configuration lines that pass before the fault)
IOS_TRIALS = [("confirm", "reply", 0.0, 0), ("confirm", "forwarded", 0.0, 0), ("commit", "before", 0.0, 0),
              ("commit", "reply", 0.0, 8), ("commit", "forwarded", 0.3, 8)]


@pytest.mark.parametrize(("stage", "mode", "delay", "after"), IOS_TRIALS)
def test_ios_outcome_after_a_lost_answer_is_read_back(ios_lab, tmp_path, monkeypatch, stage, mode, delay, after):
    """The IOS simulator behind the FaultProxy: the save to startup (confirm) or the applied configuration lines
    (commit) lose their answer.  qosc reads the running configuration back over a new session: a verified change
    is saved again (committed), a partly applied one is restored from the rollback copy (rolled back)."""
    from push.fixtures import INITIAL_IOS
    from push.ios_sim import IosLab
    from push.ios_sim import parse as sim_parse
    from push.ios_sim import render as sim_render
    from test_push_ios import env_for as ios_env

    from qosc.targets.ios.push import IosDriver, plan
    lab = ios_lab()
    dev = lab.devices["asr-1"]
    proxy = FaultProxy(lab.ports["asr-1"])
    original = IosDriver._send
    armed: list[str] = []

    def send(self, name, command, answers=0):
        if stage == "confirm" and name == "save to startup" and not armed:
            armed.append(name)
            proxy.arm(mode, delay)
        out = original(self, name, command, answers)
        if stage == "commit" and name == "save rollback copy" and not armed:
            armed.append(name)
            proxy.arm(mode, delay, after)  # the next bytes qosc sends are the configuration lines
        return out

    monkeypatch.setattr(IosDriver, "_send", send)
    known = tmp_path / "known_hosts"
    known.write_text(lab.known_hosts.read_text() + IosLab.host_key_line("127.0.0.1", proxy.port))
    env = {**ios_env(lab, tmp_path), "QOSC_KNOWN_HOSTS": str(known), "QOSC_PORT_ASR_1": str(proxy.port)}
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    jobs, _ = runner.plan([str(lab_policy(tmp_path))], ["asr-1"])
    try:
        [result] = runner.run(jobs, runner.Options(commit=True, workers=1, progress=False))
    finally:
        proxy.close()
    assert proxy.dropped.is_set(), result
    compiled = next(f.text for f in jobs[0].files if f.path.endswith((".cfg", ".ios", ".txt")))
    running_now = dev.running_text()
    print(f"\nios {stage} {mode} {delay} after {after}: {result.status.value}, {result.outcome}, "
          f"{result.seconds:.1f} s")
    assert result.outcome != UNKNOWN, result
    if result.outcome == COMMITTED:
        assert plan(running_now, compiled) == [] and dev.startup == running_now, result
        assert result.status is Status.CHANGED
    else:
        assert running_now == sim_render(sim_parse(INITIAL_IOS), "asr-1"), result
        assert result.status in (Status.ROLLED_BACK, Status.FAILED)
    expected = COMMITTED if stage == "confirm" else (ROLLED_BACK if after else NOT_COMMITTED)
    assert result.outcome == expected, result


@pytest.mark.parametrize(("stage", "mode"), [("confirm", "reply"), ("confirm", "before"), ("commit", "reply"),
                                             ("commit", "before")])
def test_junos_rpc_path_outcome_after_a_lost_reply(junos_sim, tmp_path, monkeypatch, stage, mode):
    """The JUNOS RPC path (simulator; one JUNOS minute = 4 s): after reconnecting, a committed database that
    holds the change gets a plain commit (which confirms a pending confirmed commit) when the confirm's reply
    was lost, and `rollback 1` with a commit otherwise.  The simulator ends the calling session on
    kill-session; qosc opens one more session and carries on."""
    from test_push_junos import env_for as junos_env

    from qosc.push.netconf import NetconfDriver
    sim = junos_sim.sim
    sim.minute = 4.0  # one JUNOS minute = 4 s: reconnecting after the drop takes over 1 s on a loaded machine
    before = sim.running_text()
    proxy = FaultProxy(junos_sim.port)
    original = NetconfDriver._rpc
    armed: list[str] = []

    def rpc(self, name, element):
        if name == stage and not armed:
            armed.append(name)
            proxy.arm(mode)
        return original(self, name, element)

    monkeypatch.setattr(NetconfDriver, "_rpc", rpc)
    known = tmp_path / "kh_proxy"
    known.write_text(junos_sim.known_hosts.read_text().replace(f"]:{junos_sim.port} ", f"]:{proxy.port} "))
    for key, value in junos_env(junos_sim, tmp_path, proxy.port, known).items():
        monkeypatch.setenv(key, value)
    jobs, _ = runner.plan([str(lab_policy(tmp_path))], ["edge-mx"])
    try:
        [result] = runner.run(jobs, runner.Options(commit=True, confirm_timeout=60, workers=1, progress=False))
    finally:
        proxy.close()
    assert proxy.dropped.is_set(), result
    holds = "scheduler-maps" in sim.running_text()
    print(f"\njunos {stage} {mode}: {result.status.value}, {result.outcome}, running holds the change: {holds}")
    assert result.outcome != UNKNOWN and (result.outcome == COMMITTED) == holds, result
    time.sleep(4.5)  # past the confirm timeout (1 min = 4 s): a pending confirmed commit would have reverted
    assert ("scheduler-maps" in sim.running_text()) == holds
    assert sim.locked_by() == 0
    if stage == "confirm":
        assert result.status is Status.CHANGED and result.outcome == COMMITTED, result
    else:
        assert result.outcome in (ROLLED_BACK, NOT_COMMITTED) and sim.running_text() == before, result
