"""Push over NETCONF, RFC 6241 path, against a real server: Debian's netconfd (yuma123) behind OpenSSH.

netconfd is loaded with yang/qosc-junos-qos.yang, so the server itself
validates every edit-config.  Checks are made on the server, in a second
session: the running datastore, the candidate, the lock.
"""

from __future__ import annotations

import json
import re
import time

import pytest
from lxml import etree
from push.fixtures import (
    netconfd_fixture,  # noqa: F401  (provides the `netconfd` fixture)
    qosc,
)
from push.lab import lab_policy
from push.peers import FaultProxy

from qosc.push import runner
from qosc.push.base import File, Job, Status, push_one
from qosc.targets.junos.push.xml import NAMESPACE, to_xml

NC = "urn:ietf:params:xml:ns:netconf:base:1.0"
SEED = """\
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


def session(peer, port=None):
    from ncclient import manager
    return manager.connect(host="127.0.0.1", port=port or peer.port, username=peer.sshd.user,
                           key_filename=str(peer.sshd.client_key), hostkey_verify=False, allow_agent=False,
                           look_for_keys=False, timeout=15)


def running(peer) -> str:
    with session(peer) as m:
        return m.get_config("running").data_xml


def reset(peer, seed: str = SEED) -> None:
    """Running = the seed configuration (a policer qosc does not own), candidate = running, no lock."""
    with session(peer) as m:
        m.lock("candidate")
        m.edit_config(target="candidate", config=f'<config xmlns="{NC}"><configuration xmlns="{NAMESPACE}" '
                      f'xmlns:nc="{NC}" nc:operation="remove"/></config>')
        if seed:
            cfg = etree.Element(f"{{{NC}}}config")
            cfg.append(to_xml(seed, replace_owned=False))
            m.edit_config(target="candidate", config=cfg)
        m.commit()
        m.unlock("candidate")


def lock_free(peer) -> bool:
    with session(peer) as m:
        try:
            m.lock("candidate")
        except Exception:  # noqa: BLE001 - any refusal means the lock is held
            return False
        m.unlock("candidate")
        return True


def wait_for(predicate, timeout=10.0):
    """Poll once a second: netconfd runs its confirmed-commit timer only when it has been idle a moment."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(1.0)
    return predicate()


def env_for(peer, tmp_path, port=None):
    return {"HOME": str(tmp_path), "QOSC_USER": peer.sshd.user, "QOSC_SSH_KEY": str(peer.sshd.client_key),
            "QOSC_KNOWN_HOSTS": str(peer.sshd.known_hosts), "QOSC_PORT_EDGE_MX": str(port or peer.port)}


def test_dry_run_prints_diff_and_leaves_running_byte_identical(netconfd, tmp_path):
    reset(netconfd)
    before = running(netconfd)
    policy = lab_policy(tmp_path)
    proc = qosc("push", str(policy), "--device", "edge-mx", "--report", str(tmp_path / "r.json"),
                env=env_for(netconfd, tmp_path))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "--- edge-mx (junos) diff ---" in proc.stdout
    assert "+class-of-service {" in proc.stdout and "+        dscp assured-rate {" in proc.stdout  # as JUNOS text
    assert "changed (dry run: not committed)" in proc.stdout
    assert running(netconfd) == before  # byte-identical
    with session(netconfd) as m:  # the candidate was discarded and the lock released
        assert "assured-rate" not in m.get_config("candidate").data_xml
    assert lock_free(netconfd)
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["devices"][0]["method"] == "netconf-rfc6241" and report["commit"] is False


