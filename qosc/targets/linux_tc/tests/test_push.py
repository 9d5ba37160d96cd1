"""Push Linux tc, locally and over SSH, into a network namespace the test creates (real kernel, real tc).

Local: qosc runs inside the namespace (`ip netns exec`), where eth0 is one end
of a veth pair.  SSH: OpenSSH sshd on 127.0.0.1 whose ForceCommand runs every
session's command inside the namespace, so the host's own tc state is never
touched.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[4] / "tests"))  # the push peers every driver's tests share
from push.fixtures import qosc
from push.lab import lab_policy
from push.peers import SshdPeer, peer_unavailable


def ns_run(ns: str, *cmd: str) -> subprocess.CompletedProcess:
    return subprocess.run(["ip", "netns", "exec", ns, *cmd], capture_output=True, text=True, timeout=30, check=False)


@pytest.fixture
def netns(tmp_path):
    if os.geteuid() != 0 or not shutil.which("ip") or not shutil.which("tc"):
        peer_unavailable("needs root, ip and tc (iproute2) for a network namespace")
    name = f"qosc-push-{uuid.uuid4().hex[:8]}"
    made = subprocess.run(["ip", "netns", "add", name], capture_output=True, text=True, check=False)
    if made.returncode != 0:
        peer_unavailable(f"cannot create a network namespace: {made.stderr.strip()}")
    try:
        for cmd in (["ip", "link", "add", "eth0", "type", "veth", "peer", "name", "peer0"],
                    ["ip", "link", "set", "eth0", "up"], ["ip", "link", "set", "peer0", "up"]):
            r = ns_run(name, *cmd)
            if r.returncode != 0:
                peer_unavailable(f"cannot set up a veth pair in {name}: {r.stderr.strip()}")
        yield name
    finally:
        subprocess.run(["ip", "netns", "del", name], capture_output=True, check=False)


def qdiscs(ns: str) -> str:
    return ns_run(ns, "tc", "qdisc", "show", "dev", "eth0").stdout


def local_policy(tmp_path, **kw):
    path = lab_policy(tmp_path, source="qbss-linux.yaml", **kw)
    path.write_text(path.read_text().replace("    address: 127.0.0.1\n", ""))  # no address: this machine
    return path


def test_local_dry_run_then_commit_then_unchanged(netns, tmp_path):
    env = {"HOME": str(tmp_path), "QOSC_LINUX_STATE_DIR": str(tmp_path / "state")}
    wrap = ["ip", "netns", "exec", netns]
    before = qdiscs(netns)
    policy = local_policy(tmp_path)
    dry = qosc("push", str(policy), env=env, wrap=wrap)
    assert dry.returncode == 0, dry.stdout + dry.stderr
    assert "lab-sender eth0: current tc state" in dry.stdout and "## tc qdisc show dev eth0" in dry.stdout
    assert "lab-sender eth0: planned batch (eth0.tc)" in dry.stdout and "htb" in dry.stdout
    assert qdiscs(netns) == before  # a dry run changes nothing
    done = qosc("push", str(policy), "--commit", env=env, wrap=wrap)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "linux-local" in done.stdout and " changed" in done.stdout
    assert "htb" in qdiscs(netns)
    again = qosc("push", str(policy), "--commit", env=env, wrap=wrap)
    assert again.returncode == 0 and "unchanged" in again.stdout, again.stdout + again.stderr


def test_local_missing_interface_fails(netns, tmp_path):
    env = {"HOME": str(tmp_path), "QOSC_LINUX_STATE_DIR": str(tmp_path / "state")}
    policy = local_policy(tmp_path, edit={"      eth0:": "      eth9:"})
    proc = qosc("push", str(policy), "--commit", env=env, wrap=["ip", "netns", "exec", netns])
    assert proc.returncode == 1
    assert "failed" in proc.stdout and "commit" in proc.stdout


def test_ssh_push_into_the_namespace(netns, tmp_path):
    state = tmp_path / "remote-state"
    peer = SshdPeer(tmp_path / "sshd", [
        f'ForceCommand env QOSC_LINUX_STATE_DIR={state} ip netns exec {netns} sh -c "$SSH_ORIGINAL_COMMAND"'])
    peer.start()
    try:
        policy = lab_policy(tmp_path, source="qbss-linux.yaml")
        env = {"HOME": str(tmp_path), "QOSC_USER": peer.user, "QOSC_SSH_KEY": str(peer.client_key),
               "QOSC_KNOWN_HOSTS": str(peer.known_hosts), "QOSC_PORT_LAB_SENDER": str(peer.port)}
        dry = qosc("push", str(policy), env=env)
        assert dry.returncode == 0, dry.stdout + dry.stderr
        assert "linux-ssh" in dry.stdout and "planned batch" in dry.stdout
        assert "htb" not in qdiscs(netns)
        done = qosc("push", str(policy), "--commit", env=env)
        assert done.returncode == 0, done.stdout + done.stderr
        assert "htb" in qdiscs(netns)
        assert (state / "lab-sender.eth0.tc").exists()
        again = qosc("push", str(policy), "--commit", env=env)
        assert again.returncode == 0 and "unchanged" in again.stdout, again.stdout + again.stderr
        # a host key that does not match known_hosts is refused
        (tmp_path / "wrong_known_hosts").write_text(peer.known_hosts.read_text().split()[0] + " " +
                                                    " ".join(Path(f"{peer.client_key}.pub").read_text().split()[:2]))
        env["QOSC_KNOWN_HOSTS"] = str(tmp_path / "wrong_known_hosts")
        refused = qosc("push", str(policy), env=env)
        assert refused.returncode == 1 and "failed" in refused.stdout
    finally:
        peer.stop()


def test_verify_from_device_reads_every_interface(netns, tmp_path):
    """qosc verify --from-device on Linux (it was QOS170: the driver could not read): `tc -j ... show` of every
    interface of the device, in one dump with `## dev` lines, read as one device; after a push both interfaces
    match, a class another hand changed on eth1 is drift there, and nothing on the host changes by reading."""
    r = ns_run(netns, "ip", "link", "add", "eth1", "type", "veth", "peer", "name", "peer1")
    assert r.returncode == 0, r.stderr
    for dev in ("eth1", "peer1"):
        assert ns_run(netns, "ip", "link", "set", dev, "up").returncode == 0
    env = {"HOME": str(tmp_path), "QOSC_LINUX_STATE_DIR": str(tmp_path / "state")}
    wrap = ["ip", "netns", "exec", netns]
    policy = local_policy(tmp_path, edit={"        description: 100 Mbit/s bottleneck\n":
                                          "        description: 100 Mbit/s bottleneck\n"
                                          "      eth1:\n        role: core\n        speed: 1G\n"})
    done = qosc("push", str(policy), "--commit", env=env, wrap=wrap)
    assert done.returncode == 0, done.stdout + done.stderr
    before = [ns_run(netns, "tc", "class", "show", "dev", d).stdout for d in ("eth0", "eth1")]
    ok = qosc("verify", str(policy), "--from-device", "lab-sender", "--format", "json", env=env, wrap=wrap)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "QOS170" not in ok.stderr and "QOS172" not in ok.stderr, ok.stderr
    assert [ns_run(netns, "tc", "class", "show", "dev", d).stdout for d in ("eth0", "eth1")] == before
    classes = ns_run(netns, "tc", "-j", "class", "show", "dev", "eth1").stdout
    assert "1:11" in classes or "1:11" in before[1], before[1]
    qbss = next(line for line in before[1].splitlines() if "prio 7" in line or " 1:11 " in line)
    classid = qbss.split()[2]
    changed = ns_run(netns, "tc", "class", "change", "dev", "eth1", "parent", "1:1", "classid", classid, "htb",
                     "rate", "40mbit", "ceil", "1gbit")
    assert changed.returncode == 0, changed.stderr
    bad = qosc("verify", str(policy), "--from-device", "lab-sender", env=env, wrap=wrap)
    out = bad.stdout + bad.stderr
    assert bad.returncode == 1 and "lab-sender:eth1:" in out and "share 1% expected, 4% found" in out, out
    assert "lab-sender:eth0:" not in out, out
