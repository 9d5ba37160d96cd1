"""qosc verify on Linux against the policy's own compile: the compiled batch loaded in a scratch network
namespace and dumped like the device's (so HTB classes qosc no longer produces are stale), and, where no
namespace can be made, a QOS182 note and a comparison with the policy alone."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from qosc.behaviour.roundtrip import ROOT
from qosc.targets.linux_tc.read import kernel

DATA = Path(__file__).parent / "data"
POLICY = str(ROOT / "policies" / "four-service-linux.yaml")
EXTRA = "class htb 1:99 parent 1:1 leaf 99: prio 3 rate 5Mbit ceil 100Mbit burst 1600b cburst 14000b \n"
needs_kernel = pytest.mark.skipif(kernel.available() is not None,
                                  reason=f"scratch network namespace: {kernel.available()}")


def qosc(*args: str, path: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    if path is not None:
        env["PATH"] = path
    return subprocess.run([sys.executable, "-m", "qosc", *args], capture_output=True, text=True, env=env,
                          check=False, cwd=ROOT)


def device_dump(tmp_path: Path, extra: str = "") -> Path:
    """The kernel's dump of the policy's eth0 (data/four-service-eth0.dump), with `extra` class lines."""
    text = (DATA / "four-service-eth0.dump").read_text()
    head, sep, rest = text.partition("\nclass htb 1:11 ")
    path = tmp_path / "eth0.json"
    path.write_text(head + "\n" + extra + sep.lstrip("\n") + rest)
    return path


@needs_kernel
def test_verify_reads_the_compiled_batch_back_and_reports_stale_classes(tmp_path: Path) -> None:
    clean = qosc("verify", POLICY, "--config", f"lab-router={device_dump(tmp_path)}")
    assert clean.returncode == 0 and "QOS182" not in clean.stderr and "QOS178" not in clean.stderr, clean.stderr
    dump = device_dump(tmp_path, EXTRA)
    run = qosc("verify", POLICY, "--config", f"lab-router={dump}")
    out = run.stdout + run.stderr
    # an HTB class the policy's compile does not make: stale, a warning at its line of the dump
    assert run.returncode == 0 and "warning[QOS178]" in out and "htb class eth0 1:99: stale object" in out, out
    assert f"{dump}:2" in out, out
    assert "QOS182" not in out, out


def test_verify_without_namespaces_compares_with_the_policy_and_says_so(tmp_path: Path) -> None:
    """No ip or tc on PATH: the compiled batch cannot be loaded; verify still compares, with a QOS182 note."""
    dump = device_dump(tmp_path, EXTRA)
    run = qosc("verify", POLICY, "--config", f"lab-router={dump}", path=str(tmp_path))
    out = run.stdout + run.stderr
    assert run.returncode == 0, out
    assert "info[QOS182]" in out and "stale objects are not detected" in out, out
    assert "QOS178" not in out  # without the compiled tree, nothing says what qosc would still make
    drifted = device_dump(tmp_path).read_text().replace("rate 1Mbit ceil 100Mbit", "rate 3Mbit ceil 100Mbit")
    (tmp_path / "eth0.json").write_text(drifted)
    bad = qosc("verify", POLICY, "--config", f"lab-router={tmp_path / 'eth0.json'}", path=str(tmp_path))
    assert bad.returncode == 1 and "lab-router:eth0: lbe: share 1% expected, 3% found" in bad.stdout + bad.stderr


@needs_kernel
def test_verify_where_this_kernel_refuses_the_batch_says_so(tmp_path: Path) -> None:
    """assured-rate's linux-gw uses red, which this project's lab kernels cannot load (domain.md 4.4): the
    comparison falls back to the policy alone, and the note names the batch line the kernel refused."""
    from qosc.behaviour.roundtrip import load, outputs

    batch = next(o.text for o in outputs(load("assured-rate.yaml"), "linux-gw") if o.path.endswith("eth0.tc"))
    try:
        kernel.dump(batch)
    except kernel.Refused:
        pass
    else:
        pytest.skip("this kernel loads red: nothing refuses the batch")
    run = qosc("verify", str(ROOT / "policies" / "assured-rate.yaml"), "--config",
               f"linux-gw={DATA / 'four-service-eth0.dump'}")
    out = run.stdout + run.stderr
    note = ("info[QOS182]: linux-gw: the policy's own compile cannot be read back here (tc refused the batch at "
            "batch line 4 (qdisc add dev eth0 parent 1:10 handle 10: red limit")
    assert note in out, out


@needs_kernel
def test_verify_reports_a_queue_another_hand_resized(tmp_path: Path) -> None:
    """Buffers were not compared: EF's bfifo back at its pre-issue-17 25,000 bytes (the link rate's 2 ms) passed.
    The policy gives EF's buffer in time, the box in bytes: verify compares them with its own compile's dump."""
    dump = device_dump(tmp_path)
    text = dump.read_text()
    ef = '"parent":"1:10","options":{"limit":'
    assert ef + "3028}" in text
    dump.write_text(text.replace(ef + "3028}", ef + "25000}"))
    run = qosc("verify", POLICY, "--config", f"lab-router={dump}")
    out = run.stdout + run.stderr
    assert run.returncode == 1 and "1:10: buffer 3028 B expected, 25000 B found" in out, out
