"""Push compiled configuration to devices: `qosc push` and the library behind it.

The NAPALM-style contract (base.py) -- open, load, compare, commit with a
confirm timeout, verify, confirm, or discard / roll back -- implemented by:

- netconf.py  NETCONF (ncclient): the JUNOS RPC path or the RFC 6241 path, chosen
              from the server's capabilities; the junos target package gives it its
              text and XML forms (qosc/targets/junos/push/, yang/qosc-junos-qos.yang);
              ncsession.py logs in (keys before password) within a deadline and
              watches each request; ncsettle.py reads the outcome back from the
              device after a lost reply;
- ios.py      Cisco IOS (ios-mqc, catalyst6500) over SSH (netmiko), diffing the
              qosc-owned sections with ciscoconfparse2;
- linux.py    Linux tc locally or over SSH (the system ssh client).

runner.py compiles the policies into jobs, pushes them over N workers with
progress on stderr, and renders the per-device table and the JSON report.
credentials.py resolves how to log in (environment, SSH agent, ssh config --
never the policy) and keeps secrets out of every message.

Without --commit a push is a dry run: everything up to the device's diff, then
discard.  The push libraries (ncclient, netmiko, ciscoconfparse2) are the
`push` extra: pip install 'qosc[push]'; `missing` says which of them are not
installed before anything imports them (push and verify --from-device then
say what to install and exit 2, rather than end in a traceback).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterable
from typing import Any

NEEDED = ("paramiko",)
"""What every push imports (qosc.push.credentials reads ssh config with it); it comes with the `push` extra
(ncclient and netmiko require it).  A target's driver adds its own: Target.driver_needs."""

INSTALL = "pip install 'qosc[push]'"


def missing(modules: Iterable[str]) -> list[str]:
    """Those of `modules` that cannot be imported here, sorted (found without importing them)."""
    gone = set()
    for name in modules:
        try:
            if importlib.util.find_spec(name) is None:
                gone.add(name)
        except (ImportError, ValueError):
            gone.add(name)
    return sorted(gone)


class NotInstalled(Exception):
    """Modules of the push extra are missing; the message says which, for which devices, and what to install."""


def require(command: str, jobs: Iterable[Any] | None = None) -> None:
    """Raise NotInstalled unless what `command` needs of the push extra is installed.

    Without `jobs`: what every push needs (and then every module of the extra that is missing is named);
    with them (qosc.push.base.Job): what their targets' drivers need, with the devices that need it.
    """
    line = _refusal(command, jobs)
    if line:
        raise NotInstalled(line)


def _refusal(command: str, jobs: Iterable[Any] | None) -> str | None:
    from qosc.targets.registry import targets

    if jobs is None:
        if not missing(NEEDED):
            return None
        gone = missing({*NEEDED, *(m for t in targets().values() for m in t.driver_needs)})
        return f"qosc {command}: the push extra is not installed (missing: {', '.join(gone)}); install it: {INSTALL}"
    needs: dict[str, list[str]] = {}
    for job in jobs:
        for module in targets()[job.target].driver_needs:
            needs.setdefault(module, []).append(job.device)
    gone = missing(needs)
    if not gone:
        return None
    devices = ", ".join(dict.fromkeys(d for m in gone for d in needs[m]))
    return (f"qosc {command}: the push extra is not installed (missing: {', '.join(gone)}, needed for {devices}); "
            f"install it: {INSTALL}")
