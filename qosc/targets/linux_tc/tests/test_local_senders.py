"""Issue 26: queues of an interface whose own sockets send (`local-senders`) hold what one local TCP socket keeps.

TCP Small Queues lets a local socket keep up to net.ipv4.tcp_limit_output_bytes in the qdisc; what a leaf fifo
cannot take is dropped by the sender's own host.  The real-kernel proof is tests/test_lab_local.py; these
tests pin the numbers: which classes get the floor, which keep theirs, and that nothing changes elsewhere.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from qosc import api
from qosc.sls.bounds import derive
from qosc.targets.linux_tc import TARGET
from qosc.targets.linux_tc.tests.support import ROOT, compile_device, valid

SERVICES = """\
    ef: {kind: premium, dscp: [ef], queue: {share: 10%, buffer: 2ms, strict: true, rate-cap: 10M}}
    af: {kind: assured, dscp: [af21], queue: {share: 30%, priority: high, buffer: 5ms}}
    be: {kind: best-effort, default: true, queue: {share: 50%, priority: high}}
    lbe: {kind: lbe, dscp: [cs1], queue: {share: 1%}}
"""


def _policy(tmp_path: Path, iface: str, profiles: str = "", services: str = SERVICES) -> Path:
    path = tmp_path / "policy.yaml"
    path.write_text("qosc: 1\nname: local\nservices:\n" + textwrap.indent(textwrap.dedent(services), "  ")
                    + profiles + f"devices:\n  h1:\n    platform: linux\n    interfaces:\n      eth0: {iface}\n",
                    encoding="utf-8")
    return path


def _limits(path: Path) -> dict[str, int]:
    policy = valid(path)
    (plan,) = TARGET.plan(policy, policy.device_map["h1"])
    return {leaf.service: int(leaf.qdisc.split()[-1]) for leaf in plan.egress.leaves}


def test_default_sized_classes_hold_what_a_local_socket_keeps(tmp_path: Path) -> None:
    routed = _limits(_policy(tmp_path, "{speed: 100M}"))
    local = _limits(_policy(tmp_path, "{speed: 100M, local-senders: true}"))
    tsq = TARGET.platform_of(valid(_policy(tmp_path, "{speed: 100M}")).device_map["h1"]).tcp_limit_output_bytes
    assert tsq == 4 * 2**20  # Linux >= 6.16 default (platform data, with its source)
    assert routed["lbe"] == 65_536 and local["lbe"] == tsq  # the starved class of the issue
    assert routed["be"] == 625_000 and local["be"] == tsq  # 50 Mbit/s x 100 ms is less than one socket's
    # strict EF keeps its 2 ms at the cap (its delay promise); a buffer the policy gives is kept
    assert local["ef"] == routed["ef"] == 3028 and local["af"] == routed["af"] == 18_750


def test_the_floor_never_lowers_a_larger_queue(tmp_path: Path) -> None:
    fast = _limits(_policy(tmp_path, "{speed: 10G, local-senders: true}", services=SERVICES.replace("10M", "1G")))
    assert fast["be"] == 62_500_000  # 5 Gbit/s x 100 ms is more than one socket keeps


def test_a_strict_class_keeps_its_sls_bound(tmp_path: Path) -> None:
    bounds = {}
    for name, iface in (("routed", "{speed: 100M}"), ("local", "{speed: 100M, local-senders: true}")):
        (tmp_path / name).mkdir()
        policy = valid(_policy(tmp_path / name, iface))
        (hop,) = derive(policy, policy.service_map["ef"]).interfaces
        bounds[name] = hop.delay_us
    assert bounds["local"] == bounds["routed"] is not None


def test_a_given_buffer_below_the_floor_is_kept_and_said(tmp_path: Path) -> None:
    result = api.validate(_policy(tmp_path, "{speed: 100M, local-senders: true}"))
    assert result.policy is not None
    api.compile_policy(result, ["linux-tc"], ["h1"])
    found = [d for d in result.diagnostics if d.code == "QOS148"]
    assert [d.message.split("'")[1] for d in found] == ["af"], [str(d) for d in result.diagnostics]
    assert found[0].location is not None and found[0].location.line == 5  # af's buffer
    assert "18750 byte queue" in found[0].message and "leave the buffer out" in (found[0].hint or "")


def test_a_profile_says_it_for_its_interfaces(tmp_path: Path) -> None:
    profiles = "profiles:\n  host-100m: {speed: 100M, local-senders: true}\n"
    assert _limits(_policy(tmp_path, "{profile: host-100m}", profiles))["lbe"] == 4 * 2**20


def test_the_qbss_sender_is_a_local_sender_and_the_router_is_not() -> None:
    """The reference policies: qbss-linux's lab-sender shapes its own interface; four-service-linux's lab-router
    forwards, so its batch is the one issue 17 measured, unchanged."""
    sender = compile_device(ROOT / "policies/qbss-linux.yaml", "lab-sender")["lab-sender/eth0.tc"]
    router = compile_device(ROOT / "policies/four-service-linux.yaml", "lab-router")["lab-router/eth0.tc"]
    assert sender.count("bfifo limit 4194304") == 2
    golden = ROOT / "qosc/targets/linux_tc/tests/golden/linux-tc/lab-router/eth0.tc"
    assert router == golden.read_text() and "bfifo limit 65536" in router
