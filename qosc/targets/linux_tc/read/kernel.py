"""What a Linux kernel shows for a tc batch: load it on a veth in a scratch network namespace, `tc -j` dump it.

The in-memory batch is what qosc wants the kernel to hold, not what it
holds: round trips and read-back tests load it for real (root, `ip`, `tc`)
and read the kernel's own JSON (`tc -j qdisc/class/filter show`).  The
namespace is made for the call and deleted after it; nothing leaves it.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
import uuid
from pathlib import Path

from qosc.errors import VerificationUnavailable


class NoKernel(RuntimeError, VerificationUnavailable):
    """This machine cannot load a tc batch into a scratch namespace (not root, no ip/tc, no netns)."""


class Refused(NoKernel):
    """This machine's kernel refused the batch (a qdisc or action kind it cannot load: domain.md 4.4)."""


def available() -> str | None:
    """Why a batch cannot be loaded here, or None when it can."""
    if os.geteuid() != 0:
        return "needs root for a scratch network namespace"
    if shutil.which("tc") is None or shutil.which("ip") is None:
        return "needs ip and tc (iproute2)"
    return None


def dump(batch: str) -> str:
    """Load `batch` (its `dev NAME` devices become veths of those names) in a fresh namespace and return
    `tc -j qdisc show`, `class show` and `filter show` of its first device, concatenated."""
    why = available()
    if why is not None:
        raise NoKernel(why)
    devs = list(dict.fromkeys(re.findall(r"\bdev (\S+)", batch)))
    if not devs:
        raise NoKernel("the batch names no device")
    ns = f"qosc-rt-{uuid.uuid4().hex[:8]}"
    if subprocess.run(["ip", "netns", "add", ns], check=False, capture_output=True).returncode != 0:
        raise NoKernel("cannot make a network namespace here")
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for i, dev in enumerate(devs):
                subprocess.run(["ip", "-n", ns, "link", "add", dev, "type", "veth", "peer", "name", f"qp{i}"],
                               check=True, capture_output=True)
            path = Path(tmp) / "batch.tc"
            path.write_text(batch, encoding="utf-8")
            loaded = subprocess.run(["ip", "netns", "exec", ns, "tc", "-batch", str(path)], check=False,
                                    capture_output=True, text=True)
            if loaded.returncode != 0:
                raise Refused(_refusal(batch, loaded.stderr))
            return "".join(subprocess.run(["ip", "netns", "exec", ns, "tc", "-j", kind, "show", "dev", devs[0]],
                                          check=True, capture_output=True, text=True).stdout
                           for kind in ("qdisc", "class", "filter"))
    finally:
        subprocess.run(["ip", "netns", "del", ns], check=False, capture_output=True)


def _refusal(batch: str, stderr: str) -> str:
    """tc -batch's complaint in one line: the batch line it stopped at and the kernel's words."""
    words, number = [], 0
    for line in stderr.splitlines():
        m = re.match(r"^Command failed .*:(\d+)\s*$", line)
        if m:
            number = int(m.group(1))
        elif line.strip() and not line.startswith(("RED: WARNING", "Warning")):
            words.append(line.strip().removeprefix("Error: ").rstrip("."))
    lines = batch.splitlines()
    where = f" at batch line {number} ({lines[number - 1].strip()})" if 0 < number <= len(lines) else ""
    return f"tc refused the batch{where}: {'; '.join(words) or 'no reason given'}"
