"""Push over NETCONF, JUNOS RPC path, against the JUNOS protocol simulator (PyPI `netconf` server library).

The simulator (tests/push/junos_sim.py) is not JUNOS: it implements the JUNOS
RPCs qosc uses with JUNOS's documented semantics.  Password login, so these
tests also check that the password never shows up in qosc's output.
"""

from __future__ import annotations

import json
import re
import time

import pytest
from push.fixtures import (
    INITIAL_JUNOS,
    junos_sim_fixture,  # noqa: F401  (provides the `junos_sim` fixture)
    push_commit,
    qosc,
    sim_host_key,  # noqa: F401  (the `junos_sim` fixture's host key, made once per session)
    verify_clean,
)
from push.lab import lab_policy
from push.peers import FaultProxy

from qosc.push import runner
from qosc.push.base import Status
from qosc.targets.junos.push.text import parse, serialise


def env_for(sim, tmp_path, port=None, known=None):
    return {"HOME": str(tmp_path), "QOSC_USER": sim.user, "QOSC_PASSWORD": sim.password,
            "QOSC_KNOWN_HOSTS": str(known or sim.known_hosts), "QOSC_PORT_EDGE_MX": str(port or sim.port)}


def no_secret(sim, *texts):
    for text in texts:
        assert sim.password not in text


def test_dry_run_shows_the_device_diff_and_changes_nothing(junos_sim, tmp_path):
    sim = junos_sim.sim
    before = sim.running_text()
    proc = qosc("push", str(lab_policy(tmp_path)), "--device", "edge-mx", "--report", str(tmp_path / "r.json"),
                env=env_for(junos_sim, tmp_path))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "+++ candidate" in proc.stdout and "+class-of-service {" in proc.stdout
    assert "netconf-junos" in proc.stdout and "changed (dry run: not committed)" in proc.stdout
    assert sim.running_text() == before
    assert serialise(sim.candidate) == before  # discarded
    assert sim.locked_by() == 0
    assert [e for e in sim.events if e[0].startswith("commit")] == []
    no_secret(junos_sim, proc.stdout, proc.stderr, (tmp_path / "r.json").read_text())


def test_commit_confirmed_then_confirm_then_unchanged(junos_sim, tmp_path):
    sim = junos_sim.sim
    policy = lab_policy(tmp_path)
    proc = qosc("push", str(policy), "--device", "edge-mx", "--commit", "--confirm-timeout", "90",
                "--report", str(tmp_path / "r.json"), env=env_for(junos_sim, tmp_path))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    kinds = [e[0] for e in sim.events]
    assert kinds.index("commit-confirmed") < kinds.index("commit")  # confirmed, verified, then confirmed
    text = sim.running_text()
    assert "class-of-service {" in text and "filter site-in {" in text
    assert "host-name edge-mx;" in text and "policer operator-owned {" in text  # only owned hierarchies replaced
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["devices"][0]["status"] == "changed"
    assert any("2 min" in n for n in report["devices"][0]["notes"])  # 90 s rounded up to JUNOS minutes
    time.sleep(2.5)  # two simulated minutes: a confirmed commit would have been rolled back by now
    assert sim.running_text() == text
    again = qosc("push", str(policy), "--device", "edge-mx", "--commit", env=env_for(junos_sim, tmp_path))
    assert again.returncode == 0 and "unchanged" in again.stdout
    no_secret(junos_sim, proc.stdout, proc.stderr, again.stdout, again.stderr)


def test_commit_check_failure_discards_and_unlocks(junos_sim, tmp_path):
    sim = junos_sim.sim
    sim.reject = __import__("re").compile(r"priority strict-high")  # play a box without strict-high
    before = sim.running_text()
    proc = qosc("push", str(lab_policy(tmp_path)), "--device", "edge-mx", "--commit",
                env=env_for(junos_sim, tmp_path))
    assert proc.returncode == 1
    assert "failed" in proc.stdout and "commit check" in proc.stdout and "strict-high" in proc.stdout
    assert sim.running_text() == before and serialise(sim.candidate) == before and sim.locked_by() == 0
    no_secret(junos_sim, proc.stdout, proc.stderr)


def test_unknown_host_key_is_refused_and_the_lab_flag_is_loud(junos_sim, tmp_path):
    empty = tmp_path / "empty_known_hosts"
    empty.write_text("")
    env = env_for(junos_sim, tmp_path, known=empty)
    refused = qosc("push", str(lab_policy(tmp_path)), "--device", "edge-mx", env=env)
    assert refused.returncode == 1 and "not in" in refused.stdout and "known_hosts" in refused.stdout
    lab = qosc("push", str(lab_policy(tmp_path)), "--device", "edge-mx", "--insecure-lab-skip-hostkey", env=env)
    assert lab.returncode == 0, lab.stdout + lab.stderr
    assert "WARNING: --insecure-lab-skip-hostkey" in lab.stderr and "HOST KEY NOT VERIFIED" in lab.stdout
    no_secret(junos_sim, refused.stdout, refused.stderr, lab.stdout, lab.stderr)


