"""Issue 21 on the real kernel: EXP and 802.1p classification of the generated linux-tc batches, by HTB's own counters.

Each test runs in a network namespace of its own (`unshare --net`, gone when the test's shell ends), applies the
generated wrapper script to a veth there and sends frames written byte by byte (qosc.lab.frames: the lab's
kernel has no MPLS forwarding and no VLAN devices), with a different number of frames per EXP or PCP value, so
that the packet counters of `tc -s class show` say which value went to which class.

What this kernel cannot exercise (act_mpls, skbedit, VLAN devices: domain.md 4.4 and the README's "Marking
domains") is said by `compile --verify` (QOS104, tested below) and by the wrapper's refusal, tested here too.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest

from qosc.lab.netns import python_env
from qosc.targets.linux_tc.tests.support import compile_device, marking_services, need_netns, write_policy

pytestmark = [pytest.mark.netns]

SERVICES = marking_services()
CLASS_OF = {0: "1:10", 1: "1:13", 2: "1:12", 3: "1:12", 4: "1:10", 5: "1:11", 6: "1:14", 7: "1:14"}
"""Where each value goes: best-effort 1:10 (0, and 4, which no service lists), premium 1:11, assured 1:12, lbe 1:13,
network-control 1:14 (the classes in policy order)."""
FRAMES = {value: 10 + value for value in range(8)}
"""How many frames of each value are sent (all different, so a count says which values a class got)."""
PREFIX = "sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1\n"
"""No IPv6 router solicitations on the veths: the classes count the lab's frames only."""


def _policy(tmp_path: Path, interfaces: str) -> Path:
    return write_policy(tmp_path, "qosc: 1\nname: marks-lab\n" + SERVICES + "devices:\n  lx:\n"
                        "    platform: linux\n    interfaces:\n" + textwrap.indent(interfaces, " " * 6))


def _scripts(tmp_path: Path, interfaces: str) -> Path:
    files = compile_device(_policy(tmp_path, interfaces), "lx")
    out = tmp_path / "out"
    for name, text in files.items():
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        (out / name).write_text(text, encoding="utf-8")
    return out / "lx"


