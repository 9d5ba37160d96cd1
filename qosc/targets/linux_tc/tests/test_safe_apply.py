"""Issue 17: the linux-tc wrapper and teardown never leave an interface without QoS, and own only what they recorded.

Real network namespaces, real tc, real kernel.  A failure on the interface itself
(after the scratch-namespace check) is provoked two ways: on a host without
`unshare` (no scratch check), with a batch the kernel refuses midway; and with
TC= pointing at a wrapper around the real tc that refuses one command once.
Every "left in place" / "restored" claim is checked by comparing `tc -j` dumps.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from qosc.targets.linux_tc.tests.support import ROOT, compile_device, need_netns

FAIL_MIDWAY = "class add dev eth0 parent 9: classid 9:1 htb rate 1mbit\n"  # no qdisc 9: -> the kernel refuses


@pytest.fixture
def ns(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    need_netns()
    monkeypatch.chdir(ROOT)
    for policy, device in (("policies/four-service-linux.yaml", "lab-router"), ("policies/qbss-linux.yaml",
                                                                                 "lab-sender")):
        for name, text in compile_device(policy, device).items():
            (tmp_path / name).parent.mkdir(exist_ok=True)
            (tmp_path / name).write_text(text)
    name = f"qosc-safe-{os.getpid()}"
    subprocess.run(["ip", "netns", "add", name], check=True)
    try:
        subprocess.run(["ip", "netns", "exec", name, "ip", "link", "add", "qv0", "type", "veth", "peer", "name",
                        "qv1"], check=True)
        yield name
    finally:
        subprocess.run(["ip", "netns", "del", name], check=False)


def dump(ns: str) -> str:
    """What `tc -j` shows of qv0: qdiscs, classes, filters (root, ingress, egress)."""
    out = []
    for what in (["qdisc", "show"], ["class", "show"], ["filter", "show"], ["filter", "show", "ingress"],
                 ["filter", "show", "egress"]):
        r = subprocess.run(["ip", "netns", "exec", ns, "tc", "-j", *what, "dev", "qv0"], capture_output=True,
                           text=True, check=True)
        out.append(r.stdout.replace('"direct_packets_stat":0,', ""))
    return "\n".join(out)


def run(ns: str, tmp_path: Path, device: str, action: str, **env: str) -> subprocess.CompletedProcess:
    """`sh <device>/qosc-tc.sh <action> eth0 qv0`: the device's eth0 batch, applied to (or removed from) qv0."""
    base = {"QOSC_STATE_DIR": str(tmp_path / "state"), "PATH": os.environ["PATH"]}
    assignments = [f"{k}={v}" for k, v in {**base, **env}.items()]
    return subprocess.run(["ip", "netns", "exec", ns, "env", "-i", *assignments, shutil.which("sh") or "/bin/sh",
                           str(tmp_path / device / "qosc-tc.sh"), action, "eth0", "qv0"], capture_output=True,
                          text=True, check=False)


def without_unshare(tmp_path: Path) -> str:
    """A PATH with the tools the wrapper uses but no unshare: a host where the scratch check cannot run."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    for tool in ("tc", "ip", "awk", "sed", "grep", "cat", "cp", "mv", "rm", "mkdir", "cmp", "readlink", "tr",
                 "dirname", "env"):
        found = shutil.which(tool)
        assert found, tool
        (bin_dir / tool).unlink(missing_ok=True)
        (bin_dir / tool).symlink_to(found)
    assert shutil.which("unshare", path=str(bin_dir)) is None
    return str(bin_dir)


def bad_batch(tmp_path: Path, source: str) -> Path:
    """`source`'s batch with a command the kernel refuses in the middle: the first half is applied, then tc stops."""
    lines = (tmp_path / source).read_text().splitlines(True)
    path = tmp_path / "bad.tc"
    path.write_text("".join(lines[:4]) + FAIL_MIDWAY + "".join(lines[4:]))
    return path