def test_commit_confirm_then_unchanged(netconfd, tmp_path):
    reset(netconfd)
    policy = lab_policy(tmp_path)
    env = env_for(netconfd, tmp_path)
    proc = qosc("push", str(policy), "--device", "edge-mx", "--commit", "--confirm-timeout", "30", env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert " changed" in proc.stdout and "netconf-rfc6241" in proc.stdout
    after = running(netconfd)
    assert "<name>assured-rate</name>" in after and "operator-owned" in after  # merged, not overwritten
    time.sleep(1)
    assert running(netconfd) == after  # confirmed: nothing reverts
    again = qosc("push", str(policy), "--device", "edge-mx", "--commit", env=env)
    assert again.returncode == 0 and "unchanged" in again.stdout, again.stdout + again.stderr
    assert lock_free(netconfd)


def job_from_text(text: str) -> Job:
    return Job("edge-mx", "junos-mx", "junos", "127.0.0.1", (File("edge-mx.conf", text),), "t")


def driver(peer, job, port=None):
    from qosc.push.credentials import lookup
    from qosc.targets.junos.push.driver import JunosDriver
    creds = lookup(job.device, "127.0.0.1", port or peer.port)
    creds.username, creds.key_file, creds.known_hosts = peer.sshd.user, str(peer.sshd.client_key), \
        str(peer.sshd.known_hosts)
    return JunosDriver(job, creds, runner.Options(connect_timeout=10, rpc_timeout=20))


def test_server_validates_edit_config_against_the_yang_module(netconfd):
    reset(netconfd)
    before = running(netconfd)
    bad = job_from_text("class-of-service {\n schedulers {\n  be {\n   transmit-rate percent 300;\n  }\n }\n}\n")
    result = push_one(driver(netconfd, bad), commit=True, confirm_timeout=30)
    assert result.status is Status.FAILED and result.stage == "load"
    assert "outside 0..100" in result.error  # qosc's YANG-derived grammar refuses it before sending
    assert running(netconfd) == before and lock_free(netconfd)
    # the server, loaded with the module generated from the same grammar, refuses it too
    from ncclient.operations.rpc import RPCError
    xml = (f'<config xmlns="{NC}"><configuration xmlns="{NAMESPACE}"><class-of-service><schedulers><name>be</name>'
           "<transmit-rate><percent>300</percent></transmit-rate></schedulers></class-of-service></configuration>"
           "</config>")
    with session(netconfd) as m, pytest.raises(RPCError, match="not in range"):
        m.edit_config(target="candidate", config=xml)
    assert running(netconfd) == before


def test_unconfirmed_commit_is_reverted_by_the_server(netconfd):
    reset(netconfd)
    before = running(netconfd)
    drv = driver(netconfd, job_from_text("class-of-service {\n forwarding-classes {\n  queue 0 be;\n }\n}\n"))
    drv.open()
    try:
        drv.load()
        assert "queue" in drv.compare() or "<name>0</name>" in drv.compare()
        drv.commit(confirm_timeout=2)  # confirmed commit, never confirmed
        assert "<name>be</name>" in running(netconfd) or "be" in running(netconfd)
        assert wait_for(lambda: running(netconfd) == before, 10), "server did not revert the unconfirmed commit"
    finally:
        drv.close()
    assert lock_free(netconfd)


def test_lock_held_elsewhere_fails_that_device_only(netconfd, tmp_path):
    reset(netconfd)
    before = running(netconfd)
    with session(netconfd) as other:
        other.lock("candidate")
        proc = qosc("push", str(lab_policy(tmp_path)), "--device", "edge-mx", "--commit",
                    env=env_for(netconfd, tmp_path))
        other.unlock("candidate")
    assert proc.returncode == 1
    assert "failed" in proc.stdout and "lock" in proc.stdout
    assert running(netconfd) == before


@pytest.mark.parametrize("stage", ["load", "commit"])
def test_connection_dropped_leaves_no_lock_and_nothing_committed(netconfd, tmp_path, monkeypatch, stage):
    from qosc.push.netconf import NetconfDriver
    reset(netconfd)
    before = running(netconfd)
    proxy = FaultProxy(netconfd.port)
    original = NetconfDriver._call

    def faulty(self, name, fn, *args, **kwargs):
        if name == stage:
            proxy.drop_after_next_request()
        return original(self, name, fn, *args, **kwargs)

    monkeypatch.setattr(NetconfDriver, "_call", faulty)
    kh = tmp_path / "known_hosts"
    kh.write_text(netconfd.sshd.known_hosts.read_text() +
                  netconfd.sshd.known_hosts.read_text().replace(f"]:{netconfd.port} ", f"]:{proxy.port} "))
    try:
        jobs, _ = runner.plan([str(lab_policy(tmp_path))], ["edge-mx"])
        for k, v in env_for(netconfd, tmp_path, proxy.port).items():
            monkeypatch.setenv(k, v)
        monkeypatch.setenv("QOSC_KNOWN_HOSTS", str(kh))
        results = runner.run(jobs, runner.Options(commit=True, confirm_timeout=3, workers=1, progress=False,
                                                  rpc_timeout=15))
    finally:
        proxy.close()
    assert proxy.dropped.is_set(), results
    [result] = results
    # the commit reached the server (the proxy cut the connection when the reply started): qosc reconnected,
    # cancelled the pending confirmed commit and read running back; a lost load committed nothing
    assert result.status is (Status.ROLLED_BACK if stage == "commit" else Status.FAILED), result
    assert result.outcome == ("rolled back" if stage == "commit" else "not committed"), result
    assert result.stage == stage and "connection lost" in result.error
    # on the server: the lock is gone and nothing stays committed
    assert wait_for(lambda: lock_free(netconfd), 10)
    assert wait_for(lambda: running(netconfd) == before, 10)
    with session(netconfd) as m:
        assert "assured-rate" not in m.get_config("candidate").data_xml


@pytest.mark.slow
def test_verify_from_device_reads_the_running_xml(netconfd, tmp_path):
    """qosc verify --from-device over NETCONF: the driver reads running (no lock, no change) and hands the reader
    the XML reply; after a push it matches the policy, and a share changed on the server is drift located at
    the line of the reply that holds it."""
    reset(netconfd)
    policy = lab_policy(tmp_path)
    env = env_for(netconfd, tmp_path)
    proc = qosc("push", str(policy), "--device", "edge-mx", "--commit", env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    before = running(netconfd)
    ok = qosc("verify", str(policy), "--from-device", "edge-mx", "--format", "json", env=env)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    clean = json.loads(ok.stdout)
    assert clean["devices"] == ["edge-mx"] and clean["drift"] is False, clean
    # (the operator's own policer, which qosc never made, is listed as stale: a warning, see the report)
    assert [f["subject"] for f in clean["findings"]] in ([], ["policer operator-owned"]), clean
    assert running(netconfd) == before and lock_free(netconfd)  # read-only
    reply = driver(netconfd, job_from_text("")).running_config()
    assert re.match(r"<(\w+:)?rpc-reply[ >]", reply) and "<configuration" in reply, reply  # the XML reply
    assert "operator-owned" in reply
    with session(netconfd) as m:  # another hand changes the lbe scheduler's transmit rate on the server
        m.lock("candidate")
        m.edit_config(target="candidate", config=f'<config xmlns="{NC}"><configuration xmlns="{NAMESPACE}">'
                      "<class-of-service><schedulers><name>lbe</name><transmit-rate><percent>4</percent>"
                      "</transmit-rate></schedulers></class-of-service></configuration></config>")
        m.commit()
        m.unlock("candidate")
    bad = qosc("verify", str(policy), "--from-device", "edge-mx", "--format", "json", env=env)
    assert bad.returncode == 1, bad.stdout + bad.stderr
    report = json.loads(bad.stdout)
    share = [f for f in report["findings"] if f["subject"] == "lbe" and f["what"] == "share"]
    # both interfaces use the one scheduler map
    assert sorted((f["interface"], f["expected"], f["found"]) for f in share) == [
        ("ge-0/0/1", "1%", "4%"), ("xe-0/1/0", "1%", "4%")], report
    assert share[0]["config"].startswith("edge-mx (running):"), share
    reset(netconfd)