def _netns(script: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = python_env()
    env["QOSC_STATE_DIR"] = str(tmp_path / "state")
    return subprocess.run(["unshare", "--net", "sh", "-c", PREFIX + script], capture_output=True, text=True,
                          timeout=120, env=env, check=False)


def _send(dev: str, kind: str) -> str:
    return "".join(f"python3 -m qosc.lab.frames {dev} {kind} {v} {n}\n" for v, n in FRAMES.items())


def _counts(text: str) -> dict[str, int]:
    """Packets per HTB class in `tc -s class show` (the root class excluded)."""
    found = re.findall(r"^class htb (\S+) .*\n Sent \d+ bytes (\d+) pkt", text, re.MULTILINE)
    return {cls: int(n) for cls, n in found if cls != "1:1"}


def _stats(dev: str) -> str:
    """The script's lines that print the class counters of `dev` before and after the frames are sent."""
    return f"sleep 1\ntc -s class show dev {dev}\necho '## sent'\n"


def _delta(text: str) -> dict[str, int]:
    """Packets per class the frames added (what the kernel itself sent on the link before is not counted)."""
    before, _, after = text.partition("## sent\n")
    old = _counts(before)
    return {cls: n - old.get(cls, 0) for cls, n in _counts(after).items() if n - old.get(cls, 0)}


def _expected() -> dict[str, int]:
    out: dict[str, int] = {}
    for value, cls in CLASS_OF.items():
        out[cls] = out.get(cls, 0) + FRAMES[value]
    return out


def test_htb_queues_mpls_frames_by_their_exp(tmp_path: Path) -> None:
    """An MPLS core interface (trust exp; rewrite without exp, which needs act_mpls): each EXP value's frames are
    counted in its service's class, EXP 4 (no service's) in best effort's, EXP 3 (assured, drop precedence
    medium) in assured's."""
    need_netns()
    scripts = _scripts(tmp_path, "eth0: {role: core, speed: 100M, encapsulation: mpls, rewrite: [dscp]}\n")
    batch = (scripts / "eth0.tc").read_text()
    assert "protocol mpls_uc prio 12 u32 match u32 0x00000600 0x00000e00 at 0 flowid 1:12" in batch, batch
    proc = _netns("set -e\nip link add qm0 type veth peer name qm1\nip link set qm0 up\nip link set qm1 up\n"
                  f"sh {scripts}/qosc-tc.sh apply eth0 qm0\n"
                  + _stats("qm0") + _send("qm0", "mpls") + "tc -s class show dev qm0\n",
                  tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert _delta(proc.stdout) == _expected(), proc.stdout


def test_htb_queues_bridged_frames_by_their_pcp_and_they_leave_with_it(tmp_path: Path) -> None:
    """A VLAN trunk port of a bridge (trust pcp, no PCP rewrite): tagged frames the bridge forwards carry their tag
    in the packet's metadata, which the cls_bpf filters read: each PCP's frames in its service's class, and on
    the wire beyond the trunk (a packet capture) every frame still has its PCP and VLAN."""
    need_netns()
    if shutil.which("tcpdump") is None:
        if os.environ.get("CI", "").lower() not in ("", "0", "false", "no"):
            pytest.fail("CI must run the lab: tcpdump is missing (scripts/system-packages)")
        pytest.skip("needs tcpdump (scripts/system-packages)")
    scripts = _scripts(tmp_path, "eth1: {role: core, speed: 100M, encapsulation: vlan, rewrite: []}\n")
    cap = tmp_path / "trunk.pcap"
    total = sum(FRAMES.values())
    proc = _netns(textwrap.dedent(f"""\
        set -e
        ip link add s0 type veth peer name r0
        ip link add qt0 type veth peer name p0
        ip link add br0 type bridge
        ip link set r0 master br0
        ip link set qt0 master br0
        for d in s0 r0 qt0 p0 br0; do ip link set $d up; done
        sh {scripts}/qosc-tc.sh apply eth1 qt0
        timeout 30 tcpdump -i p0 -nn -e -U -c {total} -w {cap} vlan 2> {tmp_path}/tcpdump.err &
        for i in $(seq 50); do grep -q listening {tmp_path}/tcpdump.err && break; sleep 0.1; done
        """) + _stats("qt0") + _send("s0", "vlan") + "tc -s class show dev qt0\nwait\n", tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert _delta(proc.stdout) == _expected(), proc.stdout
    seen = subprocess.run(["tcpdump", "-nn", "-e", "-r", str(cap)], capture_output=True, text=True, check=True).stdout
    pcps = [int(p) for p in re.findall(r"vlan 100, p (\d)", seen)]
    assert {v: pcps.count(v) for v in range(8)} == FRAMES, seen


def test_the_wrapper_applies_a_pcp_writing_batch_only_to_a_vlan_device_with_its_map(tmp_path: Path) -> None:
    """rewrite: pcp sets the packet priority, which only a VLAN device's egress-qos-map turns into a PCP: on a veth
    the wrapper refuses (exit 4) and the interface keeps its qdisc; with a VLAN device whose map lacks a value
    (an `ip` that shows one, iproute2 6.1's format) it refuses naming the entry; with the full map it goes on,
    and this kernel, which has no skbedit, refuses the batch in the scratch namespace (exit 1), nothing changed."""
    need_netns()
    scripts = _scripts(tmp_path, "eth1: {role: core, speed: 100M, encapsulation: vlan, trust: none}\n")
    fake = tmp_path / "ip"
    shown = ("5: {dev}@if4: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc noqueue state UP mode DEFAULT "
             "group default qlen 1000\\n    link/ether 02:00:00:00:00:01 brd ff:ff:ff:ff:ff:ff promiscuity 0\\n"
             "    vlan protocol 802.1Q id 100 <REORDER_HDR> \\n      ingress-qos-map {{ 0:0 1:0 2:0 3:0 4:0 5:0 6:0 "
             "7:0 }} \\n      egress-qos-map {{ $MAP}} addrgenmode eui64 numtxqueues 1\\n")
    fake.write_text(f'#!/bin/sh\n[ "$1" = -d ] && {{ printf "{shown.format(dev="$5")}"; exit 0; }}\nexec ip "$@"\n')
    fake.chmod(0o755)
    proc = _netns(textwrap.dedent(f"""\
        ip link add qv0 type veth peer name qv1
        ip link set qv0 up
        sh {scripts}/qosc-tc.sh apply eth1 qv0; echo "veth $?"
        MAP="1:1 2:2 3:3 6:6 " IP={fake} sh {scripts}/qosc-tc.sh apply eth1 qv0; echo "lacking $?"
        MAP="1:1 2:2 3:3 5:5 6:6 " IP={fake} sh {scripts}/qosc-tc.sh apply eth1 qv0; echo "full $?"
        tc qdisc show dev qv0
        """), tmp_path)
    assert "veth 4" in proc.stdout and "qv0 is not a VLAN device" in proc.stderr, proc
    assert "lacking 4" in proc.stdout and "lacks 5:5" in proc.stderr, proc
    assert "full 1" in proc.stdout and "tc refused the batch in a scratch namespace" in proc.stderr, proc
    assert "htb" not in proc.stdout.splitlines()[-1], proc.stdout


def test_compile_verify_says_what_this_kernel_does_not_exercise(tmp_path: Path) -> None:
    """compile --verify loads each batch in a scratch namespace: the EXP and PCP filters load (u32, cls_bpf), the
    rewrite actions are reported as not exercised (act_mpls, skbedit), never as a qosc bug."""
    need_netns()
    path = _policy(tmp_path, "eth0: {role: core, speed: 100M, encapsulation: [mpls, vlan]}\n")
    proc = subprocess.run(["python3", "-m", "qosc", "compile", str(path), "-o", str(tmp_path / "o"), "--verify"],
                          capture_output=True, text=True, env=python_env(), timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr
    notes = [line for line in proc.stderr.splitlines() if "QOS104" in line]
    assert any("not exercised (this kernel cannot load them): mpls, skbedit" in n for n in notes), proc.stderr
    batch = (tmp_path / "o" / "linux-tc" / "lx" / "eth0.tc").read_text()
    assert batch.count(" bpf bytecode ") == 8 and batch.count("protocol mpls_uc") == 8, batch