def test_failed_apply_restores_the_previous_tree(ns: str, tmp_path: Path) -> None:
    up = run(ns, tmp_path, "lab-router", "apply")
    assert up.returncode == 0, up.stderr
    before = dump(ns)
    assert '"kind":"htb","handle":"1:"' in before and "bfifo" in before
    bad = run(ns, tmp_path, "lab-sender", "apply", PATH=without_unshare(tmp_path),
              QOSC_BATCH=str(bad_batch(tmp_path, "lab-sender/eth0.tc")))
    assert bad.returncode == 1, bad.stderr
    assert "tc -batch failed on qv0" in bad.stderr and "previous configuration of qv0 restored" in bad.stderr
    assert dump(ns) == before  # the lab-router tree, not the half-applied lab-sender one, not nothing
    # the records still name the restored tree: a good re-apply and a teardown work from them
    assert run(ns, tmp_path, "lab-sender", "apply").returncode == 0
    assert "1:11" in dump(ns) and dump(ns) != before
    down = run(ns, tmp_path, "lab-sender", "teardown")
    assert down.returncode == 0, down.stderr
    assert "htb" not in dump(ns)


def test_failed_first_apply_leaves_the_interface_as_it_was(ns: str, tmp_path: Path) -> None:
    before = dump(ns)
    bad = run(ns, tmp_path, "lab-router", "apply", PATH=without_unshare(tmp_path),
              QOSC_BATCH=str(bad_batch(tmp_path, "lab-router/eth0.tc")))
    assert bad.returncode == 1 and "restored" in bad.stderr
    assert dump(ns) == before
    assert not list((tmp_path / "state").glob("*.tc"))  # nothing recorded as qosc's


def test_failed_teardown_restores_the_tree(ns: str, tmp_path: Path) -> None:
    assert run(ns, tmp_path, "lab-router", "apply").returncode == 0
    before = dump(ns)
    shim = tmp_path / "tc-once"
    flag = tmp_path / "refused"
    # the real tc, except that it refuses the first `qdisc del ... root` it is asked for
    shim.write_text(f'#!/bin/sh\nif [ "$1 $2" = "qdisc del" ] && [ ! -e {flag} ]; then\n    : > {flag}\n'
                    f'    echo "RTNETLINK answers: Device or resource busy" >&2\n    exit 2\nfi\n'
                    f'exec {shutil.which("tc")} "$@"\n')
    shim.chmod(0o755)
    down = run(ns, tmp_path, "lab-router", "teardown", TC=str(shim))
    assert flag.exists() and down.returncode == 1, down.stderr
    assert "restored as it was" in down.stderr
    assert dump(ns) == before  # deleted by the retry, replayed from the recorded batch, identical
    assert run(ns, tmp_path, "lab-router", "teardown").returncode == 0
    assert "htb" not in dump(ns)


@pytest.mark.parametrize("foreign", [
    ["qdisc add dev qv0 ingress",
     "filter add dev qv0 parent ffff: protocol ip prio 50 u32 match ip dst 198.18.0.1/32 flowid 1:1"],
    ["qdisc add dev qv0 clsact",
     "filter add dev qv0 ingress protocol ip prio 50 u32 match ip dst 198.18.0.1/32 flowid 1:1"],
])
def test_foreign_ingress_qdisc_with_a_filter_survives(ns: str, tmp_path: Path, foreign: list[str]) -> None:
    for cmd in foreign:
        subprocess.run(["ip", "netns", "exec", ns, "tc", *cmd.split()], check=True)
    alone = dump(ns)
    assert "198.18.0.1" in alone or "c6120001" in alone
    up = run(ns, tmp_path, "lab-router", "apply")
    assert up.returncode == 0 and "did not install; left in place" in up.stderr
    applied = dump(ns)
    assert '"kind":"htb"' in applied and "c6120001" in applied
    # a failed re-apply keeps both the foreign qdisc and the qosc tree
    bad = run(ns, tmp_path, "lab-sender", "apply", PATH=without_unshare(tmp_path),
              QOSC_BATCH=str(bad_batch(tmp_path, "lab-sender/eth0.tc")))
    assert bad.returncode == 1 and dump(ns) == applied
    down = run(ns, tmp_path, "lab-router", "teardown")
    assert down.returncode == 0 and "did not install; left in place" in down.stderr
    assert dump(ns) == alone


def test_foreign_root_qdisc_is_left_alone(ns: str, tmp_path: Path) -> None:
    subprocess.run(["ip", "netns", "exec", ns, "tc", "qdisc", "add", "dev", "qv0", "root", "handle", "1:", "htb",
                    "default", "1"], check=True)
    hand = dump(ns)
    up = run(ns, tmp_path, "lab-router", "apply")
    assert up.returncode == 4 and "did not record installing; left in place, nothing applied" in up.stderr
    assert dump(ns) == hand
    assert run(ns, tmp_path, "lab-router", "teardown").returncode == 0 and dump(ns) == hand
    adopted = run(ns, tmp_path, "lab-router", "apply", QOSC_ADOPT="1")
    assert adopted.returncode == 0 and "1:13" in dump(ns)
    subprocess.run(["ip", "netns", "exec", ns, "tc", "qdisc", "replace", "dev", "qv0", "root", "handle", "7:", "tbf",
                    "rate", "1mbit", "burst", "10000", "latency", "50ms"], check=True)
    tbf = dump(ns)
    refused = run(ns, tmp_path, "lab-router", "apply")
    assert refused.returncode == 4 and "root qdisc qosc did not install (tbf 7:)" in refused.stderr
    assert dump(ns) == tbf


