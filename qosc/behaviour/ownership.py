"""Whose are the objects on a device that the policy's compile does not make (verify, issue 22).

qosc keeps no mark of its own on a device, so it tells by what else is there: where at least half the objects
the policy compiles to are on the device, qosc configured it and the others are stale (QOS178); where none is,
qosc has not pushed to it yet (a takeover) and they are someone else's (QOS205, information); in between it
cannot tell, and says so (QOS178).  Ports do not count: a port is there whoever configured it.
"""

from __future__ import annotations

from qosc.behaviour.compare import Finding
from qosc.behaviour.model import Device

STALE, OTHERS, UNSURE = "stale object:", "someone else's object:", "stale or someone else's object:"
"""What verify says of an object in the hierarchies qosc owns that the policy's compile does not make."""


def ownership(compiled: Device, running: Device) -> str:
    """Whether qosc configured the device: 'qosc' (at least half the objects the policy compiles to are there: the
    rest is drift), 'takeover' (none is: the device was configured by someone else, qosc has not pushed to it yet)
    or 'unknown' (a few are: an older push, or someone else's objects that happen to share qosc's names; qosc
    keeps no mark of its own on the device)."""
    # a port is there whoever configured it: only what qosc names counts
    produced = {(kind, name) for kind, name, _ in compiled.owned if kind != "interface"}
    shared = produced & {(kind, name) for kind, name, _ in running.owned}
    if not produced or 2 * len(shared) >= len(produced):
        return "qosc"
    return "unknown" if shared else "takeover"


def stale(compiled: Device, running: Device) -> list[Finding]:
    """Objects on the device, in what qosc owns, that the policy's compile does not make: stale where qosc
    configured the device, someone else's where it did not (a takeover), and said so where qosc cannot tell."""
    produced = {(kind, name) for kind, name, _ in compiled.owned}
    what = {"qosc": STALE, "takeover": OTHERS, "unknown": UNSURE}[ownership(compiled, running)]
    return [Finding(running.name, "", f"{kind} {name}", what, "absent", "present", None, where)
            for kind, name, where in running.owned if (kind, name) not in produced]
