"""Push to Cisco IOS XR over SSH (netmiko cisco_xr) against FakeNOS hosts extended into an IOS XR CLI simulator.

tests/push/xr_sim.py documents the simulator (candidate, show configuration, commit confirmed with a timer,
commit, abort, rollback); it is not IOS XR and it never reads configuration with qosc's code.  One simulated
second is 0.05 s, so `commit confirmed 30` reverts after 1.5 s.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from qosc import pipeline
from qosc.push.base import COMMITTED, File, Job, Status, push_one
from qosc.push.credentials import Credentials, Secret
from qosc.push.runner import Options
from qosc.targets.iosxr.push import IosxrDriver, plan
from qosc.targets.registry import targets

pytest.importorskip("fakenos")
pytest.importorskip("netmiko")

from push.peers import bindable, free_port
from push.xr_sim import XrLab
from push.xr_sim import parse as sim_parse
from push.xr_sim import render as sim_render

ROOT = Path(__file__).resolve().parents[1]
PASSWORD = "Xr-pa55-word"
INITIAL = """\
hostname xr-1
interface GigabitEthernet0/0/0/1
 description customer site D
 service-policy output old-qos
!
interface TenGigE0/0/0/0
 description core
!
"""


@pytest.fixture(name="xr_lab")
def xr_lab_fixture(tmp_path):
    labs = []

    def start(reject=None):
        port = free_port()
        while not bindable(port):
            port = free_port()
        lab = XrLab(["xr-1"], port, "netops", PASSWORD, INITIAL, reject).start()
        labs.append(lab)
        lab.known_hosts = tmp_path / "known_hosts"
        lab.known_hosts.write_text(XrLab.host_key_line("127.0.0.1", port))
        return lab

    yield start
    for lab in labs:
        lab.stop()


def job() -> Job:
    result = pipeline.validate(ROOT / "policies" / "assured-rate.yaml")
    assert result.policy is not None
    target = targets()["iosxr"]
    unit = result.policy.device_map["xr-1"]
    _, lowered = pipeline.lower(target, result.policy, unit)
    outputs, _ = pipeline.render(target, result.policy, unit, lowered)
    return Job("xr-1", unit.platform, "iosxr", None, tuple(File(o.path, o.text) for o in outputs), "assured-rate")


def driver(lab, confirm_timeout: int = 30) -> IosxrDriver:
    creds = Credentials("xr-1", "127.0.0.1", lab.ports["xr-1"], "netops", Secret(PASSWORD),
                        known_hosts=str(lab.known_hosts))
    return IosxrDriver(job(), creds, Options(commit=True, confirm_timeout=confirm_timeout, connect_timeout=10,
                                             rpc_timeout=10))


def initial() -> str:
    return sim_render(sim_parse(INITIAL))


def test_dry_run_shows_the_candidate_and_changes_nothing(xr_lab) -> None:
    lab = xr_lab()
    dev = lab.devices["xr-1"]
    result = push_one(driver(lab), commit=False, confirm_timeout=30)
    assert result.status is Status.CHANGED, result
    assert "policy-map assured-rate-out" in result.diff and "service-policy output assured-rate-out" in result.diff
    assert dev.running_text() == initial()
    assert "abort" in dev.log and not any(c.startswith("commit") for c in dev.log)


def test_commit_confirmed_then_commit_holds_and_a_second_push_is_a_no_op(xr_lab) -> None:
    lab = xr_lab()
    dev = lab.devices["xr-1"]
    result = push_one(driver(lab), commit=True, confirm_timeout=30)
    assert result.status is Status.CHANGED and result.outcome == COMMITTED, result
    assert "commit confirmed 30" in dev.log and dev.log.count("commit") == 1
    time.sleep(30 * dev.second + 0.5)  # past the confirm timer: confirmed, nothing reverts
    assert dev.reverted == 0
    running = dev.running_text()
    assert "class-map match-any ip-premium" in running and "service-policy output old-qos" not in running
    assert plan(running, job().file(".cfg").text) == []  # type: ignore[union-attr]
    before = len(dev.log)
    again = push_one(driver(lab), commit=True, confirm_timeout=30)
    assert again.status is Status.UNCHANGED and again.diff == "", again
    assert not any(c.startswith("commit") for c in dev.log[before:])
    assert dev.running_text() == running


def test_dropped_connection_before_the_confirming_commit_reverts_at_the_timer(xr_lab) -> None:
    lab = xr_lab()
    dev = lab.devices["xr-1"]
    d = driver(lab)
    d.open()
    d.load()
    assert d.compare()
    d.commit(30)
    assert "class-map match-any ip-premium" in dev.running_text()  # committed, not yet confirmed
    d.conn.remote_conn.close()  # the connection drops before `commit`
    d.conn = None
    time.sleep(30 * dev.second + 1.0)
    assert dev.reverted == 1
    assert dev.running_text() == initial()


def test_a_line_the_box_refuses_at_commit_leaves_the_running_configuration(xr_lab) -> None:
    lab = xr_lab(reject=r"random-detect")
    dev = lab.devices["xr-1"]
    result = push_one(driver(lab), commit=True, confirm_timeout=30)
    assert result.status is not Status.CHANGED, result
    assert "Failed to commit" in result.error or result.stage == "commit", result
    assert dev.running_text() == initial()