def test_a_tree_changed_by_hand_is_not_replaced(ns: str, tmp_path: Path) -> None:
    assert run(ns, tmp_path, "lab-router", "apply").returncode == 0
    assert run(ns, tmp_path, "lab-router", "apply").returncode == 0  # unchanged since applied: qosc's own
    subprocess.run(["ip", "netns", "exec", ns, "tc", "class", "change", "dev", "qv0", "parent", "1:1", "classid",
                    "1:13", "htb", "rate", "2mbit", "ceil", "100mbit"], check=True)
    edited = dump(ns)
    again = run(ns, tmp_path, "lab-sender", "apply")
    assert again.returncode == 4 and "changed since qosc applied it" in again.stderr
    assert dump(ns) == edited
    adopted = run(ns, tmp_path, "lab-sender", "apply", QOSC_ADOPT="1")
    assert adopted.returncode == 0 and dump(ns) != edited and "1:11" in dump(ns)


# -- issue 26: a tc call that fails transiently is an error, never "nothing there" ------------------------------

def flaky_tc(tmp_path: Path, fail_at: int) -> str:
    """A PATH whose `tc` is the real one, except that its `fail_at`-th call fails once, as a busy kernel would
    (RTNETLINK EAGAIN); every other tool is the real one.  The calls are counted in tmp_path/tc-calls."""
    bin_dir = tmp_path / f"flaky-{fail_at}"
    bin_dir.mkdir(exist_ok=True)
    count = tmp_path / "tc-calls"
    count.unlink(missing_ok=True)
    shim = bin_dir / "tc"
    shim.write_text(f'#!/bin/sh\nn=$(( $(cat {count} 2>/dev/null || echo 0) + 1 ))\necho "$n" > {count}\n'
                    f'if [ "$n" = {fail_at} ]; then\n'
                    f'    echo "RTNETLINK answers: Resource temporarily unavailable" >&2\n    exit 2\nfi\n'
                    f'exec {shutil.which("tc")} "$@"\n')
    shim.chmod(0o755)
    return f"{bin_dir}:{os.environ['PATH']}"


def calls(tmp_path: Path) -> int:
    return int((tmp_path / "tc-calls").read_text())


def foreign_htb(ns: str) -> str:
    subprocess.run(["ip", "netns", "exec", ns, "tc", "qdisc", "add", "dev", "qv0", "root", "handle", "1:", "htb",
                    "default", "7"], check=True)
    subprocess.run(["ip", "netns", "exec", ns, "tc", "class", "add", "dev", "qv0", "parent", "1:", "classid", "1:7",
                    "htb", "rate", "3mbit"], check=True)
    return dump(ns)


@pytest.mark.parametrize("fail_at", [1, 2, 3])
def test_a_failed_tc_call_never_deletes_a_foreign_root(ns: str, tmp_path: Path, fail_at: int) -> None:
    """The first root probe failing (stderr to /dev/null) read as "no root qdisc": the removal step probed again,
    deleted another tool's HTB root 1:, installed qosc's tree and exited 0."""
    foreign = foreign_htb(ns)
    up = run(ns, tmp_path, "lab-router", "apply", PATH=flaky_tc(tmp_path, fail_at))
    assert up.returncode != 0, (up.returncode, up.stderr)
    assert dump(ns) == foreign, up.stderr
    if fail_at == 1:
        assert up.returncode == 2 and "cannot read the qdiscs of qv0" in up.stderr, up.stderr
        assert "Resource temporarily unavailable" in up.stderr and "nothing changed" in up.stderr, up.stderr
    down = run(ns, tmp_path, "lab-router", "teardown", PATH=flaky_tc(tmp_path, fail_at))
    assert dump(ns) == foreign, down.stderr
    assert down.returncode != 0 if fail_at == 1 else down.returncode == 0, (down.returncode, down.stderr)