def test_wrong_password_fails_without_printing_it(junos_sim, tmp_path):
    env = env_for(junos_sim, tmp_path)
    env["QOSC_PASSWORD"] = "Wrong-" + junos_sim.password
    proc = qosc("push", str(lab_policy(tmp_path)), "--device", "edge-mx", "--report", str(tmp_path / "r.json"),
                env=env)
    assert proc.returncode == 1 and "open" in proc.stdout
    for text in (proc.stdout, proc.stderr, (tmp_path / "r.json").read_text()):
        assert env["QOSC_PASSWORD"] not in text and junos_sim.password not in text


@pytest.mark.parametrize("stage", ["load", "commit"])
def test_connection_dropped_leaves_no_lock_and_nothing_committed(junos_sim, tmp_path, monkeypatch, stage):
    from qosc.push.netconf import NetconfDriver
    sim = junos_sim.sim
    before = sim.running_text()
    proxy = FaultProxy(junos_sim.port)
    original = NetconfDriver._rpc

    def faulty(self, name, element):
        if name == stage:
            proxy.drop_after_next_request()
        return original(self, name, element)

    monkeypatch.setattr(NetconfDriver, "_rpc", faulty)
    known = tmp_path / "kh_proxy"
    known.write_text(junos_sim.known_hosts.read_text().replace(f"]:{junos_sim.port} ", f"]:{proxy.port} "))
    try:
        jobs, _ = runner.plan([str(lab_policy(tmp_path))], ["edge-mx"])
        for k, v in env_for(junos_sim, tmp_path, proxy.port, known).items():
            monkeypatch.setenv(k, v)
        results = runner.run(jobs, runner.Options(commit=True, confirm_timeout=60, workers=1, progress=False,
                                                  rpc_timeout=10))
    finally:
        proxy.close()
    [result] = results
    assert proxy.dropped.is_set(), result
    # a lost commit reply: qosc reconnected, found the confirmed commit in the committed database, rolled it
    # back and read it again; a lost load committed nothing
    assert result.status is (Status.ROLLED_BACK if stage == "commit" else Status.FAILED), result
    assert result.outcome == ("rolled back" if stage == "commit" else "not committed"), result
    assert result.stage == stage and "connection lost" in result.error
    deadline = time.monotonic() + 5  # JUNOS minute = 1 s here: a dropped confirmed commit reverts within it
    while time.monotonic() < deadline and (sim.locked_by() or sim.running_text() != before):
        time.sleep(0.1)
    assert sim.locked_by() == 0
    assert sim.running_text() == before
    assert serialise(sim.candidate) == before
    assert sim.running_text() == serialise(parse(INITIAL_JUNOS))


def test_verify_from_device_reads_the_committed_xml(junos_sim, tmp_path, monkeypatch):
    """qosc verify --from-device on the JUNOS RPC path: get-configuration of the committed database in XML (the
    reader sniffs it), no lock taken; after a push it matches, and a share changed on the box is drift."""
    sim = junos_sim.sim
    policy = lab_policy(tmp_path)
    env = env_for(junos_sim, tmp_path)
    push_commit(policy, "edge-mx", env)
    before, events = sim.running_text(), len(sim.events)
    ok = verify_clean(policy, "edge-mx", env)
    assert sim.running_text() == before and sim.locked_by() == 0 and len(sim.events) == events  # read-only
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    from qosc.push.reading import running_configs
    texts, problems = running_configs(str(policy), ["edge-mx"])
    assert not [d for d in problems if d.is_error], problems
    assert re.match(r"<(\w+:)?rpc-reply[ >]", texts["edge-mx"]), texts  # the XML reply, not text
    assert "<class-of-service>" in texts["edge-mx"] and "host-name" not in texts["edge-mx"]  # owned only
    lbe = "lbe {\n            transmit-rate percent "
    changed = before.replace(lbe + "1;", lbe + "4;")
    assert changed != before
    sim.running = parse(changed)  # another hand, on the box
    bad = qosc("verify", str(policy), "--from-device", "edge-mx", env=env)
    out = bad.stdout + bad.stderr
    assert bad.returncode == 1 and "edge-mx:ge-0/0/1: lbe: share 1% expected, 4% found" in out, out
    assert "(configuration: edge-mx (running):" in out, out  # located in the XML reply
    no_secret(junos_sim, ok.stdout, ok.stderr, out)
