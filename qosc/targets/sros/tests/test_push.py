"""Push to SR OS over NETCONF, against a real server: netconfd (yuma123) loaded with the module generated from the
YANG-derived sros grammar (yang/qosc-sros-conf.yang), behind OpenSSH.  Checks are made on the server, in a second
session: running, candidate, the lock."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[4] / "tests"))  # the push peers every driver's tests share
from push.fixtures import _need
from push.peers import FaultProxy, NetconfdPeer

from qosc.behaviour.roundtrip import outputs
from qosc.push import runner
from qosc.push.base import COMMITTED, File, Job, Status, push_one
from qosc.targets.sros.push.driver import SrosDriver
from qosc.targets.sros.push.yang import NAMESPACE, yang_module

ROOT = Path(__file__).resolve().parents[4]
YANG = ROOT / "yang" / "qosc-sros-conf.yang"
NC = "urn:ietf:params:xml:ns:netconf:base:1.0"
POLICY = Path(__file__).resolve().parent / "policies" / "assured-rate-sros.yaml"


def test_the_committed_yang_module_is_the_generated_one() -> None:
    assert YANG.read_text(encoding="utf-8") == yang_module(), "python -m qosc.targets.sros.push.yang > " + str(YANG)


@pytest.fixture(scope="module")
def peer(tmp_path_factory):
    _need("ncclient", "ncclient")
    server = NetconfdPeer(tmp_path_factory.mktemp("netconfd-sros"), yang=YANG).start()
    yield server
    server.stop()


def session(peer, port=None):
    from ncclient import manager
    return manager.connect(host="127.0.0.1", port=port or peer.port, username=peer.sshd.user,
                           key_filename=str(peer.sshd.client_key), hostkey_verify=False, allow_agent=False,
                           look_for_keys=False, timeout=15)


def running(peer) -> str:
    with session(peer) as m:
        return m.get_config("running").data_xml


SEED = (f'<configure xmlns="{NAMESPACE}"><qos><sap-ingress><sap-ingress-policy-name>operator-owned'
        "</sap-ingress-policy-name><description>not qosc's</description></sap-ingress></qos></configure>")


def reset(peer) -> None:
    """Running = a policy qosc does not own, candidate = running, no lock."""
    with session(peer) as m:
        m.lock("candidate")
        m.edit_config(target="candidate", config=f'<config xmlns="{NC}"><configure xmlns="{NAMESPACE}" '
                      f'xmlns:nc="{NC}" nc:operation="remove"/></config>')
        m.edit_config(target="candidate", config=f'<config xmlns="{NC}">{SEED}</config>')
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


def wait_for(predicate, timeout=15.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(1.0)
    return predicate()


def job(text: str | None = None) -> Job:
    from qosc import api
    policy = api.validate(POLICY).policy
    assert policy is not None
    xml = text if text is not None else next(o.text for o in outputs(policy, "edge-mx") if o.path.endswith(".xml"))
    return Job("edge-mx", "sros-7750", "sros", "127.0.0.1", (File("edge-mx.xml", xml),), "t")


def driver(peer, j: Job, port=None) -> SrosDriver:
    from qosc.push.credentials import lookup
    creds = lookup(j.device, "127.0.0.1", port or peer.port)
    creds.username, creds.key_file, creds.known_hosts = peer.sshd.user, str(peer.sshd.client_key), \
        str(peer.sshd.known_hosts)
    return SrosDriver(j, creds, runner.Options(connect_timeout=10, rpc_timeout=20))


def test_dry_run_shows_the_difference_as_md_cli_and_changes_nothing(peer) -> None:
    reset(peer)
    before = running(peer)
    result = push_one(driver(peer, job()), commit=False, confirm_timeout=30)
    assert result.status is Status.CHANGED, result.error
    assert result.method == "netconf-rfc6241"
    assert '+/configure qos network-queue "assured-rate" queue 1 queue-type expedited' in result.diff
    assert '+/configure router "Base" interface "to-core" qos network-policy "assured-rate"' in result.diff
    assert running(peer) == before and lock_free(peer)


def test_confirmed_commit_then_confirm_then_unchanged(peer) -> None:
    reset(peer)
    result = push_one(driver(peer, job()), commit=True, confirm_timeout=30)
    assert result.status is Status.CHANGED and result.outcome == COMMITTED, result.error
    after = running(peer)
    assert "<network-queue-policy>assured-rate</network-queue-policy>" in after
    assert "operator-owned" in after  # merged beside what qosc does not own
    time.sleep(1)
    assert running(peer) == after  # confirmed: nothing reverts
    again = push_one(driver(peer, job()), commit=True, confirm_timeout=30)
    assert again.status is Status.UNCHANGED, again.diff
    assert lock_free(peer)


def test_the_grammar_and_the_server_both_refuse_a_value_out_of_range(peer) -> None:
    reset(peer)
    before = running(peer)
    bad = (f'<configure xmlns="{NAMESPACE}"><qos><network-queue><network-queue-policy>nq</network-queue-policy>'
           "<queue><queue-id>1</queue-id><rate><cir>300</cir></rate></queue></network-queue></qos></configure>")
    result = push_one(driver(peer, job(bad)), commit=True, confirm_timeout=30)
    assert result.status is Status.FAILED and result.stage == "load" and "outside 0..100" in result.error
    from ncclient.operations.rpc import RPCError
    with session(peer) as m, pytest.raises(RPCError, match="not in range"):
        m.edit_config(target="candidate", config=f'<config xmlns="{NC}">{bad}</config>')
    assert running(peer) == before and lock_free(peer)


def test_a_connection_dropped_before_the_confirm_leaves_running_unchanged_and_unlocked(peer, tmp_path) -> None:
    """The session dies between the confirmed commit and the confirm, and nothing comes back to settle it (qosc
    killed with the link): the server reverts the commit when the confirm timeout expires and the lock dies with
    the session."""
    from qosc.push.base import PushError
    reset(peer)
    before = running(peer)
    proxy = FaultProxy(peer.port)
    kh = tmp_path / "known_hosts"
    kh.write_text(peer.sshd.known_hosts.read_text().replace(f"]:{peer.port} ", f"]:{proxy.port} "))
    drv = driver(peer, job(), proxy.port)
    drv.credentials.known_hosts = str(kh)
    try:
        drv.open()
        drv.load()
        assert drv.compare()
        drv.commit(confirm_timeout=3)
        drv.verify()
        assert running(peer) != before  # committed, not yet confirmed
        proxy.arm("before")  # the confirm never reaches the server: the connection is cut instead
        with pytest.raises(PushError):
            drv.confirm()
    finally:
        proxy.close()
    assert proxy.dropped.is_set() and drv.lost == "confirm"
    assert wait_for(lambda: running(peer) == before), "the server did not revert the unconfirmed commit"
    assert wait_for(lambda: lock_free(peer))


def test_a_connection_lost_at_the_confirm_is_settled_from_the_device(peer, tmp_path, monkeypatch) -> None:
    """When qosc is still there, it reconnects and reads the device's state: the change was verified before the
    loss, so the pending commit is confirmed (the report says how it was settled), and nothing stays locked."""
    from qosc.push.netconf import NetconfDriver
    reset(peer)
    proxy = FaultProxy(peer.port)
    original = NetconfDriver._call

    def faulty(self, name, fn, *args, **kwargs):
        if name == "confirm":
            proxy.arm("before")
        return original(self, name, fn, *args, **kwargs)

    monkeypatch.setattr(NetconfDriver, "_call", faulty)
    kh = tmp_path / "known_hosts"
    kh.write_text(peer.sshd.known_hosts.read_text().replace(f"]:{peer.port} ", f"]:{proxy.port} "))
    try:
        drv = driver(peer, job(), proxy.port)
        drv.credentials.known_hosts = str(kh)
        result = push_one(drv, commit=True, confirm_timeout=3)
    finally:
        proxy.close()
    assert proxy.dropped.is_set()
    assert result.outcome == COMMITTED and any("session lost at confirm" in n for n in result.notes), result
    assert "<network-queue-policy>assured-rate</network-queue-policy>" in running(peer)
    assert wait_for(lambda: lock_free(peer))