def test_a_failed_probe_in_teardown_keeps_the_records(ns: str, tmp_path: Path) -> None:
    """Teardown read a failed probe as "nothing installed" and deleted its records: the tree it had installed was
    then foreign to qosc, left in place by every later teardown."""
    assert run(ns, tmp_path, "lab-router", "apply").returncode == 0
    installed = dump(ns)
    down = run(ns, tmp_path, "lab-router", "teardown", PATH=flaky_tc(tmp_path, 1))
    assert down.returncode == 2 and "cannot read the qdiscs of qv0" in down.stderr, (down.returncode, down.stderr)
    assert dump(ns) == installed
    again = run(ns, tmp_path, "lab-router", "teardown")
    assert again.returncode == 0, again.stderr
    assert "htb" not in dump(ns)


def test_teardown_leaves_a_root_replaced_since_qosc_applied_it(ns: str, tmp_path: Path) -> None:
    """The record names the tree qosc installed; an HTB root 1: put there since by another tool is not it."""
    assert run(ns, tmp_path, "lab-router", "apply").returncode == 0
    subprocess.run(["ip", "netns", "exec", ns, "tc", "qdisc", "del", "dev", "qv0", "root"], check=True)
    foreign = foreign_htb(ns)
    down = run(ns, tmp_path, "lab-router", "teardown")
    assert down.returncode == 4 and "changed since qosc applied it" in down.stderr, (down.returncode, down.stderr)
    assert dump(ns) == foreign
    adopted = run(ns, tmp_path, "lab-router", "teardown", QOSC_ADOPT="1")
    assert adopted.returncode == 0 and "htb" not in dump(ns), adopted.stderr


@pytest.mark.slow
def test_any_one_failed_tc_call_leaves_a_tree_qosc_can_still_manage(ns: str, tmp_path: Path) -> None:
    """qosc's tree installed, another policy applied while each tc call in turn fails once: the wrapper either
    succeeds, or fails saying so with the interface as it was; either way a plain apply and teardown then work
    (the records are never left naming a tree that is not there, or losing one that is)."""
    assert run(ns, tmp_path, "lab-router", "apply").returncode == 0
    before = dump(ns)
    assert run(ns, tmp_path, "lab-sender", "apply", PATH=flaky_tc(tmp_path, 10_000)).returncode == 0
    total = calls(tmp_path)
    assert run(ns, tmp_path, "lab-router", "apply").returncode == 0 and dump(ns) == before
    for fail_at in range(1, total + 1):
        up = run(ns, tmp_path, "lab-sender", "apply", PATH=flaky_tc(tmp_path, fail_at))
        now = dump(ns)
        if up.returncode == 0:
            assert "1:11" in now and "1:13" not in now, (fail_at, up.stderr)
        else:
            assert up.returncode in (1, 2), (fail_at, up.returncode, up.stderr)
            assert now == before, (fail_at, up.stderr)
        back = run(ns, tmp_path, "lab-router", "apply")
        assert back.returncode == 0 and dump(ns) == before, (fail_at, up.returncode, up.stderr, back.stderr)
    down = run(ns, tmp_path, "lab-router", "teardown")
    assert down.returncode == 0 and "htb" not in dump(ns), down.stderr


def test_any_one_failed_tc_call_in_teardown_keeps_the_tree_and_its_records(ns: str, tmp_path: Path) -> None:
    """Each tc call of a teardown failing once in turn: it removes the tree, or fails saying so with the tree and
    the records as they were, so that a plain teardown then removes it."""
    assert run(ns, tmp_path, "lab-router", "apply").returncode == 0
    installed = dump(ns)
    assert run(ns, tmp_path, "lab-router", "teardown", PATH=flaky_tc(tmp_path, 10_000)).returncode == 0
    total = calls(tmp_path)
    for fail_at in range(1, total + 1):
        assert run(ns, tmp_path, "lab-router", "apply").returncode == 0 and dump(ns) == installed
        down = run(ns, tmp_path, "lab-router", "teardown", PATH=flaky_tc(tmp_path, fail_at))
        if down.returncode != 0:
            assert down.returncode in (1, 2) and dump(ns) == installed, (fail_at, down.returncode, down.stderr)
            assert run(ns, tmp_path, "lab-router", "teardown").returncode == 0, fail_at
        assert "htb" not in dump(ns), (fail_at, down.returncode, down.stderr)


# -- issue 25: kill -9 of the device script at any tc call ------------------------------------------------------

KILL = shutil.which("kill") or "/bin/kill"
"""procps kill (the shells' builtins do not all take a process group)."""


