"""`qosc push` and `qosc verify --from-device` without the `push` extra: say what to install, exit 2, no traceback.

The libraries are hidden from a real `python -m qosc` by a sitecustomize module that refuses to import them
(a sys.meta_path finder), as on a machine where `pip install qosc` was run without `[push]`.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
POLICY = str(ROOT / "policies" / "assured-rate.yaml")

BLOCKER = """\
import sys


class _Hidden:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in {hidden!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None


sys.meta_path.insert(0, _Hidden())
"""


def run(tmp_path: Path, hidden: set[str], *args: str) -> subprocess.CompletedProcess[str]:
    site = tmp_path / "site"
    site.mkdir(exist_ok=True)
    (site / "sitecustomize.py").write_text(BLOCKER.format(hidden=sorted(hidden)))
    env = {**os.environ, "PYTHONPATH": f"{site}{os.pathsep}{ROOT}", "QOSC_USER": "nobody",
           "QOSC_KNOWN_HOSTS": os.devnull}
    return subprocess.run([sys.executable, "-m", "qosc", *args], capture_output=True, text=True, env=env,
                          timeout=120, check=False)


EXTRA = {"paramiko", "ncclient", "netmiko", "ciscoconfparse2", "lxml"}
CASES = [  # (command, hidden, what it says is missing (and for which devices))
    (["push", POLICY], EXTRA, "(missing: ciscoconfparse2, lxml, ncclient, netmiko, paramiko)"),
    (["push", POLICY], {"ncclient"}, "(missing: ncclient, needed for edge-mx, core-m)"),
    (["push", POLICY, "--device", "asr-1"], {"netmiko", "lxml"}, "(missing: netmiko, needed for asr-1)"),
    (["verify", POLICY, "--from-device", "edge-mx"], EXTRA, "(missing: ciscoconfparse2, lxml, ncclient, netmiko, "
     "paramiko)"),
    (["verify", POLICY, "--from-device", "edge-mx"], {"lxml"}, "(missing: lxml, needed for edge-mx)"),
    (["verify", POLICY, "--from-device", "gsr-2"], {"ciscoconfparse2"}, "(missing: ciscoconfparse2, needed for "
     "gsr-2)"),
]


@pytest.mark.parametrize("command, hidden, said", CASES, ids=range(len(CASES)))
def test_without_the_push_extra_it_says_what_to_install(tmp_path: Path, command: list[str], hidden: set[str],
                                                        said: str) -> None:
    proc = run(tmp_path, hidden, *command)
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr and "ModuleNotFoundError" not in proc.stderr, proc.stderr[-2000:]
    assert f"qosc {command[0]}: the push extra is not installed {said}; install it: pip install 'qosc[push]'\n" \
        in proc.stderr, proc.stderr


def test_a_device_whose_driver_has_what_it_needs_is_not_refused(tmp_path: Path) -> None:
    """A JUNOS device needs neither netmiko nor ciscoconfparse2: the push goes on (and fails to reach the box)."""
    proc = run(tmp_path, {"netmiko", "ciscoconfparse2"}, "push", POLICY, "--device", "edge-mx", "--rpc-timeout", "2",
               "-q")
    assert proc.returncode == 1 and "pip install" not in proc.stderr and "Traceback" not in proc.stderr, \
        proc.stderr[-2000:]
    assert "edge-mx" in proc.stdout and "failed" in proc.stdout, proc.stdout
