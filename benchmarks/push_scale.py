#!/usr/bin/env python3
"""Push one policy to 100 simulated IOS devices with 1 and with 20 workers; print one summary line.

The devices are FakeNOS cisco_ios hosts extended into the IOS config-mode
simulator of tests/push/ios_sim.py, served by a separate process on
127.0.0.1 (ports from --base-port).  Each run starts from fresh devices and
does a full `qosc push --commit` in-process through the runner: connect, enable,
show running-config, plan, copy running-config to flash, apply (about a dozen
commands), verify, copy running-config startup-config.

Output: devices per second with 1 worker and with N workers, and the speedup.
"""

from __future__ import annotations

import argparse
import logging
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from qosc.push import runner  # noqa: E402
from qosc.push.base import Status  # noqa: E402

SERVICES = """\
qosc: 1
name: scale
services:
  best-effort: {kind: best-effort, default: true, queue: {share: 60%, priority: high}}
  ip-premium: {kind: premium, queue: {share: 10%, priority: high, strict: true, rate-cap: 10%}}
  lbe: {kind: lbe, queue: {share: 1%, priority: low}}
devices:
"""


def free_range(count: int) -> int:
    for base in range(20000, 60000, 997):
        ok = True
        for port in range(base, base + count):
            with socket.socket() as s:
                try:
                    s.bind(("127.0.0.1", port))
                except OSError:
                    ok = False
                    break
        if ok:
            return base
    raise SystemExit("push_scale: no free port range on 127.0.0.1")


def serve(count: int, base: int, password: str) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, str(ROOT / "tests" / "push" / "ios_sim.py"), "--hosts", str(count),
                             "--base-port", str(base)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True,
                            env={**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'tests'}"})
    proc.stdin.write(password + "\n")
    proc.stdin.flush()
    line = proc.stdout.readline()
    if not line.startswith("READY"):
        proc.kill()
        raise SystemExit("push_scale: the IOS simulator did not start")
    return proc


def one_run(count: int, workers: int, tmp: Path) -> float:
    password = "Bench-pa55"
    base = free_range(count)
    names = [f"r{i:03d}" for i in range(count)]
    policy = tmp / f"scale-{workers}.yaml"
    policy.write_text(SERVICES + "".join(
        f"  {n}:\n    platform: ios-xe\n    address: 127.0.0.1\n    interfaces:\n"
        f"      GigabitEthernet0/0/0: {{role: core, speed: 1G}}\n" for n in names))
    from push.ios_sim import IosLab
    known = tmp / f"known_hosts-{workers}"
    known.write_text("".join(IosLab.host_key_line("127.0.0.1", base + i) for i in range(count)))
    os.environ.update({"QOSC_USER": "netops", "QOSC_PASSWORD": password, "QOSC_KNOWN_HOSTS": str(known),
                       "HOME": str(tmp)})
    for i, n in enumerate(names):
        os.environ[f"QOSC_PORT_{n.upper()}"] = str(base + i)
    jobs, diags = runner.plan([str(policy)])
    if len(jobs) != count:
        raise SystemExit(f"push_scale: expected {count} jobs, got {len(jobs)}: {diags[:3]}")
    server = serve(count, base, password)
    try:
        start = time.monotonic()
        results = runner.run(jobs, runner.Options(commit=True, workers=workers, progress=False))
        elapsed = time.monotonic() - start
    finally:
        server.kill()  # a simulator: no need to wait for FakeNOS's orderly shutdown of 100 servers
        server.wait(30)
    bad = [r for r in results if r.status is not Status.CHANGED]
    if bad:
        raise SystemExit(f"push_scale: {len(bad)} devices did not change: {bad[0].stage}: {bad[0].error}")
    return count / elapsed


def main() -> int:
    logging.getLogger("paramiko").setLevel(logging.CRITICAL)  # connection-reset chatter at teardown
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--devices", type=int, default=100)
    ap.add_argument("--workers", type=int, default=20)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="qosc-push-scale-") as tmp:
        serial = one_run(args.devices, 1, Path(tmp))
        parallel = one_run(args.devices, args.workers, Path(tmp))
    print(f"push_scale: {args.devices} simulated IOS devices: 1 worker {serial:.2f} devices/s, "
          f"{args.workers} workers {parallel:.2f} devices/s, speedup {parallel / serial:.1f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
