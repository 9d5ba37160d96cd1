"""pytest fixtures for the push tests: import `<name>_fixture` into a test module, use `<name>`.

Every fixture starts its peer on 127.0.0.1, tears it down afterwards, and
fails loudly under CI=true when the peer cannot start (skips elsewhere).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from push.peers import ROOT, NetconfdPeer, bindable, free_port, keygen, peer_unavailable


def _need(module: str, package: str) -> None:
    try:
        __import__(module)
    except ImportError:
        peer_unavailable(f"Python package {package} not installed (pip install -e '.[test]')")


@pytest.fixture(scope="session", name="netconfd")
def netconfd_fixture(tmp_path_factory):
    """One netconfd (and its sshd) per test session, per xdist worker: every test using it resets its datastores
    first (test_push_netconf.reset)."""
    _need("ncclient", "ncclient")
    peer = NetconfdPeer(tmp_path_factory.mktemp("netconfd")).start()
    yield peer
    peer.stop()


@dataclass
class Sim:
    sim: object
    port: int
    known_hosts: Path
    user: str = "netops"
    password: str = "Sim-pa55-word"
    extra: dict = field(default_factory=dict)


@pytest.fixture(scope="session")
def sim_host_key(tmp_path_factory) -> Path:
    """The JUNOS simulator's RSA host key, made once per session (PEM: the library's key loader reads that format)."""
    key = tmp_path_factory.mktemp("junos-sim") / "sim_host_key"
    keygen(key, "rsa", "-b", "2048", "-m", "PEM")
    return key


@pytest.fixture(name="junos_sim")
def junos_sim_fixture(tmp_path, sim_host_key):
    """The JUNOS RPC simulator (PyPI `netconf` server library), one JUNOS minute = 1 s; a new one per test (its
    running configuration starts as INITIAL_JUNOS), the host key shared."""
    _need("netconf.server", "netconf")
    _need("ncclient", "ncclient")
    from push.junos_sim import JunosSimulator
    port = free_port()
    password = "Sim-pa55-word"
    sim = JunosSimulator(port, str(sim_host_key), "netops", password, initial=INITIAL_JUNOS, minute=1.0).start()
    pub = Path(f"{sim_host_key}.pub").read_text().split()
    known = tmp_path / "known_hosts"
    known.write_text(f"[127.0.0.1]:{port} {pub[0]} {pub[1]}\n")
    yield Sim(sim, port, known, password=password)
    sim.stop()


INITIAL_JUNOS = """\
system {
    host-name edge-mx;
}
firewall {
    policer operator-owned {
        if-exceeding {
            bandwidth-limit 1m;
            burst-size-limit 15k;
        }
        then discard;
    }
}
"""


@pytest.fixture(name="ios_lab")
def ios_lab_fixture(tmp_path):
    """FakeNOS cisco_ios hosts extended into an IOS config-mode simulator (tests/push/ios_sim.py)."""
    _need("fakenos", "fakenos")
    _need("netmiko", "netmiko")
    from push.ios_sim import IosLab
    labs = []

    def start(names=("asr-1",), reject=None, initial=INITIAL_IOS, secret="En-s3cret-99"):
        port = free_port(len(names))
        while not all(bindable(port + i) for i in range(len(names))):
            port = free_port(len(names))
        lab = IosLab(list(names), port, "netops", "Ios-pa55-word", secret=secret, initial=initial,
                     reject=reject).start()
        labs.append(lab)
        known = tmp_path / f"known_hosts_{port}"
        known.write_text("".join(IosLab.host_key_line("127.0.0.1", p) for p in lab.ports.values()))
        lab.known_hosts = known
        lab.password, lab.secret = "Ios-pa55-word", secret
        return lab

    yield start
    for lab in labs:
        lab.stop()


INITIAL_IOS = """\
interface GigabitEthernet0/0/0
 description customer site B
 service-policy output old-qos
interface TenGigabitEthernet0/1/0
 description core uplink
"""


def qosc(*args: str, env: dict | None = None, timeout: float = 300, cwd: Path = ROOT,
         wrap: list[str] | None = None) -> subprocess.CompletedProcess:
    """Run the qosc CLI in a subprocess with a clean credential environment plus `env`."""
    base = {k: v for k, v in os.environ.items() if not k.startswith("QOSC_") and k != "SSH_AUTH_SOCK"}
    base["PYTHONPATH"] = str(ROOT) + os.pathsep + base.get("PYTHONPATH", "")
    base.update(env or {})
    return subprocess.run([*(wrap or []), sys.executable, "-m", "qosc", *args], env=base, capture_output=True,
                          text=True, timeout=timeout, cwd=cwd, check=False)


def push_commit(policy: Path, device: str, env: dict) -> None:
    """qosc push --commit of one device, which must succeed."""
    proc = qosc("push", str(policy), "--device", device, "--commit", env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def verify_clean(policy: Path, device: str, env: dict) -> subprocess.CompletedProcess:
    """qosc verify --from-device of one device, which must find no drift (JSON output)."""
    ok = qosc("verify", str(policy), "--from-device", device, "--format", "json", env=env)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    clean = json.loads(ok.stdout)
    assert clean["devices"] == [device] and clean["drift"] is False, clean
    return ok