def killing_tc(tmp_path: Path, kill_at: int) -> str:
    """A PATH whose `tc` is the real one, except that its `kill_at`-th call kills (SIGKILL) the whole process
    group it runs in (the script, the tc it runs, a scratch namespace's shell), as kill -9 of the apply would,
    before it runs; every other tool is the real one.  The calls are counted in tmp_path/tc-calls."""
    bin_dir = tmp_path / f"kill-{kill_at}"
    bin_dir.mkdir(exist_ok=True)
    count = tmp_path / "tc-calls"
    count.unlink(missing_ok=True)
    shim = bin_dir / "tc"
    shim.write_text(f'#!/bin/sh\nn=$(( $(cat {count} 2>/dev/null || echo 0) + 1 ))\necho "$n" > {count}\n'
                    f'if [ "$n" = {kill_at} ]; then\n    set -- $(cat /proc/$$/stat)\n    {KILL} -s KILL -- "-$5"\nfi\n'
                    f'exec {shutil.which("tc")} "$@"\n')
    shim.chmod(0o755)
    return f"{bin_dir}:{os.environ['PATH']}"


def run_killable(ns: str, tmp_path: Path, device: str, action: str, **env: str) -> subprocess.CompletedProcess:
    """`run`, in a process group of its own (what `killing_tc` kills)."""
    base = {"QOSC_STATE_DIR": str(tmp_path / "state"), "PATH": os.environ["PATH"]}
    assignments = [f"{k}={v}" for k, v in {**base, **env}.items()]
    return subprocess.run(["ip", "netns", "exec", ns, "env", "-i", *assignments, shutil.which("sh") or "/bin/sh",
                           str(tmp_path / device / "qosc-tc.sh"), action, "eth0", "qv0"], capture_output=True,
                          text=True, check=False, start_new_session=True)


@pytest.mark.parametrize("action", ["apply", "teardown"])
def test_kill_9_at_any_tc_call_leaves_a_tree_qosc_can_still_manage(ns: str, tmp_path: Path, action: str) -> None:
    """qosc's tree installed beside a foreign ingress qdisc and filter; another policy applied (or the tree torn
    down) while kill -9 hits the script at each tc call in turn.  Whatever it left (the old tree, the new one, no
    root, a half-applied batch), the foreign qdisc and its filter are still there, and qosc can still manage the
    interface: a plain apply restores the old tree exactly, or refuses to replace a root its records do not name
    (exit 4, nothing touched) until QOSC_ADOPT=1 takes it over; a teardown then removes it."""
    for cmd in ("qdisc add dev qv0 ingress",
                "filter add dev qv0 parent ffff: protocol ip prio 50 u32 match ip dst 198.18.0.1/32 flowid 1:1"):
        subprocess.run(["ip", "netns", "exec", ns, "tc", *cmd.split()], check=True)
    assert run(ns, tmp_path, "lab-router", "apply").returncode == 0
    before = dump(ns)
    assert '"kind":"htb"' in before and "c6120001" in before
    other = "lab-sender" if action == "apply" else "lab-router"
    done = run(ns, tmp_path, other, action, PATH=killing_tc(tmp_path, 10_000))
    assert done.returncode == 0, done.stderr
    total = calls(tmp_path)
    assert run(ns, tmp_path, "lab-router", "apply").returncode == 0 and dump(ns) == before
    refused = 0
    for kill_at in range(1, total + 1):
        killed = run_killable(ns, tmp_path, other, action, PATH=killing_tc(tmp_path, kill_at))
        assert killed.returncode in (-9, 137), (kill_at, killed.returncode, killed.stderr)
        assert "c6120001" in dump(ns), kill_at  # the foreign ingress qdisc and its filter
        back = run(ns, tmp_path, "lab-router", "apply")
        if back.returncode == 4:  # a root its records do not name: left as it was
            assert "changed since qosc applied it" in back.stderr, (kill_at, back.stderr)
            refused += 1
            back = run(ns, tmp_path, "lab-router", "apply", QOSC_ADOPT="1")
        assert back.returncode == 0 and dump(ns) == before, (kill_at, back.returncode, back.stderr)
    down = run(ns, tmp_path, "lab-router", "teardown")
    assert down.returncode == 0 and '"kind":"htb"' not in dump(ns) and "c6120001" in dump(ns), down.stderr
    print(f"\n{action}: killed at each of {total} tc calls; {refused} left a root the records do not name")
